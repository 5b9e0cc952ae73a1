"""Review tables: one card per learner and question (FSRS state) and every rating that built it.

``ReviewLog.attempt_item`` names its model by string ("quizzes.AttemptItem"): reviews sit below
practice (quizzes/README.md), so this module does not import the practice models.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from quizzes.content.models import Question
from quizzes.core.constraints import known_value
from quizzes.reviews.querysets import ReviewCardQuerySet, ReviewLogQuerySet


class ReviewCard(models.Model):
    """One learner's memory of one question: py-fsrs ``Card`` state plus denormalised columns to query.

    ``fsrs_card`` is ``fsrs.Card.to_dict()`` and is the source of truth for the scheduler; the
    columns (state, due, stability, …) are copies kept in step by ``card_replay`` so selectors
    can filter and sort in SQL. A card exists only once its question has been answered or rated.
    """

    class State(models.IntegerChoices):  # values match fsrs.State
        LEARNING = 1, _("Learning")
        REVIEW = 2, _("Review")
        RELEARNING = 3, _("Relearning")

    # No index of its own on user: (user, due) and (user, question) start with it, and a lone user_id
    # index tempts the planner away from (user, due) for the due queue (bench/README.md, scaling).
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="review_cards", db_index=False
    )
    # Its index is the covering one in Meta: a question's cards with what the item statistics sum.
    question = models.ForeignKey(Question, on_delete=models.PROTECT, related_name="review_cards", db_index=False)
    fsrs_card = models.JSONField(_("FSRS card"), default=dict)
    state = models.PositiveSmallIntegerField(_("state"), choices=State.choices, default=State.LEARNING)
    due = models.DateTimeField(_("due"))
    last_review = models.DateTimeField(_("last review"), null=True, blank=True)
    stability = models.FloatField(_("stability"), null=True, blank=True)
    difficulty = models.FloatField(_("difficulty"), null=True, blank=True)
    reps = models.PositiveIntegerField(_("reviews"), default=0, help_text=_("Reviews that fed the scheduler."))
    lapses = models.PositiveIntegerField(_("lapses"), default=0)
    schedule_key = models.CharField(
        _("schedule settings"),
        max_length=128,
        blank=True,
        default="",
        db_default="",
        help_text=_(
            "The learner's settings the stored state was computed under; a rating under other settings replays "
            "the card's whole log."
        ),
    )
    suspended = models.BooleanField(_("suspended"), default=False)
    is_leech = models.BooleanField(_("leech"), default=False)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    objects = ReviewCardQuerySet.as_manager()

    class Meta:
        ordering = ("user", "due")
        verbose_name = _("review card")
        verbose_name_plural = _("review cards")
        constraints = (
            models.UniqueConstraint(fields=["user", "question"], name="review_card_one_per_user_question"),
            known_value("review_card_state_known", "state", [1, 2, 3]),
        )
        indexes = (
            models.Index(fields=["user", "due"], name="review_card_user_due"),
            # In place of the foreign key's own index, so a review writes no more index entries than before:
            # the item statistics sum a lesson's cards from the index alone (bench/README.md, "Item statistics").
            models.Index(fields=["question"], include=["lapses", "reps", "difficulty"], name="review_card_question"),
        )

    def __str__(self) -> str:
        return f"{self.user} · {self.question.key}"


class ReviewLog(models.Model):
    """Every rating, kept forever so a card can be replayed (undo, offline uploads).

    ``role`` records how the rating was used the last time the card was replayed: the first
    study (due pinned to +2 days), a review that fed FSRS (the day's first), or a same-day
    repeat that is logged but never moves the schedule.
    """

    class Rating(models.IntegerChoices):  # values match fsrs.Rating
        AGAIN = 1, _("Again")
        HARD = 2, _("Hard")
        GOOD = 3, _("Good")
        EASY = 4, _("Easy")

    class Source(models.TextChoices):
        WEB = "web", _("Web")
        API = "api", _("API")
        OFFLINE = "offline", _("Offline upload")

    class Role(models.TextChoices):
        FIRST = "first", _("First study")
        REVIEW = "review", _("Review")
        REPEAT = "repeat", _("Same-day repeat")

    # No index of their own: (user, reviewed_at) and (card, reviewed_at) start with them; each answer writes a log
    # into every index of the largest table (issue 16).
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="review_logs", db_index=False
    )
    card = models.ForeignKey(ReviewCard, on_delete=models.CASCADE, related_name="logs", db_index=False)
    rating = models.PositiveSmallIntegerField(_("rating"), choices=Rating.choices)
    reviewed_at = models.DateTimeField(_("reviewed at"))
    duration_ms = models.PositiveIntegerField(_("duration (ms)"), null=True, blank=True)
    source = models.CharField(_("source"), max_length=8, choices=Source.choices, default=Source.WEB)
    client_uuid = models.UUIDField(_("client UUID"), null=True, blank=True)
    role = models.CharField(_("role"), max_length=8, choices=Role.choices, default=Role.REVIEW)
    attempt_item = models.ForeignKey(
        "quizzes.AttemptItem", on_delete=models.SET_NULL, null=True, blank=True, related_name="review_logs"
    )
    client_graded = models.BooleanField(
        _("graded by the client"),
        default=False,
        help_text=_("An offline quiz entry sent as correct: true/false (deprecated): the server could not check it."),
    )
    created_at = models.DateTimeField(auto_now_add=True)

    objects = ReviewLogQuerySet.as_manager()

    class Meta:
        ordering = ("reviewed_at", "id")
        verbose_name = _("review log")
        verbose_name_plural = _("review logs")
        constraints = (
            models.CheckConstraint(condition=Q(rating__gte=1, rating__lte=4), name="review_log_rating_range"),
            known_value("review_log_source_known", "source", ["web", "api", "offline"]),
            known_value("review_log_role_known", "role", ["first", "review", "repeat"]),
            models.UniqueConstraint(
                fields=["user", "client_uuid"],
                condition=Q(client_uuid__isnull=False),
                name="review_log_client_uuid_unique_per_user",
            ),
        )
        indexes = (
            models.Index(fields=["user", "reviewed_at"], name="review_log_user_time"),
            models.Index(fields=["card", "reviewed_at"], name="review_log_card_time"),
        )

    def __str__(self) -> str:
        return f"{self.card} · {self.get_rating_display()} @ {self.reviewed_at:%Y-%m-%d %H:%M}"

    @property
    def counts_for_schedule(self) -> bool:
        return self.role != self.Role.REPEAT


class ParameterFit(models.Model):
    """One attempt to fit a learner's FSRS-6 parameters to their reviews (quizzes.reviews.fitting), kept or not.

    Both figures are the learner's held-out later reviews (time-series splits, as the srs-benchmark scores): the
    log loss of the parameters scheduling them before the fit, and of the fitted ones. Only a fit whose log loss
    is lower is kept (``outcome`` "kept": its parameters then schedule the learner's future reviews); the others
    record why not. Rows are only ever added; past logs and shown intervals are never rewritten.
    """

    class Outcome(models.TextChoices):
        KEPT = "kept", _("Kept: predicts your later reviews better")
        NOT_BETTER = "not_better", _("Not kept: predicts no better than the parameters in use")
        TOO_LITTLE = "too_little_history", _("Not fitted: too little history yet")
        FAILED = "failed", _("Not kept: the fit failed")
        OUT_OF_RANGE = "out_of_range", _("Not kept: parameters outside the valid ranges")

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="parameter_fits", db_index=False
    )
    created_at = models.DateTimeField(_("fitted at"), auto_now_add=True)
    outcome = models.CharField(_("outcome"), max_length=20, choices=Outcome.choices)
    reviews = models.PositiveIntegerField(_("reviews"), help_text=_("Counted reviews (each study day's first)."))
    cards = models.PositiveIntegerField(_("cards"))
    logs_until = models.DateTimeField(
        _("logs until"), null=True, blank=True, help_text=_("The newest review the fit read.")
    )
    log_loss_before = models.FloatField(_("log loss before"), null=True, blank=True)
    log_loss_after = models.FloatField(_("log loss after"), null=True, blank=True)
    rmse_before = models.FloatField(_("RMSE (bins) before"), null=True, blank=True)
    rmse_after = models.FloatField(_("RMSE (bins) after"), null=True, blank=True)
    parameters = models.JSONField(_("fitted parameters"), null=True, blank=True)
    previous_parameters = models.JSONField(
        _("parameters before"), null=True, blank=True, help_text=_("Empty: FSRS-6's defaults.")
    )
    optimal_retention = models.FloatField(_("suggested retention"), null=True, blank=True)
    cpu_seconds = models.FloatField(_("CPU seconds"), null=True, blank=True)
    detail = models.TextField(_("detail"), blank=True, default="")

    class Meta:
        ordering = ("user", "-created_at", "-id")
        verbose_name = _("parameter fit")
        verbose_name_plural = _("parameter fits")
        constraints = (
            known_value(
                "parameter_fit_outcome_known",
                "outcome",
                ["kept", "not_better", "too_little_history", "failed", "out_of_range"],
            ),
            # A kept fit has its parameters and beat the ones in use on the held-out reviews.
            models.CheckConstraint(
                condition=~Q(outcome="kept")
                | Q(
                    parameters__isnull=False,
                    log_loss_before__isnull=False,
                    log_loss_after__lt=models.F("log_loss_before"),
                ),
                name="parameter_fit_kept_is_better",
            ),
            models.CheckConstraint(
                condition=(Q(log_loss_before__isnull=True) | Q(log_loss_before__gte=0))
                & (Q(log_loss_after__isnull=True) | Q(log_loss_after__gte=0)),
                name="parameter_fit_log_loss_nonnegative",
            ),
        )
        indexes = (models.Index(fields=["user", "-created_at"], name="parameter_fit_user_newest"),)

    def __str__(self) -> str:
        return f"{self.user_id} · {self.outcome} @ {self.created_at:%Y-%m-%d %H:%M}"
