"""What a lesson import reports: the problems found in the files, and the rows it changed."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from quizzes.content import cues


@dataclass(frozen=True)
class ContentProblem:
    """One thing wrong with the files, located precisely enough to fix without searching."""

    file: str
    message: str
    lesson: str | None = None
    question: str | None = None
    option: str | None = None
    section: str | None = None  # a teaching section's key

    def __str__(self) -> str:
        where = [self.file]
        if self.lesson:
            where.append(f"lesson '{self.lesson}'")
        if self.section:
            where.append(f"section '{self.section}'")
        if self.question:
            where.append(f"question '{self.question}'")
        if self.option:
            where.append(f"option '{self.option}'")
        return f"{', '.join(where)}: {self.message}"


class ContentError(Exception):
    """The files are not loadable; nothing was written."""

    def __init__(self, problems: Sequence[ContentProblem]):
        self.problems = list(problems)
        super().__init__("\n".join(str(p) for p in self.problems))


@dataclass(frozen=True)
class ContentConflict:
    """A row the files and the admin (or a generation job) both wrote since the last import.

    ``field`` is None for a key collision with nothing else to compare; otherwise it names the field,
    with the file's text and the one in the database (the admin's or the job's).
    """

    file: str
    row: str  # "question 'demo-mask'", "option 'demo-mask/a'", "lesson 'demo'"
    reason: str
    field: str | None = None
    file_text: str = ""
    admin_text: str = ""

    def __str__(self) -> str:
        head = f"{self.file}, {self.row}" + (f", field '{self.field}'" if self.field else "") + f": {self.reason}"
        if self.field is None:
            return head
        return f"{head}\n    file:  {self.file_text}\n    admin: {self.admin_text}"


class ContentConflictError(Exception):
    """The files and the admin both changed rows since the last import; nothing was written.

    Re-run with ``take_files`` (``--take-files``) or ``keep_admin`` (``--keep-admin``) to decide.
    """

    def __init__(self, conflicts: Sequence[ContentConflict]):
        self.conflicts = list(conflicts)
        super().__init__("\n".join(str(c) for c in self.conflicts))


@dataclass
class Counts:
    created: int = 0
    updated: int = 0
    unchanged: int = 0
    unpublished: int = 0
    deleted: int = 0

    def __str__(self) -> str:
        return ", ".join(f"{name} {value}" for name, value in vars(self).items())


@dataclass
class OptionCounts(Counts):
    retired: int = 0  # options retired by this load (removed from a file after learners saw them, or retired: true)


@dataclass
class LoadReport:
    lessons: Counts = field(default_factory=Counts)
    questions: Counts = field(default_factory=Counts)
    options: OptionCounts = field(default_factory=OptionCounts)
    files: list[str] = field(default_factory=list)
    written: bool = True
    cues: cues.LongestCorrectSummary | None = None  # rule (b) over the files' published choice questions

    @property
    def changed(self) -> bool:
        return self.options.retired > 0 or any(
            c.created or c.updated or c.unpublished or c.deleted for c in (self.lessons, self.questions, self.options)
        )

    def lines(self) -> list[str]:
        return [f"lessons: {self.lessons}", f"questions: {self.questions}", f"options: {self.options}"]
