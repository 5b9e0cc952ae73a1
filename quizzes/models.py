"""The quiz domain's tables.

Rules live in services (writes) and selectors (reads); the models hold the facts and the
invariants that must survive concurrency (unique and check constraints in the database).
Foreign keys from learner history (attempt items, review cards) to content PROTECT the content:
a question with learner history is unpublished, never deleted.
"""

import zoneinfo

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _


def validate_time_zone(value: str) -> None:
    """An IANA zone name that zoneinfo can load (e.g. "Asia/Shanghai")."""
    try:
        zoneinfo.ZoneInfo(value)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError) as exc:
        raise ValidationError(_("Unknown time zone: %(zone)s"), code="time_zone", params={"zone": value}) from exc


class Lesson(models.Model):
    key = models.SlugField(_("key"), max_length=100, unique=True, help_text=_("Stable identifier in content files."))
    title = models.CharField(_("title"), max_length=200)
    summary = models.TextField(_("summary"), blank=True)
    order = models.PositiveIntegerField(_("order"), default=0)
    published = models.BooleanField(_("published"), default=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ("order", "key")
        verbose_name = _("lesson")
        verbose_name_plural = _("lessons")

    def __str__(self) -> str:
        return self.title


class Question(models.Model):
    class Kind(models.TextChoices):
        CHOICE = "choice", _("Multiple choice")
        NUMERIC = "numeric", _("Numeric (generated)")
        PROMPT = "prompt", _("Interview prompt")
        RECALL = "recall", _("Recall from memory")

    class AnswerForm(models.TextChoices):
        INPUT = "input", _("Type the value")
        CHOICE = "choice", _("Choose among distractors")

    #: Kinds graded by the server inside an attempt; the others are self-rated.
    QUIZ_KINDS = (Kind.CHOICE, Kind.NUMERIC)
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
    # prompt only
    reference_answer = models.TextField(_("reference answer"), blank=True)
    rubric = models.JSONField(_("rubric points"), default=list, blank=True)
    # recall only
    expected_lines = models.JSONField(_("expected lines"), default=list, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ("lesson__order", "order", "key")
        verbose_name = _("question")
        verbose_name_plural = _("questions")
        constraints = (
            models.CheckConstraint(
                condition=Q(kind__in=["choice", "numeric", "prompt", "recall"]), name="question_kind_known"
            ),
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
        )

    def __str__(self) -> str:
        return self.key

    def save(self, *args, **kwargs) -> None:
        self.fill_template_version()
        super().save(*args, **kwargs)

    def clean(self) -> None:
        """Per-kind validation. The numeric check lives in quizzes.validation so the admin can reuse it."""
        from quizzes.validation import validate_question_fields

        super().clean()
        self.fill_template_version()
        validate_question_fields(self)

    def fill_template_version(self) -> None:
        """A numeric question without a version gets its template's newest (the loader's and the admin's default).

        Only ever fills an empty value: a question's version never changes by itself, so a generated
        (fixed-seed) question keeps generating the numbers it was reviewed with.
        """
        if self.kind == self.Kind.NUMERIC and self.template_version is None:
            from quizzes.validation import newest_template_version

            self.template_version = newest_template_version(self.template)

    @property
    def is_quiz_kind(self) -> bool:
        return self.kind in self.QUIZ_KINDS


class Option(models.Model):
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
        constraints = (models.UniqueConstraint(fields=["question", "key"], name="option_key_unique_per_question"),)

    def __str__(self) -> str:
        return f"{self.question.key}/{self.key}"


class Attempt(models.Model):
    """One run by one user through a lesson's quiz questions, numbered 1, 2, … per (user, lesson)."""

    class Mode(models.TextChoices):
        STUDY = "study", _("Study")
        REVIEW = "review", _("Review")

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="attempts")
    lesson = models.ForeignKey(Lesson, on_delete=models.PROTECT, related_name="attempts")
    number = models.PositiveIntegerField(_("number"))
    mode = models.CharField(_("mode"), max_length=8, choices=Mode.choices, default=Mode.STUDY)
    seed = models.BigIntegerField(_("seed"), help_text=_("Drives this attempt's option orders and variant seeds."))
    started_at = models.DateTimeField(_("started at"), default=timezone.now)
    finished_at = models.DateTimeField(_("finished at"), null=True, blank=True)

    class Meta:
        ordering = ("user", "lesson", "number")
        verbose_name = _("attempt")
        verbose_name_plural = _("attempts")
        constraints = (
            models.UniqueConstraint(fields=["user", "lesson", "number"], name="attempt_number_unique_per_user_lesson"),
            models.CheckConstraint(condition=Q(number__gte=1), name="attempt_number_positive"),
            models.CheckConstraint(condition=Q(seed__gte=0), name="attempt_seed_non_negative"),
            models.CheckConstraint(condition=Q(mode__in=["study", "review"]), name="attempt_mode_known"),
        )

    def __str__(self) -> str:
        return f"{self.user} · {self.lesson.key} #{self.number}"


class AttemptItem(models.Model):
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

    attempt = models.ForeignKey(Attempt, on_delete=models.CASCADE, related_name="items")
    question = models.ForeignKey(Question, on_delete=models.PROTECT, related_name="attempt_items")
    position = models.PositiveSmallIntegerField(_("position"))
    option_order = models.JSONField(_("option order"), default=list, blank=True, help_text=_("Option ids as shown."))
    variant = models.JSONField(_("numeric variant"), null=True, blank=True)
    variant_seed = models.BigIntegerField(_("variant seed"), null=True, blank=True)
    template_version = models.PositiveSmallIntegerField(
        _("template version"),
        null=True,
        blank=True,
        help_text=_("Numeric items: the version that generated the variant."),
    )
    response = models.JSONField(_("response"), null=True, blank=True)
    chosen_option = models.ForeignKey(
        Option, on_delete=models.SET_NULL, null=True, blank=True, related_name="+", verbose_name=_("chosen option")
    )
    is_correct = models.BooleanField(_("correct"), null=True, blank=True)
    score = models.FloatField(_("score"), null=True, blank=True)
    result = models.JSONField(_("revealed result"), null=True, blank=True)
    answered_at = models.DateTimeField(_("answered at"), null=True, blank=True)

    class Meta:
        ordering = ("attempt", "position")
        verbose_name = _("attempt item")
        verbose_name_plural = _("attempt items")
        constraints = (
            models.UniqueConstraint(fields=["attempt", "question"], name="attempt_item_one_per_question"),
            models.UniqueConstraint(fields=["attempt", "position"], name="attempt_item_position_unique"),
            models.CheckConstraint(
                condition=(
                    Q(answered_at__isnull=True, is_correct__isnull=True, score__isnull=True, result__isnull=True)
                    | Q(answered_at__isnull=False, is_correct__isnull=False, score__isnull=False, result__isnull=False)
                ),
                name="attempt_item_answer_all_or_nothing",
            ),
            models.CheckConstraint(
                condition=Q(score__isnull=True) | Q(score__gte=0.0, score__lte=1.0), name="attempt_item_score_range"
            ),
            models.CheckConstraint(
                condition=Q(variant__isnull=True, template_version__isnull=True)
                | Q(variant__isnull=False, template_version__isnull=False),
                name="attempt_item_template_version_with_variant",
            ),
        )
        indexes = (models.Index(fields=["question", "variant_seed"], name="attempt_item_question_seed"),)

    def __str__(self) -> str:
        return f"{self.attempt} · {self.position}: {self.question.key}"

    @property
    def is_answered(self) -> bool:
        return self.answered_at is not None


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
    suspended = models.BooleanField(_("suspended"), default=False)
    is_leech = models.BooleanField(_("leech"), default=False)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

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

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="review_logs")
    card = models.ForeignKey(ReviewCard, on_delete=models.CASCADE, related_name="logs")
    rating = models.PositiveSmallIntegerField(_("rating"), choices=Rating.choices)
    reviewed_at = models.DateTimeField(_("reviewed at"))
    duration_ms = models.PositiveIntegerField(_("duration (ms)"), null=True, blank=True)
    source = models.CharField(_("source"), max_length=8, choices=Source.choices, default=Source.WEB)
    client_uuid = models.UUIDField(_("client UUID"), null=True, blank=True)
    role = models.CharField(_("role"), max_length=8, choices=Role.choices, default=Role.REVIEW)
    attempt_item = models.ForeignKey(
        AttemptItem, on_delete=models.SET_NULL, null=True, blank=True, related_name="review_logs"
    )
    created_at = models.DateTimeField(auto_now_add=True)

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


class LearnerProfile(models.Model):
    """Per-learner preferences the scheduler and selectors need."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="learner_profile")
    time_zone = models.CharField(_("time zone"), max_length=64, default="UTC", validators=[validate_time_zone])
    day_rollover_hour = models.PositiveSmallIntegerField(
        _("day rollover hour"),
        default=4,
        validators=[MaxValueValidator(23)],
        help_text=_("A new study day starts at this local hour (Anki's default is 4 am)."),
    )
    desired_retention = models.FloatField(
        _("desired retention"), default=0.9, validators=[MinValueValidator(0.7), MaxValueValidator(0.99)]
    )
    new_per_day = models.PositiveSmallIntegerField(_("new questions per day"), default=20)
    reviews_per_day = models.PositiveSmallIntegerField(_("reviews per day"), default=200)
    reminder_opt_in = models.BooleanField(_("send review reminders"), default=False)
    reminder_hour = models.PositiveSmallIntegerField(_("reminder hour"), default=18, validators=[MaxValueValidator(23)])
    last_reminded_on = models.DateField(_("last reminded on"), null=True, blank=True)

    class Meta:
        verbose_name = _("learner profile")
        verbose_name_plural = _("learner profiles")
        constraints = (
            models.CheckConstraint(condition=Q(day_rollover_hour__lte=23), name="profile_rollover_hour_range"),
            models.CheckConstraint(condition=Q(reminder_hour__lte=23), name="profile_reminder_hour_range"),
            models.CheckConstraint(
                condition=Q(desired_retention__gte=0.7, desired_retention__lte=0.99),
                name="profile_desired_retention_range",
            ),
        )

    def __str__(self) -> str:
        return f"{self.user} ({self.time_zone})"

    @property
    def zone(self) -> zoneinfo.ZoneInfo:
        return zoneinfo.ZoneInfo(self.time_zone)


class IdempotencyKey(models.Model):
    """A POST's response kept under the client's Idempotency-Key, so a retried request creates nothing.

    Unique per (user, key) in the database: two concurrent retries cannot both do the work.
    """

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="idempotency_keys")
    key = models.CharField(max_length=255)
    method = models.CharField(max_length=8)
    path = models.CharField(max_length=512)
    request_hash = models.CharField(max_length=64, help_text=_("SHA-256 of the request body."))
    response_status = models.PositiveSmallIntegerField(null=True, blank=True)
    response_body = models.JSONField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now, db_index=True)

    class Meta:
        verbose_name = _("idempotency key")
        verbose_name_plural = _("idempotency keys")
        constraints = (models.UniqueConstraint(fields=["user", "key"], name="idempotency_key_unique_per_user"),)

    def __str__(self) -> str:
        return f"{self.user_id}:{self.key}"


class ReminderDelivery(models.Model):
    """One review reminder per learner per local day; the unique constraint is what makes it once."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="reminder_deliveries")
    local_date = models.DateField(_("local date"))
    due_count = models.PositiveIntegerField(_("items due"), default=0)
    sent_at = models.DateTimeField(_("sent at"), null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        verbose_name = _("reminder delivery")
        verbose_name_plural = _("reminder deliveries")
        constraints = (
            models.UniqueConstraint(fields=["user", "local_date"], name="reminder_once_per_user_local_day"),
        )

    def __str__(self) -> str:
        return f"{self.user_id} {self.local_date}"


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
            models.CheckConstraint(condition=Q(done__lte=models.F("total")), name="generation_job_done_le_total"),
            models.CheckConstraint(
                condition=Q(status__in=["pending", "running", "succeeded", "failed"]),
                name="generation_job_status_known",
            ),
        )

    def __str__(self) -> str:
        return f"{self.source} ×{self.total} ({self.status})"


class TokenDevice(models.Model):
    """The device an API token was issued to. knox's token has no name, and swapping knox's token model
    leaves its own table behind; a one-to-one row beside the token keeps knox untouched."""

    token = models.OneToOneField(
        "knox.AuthToken", on_delete=models.CASCADE, primary_key=True, related_name="device", db_column="token_digest"
    )
    name = models.CharField(_("device name"), max_length=100, blank=True)

    class Meta:
        verbose_name = _("token device")
        verbose_name_plural = _("token devices")

    def __str__(self) -> str:
        return self.name or "-"
