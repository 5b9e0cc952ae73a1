"""Account tables: the learner's preferences, their devices and the API tokens issued to them, the browser
sessions they signed in with, their username's confusable skeleton, stored Idempotency-Key responses."""

from __future__ import annotations

import datetime as dt
import zoneinfo
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Func, Q
from django.db.models.lookups import Exact
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from quizzes.core.constraints import at_most_one_set, known_value

#: The range a learner may choose their desired retention in (issue 30): below 0.70 fsrs-rs's simulator and
#: optimiser do not go, and above 0.97 the reviews a day grow steeply for a few points of recall.
MIN_RETENTION = 0.70
MAX_RETENTION = 0.97
DEFAULT_RETENTION = 0.9

#: FSRS-6 has 21 parameters (quizzes.reviews.scheduling.PARAMETER_COUNT, which a test holds to this).
FSRS_PARAMETER_COUNT = 21


class JSONArrayLength(Func):
    """The length of a JSON array column: PostgreSQL's jsonb_array_length, SQLite's json_array_length."""

    function = "jsonb_array_length"
    output_field = models.IntegerField()

    def as_sqlite(self, compiler: Any, connection: Any, **extra: Any) -> Any:
        return super().as_sql(compiler, connection, function="json_array_length", **extra)


#: A reminder clock that says "look at this learner in the next pass" (which then sets the real moment).
CHECK_SOON = dt.datetime(2000, 1, 1, tzinfo=dt.UTC)


def validate_time_zone(value: str) -> None:
    """An IANA zone name that zoneinfo can load (e.g. "Asia/Shanghai")."""
    try:
        zoneinfo.ZoneInfo(value)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError) as exc:
        raise ValidationError(_("Unknown time zone: %(zone)s"), code="time_zone", params={"zone": value}) from exc


class ReminderChannel(models.TextChoices):
    PUSH = "push", _("Push to my devices (e-mail if none)")
    EMAIL = "email", _("E-mail")


#: The one "reminders" choice (web form and API) that turns them off; the profile keeps its channel for when they
#: are turned on again.
REMINDERS_OFF = "none"


def reminder_choice_fields(choice: str) -> dict[str, Any]:
    """A "reminders" choice (push, email or none) → the profile's fields; the web and the API both save it so."""
    if choice == REMINDERS_OFF:
        return {"reminder_opt_in": False}
    return {"reminder_opt_in": True, "reminder_channel": choice}


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
        _("desired retention"),
        default=DEFAULT_RETENTION,
        validators=[MinValueValidator(MIN_RETENTION), MaxValueValidator(MAX_RETENTION)],
    )
    # Read with the profile on every path that schedules (the answer's card lock, profile_for): no extra query.
    fsrs_parameters = models.JSONField(
        _("FSRS parameters"),
        null=True,
        blank=True,
        default=None,
        help_text=_(
            "The 21 FSRS-6 weights fitted to this learner's reviews and now scheduling them; empty: FSRS-6's "
            "defaults. Written only by a fit that predicted their later reviews better (ParameterFit)."
        ),
    )
    new_per_day = models.PositiveSmallIntegerField(_("new questions per day"), default=20)
    reviews_per_day = models.PositiveSmallIntegerField(_("reviews per day"), default=200)
    reminder_opt_in = models.BooleanField(_("send review reminders"), default=False)
    reminder_channel = models.CharField(
        _("reminder channel"),
        max_length=8,
        choices=ReminderChannel.choices,
        default=ReminderChannel.PUSH,
        help_text=_(
            "How an opted-in learner is reminded: a push to their signed-in devices (e-mail when none takes it) or "
            "e-mail only. Reminders off: reminder_opt_in."
        ),
    )
    reminder_hour = models.PositiveSmallIntegerField(_("reminder hour"), default=18, validators=[MaxValueValidator(23)])
    last_reminded_on = models.DateField(_("last reminded on"), null=True, blank=True)
    # Never later than the learner's next reminder could be due (earlier only costs one needless check):
    # the reminder pass reads the learners with next_reminder_at <= now through the index, nobody else.
    next_reminder_at = models.DateTimeField(
        _("next reminder check"),
        null=True,
        blank=True,
        help_text=_("When the reminder pass next looks at this learner (empty: reminders off or nothing to review)."),
    )

    class Meta:
        verbose_name = _("learner profile")
        verbose_name_plural = _("learner profiles")
        indexes = (
            models.Index(
                fields=["next_reminder_at"],
                condition=Q(next_reminder_at__isnull=False),
                name="profile_next_reminder_at",
            ),
        )
        constraints = (
            models.CheckConstraint(condition=Q(day_rollover_hour__lte=23), name="profile_rollover_hour_range"),
            models.CheckConstraint(condition=Q(reminder_hour__lte=23), name="profile_reminder_hour_range"),
            known_value("profile_reminder_channel_valid", "reminder_channel", ReminderChannel.values),
            models.CheckConstraint(
                condition=Q(desired_retention__gte=MIN_RETENTION, desired_retention__lte=MAX_RETENTION),
                name="profile_desired_retention_range",
            ),
            models.CheckConstraint(
                condition=Q(fsrs_parameters__isnull=True)
                | Q(Exact(JSONArrayLength("fsrs_parameters"), FSRS_PARAMETER_COUNT)),
                name="profile_fsrs_parameters_21",
            ),
        )

    def __str__(self) -> str:
        return f"{self.user} ({self.time_zone})"

    def save(self, *args: Any, **kwargs: Any) -> None:
        """Opted in ⇒ a reminder clock (CHECK_SOON when none: the next pass computes it); opted out ⇒ none."""
        if not self.reminder_opt_in:
            self.next_reminder_at = None
        elif self.next_reminder_at is None:
            self.next_reminder_at = CHECK_SOON
        update_fields = kwargs.get("update_fields")
        if update_fields is not None and "reminder_opt_in" in update_fields:
            kwargs["update_fields"] = {*update_fields, "next_reminder_at"}
        super().save(*args, **kwargs)

    @property
    def reminder_choice(self) -> str:
        """What the learner chose: their channel, or ``REMINDERS_OFF`` (the inverse of ``reminder_choice_fields``)."""
        return self.reminder_channel if self.reminder_opt_in else REMINDERS_OFF

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


class Device(models.Model):
    """A phone, tablet or browser a learner signed in to the API from: a record that outlives its tokens.

    The app sends a stable id of its own at log-in (``device_id``, unique per learner in the database), so a
    re-login on the same phone finds this row again and keeps its name and push registration. Its push
    registration is a row of django-push-notifications (FCM, APNs or Web Push), at most one per device.
    """

    class Platform(models.TextChoices):
        ANDROID = "android", "Android"
        IOS = "ios", "iOS"
        WEB = "web", _("Web")
        OTHER = "other", _("Other")

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="devices")
    device_id = models.CharField(_("device id"), max_length=128, help_text=_("The app's own stable id."))
    name = models.CharField(_("device name"), max_length=100, blank=True)
    platform = models.CharField(_("platform"), max_length=8, choices=Platform.choices, default=Platform.OTHER)
    created_at = models.DateTimeField(_("created"), default=timezone.now)
    last_seen_at = models.DateTimeField(_("last seen"), default=timezone.now)
    fcm = models.OneToOneField(
        "push_notifications.GCMDevice", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    apns = models.OneToOneField(
        "push_notifications.APNSDevice", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    webpush = models.OneToOneField(
        "push_notifications.WebPushDevice", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )

    class Meta:
        verbose_name = _("device")
        verbose_name_plural = _("devices")
        constraints = (
            models.UniqueConstraint(fields=["user", "device_id"], name="device_id_unique_per_user"),
            known_value("device_platform", "platform", ["android", "ios", "web", "other"]),
            # one push registration per device, of one service
            at_most_one_set("device_one_push_registration", "fcm", "apns", "webpush"),
        )

    def __str__(self) -> str:
        return self.name or self.device_id


class TokenDevice(models.Model):
    """The device an API token was issued to. knox's token has no device, and swapping knox's token model
    leaves its own table behind; a one-to-one row beside the token keeps knox untouched."""

    token = models.OneToOneField(
        "knox.AuthToken", on_delete=models.CASCADE, primary_key=True, related_name="device", db_column="token_digest"
    )
    device = models.ForeignKey(Device, on_delete=models.CASCADE, related_name="tokens")

    class Meta:
        verbose_name = _("token device")
        verbose_name_plural = _("token devices")

    def __str__(self) -> str:
        return str(self.device_id)


class BrowserSession(models.Model):
    """The index from a learner to their browser sessions (Django's session table has no user column).

    Written at log-in and when the session's key rotates (quizzes.accounts.sessions); the row goes with its
    session (the foreign key). ``id`` names the session in pages: a session key is a credential, never shown.
    """

    session = models.OneToOneField(
        "sessions.Session", on_delete=models.CASCADE, related_name="learner", db_column="session_key"
    )
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="browser_sessions")
    created_at = models.DateTimeField(_("signed in"), default=timezone.now)
    user_agent = models.CharField(_("browser"), max_length=200, blank=True)

    class Meta:
        verbose_name = _("browser session")
        verbose_name_plural = _("browser sessions")

    def __str__(self) -> str:
        return f"{self.user_id} {self.created_at:%Y-%m-%d %H:%M}"


class UsernameSkeleton(models.Model):
    """A username's confusable skeleton (UTS #39, quizzes.accounts.usernames), unique: two usernames that look
    alike ("аda" with a Cyrillic а, "ada") cannot both sign up, even at the same moment."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, primary_key=True, related_name="username_skeleton"
    )
    #: SHA-256 of the skeleton (a skeleton can be many times longer than the username it comes from)
    digest = models.CharField(max_length=64, unique=True)

    class Meta:
        verbose_name = _("username skeleton")
        verbose_name_plural = _("username skeletons")

    def __str__(self) -> str:
        return self.digest
