"""The learner's profile: what GET /profile/ returns and what PATCH may change."""

from __future__ import annotations

from rest_framework import serializers

from quizzes.accounts.models import MAX_RETENTION, MIN_RETENTION
from quizzes.api.fields import StrictBooleanField, StrictCharField, StrictFloatField, StrictIntegerField
from quizzes.api.serializers.scheduling import ParametersStatusSerializer

#: How reminders reach the learner (the profile's reminder_channel, or "none" when reminders are off).
REMINDER_CHANNELS = ["push", "email", "none"]


MAX_COUNT = 32767  # PositiveSmallIntegerField


class ProfileSerializer(serializers.Serializer):
    username = serializers.CharField()
    time_zone = serializers.CharField()
    day_rollover_hour = serializers.IntegerField(min_value=0, max_value=23)
    desired_retention = serializers.FloatField(min_value=MIN_RETENTION, max_value=MAX_RETENTION)
    new_per_day = serializers.IntegerField(min_value=0)
    reviews_per_day = serializers.IntegerField(min_value=0)
    reminder_opt_in = serializers.BooleanField()
    reminder_channel = serializers.ChoiceField(
        choices=REMINDER_CHANNELS,
        help_text="push: to your signed-in devices with a push registration, e-mail when none takes it; "
        "email: e-mail only; none: no reminders (reminder_opt_in false).",
    )
    reminder_hour = serializers.IntegerField(min_value=0, max_value=23)
    parameters = ParametersStatusSerializer(help_text="The FSRS parameters that schedule you (read-only).")


class ProfileUpdateSerializer(serializers.Serializer):
    time_zone = StrictCharField(max_length=64, required=False, help_text='An IANA zone, e.g. "Asia/Shanghai".')
    day_rollover_hour = StrictIntegerField(min_value=0, max_value=23, required=False)
    desired_retention = StrictFloatField(min_value=MIN_RETENTION, max_value=MAX_RETENTION, required=False)
    new_per_day = StrictIntegerField(min_value=0, max_value=MAX_COUNT, required=False)
    reviews_per_day = StrictIntegerField(min_value=0, max_value=MAX_COUNT, required=False)
    reminder_opt_in = StrictBooleanField(required=False)
    reminder_channel = serializers.ChoiceField(
        choices=REMINDER_CHANNELS, required=False, help_text="none turns reminders off, push or email on."
    )
    reminder_hour = StrictIntegerField(min_value=0, max_value=23, required=False)
