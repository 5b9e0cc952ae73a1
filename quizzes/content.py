"""Lesson content import: YAML files in ``fixtures/lessons/`` → Lesson / Question / Option rows.

The files are the source of truth for content; the database also holds learners' history, which
must never be lost by a re-import. Hence an **upsert by stable keys**, in two phases:

1. *Validate everything* (file syntax, schema, duplicate keys, ``full_clean()`` of every row
   including the numeric 50-seed check, the choice-option rules, and history conflicts) and
   collect every problem with its file, lesson, question and option key. Any problem → raise
   :class:`ContentError`; nothing is written.
2. *Write* in one transaction, saving only rows whose fields differ (so a second run touches
   nothing and ``updated_at`` stays put; an edited text is updated in place, same primary key).

What happens to rows that are no longer in the files:

* **Question** — deleted when no learner has touched it; *unpublished* (kept, hidden) when it
  has history (an AttemptItem or a ReviewCard; both PROTECT the question anyway). Putting the
  key back into a file publishes it again.
* **Lesson** — unpublished when it still holds questions or attempts after the question rule,
  deleted otherwise.
* **Option** of a question — deleted when no attempt ever showed it. An option some attempt
  *did* show is referenced by ``AttemptItem.option_order`` (and maybe ``chosen_option``): deleting
  it would rewrite what the learner saw and answered, so it is **retired** instead
  (``Option.retired``): new attempts and content listings no longer show it, old attempts still
  do. A file may also retire an option explicitly (``retired: true``) and keep it listed; putting
  a retired option back (or writing ``retired: false``) revives it. The option rules (≥ 2 options,
  exactly one correct) count live options only.
* Changing the *kind* of a question with history, or moving it to another lesson, is refused,
  because old attempts would then describe a question that no longer matches: give the new
  question a new key (the old one is unpublished).

Numeric questions name their generator's **template version** (``template_version: N``; omitted =
the newest version of the template). A changed version updates the question in place: a lesson
question draws new numbers for every attempt anyway, and attempt items keep the variant they
stored. Questions generated from a numeric question (fixed seeds) keep their own version.

**Answer cues** (quizzes.cues) are checked on every load and ``--check``, over live options: the
option lengths of each choice question (rule a), no "以上都对"-style options (rule c), and, over
all published choice questions of the files (the bank), how often the correct option is the single
longest one (rule b; ``LoadReport.cues`` holds the count for ``--check``'s summary line).
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Exists, OuterRef

from quizzes import cues
from quizzes.models import Attempt, AttemptItem, Lesson, Option, Question, ReviewCard
from quizzes.validation import newest_template_version, validate_choice_options

DEFAULT_LESSONS_DIR = Path(settings.BASE_DIR) / "fixtures" / "lessons"

LESSON_KEYS = {"key", "title", "summary", "order", "published", "questions"}
QUESTION_KEYS = {
    "key",
    "kind",
    "prompt",
    "explanation",
    "published",
    "options",
    "template",
    "template_version",
    "params",
    "answer_form",
    "reference_answer",
    "rubric",
    "expected_lines",
}
KIND_KEYS = {
    "choice": {"options"},
    "numeric": {"template", "template_version", "params", "answer_form"},
    "prompt": {"reference_answer", "rubric"},
    "recall": {"expected_lines"},
}
OPTION_KEYS = {"key", "text", "correct", "feedback", "retired"}

LESSON_FIELDS = ("title", "summary", "order", "published")
QUESTION_FIELDS = (
    "kind",
    "prompt",
    "explanation",
    "order",
    "published",
    "template",
    "template_version",
    "params",
    "answer_form",
    "reference_answer",
    "rubric",
    "expected_lines",
)
OPTION_FIELDS = ("text", "is_correct", "feedback", "order", "retired")


# --------------------------------------------------------------------------- results and errors


@dataclass(frozen=True)
class ContentProblem:
    """One thing wrong with the files, located precisely enough to fix without searching."""

    file: str
    message: str
    lesson: str | None = None
    question: str | None = None
    option: str | None = None

    def __str__(self) -> str:
        where = [self.file]
        if self.lesson:
            where.append(f"lesson '{self.lesson}'")
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


# --------------------------------------------------------------------------- learner history (shared with the admin)


def questions_with_history(question_ids: Iterable[int] | None = None) -> set[int]:
    """Ids of questions some learner has touched (an AttemptItem or a ReviewCard exists)."""
    queryset = Question.objects.filter(
        Exists(AttemptItem.objects.filter(question=OuterRef("pk")))
        | Exists(ReviewCard.objects.filter(question=OuterRef("pk")))
    )
    if question_ids is not None:
        queryset = queryset.filter(pk__in=list(question_ids))
    return set(queryset.values_list("pk", flat=True))


def option_ids_shown_to_learners(question_ids: Iterable[int] | None = None) -> set[int]:
    """Ids of options that some attempt displayed (``option_order``) or recorded as chosen."""
    items = AttemptItem.objects.all()
    if question_ids is not None:
        items = items.filter(question_id__in=list(question_ids))
    shown: set[int] = set()
    for order, chosen in items.values_list("option_order", "chosen_option_id"):
        shown.update(pk for pk in (order or []) if isinstance(pk, int))
        if chosen:
            shown.add(chosen)
    return shown


# --------------------------------------------------------------------------- phase 1: read and validate


@dataclass
class _Planned:
    """A row to save (new or changed) or leave alone, with the problems context to report it."""

    instance: Any
    is_new: bool
    changed: bool
    retiring: bool = False  # an existing live option this load retires


@dataclass
class _PlannedQuestion:
    question: _Planned
    lesson_key: str
    options: list[_Planned]  # the options in the file, in file order (live or retired: true)
    delete: list[Option]  # existing options missing from the file that no attempt showed
    retire: list[Option]  # existing live options missing from the file that attempts showed


@dataclass
class _Plan:
    lessons: list[_Planned] = field(default_factory=list)
    questions: list[_PlannedQuestion] = field(default_factory=list)
    lesson_keys: set[str] = field(default_factory=set)
    question_keys: set[str] = field(default_factory=set)
    cues: cues.LongestCorrectSummary | None = None


def _assign(instance: Any, values: dict[str, Any]) -> bool:
    """Set fields; return whether any value differs from what the row holds now."""
    changed = False
    for name, value in values.items():
        if getattr(instance, name) != value:
            setattr(instance, name, value)
            changed = True
    return changed


def _messages(error: ValidationError) -> list[str]:
    if hasattr(error, "error_dict"):
        return [f"{name}: {message}" for name, messages in error.message_dict.items() for message in messages]
    return list(error.messages)


class _Reader:
    """Reads one directory of lesson files into a write plan, collecting every problem."""

    def __init__(self, paths: Sequence[Path]):
        self.paths = paths
        self.problems: list[ContentProblem] = []
        self.lessons = {lesson.key: lesson for lesson in Lesson.objects.all()}
        self.questions = {q.key: q for q in Question.objects.select_related("lesson").all()}
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

    def problem(self, file: str, message: str, **where: str | None) -> None:
        self.problems.append(ContentProblem(file=file, message=message, **where))

    def options_shown_to_learners(self) -> set[int]:
        if self.shown_options is None:
            self.shown_options = option_ids_shown_to_learners()
        return self.shown_options

    # ---- helpers to check types, reporting instead of raising

    def text(self, data: dict, name: str, file: str, *, required: bool = True, **where: str | None) -> str:
        value = data.get(name)
        if value is None:
            if required:
                self.problem(file, f"'{name}' is required", **where)
            return ""
        if not isinstance(value, str):
            self.problem(
                file, f"'{name}' must be text, got {type(value).__name__} {value!r} (quote it in YAML)", **where
            )
            return ""
        return value.strip()

    def text_list(self, data: dict, name: str, file: str, **where: str | None) -> list[str]:
        value = data.get(name)
        if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
            self.problem(file, f"'{name}' must be a list of texts", **where)
            return []
        return [item.rstrip() for item in value]

    def flag(self, data: dict, name: str, file: str, default: bool, **where: str | None) -> bool:
        value = data.get(name, default)
        if not isinstance(value, bool):
            self.problem(file, f"'{name}' must be true or false, got {value!r}", **where)
            return default
        return value

    def unknown_keys(self, data: dict, allowed: set[str], file: str, **where: str | None) -> None:
        unknown = sorted(set(data) - allowed)
        if unknown:
            self.problem(file, f"unknown field(s) {', '.join(unknown)}; allowed: {', '.join(sorted(allowed))}", **where)

    # ---- the files

    def read(self) -> _Plan:
        plan = _Plan()
        for path in self.paths:
            file = path.name
            try:
                data = yaml.safe_load(path.read_text(encoding="utf-8"))
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
        plan.cues = cues.bank_longest_correct(self.bank)
        problem = plan.cues.problem()
        if problem:
            files = sorted({self.seen_questions[key] for key in problem.questions})
            self.problem(", ".join(files), problem.message)
        return plan

    def read_lesson(self, file: str, data: dict, plan: _Plan) -> None:
        key = data.get("key")
        if not isinstance(key, str) or not key:
            self.problem(file, "'key' (the lesson's stable key) is required")
            return
        where = {"lesson": key}
        if key in self.seen_lessons:
            self.problem(file, f"duplicate lesson key, already defined in {self.seen_lessons[key]}", **where)
            return
        self.seen_lessons[key] = file
        plan.lesson_keys.add(key)
        self.unknown_keys(data, LESSON_KEYS, file, **where)
        order = data.get("order")
        if not isinstance(order, int) or isinstance(order, bool) or order < 0:
            self.problem(file, f"'order' must be a non-negative integer, got {order!r}", **where)
            order = 0
        values = {
            "title": self.text(data, "title", file, **where),
            "summary": self.text(data, "summary", file, required=False, **where),
            "order": order,
            "published": self.flag(data, "published", file, True, **where),
        }
        self.lesson_published[key] = values["published"]
        existing = self.lessons.get(key)
        lesson = existing or Lesson(key=key)
        changed = _assign(lesson, values)
        try:
            lesson.full_clean()
        except ValidationError as exc:
            for message in _messages(exc):
                self.problem(file, message, **where)
        plan.lessons.append(_Planned(lesson, existing is None, changed))

        questions = data.get("questions")
        if not isinstance(questions, list) or not questions:
            self.problem(file, "'questions' must be a non-empty list", **where)
            return
        for position, item in enumerate(questions, start=1):
            if not isinstance(item, dict):
                self.problem(file, f"question #{position} must be a mapping", **where)
                continue
            self.read_question(file, key, position, item, plan)

    def read_question(self, file: str, lesson_key: str, position: int, data: dict, plan: _Plan) -> None:
        key = data.get("key")
        if not isinstance(key, str) or not key:
            self.problem(file, f"question #{position}: 'key' is required", lesson=lesson_key)
            return
        where = {"lesson": lesson_key, "question": key}
        if key in self.seen_questions:
            self.problem(file, f"duplicate question key, already used in {self.seen_questions[key]}", **where)
            return
        self.seen_questions[key] = file
        plan.question_keys.add(key)
        kind = data.get("kind")
        if kind not in KIND_KEYS:
            self.problem(file, f"'kind' must be one of {', '.join(KIND_KEYS)}, got {kind!r}", **where)
            return
        self.unknown_keys(data, QUESTION_KEYS, file, **where)
        foreign = sorted((set(data) & set().union(*KIND_KEYS.values())) - KIND_KEYS[kind])
        if foreign:
            self.problem(file, f"field(s) {', '.join(foreign)} do not apply to a {kind} question", **where)

        params = data.get("params", {}) if kind == "numeric" else {}
        if params is None:
            params = {}
        if not isinstance(params, dict):
            self.problem(file, f"'params' must be a mapping, got {params!r}", **where)
            params = {}
        template = self.text(data, "template", file, **where) if kind == "numeric" else ""
        values: dict[str, Any] = {
            "kind": kind,
            "prompt": self.text(data, "prompt", file, **where),
            "explanation": self.text(data, "explanation", file, required=False, **where),
            "order": position,
            "published": self.flag(data, "published", file, True, **where),
            "template": template,
            "template_version": self.template_version(data, template, file, **where) if kind == "numeric" else None,
            "params": params,
            "answer_form": self.text(data, "answer_form", file, **where) if kind == "numeric" else "",
            "reference_answer": self.text(data, "reference_answer", file, **where) if kind == "prompt" else "",
            "rubric": self.text_list(data, "rubric", file, **where) if kind == "prompt" else [],
            "expected_lines": self.text_list(data, "expected_lines", file, **where) if kind == "recall" else [],
        }
        existing = self.questions.get(key)
        question = existing or Question(key=key)
        lesson_changed = existing is not None and existing.lesson.key != lesson_key
        if existing is not None and existing.pk in self.history:
            if existing.kind != kind:
                self.problem(
                    file,
                    f"kind changed from {existing.kind} to {kind}, but learners have history with this question; "
                    "give the new question a new key (the old one will be unpublished)",
                    **where,
                )
            if lesson_changed:
                self.problem(
                    file,
                    f"moved from lesson '{existing.lesson.key}', but learners have history with this question "
                    "in that lesson; give it a new key instead",
                    **where,
                )
        changed = _assign(question, values) or lesson_changed
        try:
            question.full_clean(exclude=["lesson"])
        except ValidationError as exc:
            for message in _messages(exc):
                self.problem(file, message, **where)

        planned_options: list[_Planned] = []
        delete: list[Option] = []
        retire: list[Option] = []
        current = self.options.get(question.pk, {}) if existing is not None else {}
        if kind == "choice":
            planned_options = self.read_options(file, data.get("options"), current, where)
            if values["published"] and self.lesson_published.get(lesson_key, True):
                self.bank[key] = [p.instance for p in planned_options]
        keep = {p.instance.key for p in planned_options}
        for option_key, option in current.items():
            if option_key in keep:
                continue
            if option.pk in self.options_shown_to_learners():
                if not option.retired:  # learners saw it: retire it, never rewrite their attempts
                    retire.append(option)
            else:
                delete.append(option)
        plan.questions.append(
            _PlannedQuestion(_Planned(question, existing is None, changed), lesson_key, planned_options, delete, retire)
        )

    def template_version(self, data: dict, template: str, file: str, **where: str | None) -> int | None:
        """The YAML's ``template_version``, default the template's newest (None for an unknown template)."""
        value = data.get("template_version")
        if value is None:
            return newest_template_version(template)
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            self.problem(file, f"'template_version' must be a positive whole number, got {value!r}", **where)
            return newest_template_version(template)
        return value

    def read_options(self, file: str, items: Any, current: dict[str, Option], where: dict[str, str]) -> list[_Planned]:
        if not isinstance(items, list):
            self.problem(file, "'options' must be a list", **where)
            return []
        planned: list[_Planned] = []
        seen: set[str] = set()
        for position, item in enumerate(items, start=1):
            if not isinstance(item, dict) or not isinstance(item.get("key"), str):
                self.problem(file, f"option #{position} must be a mapping with a 'key'", **where)
                continue
            option_where = {**where, "option": item["key"]}
            if item["key"] in seen:
                self.problem(file, "duplicate option key", **option_where)
                continue
            seen.add(item["key"])
            self.unknown_keys(item, OPTION_KEYS, file, **option_where)
            values = {
                "text": self.text(item, "text", file, **option_where),
                "is_correct": self.flag(item, "correct", file, False, **option_where),
                "feedback": self.text(item, "feedback", file, required=False, **option_where),
                "order": position,
                "retired": self.flag(item, "retired", file, False, **option_where),
            }
            existing = current.get(item["key"])
            retiring = existing is not None and not existing.retired and values["retired"]
            option = existing or Option(key=item["key"])
            changed = _assign(option, values)
            try:
                option.full_clean(exclude=["question"], validate_unique=False, validate_constraints=False)
            except ValidationError as exc:
                for message in _messages(exc):
                    self.problem(file, message, **option_where)
            planned.append(_Planned(option, existing is None, changed, retiring=retiring))
        options = [p.instance for p in planned]
        try:
            validate_choice_options(options)
        except ValidationError as exc:
            for message in exc.messages:
                self.problem(file, message, **where)
        for problem in cues.question_cue_problems(options):  # rules (a) and (c), live options only
            self.problem(file, problem.message, **where, option=problem.option)
        return planned


def lesson_files(directory: Path) -> list[Path]:
    return sorted(p for p in Path(directory).iterdir() if p.suffix in {".yaml", ".yml"} and p.is_file())


# --------------------------------------------------------------------------- phase 2: write


def _save(planned: _Planned, counts: Counts) -> None:
    if planned.is_new:
        planned.instance.save()
        counts.created += 1
    elif planned.changed:
        planned.instance.save()
        if planned.retiring and isinstance(counts, OptionCounts):
            counts.retired += 1
        else:
            counts.updated += 1
    else:
        counts.unchanged += 1


def _prune(plan: _Plan, report: LoadReport) -> None:
    """Rows missing from the files: delete the untouched ones, unpublish those with history."""
    gone = Question.objects.exclude(key__in=plan.question_keys).annotate(
        has_history=Exists(AttemptItem.objects.filter(question=OuterRef("pk")))
        | Exists(ReviewCard.objects.filter(question=OuterRef("pk")))
    )
    for question in gone:
        if question.has_history:
            if question.published:
                question.published = False
                question.save(update_fields=["published", "updated_at"])
                report.questions.unpublished += 1
        else:
            report.options.deleted += question.options.count()
            question.delete()
            report.questions.deleted += 1
    for lesson in Lesson.objects.exclude(key__in=plan.lesson_keys):
        in_use = lesson.questions.exists() or Attempt.objects.filter(lesson=lesson).exists()
        if in_use:
            if lesson.published:
                lesson.published = False
                lesson.save(update_fields=["published", "updated_at"])
                report.lessons.unpublished += 1
        else:
            lesson.delete()
            report.lessons.deleted += 1


def content_load(*, directory: Path | str | None = None, prune: bool = True, validate_only: bool = False) -> LoadReport:
    """Upsert every lesson file in ``directory`` (default ``fixtures/lessons``); see the module docstring.

    Raises ContentError, listing every problem, before writing anything. ``validate_only`` runs the
    whole check and the change count without saving; ``prune=False`` leaves rows missing from the
    files alone (for loading a subset of the files).
    """
    directory = Path(directory) if directory is not None else DEFAULT_LESSONS_DIR
    if not directory.is_dir():
        raise ContentError([ContentProblem(file=str(directory), message="not a directory")])
    paths = lesson_files(directory)
    if not paths:
        raise ContentError([ContentProblem(file=str(directory), message="no .yaml lesson files")])
    with transaction.atomic():
        reader = _Reader(paths)
        plan = reader.read()
        if reader.problems:
            raise ContentError(reader.problems)
        report = LoadReport(files=[p.name for p in paths], written=not validate_only, cues=plan.cues)
        if validate_only:
            _count_only(plan, report)
            return report
        lessons = {}
        for planned in plan.lessons:
            _save(planned, report.lessons)
            lessons[planned.instance.key] = planned.instance
        for planned in plan.questions:
            question = planned.question.instance
            question.lesson = lessons[planned.lesson_key]
            _save(planned.question, report.questions)
            for option in planned.delete:
                option.delete()
                report.options.deleted += 1
            for option in planned.retire:
                option.retired = True
                option.save(update_fields=["retired"])
                report.options.retired += 1
            for planned_option in planned.options:
                planned_option.instance.question = question
                _save(planned_option, report.options)
        if prune:
            _prune(plan, report)
    return report


def _count_only(plan: _Plan, report: LoadReport) -> None:
    def count(items: Iterable[_Planned], counts: Counts) -> None:
        for p in items:
            key = "created" if p.is_new else "retired" if p.retiring else "updated" if p.changed else "unchanged"
            setattr(counts, key, getattr(counts, key) + 1)

    count(plan.lessons, report.lessons)
    count((q.question for q in plan.questions), report.questions)
    count((o for q in plan.questions for o in q.options), report.options)
    report.options.deleted += sum(len(q.delete) for q in plan.questions)
    report.options.retired += sum(len(q.retire) for q in plan.questions)


def content_counts() -> dict[str, Counter]:
    """Published questions per lesson and kind (for the command's summary and the tests)."""
    counts: dict[str, Counter] = {}
    for lesson_key, kind in Question.objects.filter(published=True).values_list("lesson__key", "kind"):
        counts.setdefault(lesson_key, Counter())[kind] += 1
    return counts


# --------------------------------------------------------------------------- demo accounts

DEMO_LEARNER = ("DEMO_USERNAME", "demo", "DEMO_PASSWORD", "demo-pass")
DEMO_ADMIN = ("DEMO_ADMIN_USERNAME", "admin", "DEMO_ADMIN_PASSWORD", "admin-pass")


@dataclass(frozen=True)
class DemoAccount:
    username: str
    password: str
    is_staff: bool
    created: bool


@transaction.atomic
def demo_accounts_ensure(*, environ: dict[str, str] | None = None) -> list[DemoAccount]:
    """Create or refresh the demo learner and demo admin (idempotent; passwords from the environment).

    Why here and not in a fixture: passwords must be hashed with the project's hasher, and the
    learner needs a profile, like any learner created through the services.
    """
    from quizzes.services.profiles import learner_profile_get_or_create

    env = os.environ if environ is None else environ
    accounts = []
    user_model = get_user_model()
    for (user_var, user_default, pass_var, pass_default), staff in ((DEMO_LEARNER, False), (DEMO_ADMIN, True)):
        username = env.get(user_var) or user_default
        password = env.get(pass_var) or pass_default
        user, created = user_model.objects.get_or_create(username=username)
        dirty = created or not user.check_password(password)
        if dirty:
            user.set_password(password)
        if user.is_staff != staff or user.is_superuser != staff or not user.is_active:
            user.is_staff = user.is_superuser = staff
            user.is_active = True
            dirty = True
        if dirty:
            user.save()
        learner_profile_get_or_create(user=user)
        accounts.append(DemoAccount(username=username, password=password, is_staff=staff, created=created))
    return accounts
