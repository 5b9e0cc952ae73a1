"""Importing a Moodle XML file into a lesson: ``lesson_moodle_import``, the service behind ``manage.py
import_moodle`` and the admin's import form.

Three steps, in one transaction; **nothing is written when any problem is found**:

1. read the file safely (quizzes.content.moodle.xmlfile: size, XML, no DTD or entities, ``<quiz>``);
2. map each ``<question>`` (quizzes.content.moodle.mapping): refused types and features are problems, unless
   ``skip_unsupported`` — then they are skipped and listed in the report;
3. validate the questions exactly as ``load_lessons`` validates a lesson file — the same reader
   (``LessonReader.read_question``: schema, ``full_clean()`` with the per-kind rules, the option rules, the
   answer-cue rules a and c, learners' history), the answer-cue rule b over the whole bank with the imported
   questions in it — and save them with the loader's writer (``content_plan_write``).

Keys (quizzes.content.moodle.keys): ``<lesson>-moodle-<slug of the idnumber or name>``, unique across the bank.
**Re-importing updates in place**: a key that exists as a question imported into this lesson is that question
(same id, learners' history kept; unchanged rows are not written); a key that exists otherwise (a question of
another lesson, or one not imported here) is a conflict, reported. An import never deletes a question: one
missing from the file stays as it is.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.db import IntegrityError, transaction

from quizzes.content import cues
from quizzes.content.models import Lesson
from quizzes.content.moodle.keys import imported_from_moodle, question_key
from quizzes.content.moodle.mapping import Mapped, map_question
from quizzes.content.moodle.xmlfile import MoodleError, MoodleProblem, read_questions
from quizzes.content.reader import LessonReader, Plan, Planned, PlannedQuestion
from quizzes.content.report import ContentProblem, LoadReport
from quizzes.content.selectors import published_choice_bank
from quizzes.content.writer import content_plan_write


@dataclass(frozen=True)
class Skipped:
    """A question the import left out (``skip_unsupported``), and why."""

    index: int
    name: str
    line: int | None
    reason: str

    def __str__(self) -> str:
        line = f"line {self.line}, " if self.line is not None else ""
        return f"{line}question #{self.index} '{self.name}': {self.reason}"


@dataclass
class MoodleImportReport:
    file: str
    lesson: str
    created: list[str] = field(default_factory=list)  # question keys
    updated: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # what was dropped or ignored, question by question
    load: LoadReport = field(default_factory=LoadReport)  # the writer's counts (options deleted, retired, …)

    @property
    def changed(self) -> bool:
        return bool(self.created or self.updated)

    def lines(self) -> list[str]:
        return [
            f"questions: created {len(self.created)}, updated {len(self.updated)}, unchanged {len(self.unchanged)}, "
            f"skipped {len(self.skipped)}",
            f"options: {self.load.options}",
        ]


class _Import:
    """One import's state: the file's questions, the reader that validates them, the problems found."""

    def __init__(self, *, lesson: Lesson, file: str, skip_unsupported: bool):
        self.lesson, self.file, self.skip_unsupported = lesson, file, skip_unsupported
        self.problems: list[MoodleProblem] = []
        self.report = MoodleImportReport(file=file, lesson=lesson.key)
        self.reader = LessonReader([])
        self.plan = Plan(lessons=[Planned(lesson, is_new=False, changed=False)])
        self.by_key: dict[str, Mapped] = {}
        orders = [q.order for q in self.reader.questions.values() if q.lesson_id == lesson.pk]
        self.next_order = max(orders, default=0) + 1

    def problem(
        self, mapped: Mapped | None, message: str, *, key: str | None = None, option: str | None = None
    ) -> None:
        source = mapped.source if mapped is not None else None
        self.problems.append(
            MoodleProblem(
                self.file,
                message,
                line=source.line if source else None,
                index=source.index if source else None,
                name=source.name if source else None,
                key=key,
            )
        )

    def note(self, mapped: Mapped, message: str) -> None:
        self.report.notes.append(f"question #{mapped.source.index} '{mapped.source.name}': {message}")

    def add(self, mapped: Mapped) -> None:
        """Read one question of the file into the plan, or note why not."""
        if mapped.category:
            self.report.notes.append(
                f"category '{mapped.category}' (question #{mapped.source.index}): not kept; its questions go into "
                f"lesson '{self.lesson.key}'"
            )
            return
        for message in mapped.problems:
            self.problem(mapped, message)
        if mapped.refused:
            if self.skip_unsupported:
                source = mapped.source
                self.report.skipped.append(Skipped(source.index, source.name, source.line, mapped.refused))
            else:
                self.problem(mapped, f"refused: {mapped.refused}")
            return
        key = self.key_of(mapped) if mapped.data is not None else None
        if key is None or mapped.data is None:
            return
        self.by_key[key] = mapped
        for message in mapped.notes:
            self.note(mapped, message)
        existing = self.reader.questions.get(key)
        position = existing.order if existing is not None else self.next_order
        if existing is None:
            self.next_order += 1
        self.reader.read_question(self.file, self.lesson.key, position, {"key": key, **mapped.data}, self.plan)

    def key_of(self, mapped: Mapped) -> str | None:
        """The question's key here, or None (reported): too long, taken by another question of the file, or a
        conflict with a question that was not imported into this lesson."""
        key = question_key(lesson_key=self.lesson.key, source=mapped.key_source)
        if key is None:
            self.problem(mapped, f"the lesson key '{self.lesson.key}' is too long to prefix imported questions' keys")
            return None
        if key in self.by_key:
            other = self.by_key[key].source
            self.problem(mapped, f"gets the same key as question #{other.index} '{other.name}': rename one", key=key)
            return None
        existing = self.reader.questions.get(key)
        if existing is not None and not imported_from_moodle(question=existing, lesson_key=self.lesson.key):
            self.problem(
                mapped,
                f"conflict: the key exists already, in lesson '{existing.lesson.key}', not from an import into "
                f"'{self.lesson.key}'; rename the question (or its idnumber)",
                key=key,
            )
            return None
        return key

    def reader_problems(self) -> None:
        """The reader's problems, located in the file (question # and name, the answer's position)."""
        for found in self.reader.problems:
            self.problems.append(self._located(found))

    def _located(self, found: ContentProblem) -> MoodleProblem:
        mapped = self.by_key.get(found.question or "")
        if mapped is None:
            return MoodleProblem(self.file, found.message)
        option = None
        if found.option and mapped.data is not None:
            keys = [o["key"] for o in mapped.data.get("options", [])]
            option = f"answer #{keys.index(found.option) + 1}" if found.option in keys else found.option
        source = mapped.source
        return MoodleProblem(
            self.file,
            found.message,
            line=source.line,
            index=source.index,
            name=source.name,
            key=found.question,
            option=option,
        )

    def bank_rule(self) -> None:
        """Answer-cue rule b over the bank with the imported questions in it (as load_lessons checks its files)."""
        bank = published_choice_bank()
        imported = set()
        for planned in self.plan.questions:
            question = planned.question.instance
            bank.pop(question.key, None)
            if question.kind == "choice" and question.published and self.lesson.published:
                bank[question.key] = [p.instance for p in planned.options if not p.instance.retired]
                imported.add(question.key)
        problem = cues.bank_longest_correct(bank).problem()
        if problem is not None and imported & set(problem.questions):
            self.problems.append(MoodleProblem(self.file, problem.message))

    def tally(self) -> None:
        for planned in self.plan.questions:
            key = planned.question.instance.key
            if planned.question.is_new:
                self.report.created.append(key)
            elif _changed(planned):
                self.report.updated.append(key)
            else:
                self.report.unchanged.append(key)


def _changed(planned: PlannedQuestion) -> bool:
    return (
        planned.question.changed
        or bool(planned.delete or planned.retire)
        or any(o.is_new or o.changed for o in planned.options)
    )


def lesson_moodle_import(
    *, lesson: Lesson, data: bytes, file: str, skip_unsupported: bool = False
) -> MoodleImportReport:
    """Import a Moodle XML file's questions into ``lesson`` (module docstring); MoodleError lists every problem."""
    questions = read_questions(data, file=file)
    try:
        with transaction.atomic():
            state = _Import(lesson=lesson, file=file, skip_unsupported=skip_unsupported)
            for source in questions:
                state.add(map_question(source))
            state.reader.moves_with_history(state.plan)  # key_of keeps keys in this lesson; the rule, once
            state.reader_problems()
            if not state.problems:
                state.bank_rule()
            if state.problems:
                raise MoodleError(sorted(state.problems, key=lambda p: p.index or 0))  # in the file's order
            state.tally()
            content_plan_write(plan=state.plan, report=state.report.load)
    except IntegrityError as exc:  # a concurrent import or edit saved one of these keys first: all rolled back
        message = "another change to these questions was saved meanwhile; nothing was written: import again"
        raise MoodleError([MoodleProblem(file, message)]) from exc
    return state.report
