"""Provenance in a lesson import: ``load_lessons`` writes only the rows the files own.

Every lesson, question and option has a ``source`` (quizzes.content.models.ContentSource): the files,
the admin, or a generation job. An import creates its rows as file rows and, for each field the files
manage, keeps ``import_hashes[field] = [hash of what the import left in the row, hash of what the file
said]``. At the next import, per field of a file row:

* the row still holds what the import left (not edited since): the file's value is written when the
  file changed since, else the row is left as it is;
* the row was edited (in the admin) and the file now says the same: nothing to decide;
* the row was edited and the file says otherwise: a **conflict** — the import stops and writes
  nothing, naming the row, the field and both texts, unless ``resolve`` says who wins:
  ``take-files`` writes the file's text, ``keep-admin`` keeps the row's (and the next import leaves it
  until the file changes that field again).

A question's lesson is settled the same way, by the lesson's key (``import_hashes["lesson"]``): a file question
moved to another lesson in the admin is an edit, and a conflict when the file still puts it elsewhere. (Deleting a
file row in the admin is refused there, quizzes.admin.provenance: a deleted row keeps no hashes to compare.)

A file key that names a row the admin or a job made (keys are unique across the bank) is a conflict
too: ``take-files`` makes the row a file row written from the file, ``keep-admin`` leaves it alone.
"""

from __future__ import annotations

import json
from typing import Any

from quizzes.content.models import ContentSource, Lesson, Question, field_hash
from quizzes.content.reader import LESSON_FIELDS, OPTION_FIELDS, QUESTION_FIELDS, Plan, Planned, PlannedQuestion
from quizzes.content.report import ContentConflict

TAKE_FILES = "take-files"
KEEP_ADMIN = "keep-admin"
RESOLUTIONS = (TAKE_FILES, KEEP_ADMIN)
LESSON = "lesson"  # a question's lesson key, hashed like a field (a move is an edit)


def _fields(instance: Any) -> tuple[str, ...]:
    if isinstance(instance, Lesson):
        return LESSON_FIELDS
    if isinstance(instance, Question):
        return QUESTION_FIELDS
    return OPTION_FIELDS


def _row(planned: Planned, question_key: str) -> str:
    instance = planned.instance
    if isinstance(instance, Lesson):
        return f"lesson '{instance.key}'"
    if isinstance(instance, Question):
        return f"question '{instance.key}'"
    return f"option '{question_key}/{instance.key}'"


def _text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)


def _owner_label(source: str) -> str:
    return "a generation job" if source == ContentSource.JOB else "the admin"


def _fresh_hashes(instance: Any, names: tuple[str, ...], placed: PlannedQuestion | None) -> dict[str, list[str]]:
    """The hashes of a row the import writes whole (new, or taken over by ``take-files``)."""
    hashes = {name: [field_hash(getattr(instance, name))] * 2 for name in names}
    if placed is not None:
        hashes[LESSON] = [field_hash(placed.lesson_key)] * 2
    return hashes


class _Resolver:
    """Applies the rules above to one plan, collecting the conflicts it cannot decide."""

    def __init__(self, resolve: str | None):
        self.resolve = resolve
        self.conflicts: list[ContentConflict] = []
        self.label = ""  # the row being settled, as a conflict names it

    def row(self, planned: Planned, question_key: str = "", placed: PlannedQuestion | None = None) -> bool:
        """Settle one planned row (``placed``: a question, whose lesson is settled too, by key); False when the row
        is the admin's or a job's and stays theirs."""
        self.label = _row(planned, question_key)
        instance = planned.instance
        names = _fields(instance)
        if planned.is_new:
            instance.source = ContentSource.FILE
            instance.import_hashes = _fresh_hashes(instance, names, placed)
            return True
        if instance.source != ContentSource.FILE:
            return self.collision(planned, names, placed)
        stored = instance.import_hashes or {}
        hashes: dict[str, list[str]] = {}
        for name in names:
            file_value = getattr(instance, name)
            final, hashes[name] = self.decide(planned, name, file_value, planned.before.get(name, file_value), stored)
            setattr(instance, name, final)
        if placed is not None:
            row_lesson = instance.lesson.key
            placed.lesson_key, hashes[LESSON] = self.decide(planned, LESSON, placed.lesson_key, row_lesson, stored)
            planned.moved = placed.lesson_key != row_lesson
        self.settle(planned, names, hashes)
        return True

    def decide(
        self, planned: Planned, name: str, file_value: Any, row_value: Any, stored: dict[str, list[str]]
    ) -> tuple[Any, list[str]]:
        """One field of a file row by the rules above: the value it ends with, and its new import hashes."""
        row_hash, file_hash = field_hash(row_value), field_hash(file_value)
        wrote, said = stored.get(name) or [row_hash, row_hash]  # never hashed: as if the import wrote it
        final = file_value
        if row_hash == wrote:  # not edited since the import
            if file_hash == said:
                final = row_value  # the file did not change: a kept admin text stays
        elif row_hash != file_hash:
            final = self.edited(planned, name, file_value, row_value)
        return final, [field_hash(final), file_hash]

    def edited(self, planned: Planned, name: str, file_value: Any, row_value: Any) -> Any:
        if self.resolve == TAKE_FILES:
            return file_value
        if self.resolve is None:
            reason = "edited in the admin since the last import, and the file says otherwise"
            if name == LESSON:
                reason = "moved to another lesson in the admin since the last import, and the file keeps it in its own"
            self.conflicts.append(
                ContentConflict(planned.file, self.label, reason, name, _text(file_value), _text(row_value))
            )
        return row_value

    def collision(self, planned: Planned, names: tuple[str, ...], placed: PlannedQuestion | None) -> bool:
        instance = planned.instance
        if self.resolve == TAKE_FILES:
            instance.source = ContentSource.FILE
            instance.import_hashes = _fresh_hashes(instance, names, placed)
            return True
        for name in names:  # keep-admin, or a conflict to report: the row keeps what it holds
            if name in planned.before:
                if self.resolve is None:
                    file_text, row_text = _text(getattr(instance, name)), _text(planned.before[name])
                    reason = f"the key names a row {_owner_label(instance.source)} made"
                    self.conflicts.append(ContentConflict(planned.file, self.label, reason, name, file_text, row_text))
                setattr(instance, name, planned.before[name])
        if self.resolve is None and not planned.before:
            reason = f"the key names a row {_owner_label(instance.source)} made (same content)"
            self.conflicts.append(ContentConflict(planned.file, self.label, reason))
        planned.changed = planned.retiring = False
        return False

    def settle(self, planned: Planned, names: tuple[str, ...], hashes: dict[str, list[str]]) -> None:
        """What the writer saves: the fields that end up different, or only the hashes."""
        instance = planned.instance
        planned.changed = planned.moved or any(
            name in planned.before and getattr(instance, name) != planned.before[name] for name in names
        )
        planned.retiring = planned.retiring and bool(getattr(instance, "retired", False))
        planned.hashes_only = not planned.changed and hashes != (instance.import_hashes or {})
        instance.import_hashes = hashes


def plan_ownership(plan: Plan, *, resolve: str | None = None) -> list[ContentConflict]:
    """Apply provenance to a plan the reader made from the files (module docstring), in place.

    Returns the conflicts ``resolve`` did not decide; the caller writes nothing when there are any.
    A question that stays the admin's or a job's leaves the plan, with its options.
    """
    if resolve is not None and resolve not in RESOLUTIONS:
        raise ValueError(f"resolve must be one of {RESOLUTIONS}, got {resolve!r}")
    resolver = _Resolver(resolve)
    for planned in plan.lessons:
        resolver.row(planned)
    kept = []
    for planned_question in plan.questions:
        if not resolver.row(planned_question.question, placed=planned_question):
            continue
        for planned_option in planned_question.options:
            resolver.row(planned_option, planned_question.question.instance.key)
        # options the file no longer lists: only the files' own go (an adopted question keeps the admin's)
        planned_question.delete = [o for o in planned_question.delete if o.source == ContentSource.FILE]
        planned_question.retire = [o for o in planned_question.retire if o.source == ContentSource.FILE]
        kept.append(planned_question)
    plan.questions = kept
    return resolver.conflicts


def edited_since_import(instance: Lesson | Question | Any) -> list[str]:
    """The file-managed fields of a file row that differ from what the last import left (an admin's edits)."""
    if instance.source != ContentSource.FILE or not instance.import_hashes:
        return []
    stored = instance.import_hashes
    values = {name: getattr(instance, name) for name in _fields(instance)}
    if isinstance(instance, Question):
        values[LESSON] = instance.lesson.key
    return [name for name, value in values.items() if name in stored and field_hash(value) != stored[name][0]]
