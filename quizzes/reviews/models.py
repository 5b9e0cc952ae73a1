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
    question = models.ForeignKey(Question, on_delete=models.PROTECT, related_name="review_cards")
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
        max_length=100,
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
            models.CheckConstraint(condition=Q(state__in=[1, 2, 3]), name="review_card_state_known"),
        )
        indexes = (models.Index(fields=["user", "due"], name="review_card_user_due"),)

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
            models.CheckConstraint(condition=Q(source__in=["web", "api", "offline"]), name="review_log_source_known"),
            models.CheckConstraint(condition=Q(role__in=["first", "review", "repeat"]), name="review_log_role_known"),
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
