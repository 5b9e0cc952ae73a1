"""Lesson import, phase 1: read the YAML files into a write plan, validating everything first.

Every problem is collected with its file, lesson, question and option key (file syntax, schema,
duplicate keys, ``full_clean()`` of every row including the numeric 50-seed check, the choice-option
rules, the answer-cue rules of quizzes.content.cues, and history conflicts). The option rules count the options a
file question will have after the import: the file's and those an admin added (which the import keeps). A
generated question names its source by key (``generated_from``), found in the files or the database once every
file is read. Nothing is written here: quizzes.content.writer saves the plan only when no problem was found.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypedDict

import yaml
from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models

from quizzes.content import cues
from quizzes.content.generation import generation_source_check
from quizzes.content.models import ContentSource, Lesson, Option, Question
from quizzes.content.pruning import missing_options
from quizzes.content.report import ContentProblem
from quizzes.content.schema import (
    LESSON_SCHEMA,
    OPTION_SCHEMA,
    QUESTION_SCHEMA,
    QUESTIONS,
    FileField,
    file_keys,
    kind_fields,
    managed_columns,
    read_value,
)
from quizzes.content.selectors import option_ids_shown_to_learners, questions_with_history
from quizzes.content.teaching import parse_teaching
from quizzes.content.validation import choice_options_problems
from quizzes.core.errors import DomainError

DEFAULT_LESSONS_DIR = Path(settings.BASE_DIR) / "fixtures" / "lessons"

# The files' keys and the columns they fill are quizzes.content.schema's (the dumper writes the same).
LESSON_KEYS = file_keys(LESSON_SCHEMA, QUESTIONS)
QUESTION_KEYS = file_keys(QUESTION_SCHEMA)
KIND_KEYS = kind_fields(QUESTION_SCHEMA)
OPTION_KEYS = file_keys(OPTION_SCHEMA)

LESSON_FIELDS = managed_columns(LESSON_SCHEMA)
QUESTION_FIELDS = managed_columns(QUESTION_SCHEMA)
OPTION_FIELDS = managed_columns(OPTION_SCHEMA)


class LessonYamlLoader(yaml.SafeLoader):
    """Safe YAML whose folded block scalars (``>``) keep their line breaks.

    YAML folds a line break into a space: right between English words, a stray space in Chinese
    ("……的形状。 学完能……"). Read as a literal block instead, the text reaches Markdown with its soft
    line breaks, which quizzes.core.rendering joins without a space next to CJK and with one between
    Latin words; a blank line stays a paragraph break.
    """

    def construct_scalar(self, node: yaml.ScalarNode | yaml.MappingNode) -> Any:
        if isinstance(node, yaml.ScalarNode) and node.style == ">" and node.start_mark.buffer:
            raw = node.start_mark.buffer[node.start_mark.index : node.end_mark.index]  # ">-\n  lines…"
            literal = yaml.safe_load("x: |" + raw[1:])
            if isinstance(literal, dict) and isinstance(literal.get("x"), str):
                return literal["x"]
        return super().construct_scalar(node)


class Where(TypedDict, total=False):
    """Where in the files a problem is: the lesson, question and option keys (ContentProblem's fields)."""

    lesson: str
    question: str
    option: str


@dataclass
class Planned:
    """A row to save (new or changed) or leave alone, with the problems context to report it."""

    instance: Any
    is_new: bool
    changed: bool
    retiring: bool = False  # an existing live option this load retires
    before: dict[str, Any] = field(default_factory=dict)  # the row's values of the fields the file changes
    file: str = ""
    moved: bool = False  # a question the file puts into another lesson
    hashes_only: bool = False  # only the import hashes change (quizzes.content.ownership)


@dataclass
class PlannedQuestion:
    question: Planned
    lesson_key: str
    options: list[Planned]  # the options in the file, in file order (live or retired: true)
    delete: list[Option]  # existing options missing from the file that no attempt showed
    retire: list[Option]  # existing live options missing from the file that attempts showed


@dataclass
class Plan:
    lessons: list[Planned] = field(default_factory=list)
    questions: list[PlannedQuestion] = field(default_factory=list)
    lesson_keys: set[str] = field(default_factory=set)
    question_keys: set[str] = field(default_factory=set)
    cues: cues.LongestCorrectSummary | None = None


def _assign(instance: Any, values: dict[str, Any]) -> dict[str, Any]:
    """Set fields; return the row's previous values of the fields that differ (empty: unchanged)."""
    before: dict[str, Any] = {}
    for name, value in values.items():
        if getattr(instance, name) != value:
            before[name] = getattr(instance, name)
            setattr(instance, name, value)
    return before


def _empty(column: str) -> Any:
    """A question column's empty value (what the kinds it does not apply to hold)."""
    model_field = Question._meta.get_field(column)
    assert isinstance(model_field, models.Field)
    return model_field.get_default()


def _messages(error: ValidationError) -> list[str]:
    if hasattr(error, "error_dict"):
        return [f"{name}: {message}" for name, messages in error.message_dict.items() for message in messages]
    return list(error.messages)


class LessonReader:
    """Reads one directory of lesson files into a write plan, collecting every problem."""

    def __init__(self, paths: Sequence[Path]):
        self.paths = paths
        self.problems: list[ContentProblem] = []
        self.lessons = {lesson.key: lesson for lesson in Lesson.objects.all()}
        self.questions = {q.key: q for q in Question.objects.select_related("lesson", "generated_from").all()}
        self.options: dict[int, dict[str, Option]] = {}
        for option in Option.objects.all():
            self.options.setdefault(option.question_id, {})[option.key] = option
        self.history = questions_with_history()
        self.shown_options: set[int] | None = None  # computed lazily: only needed when options disappear
        self.seen_lessons: dict[str, str] = {}
        self.seen_questions: dict[str, str] = {}
        self.lesson_published: dict[str, bool] = {}
        # published choice questions of published lessons → their options (cue rule b over the bank)
        self.bank: dict[str, list[Option]] = {}
        self.sources: list[tuple[Planned, str | None, Where]] = []  # each question and its generated_from key

    def problem(self, file: str, message: str, **where: str | None) -> None:
        self.problems.append(ContentProblem(file=file, message=message, **where))

    def options_shown_to_learners(self) -> set[int]:
        if self.shown_options is None:
            self.shown_options = option_ids_shown_to_learners()
        return self.shown_options

    # ---- helpers to check types, reporting instead of raising

    def value(self, spec: FileField, data: dict, file: str, where: Where, *, template: str = "") -> Any:
        """The column's value read from ``data`` by the schema's rule, its problem reported."""
        value, problem = read_value(spec, data, template=template)
        if problem:
            self.problem(file, problem, **where)
        return value

    def unknown_keys(self, data: dict, allowed: set[str], file: str, **where: str | None) -> None:
        unknown = sorted(set(data) - allowed)
        if unknown:
            self.problem(file, f"unknown field(s) {', '.join(unknown)}; allowed: {', '.join(sorted(allowed))}", **where)

    # ---- the files

    def read(self) -> Plan:
        plan = Plan()
        for path in self.paths:
            file = path.name
            try:
                data = yaml.load(path.read_text(encoding="utf-8"), Loader=LessonYamlLoader)
            except yaml.YAMLError as exc:
                self.problem(file, f"not valid YAML: {exc}")
                continue
            except (OSError, UnicodeDecodeError) as exc:
                self.problem(file, f"cannot read: {exc}")
                continue
            if not isinstance(data, dict):
                self.problem(file, "must be a mapping with key, title, order and questions")
                continue
            self.read_lesson(file, data, plan)
        self.sources_settle(plan)
        plan.cues = cues.bank_longest_correct(self.bank)
        problem = plan.cues.problem()
        if problem:
            files = sorted({self.seen_questions[key] for key in problem.questions})
            self.problem(", ".join(files), problem.message)
        return plan

    def read_lesson(self, file: str, data: dict, plan: Plan) -> None:
        key = data.get("key")
        if not isinstance(key, str) or not key:
            self.problem(file, "'key' (the lesson's stable key) is required")
            return
        where: Where = {"lesson": key}
        if key in self.seen_lessons:
            self.problem(file, f"duplicate lesson key, already defined in {self.seen_lessons[key]}", **where)
            return
        self.seen_lessons[key] = file
        plan.lesson_keys.add(key)
        self.unknown_keys(data, LESSON_KEYS, file, **where)
        values: dict[str, Any] = {
            spec.column: self.teaching(file, data, where)
            if spec.read == "teaching"
            else self.value(spec, data, file, where)
            for spec in LESSON_SCHEMA
            if spec.read != "key"
        }
        self.lesson_published[key] = values["published"]
        existing = self.lessons.get(key)
        lesson = existing or Lesson(key=key)
        before = _assign(lesson, values)
        try:
            lesson.full_clean()
        except ValidationError as exc:
            for message in _messages(exc):
                if not message.startswith("teaching: "):  # reported above, each with its section
                    self.problem(file, message, **where)
        plan.lessons.append(Planned(lesson, existing is None, bool(before), before=before, file=file))

        questions = data.get("questions")
        if not isinstance(questions, list) or not questions:
            self.problem(file, "'questions' must be a non-empty list", **where)
            return
        for position, item in enumerate(questions, start=1):
            if not isinstance(item, dict):
                self.problem(file, f"question #{position} must be a mapping", **where)
                continue
            self.read_question(file, key, position, item, plan)

    def teaching(self, file: str, data: dict, where: Where) -> list[dict[str, Any]]:
        """The lesson's teaching sections (quizzes.content.teaching), each problem located by its section."""
        teaching, problems = parse_teaching(data.get("teaching"))
        for found in problems:
            self.problem(file, found.message, **where, section=found.section, option=found.option)
        return teaching

    def read_question(self, file: str, lesson_key: str, position: int, data: dict, plan: Plan) -> None:
        identified = self.question_identity(file, lesson_key, position, data, plan)
        if identified is None:
            return
        key, kind, where = identified
        values = self.question_values(file, position, data, kind, where)
        source_key = values.pop("generated_from", None)  # found once every file is read (sources_settle)
        existing = self.questions.get(key)
        question = existing or Question(key=key)
        lesson_changed = existing is not None and existing.lesson.key != lesson_key
        if existing is not None and existing.pk in self.history and existing.kind != kind:
            self.problem(
                file,
                f"kind changed from {existing.kind} to {kind}, but learners have history with this question; "
                "give the new question a new key (the old one will be unpublished)",
                **where,
            )
        before = _assign(question, values)
        try:
            question.full_clean(exclude=["lesson"])
        except ValidationError as exc:
            for message in _messages(exc):
                self.problem(file, message, **where)

        planned_options: list[Planned] = []
        delete: list[Option] = []
        retire: list[Option] = []
        current = self.options.get(question.pk, {}) if existing is not None else {}
        if kind == "choice":
            added = self.admin_options(existing, data.get("options"), current)
            planned_options = self.read_options(file, data.get("options"), current, where, added)
            if values["published"] and self.lesson_published.get(lesson_key, True):
                self.bank[key] = [*(p.instance for p in planned_options), *added]
        if current:
            keep = {p.instance.key for p in planned_options}
            delete, retire = missing_options(
                current=current, keep=keep, shown=self.options_shown_to_learners, owner=question.source
            )
        planned = Planned(
            question, existing is None, bool(before) or lesson_changed, before=before, file=file, moved=lesson_changed
        )
        plan.questions.append(PlannedQuestion(planned, lesson_key, planned_options, delete, retire))
        self.sources.append((planned, source_key, where))

    def sources_settle(self, plan: Plan) -> None:
        """Each question's ``generated_from`` by key, in the files or else the database: a numeric question that is
        not generated itself (generation_source_check, the generation jobs' rule), one question per source and
        seed (the table's unique pair)."""
        planned = {p.question.instance.key: p.question.instance for p in plan.questions}
        for row, source_key, _where in self.sources:
            source = (planned.get(source_key) or self.questions.get(source_key)) if source_key else None
            before = _assign(row.instance, {"generated_from": source})
            row.before.update(before)
            row.changed = row.changed or bool(before)
        pairs: dict[tuple[str, int | None], str] = {}
        for row, source_key, where in self.sources:
            if not source_key:
                continue
            question, source = row.instance, row.instance.generated_from
            if source is None:
                self.problem(row.file, f"generated_from: no question has the key '{source_key}'", **where)
                continue
            try:
                generation_source_check(source=source)
            except DomainError as exc:
                self.problem(row.file, f"generated_from: {' '.join(exc.messages)}", **where)
            if question.fixed_seed is None:
                self.problem(row.file, "a question generated from another needs its fixed_seed", **where)
            pair = (source_key, question.fixed_seed)
            if pair in pairs or self.pair_taken(source, question, plan):
                other = pairs.get(pair) or "a question in the database"
                self.problem(row.file, f"{other} is already generated from '{source_key}' with this seed", **where)
            pairs.setdefault(pair, question.key)

    @staticmethod
    def pair_taken(source: Question, question: Question, plan: Plan) -> bool:
        """Whether a row the files do not list holds (source, seed) already (the import would break the pair)."""
        if source.pk is None:
            return False
        rows = Question.objects.filter(generated_from=source, fixed_seed=question.fixed_seed)
        return rows.exclude(key__in=plan.question_keys).exists()

    def question_identity(
        self, file: str, lesson_key: str, position: int, data: dict, plan: Plan
    ) -> tuple[str, str, Where] | None:
        """The question's key, kind and location, or None (reported) when either is missing or wrong."""
        key = data.get("key")
        if not isinstance(key, str) or not key:
            self.problem(file, f"question #{position}: 'key' is required", lesson=lesson_key)
            return None
        where: Where = {"lesson": lesson_key, "question": key}
        if key in self.seen_questions:
            self.problem(file, f"duplicate question key, already used in {self.seen_questions[key]}", **where)
            return None
        self.seen_questions[key] = file
        plan.question_keys.add(key)
        kind = data.get("kind")
        if not isinstance(kind, str) or kind not in KIND_KEYS:
            self.problem(file, f"'kind' must be one of {', '.join(KIND_KEYS)}, got {kind!r}", **where)
            return None
        self.unknown_keys(data, QUESTION_KEYS, file, **where)
        foreign = sorted((set(data) & set().union(*KIND_KEYS.values())) - KIND_KEYS[kind])
        if foreign:
            self.problem(file, f"field(s) {', '.join(foreign)} do not apply to a {kind} question", **where)
        return key, kind, where

    def question_values(self, file: str, position: int, data: dict, kind: str, where: Where) -> dict[str, Any]:
        """The question's fields as the file gives them (the other kinds' fields empty)."""
        values: dict[str, Any] = {}
        for spec in QUESTION_SCHEMA:
            if spec.read in {"key", "options"}:
                continue
            if spec.read == "kind":
                values[spec.column] = kind
            elif spec.read == "position":
                values[spec.column] = position
            elif kind not in spec.kinds:
                values[spec.column] = _empty(spec.column)
            else:
                values[spec.column] = self.value(spec, data, file, where, template=values.get("template", ""))
        return values

    def moves_with_history(self, plan: Plan) -> None:
        """A question learners have history with keeps its lesson (old attempts describe it there). Checked once
        ownership has settled each question's lesson (quizzes.content.ownership): an admin's move that
        ``keep-admin`` keeps is no move, and only a move the import would write is refused."""
        for planned_question in plan.questions:
            question = planned_question.question.instance
            existing = self.questions.get(question.key)
            if existing is None or existing.pk not in self.history or not planned_question.question.moved:
                continue
            self.problem(
                planned_question.question.file,
                f"moved from lesson '{existing.lesson.key}' to '{planned_question.lesson_key}', but learners have "
                "history with this question in that lesson; give it a new key instead",
                lesson=planned_question.lesson_key,
                question=question.key,
            )

    @staticmethod
    def admin_options(existing: Question | None, items: Any, current: dict[str, Option]) -> list[Option]:
        """The live options an admin added to a file question, which the import keeps (quizzes.content.pruning):
        the question ends with them and the file's, so the option rules count both."""
        if existing is None or existing.source != ContentSource.FILE:
            return []
        listed = (
            {item.get("key") for item in items or [] if isinstance(item, dict)} if isinstance(items, list) else set()
        )
        return [o for k, o in current.items() if k not in listed and o.source != ContentSource.FILE and not o.retired]

    def read_options(
        self, file: str, items: Any, current: dict[str, Option], where: Where, added: Sequence[Option] = ()
    ) -> list[Planned]:
        if not isinstance(items, list):
            self.problem(file, "'options' must be a list", **where)
            return []
        planned: list[Planned] = []
        seen: set[str] = set()
        for position, item in enumerate(items, start=1):
            if not isinstance(item, dict) or not isinstance(item.get("key"), str):
                self.problem(file, f"option #{position} must be a mapping with a 'key'", **where)
                continue
            option_where: Where = {**where, "option": item["key"]}
            if item["key"] in seen:
                self.problem(file, "duplicate option key", **option_where)
                continue
            seen.add(item["key"])
            self.unknown_keys(item, OPTION_KEYS, file, **option_where)
            values: dict[str, Any] = {
                spec.column: position if spec.read == "position" else self.value(spec, item, file, option_where)
                for spec in OPTION_SCHEMA
                if spec.read != "key"
            }
            existing = current.get(item["key"])
            retiring = existing is not None and not existing.retired and values["retired"]
            option = existing or Option(key=item["key"])
            before = _assign(option, values)
            try:
                option.full_clean(exclude=["question"], validate_unique=False, validate_constraints=False)
            except ValidationError as exc:
                for message in _messages(exc):
                    self.problem(file, message, **option_where)
            planned.append(Planned(option, existing is None, bool(before), retiring, before=before, file=file))
        counted = ""
        if added:
            counted = f" (counting option(s) {', '.join(o.key for o in added)} added in the admin)"
        for problem in choice_options_problems([*(p.instance for p in planned), *added]):  # live options only
            self.problem(file, problem.message + counted, **where, option=problem.option)
        return planned


def lesson_files(directory: Path) -> list[Path]:
    return sorted(p for p in Path(directory).iterdir() if p.suffix in {".yaml", ".yml"} and p.is_file())
