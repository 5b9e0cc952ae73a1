"""Content tables: lessons, their questions and options, and bulk generation jobs.

The models hold the facts and the invariants that must survive concurrency (unique and check
constraints in the database); the shared filters are QuerySet methods (quizzes.content.querysets),
rules live in services (writes) and selectors (reads). Foreign keys from learner history (attempt
items, review cards) PROTECT the content: a question with learner history is unpublished, never deleted.

Dependency: this module calls quizzes.content.validation (per-kind rules); validation never imports
the models (it reads a question through a Protocol), so the two form no cycle.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from quizzes.content.querysets import LessonQuerySet, QuestionQuerySet
from quizzes.content.teaching import parse_teaching
from quizzes.content.validation import newest_template_version, validate_question_fields
from quizzes.core.constraints import done_within_total, known_value


class ContentSource(models.TextChoices):
    """Where a row came from: ``load_lessons`` manages only ``file`` rows (quizzes.content.ownership)."""

    FILE = "file", _("Lesson files")
    ADMIN = "admin", _("Admin")
    JOB = "job", _("Generation job")


def source_known(table: str) -> models.CheckConstraint:
    """The check each table with a ``source`` column states: it is one of :class:`ContentSource`'s values."""
    return known_value(f"{table}_source_known", "source", ContentSource.values)


def field_hash(value: Any) -> str:
    """A short, stable hash of a field's value (its JSON, keys sorted): what ``import_hashes`` holds."""
    text = json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


class Provenance(models.Model):
    """Who owns a content row, and what the last import wrote into it (to detect an admin's edit since)."""

    source = models.CharField(
        _("source"),
        max_length=8,
        choices=ContentSource.choices,
        default=ContentSource.ADMIN,  # anything not the loader's or a job's is the admin's, never touched by imports
        editable=False,
    )
    # per file-managed field: [hash of what the import left in the row, hash of what the file said]
    import_hashes = models.JSONField(_("import hashes"), default=dict, blank=True, editable=False)

    class Meta:
        abstract = True

    def record_import(self, name: str, value: Any) -> None:
        """The import wrote ``value`` into field ``name`` on its own (pruning's unpublish): not an admin edit."""
        self.import_hashes = {**(self.import_hashes or {}), name: [field_hash(value)] * 2}


class Lesson(Provenance):
    key = models.SlugField(_("key"), max_length=100, unique=True, help_text=_("Stable identifier in content files."))
    title = models.CharField(_("title"), max_length=200)
    summary = models.TextField(_("summary"), blank=True)
    teaching = models.JSONField(
        _("teaching text"),
        default=list,
        blank=True,
        help_text=_("Sections shown before the quiz: key, title, Markdown body, optional figure and checkpoint."),
    )
    order = models.PositiveIntegerField(_("order"), default=0)
    published = models.BooleanField(_("published"), default=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    objects = LessonQuerySet.as_manager()

    class Meta:
        ordering = ("order", "key")
        verbose_name = _("lesson")
        verbose_name_plural = _("lessons")
        constraints = (source_known("lesson"),)

    def __str__(self) -> str:
        return self.title

    def clean(self) -> None:
        """The teaching text's schema and checkpoint rules (quizzes.content.teaching), for the admin and the loader."""
        super().clean()
        sections, problems = parse_teaching(self.teaching)
        if problems:
            raise ValidationError({"teaching": [str(p) for p in problems]})
        self.teaching = sections


#: Where a question's options read with it are kept, as a plain list (``Question.loaded_options``).
LOADED_OPTIONS = "options_loaded"


class Question(Provenance):
    class Kind(models.TextChoices):
        CHOICE = "choice", _("Multiple choice")
        NUMERIC = "numeric", _("Numeric (generated)")
        PROMPT = "prompt", _("Interview prompt")
        RECALL = "recall", _("Recall from memory")
        CODE = "code", _("Code (checked by running it)")
        NUMBER = "number", _("Number (one fixed answer)")

    class AnswerForm(models.TextChoices):
        INPUT = "input", _("Type the value")
        CHOICE = "choice", _("Choose among distractors")

    #: Kinds graded by the server inside an attempt; the others are self-rated.
    QUIZ_KINDS = (Kind.CHOICE, Kind.NUMERIC, Kind.CODE, Kind.NUMBER)
    SELF_RATED_KINDS = (Kind.PROMPT, Kind.RECALL)

    lesson = models.ForeignKey(Lesson, on_delete=models.CASCADE, related_name="questions", verbose_name=_("lesson"))
    key = models.SlugField(_("key"), max_length=100, unique=True, help_text=_("Stable identifier in content files."))
    kind = models.CharField(_("kind"), max_length=16, choices=Kind.choices)
    prompt = models.TextField(_("prompt"), help_text=_("Markdown with LaTeX in $…$ or $$…$$."))
    explanation = models.TextField(_("explanation"), blank=True)
    order = models.PositiveIntegerField(_("order"), default=0)
    published = models.BooleanField(_("published"), default=True)
    # numeric only
    template = models.CharField(_("generator template"), max_length=64, blank=True)
    template_version = models.PositiveSmallIntegerField(
        _("template version"),
        null=True,
        blank=True,
        help_text=_(
            "Numeric only: which version of the template generates the numbers (empty: the newest). "
            "Part of the question's identity: a newer version may generate different numbers."
        ),
    )
    params = models.JSONField(_("template parameters"), default=dict, blank=True)
    answer_form = models.CharField(_("answer form"), max_length=16, choices=AnswerForm.choices, blank=True)
    fixed_seed = models.PositiveIntegerField(
        _("fixed variant seed"),
        null=True,
        blank=True,
        help_text=_("Numeric only: every learner gets this seed's variant instead of a fresh one."),
    )
    generated_from = models.ForeignKey(
        "self",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="generated_questions",
        verbose_name=_("generated from"),
        help_text=_("The numeric question whose template produced this standalone question."),
    )
    # number only (a literal numeric question: one number, no template; quizzes.content.number)
    number_answer = models.FloatField(
        _("answer"), null=True, blank=True, help_text=_("Number only: the correct value, typed by the learner.")
    )
    number_tolerance = models.FloatField(
        _("tolerance"),
        null=True,
        blank=True,
        help_text=_("Number only: an answer within ± this of the correct value is right (0: exactly it)."),
    )
    number_unit = models.CharField(
        _("unit"),
        max_length=32,
        blank=True,
        help_text=_("Number only: shown after the answer box, e.g. MiB; a learner may type it after the number."),
    )
    # prompt only
    reference_answer = models.TextField(_("reference answer"), blank=True)
    rubric = models.JSONField(_("rubric points"), default=list, blank=True)
    # recall only
    expected_lines = models.JSONField(_("expected lines"), default=list, blank=True)
    # code only (quizzes.content.code: a built-in spec key, or a whole spec as a JSON object)
    code_spec = models.JSONField(
        _("code spec"),
        null=True,
        blank=True,
        help_text=_(
            'Code only: the key of a built-in spec (e.g. "sdpa_three_lines") or a whole spec as a JSON object '
            "(attention_engine.codecheck QuestionSpec.to_dict())."
        ),
    )
    replaces_key = models.SlugField(
        _("replaces"),
        max_length=100,
        blank=True,
        help_text=_(
            "The key of a retired question this one replaces: learners' schedules on it carry over to this one."
        ),
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    objects = QuestionQuerySet.as_manager()

    class Meta:
        ordering = ("lesson__order", "order", "key")
        verbose_name = _("question")
        verbose_name_plural = _("questions")
        constraints = (
            known_value("question_kind_known", "kind", ["choice", "numeric", "prompt", "recall", "code", "number"]),
            models.CheckConstraint(
                condition=(Q(kind="numeric") & ~Q(template="") & Q(answer_form__in=["input", "choice"]))
                | (~Q(kind="numeric") & Q(template="") & Q(answer_form="")),
                name="question_numeric_fields_only_on_numeric",
            ),
            models.CheckConstraint(
                condition=Q(fixed_seed__isnull=True) | Q(kind="numeric"), name="question_fixed_seed_only_on_numeric"
            ),
            models.CheckConstraint(
                condition=(Q(kind="numeric") & Q(template_version__isnull=False, template_version__gte=1))
                | (~Q(kind="numeric") & Q(template_version__isnull=True)),
                name="question_template_version_iff_numeric",
            ),
            models.UniqueConstraint(
                fields=["generated_from", "fixed_seed"], name="question_one_generated_per_source_seed"
            ),
            models.CheckConstraint(
                condition=(Q(kind="code") & Q(code_spec__isnull=False)) | (~Q(kind="code") & Q(code_spec__isnull=True)),
                name="question_code_spec_iff_code",
            ),
            models.CheckConstraint(
                condition=(
                    Q(kind="number", number_answer__isnull=False)
                    & Q(number_tolerance__isnull=False, number_tolerance__gte=0)
                    | (~Q(kind="number") & Q(number_answer__isnull=True, number_tolerance__isnull=True, number_unit=""))
                ),
                name="question_number_fields_iff_number",
            ),
            source_known("question"),
        )

    def __str__(self) -> str:
        return self.key

    def save(self, *args: Any, **kwargs: Any) -> None:
        self.fill_template_version()
        super().save(*args, **kwargs)

    def clean(self) -> None:
        """Per-kind validation. The numeric check lives in quizzes.content.validation so the admin can reuse it."""
        super().clean()
        self.fill_template_version()
        validate_question_fields(self)

    def fill_template_version(self) -> None:
        """A numeric question without a version gets its template's newest (the loader's and the admin's default).

        Only ever fills an empty value: a question's version never changes by itself, so a generated
        (fixed-seed) question keeps generating the numbers it was reviewed with.
        """
        if self.kind == self.Kind.NUMERIC and self.template_version is None:
            self.template_version = newest_template_version(self.template)

    @property
    def is_quiz_kind(self) -> bool:
        return self.kind in self.QUIZ_KINDS

    def loaded_options(self) -> list[Option]:
        """The options as they were loaded with this question: the plain list at :data:`LOADED_OPTIONS` (what
        ``Prefetch("…options", to_attr=LOADED_OPTIONS)`` leaves; ``item_for`` and a pack's copy put their rows
        there), else ``options.all()`` (a ``prefetch_related`` cache, or one query)."""
        loaded: list[Option] | None = getattr(self, LOADED_OPTIONS, None)
        return loaded if loaded is not None else list(self.options.all())


class Option(Provenance):
    """One answer of a choice question.

    An option a learner has been shown is never deleted (old attempts list it by id): it is
    **retired** instead — hidden from new attempts and from content listings, kept for the history.
    """

    question = models.ForeignKey(Question, on_delete=models.CASCADE, related_name="options", verbose_name=_("question"))
    key = models.SlugField(_("key"), max_length=100)
    text = models.TextField(_("text"))
    is_correct = models.BooleanField(_("correct"), default=False)
    feedback = models.TextField(_("feedback"), blank=True, help_text=_("Shown when this option is chosen."))
    order = models.PositiveIntegerField(_("order"), default=0)
    retired = models.BooleanField(
        _("retired"),
        default=False,
        help_text=_("Hidden from new attempts; kept because earlier attempts showed it."),
    )

    class Meta:
        ordering = ("question", "order", "key")
        verbose_name = _("option")
        verbose_name_plural = _("options")
        constraints = (
            models.UniqueConstraint(fields=["question", "key"], name="option_key_unique_per_question"),
            source_known("option"),
        )

    def __str__(self) -> str:
        return f"{self.question.key}/{self.key}"


class GenerationJob(models.Model):
    """An admin's request to turn a numeric question into N standalone fixed-seed questions."""

    class Status(models.TextChoices):
        PENDING = "pending", _("Pending")
        RUNNING = "running", _("Running")
        SUCCEEDED = "succeeded", _("Succeeded")
        FAILED = "failed", _("Failed")

    source = models.ForeignKey(
        Question, on_delete=models.CASCADE, related_name="generation_jobs", verbose_name=_("source question")
    )
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    first_seed = models.PositiveIntegerField(_("first seed"), default=0)
    total = models.PositiveIntegerField(_("questions to generate"))
    done = models.PositiveIntegerField(_("done"), default=0)
    created = models.PositiveIntegerField(_("created"), default=0)
    status = models.CharField(_("status"), max_length=16, choices=Status.choices, default=Status.PENDING)
    errors = models.JSONField(_("errors"), default=list, blank=True)
    task_id = models.CharField(max_length=64, blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ("-created_at",)
        verbose_name = _("generation job")
        verbose_name_plural = _("generation jobs")
        constraints = (
            models.CheckConstraint(condition=Q(total__gte=1, total__lte=1000), name="generation_job_total_range"),
            done_within_total("generation_job_done_le_total"),
            known_value("generation_job_status_known", "status", ["pending", "running", "succeeded", "failed"]),
        )

    def __str__(self) -> str:
        return f"{self.source} ×{self.total} ({self.status})"


class QuestionVersion(models.Model):
    """One immutable version of a question's content: what attempts and packs showed, and what they graded.

    The one versioning mechanism (issue 27): every service that saves question content (the admin, the lesson
    import, a generation job, a revert) records a version when the content's digest differs from the newest
    one's, numbered 1, 2, … per question; attempt items and pack items keep the version they showed (their
    ``version`` / ``packed`` foreign keys), so history reads what the learner saw, however the question
    changed since. ``snapshot`` (quizzes.content.versions.version_snapshot) holds the question's fields, every
    option with ``retired``, and a code question's resolved spec. Never updated; reverting writes a new version.
    ``digest`` (SHA-256 of the snapshot's canonical JSON) is not unique: a revert repeats an older content.
    """

    question = models.ForeignKey(Question, on_delete=models.CASCADE, related_name="versions")
    number = models.PositiveIntegerField(_("version"))
    digest = models.CharField(_("digest"), max_length=64, db_index=True)
    snapshot = models.JSONField(_("content"))
    source = models.CharField(_("source"), max_length=8, choices=ContentSource.choices)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("saved by"),
    )
    created_at = models.DateTimeField(_("saved at"), default=timezone.now)

    class Meta:
        ordering = ("question", "-number")
        verbose_name = _("question version")
        verbose_name_plural = _("question versions")
        constraints = (
            models.UniqueConstraint(fields=["question", "number"], name="question_version_number_unique"),
            models.CheckConstraint(condition=Q(number__gte=1), name="question_version_number_positive"),
            source_known("question_version"),
        )

    def __str__(self) -> str:
        return f"{self.question_id} v{self.number}"
