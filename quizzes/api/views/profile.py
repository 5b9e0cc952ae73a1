"""The learner's settings: read and update (validated by the model through learner_profile_update); the workload a
desired retention would bring, and the FSRS parameters they are scheduled with (issue 30); the account's deletion
(``DELETE``) is views.account_deletion's."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from django.utils import timezone
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from quizzes.accounts.models import MAX_RETENTION, MIN_RETENTION, LearnerProfile, reminder_choice_fields
from quizzes.accounts.selectors import profile_for
from quizzes.accounts.services import PROFILE_FIELDS, learner_profile_update
from quizzes.api.fields import StrictBooleanField, StrictCharField, StrictFloatField, StrictIntegerField
from quizzes.api.schema import errors
from quizzes.api.types import LearnerApiRequest
from quizzes.api.views.account_deletion import AccountDeleteMixin
from quizzes.api.views.common import query, validated_body
from quizzes.reviews import workload
from quizzes.reviews.parameters import parameters_status, retention_preview

TAG = ["profile"]


#: How reminders reach the learner (the profile's reminder_channel, or "none" when reminders are off).
REMINDER_CHANNELS = ["push", "email", "none"]
MAX_COUNT = 32767  # PositiveSmallIntegerField
PARAMETER_KINDS = [("personal", "personal"), ("default", "default")]


class ParametersStatusSerializer(serializers.Serializer):
    kind = serializers.ChoiceField(
        choices=PARAMETER_KINDS,
        help_text="personal: FSRS-6 parameters fitted to your reviews schedule you; default: FSRS-6's defaults.",
    )
    fitted_at = serializers.DateTimeField(allow_null=True, help_text="When the parameters in use were fitted.")
    fitted_reviews = serializers.IntegerField(allow_null=True, help_text="Counted reviews that fit was made on.")
    log_loss_before = serializers.FloatField(
        allow_null=True, help_text="Log loss on your later reviews of the parameters used before that fit."
    )
    log_loss_after = serializers.FloatField(
        allow_null=True, help_text="…and of the fitted parameters (lower is better)."
    )
    last_attempt_at = serializers.DateTimeField(allow_null=True)
    last_attempt_outcome = serializers.CharField(allow_null=True)
    reviews = serializers.IntegerField(help_text="Counted reviews so far.")
    cards = serializers.IntegerField()
    min_reviews = serializers.IntegerField(help_text="Counted reviews needed before a first fit.")
    min_cards = serializers.IntegerField(help_text="…over at least this many cards.")


class WorkloadSerializer(serializers.Serializer):
    desired_retention = serializers.FloatField()
    reviews_per_day = serializers.ListField(
        child=serializers.FloatField(), help_text="Simulated reviews on each of the next 30 study days, today first."
    )
    average_reviews_per_day = serializers.FloatField()
    peak_reviews_per_day = serializers.FloatField()
    expected_recall = serializers.FloatField(
        help_text="The share of the cards you have studied that you would recall on an average day of the 30."
    )


def _parameters_data(user: User, profile: LearnerProfile) -> dict[str, Any]:
    status = parameters_status(user_id=user.pk, profile=profile)
    kept, latest = status.kept, status.latest
    return {
        "kind": "personal" if status.personal else "default",
        "fitted_at": kept.created_at if kept and status.personal else None,
        "fitted_reviews": kept.reviews if kept and status.personal else None,
        "log_loss_before": kept.log_loss_before if kept and status.personal else None,
        "log_loss_after": kept.log_loss_after if kept and status.personal else None,
        "last_attempt_at": latest.created_at if latest else None,
        "last_attempt_outcome": latest.outcome if latest else None,
        "reviews": status.reviews,
        "cards": status.cards,
        "min_reviews": status.min_reviews,
        "min_cards": status.min_cards,
    }


def _profile_data(user: User) -> dict:
    profile = profile_for(user=user)
    return {
        "username": user.get_username(),
        **{name: getattr(profile, name) for name in PROFILE_FIELDS},
        "reminder_channel": profile.reminder_choice,
        "parameters": _parameters_data(user, profile),
    }


def _profile_changes(data: dict) -> dict:
    """``reminder_channel`` is the reminders choice (push, email or none), saved as the web form saves it."""
    changes = dict(data)
    channel = changes.pop("reminder_channel", None)
    return changes if channel is None else changes | reminder_choice_fields(channel)


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


class ProfileView(AccountDeleteMixin, APIView):
    OutputSerializer = ProfileSerializer

    class InputSerializer(serializers.Serializer):
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

        class Meta:
            ref_name = "ProfileUpdate"

    @extend_schema(
        tags=TAG,
        operation_id="profile_read",
        summary="Read your settings",
        responses={200: OutputSerializer, **errors(401)},
    )
    def get(self, request: LearnerApiRequest) -> Response:
        return Response(self.OutputSerializer(_profile_data(request.user)).data)

    @extend_schema(
        tags=TAG,
        operation_id="profile_update",
        summary="Update some of your settings",
        description=(
            "Time zone from the tz database; rollover and reminder hours 0–23; desired retention 0.70–0.97 (outside: "
            "400 naming the field); limits ≥ 0. reminder_channel: push, email or none (none = reminder_opt_in false)."
        ),
        request=InputSerializer,
        responses={200: OutputSerializer, **errors(400, 401)},
    )
    def patch(self, request: LearnerApiRequest) -> Response:
        data = validated_body(self.InputSerializer, request)
        if data:
            learner_profile_update(user=request.user, **_profile_changes(data))
        return Response(self.OutputSerializer(_profile_data(request.user)).data)


def _workload_data(simulated: workload.Workload) -> dict[str, Any]:
    return {
        "desired_retention": simulated.desired_retention,
        "reviews_per_day": [round(count, 2) for count in simulated.reviews],
        "average_reviews_per_day": round(simulated.reviews_per_day, 2),
        "peak_reviews_per_day": round(simulated.peak, 2),
        "expected_recall": round(simulated.expected_recall, 4),
    }


class WorkloadView(APIView):
    class InputSerializer(serializers.Serializer):
        desired_retention = serializers.FloatField(
            min_value=MIN_RETENTION,
            max_value=MAX_RETENTION,
            required=False,
            help_text="The retention to simulate (default: yours).",
        )

    class OutputSerializer(serializers.Serializer):
        chosen = WorkloadSerializer()
        current = WorkloadSerializer(help_text="The same at your current desired retention.")
        suggested_retention = serializers.FloatField(
            help_text="fsrs-rs's optimal retention: the least study time per card remembered over a year of your deck."
        )
        parameters = ParametersStatusSerializer()

        class Meta:
            ref_name = "RetentionPreview"

    @extend_schema(
        tags=TAG,
        operation_id="profile_workload",
        summary="What a desired retention would cost: the next 30 days simulated from your cards and parameters",
        description=(
            "Nothing is saved: set the retention with PATCH /profile/. The simulation is fsrs-rs's, seeded (the same "
            "cards give the same figures), with your cards, daily limits and FSRS parameters; the suggestion is "
            "fsrs-rs's optimal retention. A retention outside 0.70–0.97 is a 400 naming the field."
        ),
        parameters=[InputSerializer],
        responses={200: OutputSerializer, **errors(400, 401)},
    )
    def get(self, request: LearnerApiRequest) -> Response:
        profile = profile_for(user=request.user)
        retention = query(self.InputSerializer, request).get("desired_retention", profile.desired_retention)
        preview = retention_preview(user=request.user, profile=profile, desired_retention=retention, now=timezone.now())
        data = {
            "chosen": _workload_data(preview.chosen),
            "current": _workload_data(preview.current),
            "suggested_retention": preview.suggested,
            "parameters": _parameters_data(request.user, profile),
        }
        return Response(self.OutputSerializer(data).data)
