"""Practice tables: attempts at a lesson's quiz and the items they show, each with its locked response."""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.db.models.fields.json import KT
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from quizzes.content.models import Lesson, Option, Question, QuestionVersion
from quizzes.core.constraints import known_value, question_slots, set_together
from quizzes.practice.querysets import AttemptItemQuerySet, AttemptQuerySet


class Attempt(models.Model):
    """One run by one user through a lesson's quiz questions, numbered 1, 2, … per (user, lesson)."""

    class Mode(models.TextChoices):
        STUDY = "study", _("Study")
        REVIEW = "review", _("Review")
        MISSED = "missed", _("Missed items")  # the items an earlier attempt missed, practised again

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="attempts")
    lesson = models.ForeignKey(Lesson, on_delete=models.PROTECT, related_name="attempts")
    number = models.PositiveIntegerField(_("number"))
    mode = models.CharField(_("mode"), max_length=8, choices=Mode.choices, default=Mode.STUDY)
    seed = models.BigIntegerField(_("seed"), help_text=_("Drives this attempt's option orders and variant seeds."))
    started_at = models.DateTimeField(_("started at"), default=timezone.now)
    finished_at = models.DateTimeField(_("finished at"), null=True, blank=True)
    skipped_shown_at = models.DateTimeField(
        _("skipped answers shown at"),
        null=True,
        blank=True,
        help_text=_(
            "When the learner asked to see the answers of the items they skipped (after finishing): each of those "
            "items was recorded as Again then."
        ),
    )

    objects = AttemptQuerySet.as_manager()

    class Meta:
        ordering = ("user", "lesson", "number")
        verbose_name = _("attempt")
        verbose_name_plural = _("attempts")
        constraints = (
            models.UniqueConstraint(fields=["user", "lesson", "number"], name="attempt_number_unique_per_user_lesson"),
            models.CheckConstraint(condition=Q(number__gte=1), name="attempt_number_positive"),
            models.CheckConstraint(condition=Q(seed__gte=0), name="attempt_seed_non_negative"),
            known_value("attempt_mode_known", "mode", ["study", "review", "missed"]),
        )

    def __str__(self) -> str:
        return f"{self.user} · {self.lesson.key} #{self.number}"


class LockedAnswer(models.Model):
    """The first answer to an item, which locks it: an attempt item's (the first click) and a pack item's (the
    first upload). Set all at once by a conditional ``UPDATE … WHERE answered_at IS NULL``; each table's check
    constraint keeps it all-or-nothing."""

    response = models.JSONField(_("response"), null=True, blank=True)
    is_correct = models.BooleanField(_("correct"), null=True, blank=True)
    result = models.JSONField(_("revealed result"), null=True, blank=True)
    answered_at = models.DateTimeField(_("answered at"), null=True, blank=True)

    class Meta:
        abstract = True

    @property
    def is_answered(self) -> bool:
        return self.answered_at is not None


class AttemptItem(LockedAnswer):
    """A question as shown in one attempt, and its locked response.

    Why the response lives on the item rather than in a separate row: the item is created when
    the attempt starts, and (attempt, question) is UNIQUE, so there is exactly one slot per
    question per attempt. Answering is a conditional ``UPDATE … WHERE answered_at IS NULL``
    (``item_answer``): the database lets exactly one concurrent writer match that predicate
    (PostgreSQL re-checks it after the row lock is released; SQLite serialises writers), so
    the first response locks the item and every later submit sees the locked result. No
    IntegrityError round-trips, no savepoints, and the constraint below keeps "answered"
    all-or-nothing.

    The numeric variant is stored whole (``Variant.to_dict()``: seed, params, numbers, answer,
    choices, solution) so a numpy or template upgrade never changes what a learner saw.
    """

    # No index of their own: (attempt, question), (attempt, position) and (question, variant_seed) start with them,
    # and every answer rewrites its item's row in every index (issue 16: the answer's UPDATE waited on seven).
    attempt = models.ForeignKey(Attempt, on_delete=models.CASCADE, related_name="items", db_index=False)
    question = models.ForeignKey(Question, on_delete=models.PROTECT, related_name="attempt_items", db_index=False)
    position = models.PositiveSmallIntegerField(_("position"))
    # The question version the item showed (pinned when the attempt starts, never on the answer): the end screen,
    # the missed items and the learner's history read it, not the question as it is now. Empty only for items made
    # outside the services (tests' fixtures); RESTRICT: it goes only with its question.
    version = models.ForeignKey(
        QuestionVersion,
        on_delete=models.RESTRICT,
        null=True,
        blank=True,
        related_name="attempt_items",
        db_index=False,  # read through the item, never "the items of a version" on a hot path
        verbose_name=_("question version"),
    )
    option_order = models.JSONField(_("option order"), default=list, blank=True, help_text=_("Option ids as shown."))
    variant = models.JSONField(_("numeric variant"), null=True, blank=True)
    variant_seed = models.BigIntegerField(_("variant seed"), null=True, blank=True)
    template_version = models.PositiveSmallIntegerField(
        _("template version"),
        null=True,
        blank=True,
        help_text=_("Numeric items: the version that generated the variant."),
    )
    # the first answer: LockedAnswer's fields, and these two
    chosen_option = models.ForeignKey(
        Option, on_delete=models.SET_NULL, null=True, blank=True, related_name="+", verbose_name=_("chosen option")
    )
    score = models.FloatField(_("score"), null=True, blank=True)
    # The misconception a wrong answer matched, copied out of ``result`` by the database itself: the item
    # statistics count it per question from the covering index below, without reading each item's JSON.
    misconception = models.GeneratedField(
        expression=KT("result__misconception__id"),
        output_field=models.CharField(max_length=100, null=True),
        db_persist=True,
        verbose_name=_("misconception"),
    )

    objects = AttemptItemQuerySet.as_manager()

    class Meta:
        ordering = ("attempt", "position")
        verbose_name = _("attempt item")
        verbose_name_plural = _("attempt items")
        constraints = (
            *question_slots("attempt", "attempt_item"),
            set_together("attempt_item_answer_all_or_nothing", "answered_at", "is_correct", "score", "result"),
            models.CheckConstraint(
                condition=Q(score__isnull=True) | Q(score__gte=0.0, score__lte=1.0), name="attempt_item_score_range"
            ),
            set_together("attempt_item_template_version_with_variant", "variant", "template_version"),
        )
        indexes = (
            models.Index(fields=["question", "variant_seed"], name="attempt_item_question_seed"),
            # Item statistics read a lesson's items through its attempts from this index alone (an index-only
            # scan): with every lesson seeded the table is ≈ 1 GB and scanning it cost ≈ 1 s per lesson
            # (bench/README.md, "Item statistics"). PostgreSQL only; SQLite keeps the key column.
            models.Index(
                fields=["attempt"],
                include=[
                    "id", "question", "template_version", "is_correct", "chosen_option", "version", "answered_at",
                    "misconception",
                ],
                name="attempt_item_statistics",
            ),
        )  # fmt: skip

    def __str__(self) -> str:
        return f"{self.attempt} · {self.position}: {self.question.key}"


class CheckpointAnswer(models.Model):
    """A signed-in learner's first answer to a teaching checkpoint (quizzes.content.teaching): the lock.

    Checkpoints are self-checks outside the review schedule: no card, no log. One row per learner and
    checkpoint (the unique constraint settles two first clicks at once); signed-out visitors keep theirs in
    the browser session instead. The first answer stays unless its option is no longer one of the checkpoint's
    (an author changed them): then the next answer replaces it (``checkpoint_answer_record``).
    """

    # no index of its own: the unique (user, lesson, section_key) starts with it
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="checkpoint_answers", db_index=False
    )
    lesson = models.ForeignKey(Lesson, on_delete=models.CASCADE, related_name="checkpoint_answers")
    section_key = models.SlugField(_("section key"), max_length=100, db_index=False)
    option_key = models.SlugField(_("option key"), max_length=100, db_index=False)
    answered_at = models.DateTimeField(_("answered at"), default=timezone.now)

    class Meta:
        ordering = ("user", "lesson", "section_key")
        verbose_name = _("checkpoint answer")
        verbose_name_plural = _("checkpoint answers")
        constraints = (
            models.UniqueConstraint(
                fields=["user", "lesson", "section_key"], name="checkpoint_answer_one_per_learner_checkpoint"
            ),
        )

    def __str__(self) -> str:
        return f"{self.user} · {self.lesson.key}:{self.section_key} → {self.option_key}"


class AnonymousAnswer(models.Model):
    """One item of a deleted learner's first study-mode attempt at a lesson, kept for item statistics only.

    Written by ``attempts_anonymise`` when an account is deleted (quizzes/README.md, README "Your data"), and
    holding only what per-question statistics need (facility, discrimination, option pick rates, time to
    answer): no user, no attempt, no timestamps, no seeds, no option order and no typed response (free text
    or code). ``sitting`` is a random UUID drawn at deletion, shared by the items of one attempt and by
    nothing else, so a statistic can correlate an item with the rest of its attempt; it is derived from
    nothing and links to nothing. A skipped item has ``answered`` false (statistics count it as wrong).
    """

    # A random key, not a sequence: an id in insertion order would tell which rows one deletion wrote, and when.
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    sitting = models.UUIDField(_("sitting"), help_text=_("Random; groups the items of one anonymised attempt."))
    # CASCADE: a question is deleted only when nobody's history holds it (content pruning); its statistics go too.
    question = models.ForeignKey(Question, on_delete=models.CASCADE, related_name="anonymous_answers")
    template_version = models.PositiveSmallIntegerField(_("template version"), null=True, blank=True)
    answered = models.BooleanField(_("answered"))
    chosen_option = models.ForeignKey(
        Option, on_delete=models.SET_NULL, null=True, blank=True, related_name="+", verbose_name=_("chosen option")
    )
    is_correct = models.BooleanField(_("correct"), null=True, blank=True)
    score = models.FloatField(_("score"), null=True, blank=True)
    duration_ms = models.PositiveIntegerField(_("time to answer (ms)"), null=True, blank=True)

    class Meta:
        verbose_name = _("anonymous answer")
        verbose_name_plural = _("anonymous answers")
        constraints = (
            models.UniqueConstraint(fields=["sitting", "question"], name="anonymous_answer_one_per_sitting_question"),
            models.CheckConstraint(
                condition=Q(answered=False, is_correct__isnull=True, score__isnull=True, chosen_option__isnull=True)
                | Q(answered=True, is_correct__isnull=False, score__isnull=False),
                name="anonymous_answer_all_or_nothing",
            ),
        )

    def __str__(self) -> str:
        return f"{self.question_id} · {self.sitting}"
