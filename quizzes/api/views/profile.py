"""The learner's settings: read and update (validated by the model through learner_profile_update); the workload a
desired retention would bring, and the FSRS parameters they are scheduled with (issue 30); the account's deletion
(``DELETE``) is views.account_deletion's."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from django.utils import timezone
from drf_spectacular.utils import extend_schema
from rest_framework.response import Response
from rest_framework.views import APIView

from quizzes.accounts.models import LearnerProfile, reminder_choice_fields
from quizzes.accounts.selectors import profile_for
from quizzes.accounts.services import PROFILE_FIELDS, learner_profile_update
from quizzes.api.schema import errors
from quizzes.api.serializers import profile as s
from quizzes.api.serializers import scheduling as ss
from quizzes.api.types import LearnerApiRequest
from quizzes.api.views.account_deletion import AccountDeleteMixin
from quizzes.api.views.common import query
from quizzes.reviews import workload
from quizzes.reviews.parameters import parameters_status, retention_preview

TAG = ["profile"]


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


class ProfileView(AccountDeleteMixin, APIView):
    @extend_schema(
        tags=TAG,
        operation_id="profile_read",
        summary="Read your settings",
        responses={200: s.ProfileSerializer, **errors(401)},
    )
    def get(self, request: LearnerApiRequest) -> Response:
        return Response(s.ProfileSerializer(_profile_data(request.user)).data)

    @extend_schema(
        tags=TAG,
        operation_id="profile_update",
        summary="Update some of your settings",
        description=(
            "Time zone from the tz database; rollover and reminder hours 0–23; desired retention 0.70–0.97 (outside: "
            "400 naming the field); limits ≥ 0. reminder_channel: push, email or none (none = reminder_opt_in false)."
        ),
        request=s.ProfileUpdateSerializer,
        responses={200: s.ProfileSerializer, **errors(400, 401)},
    )
    def patch(self, request: LearnerApiRequest) -> Response:
        serializer = s.ProfileUpdateSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        if serializer.validated_data:
            learner_profile_update(user=request.user, **_profile_changes(serializer.validated_data))
        return Response(s.ProfileSerializer(_profile_data(request.user)).data)


def _workload_data(simulated: workload.Workload) -> dict[str, Any]:
    return {
        "desired_retention": simulated.desired_retention,
        "reviews_per_day": [round(count, 2) for count in simulated.reviews],
        "average_reviews_per_day": round(simulated.reviews_per_day, 2),
        "peak_reviews_per_day": round(simulated.peak, 2),
        "expected_recall": round(simulated.expected_recall, 4),
    }


class WorkloadView(APIView):
    @extend_schema(
        tags=TAG,
        operation_id="profile_workload",
        summary="What a desired retention would cost: the next 30 days simulated from your cards and parameters",
        description=(
            "Nothing is saved: set the retention with PATCH /profile/. The simulation is fsrs-rs's, seeded (the same "
            "cards give the same figures), with your cards, daily limits and FSRS parameters; the suggestion is "
            "fsrs-rs's optimal retention. A retention outside 0.70–0.97 is a 400 naming the field."
        ),
        parameters=[ss.WorkloadQuerySerializer],
        responses={200: ss.RetentionPreviewSerializer, **errors(400, 401)},
    )
    def get(self, request: LearnerApiRequest) -> Response:
        profile = profile_for(user=request.user)
        retention = query(ss.WorkloadQuerySerializer, request).get("desired_retention", profile.desired_retention)
        preview = retention_preview(user=request.user, profile=profile, desired_retention=retention, now=timezone.now())
        data = {
            "chosen": _workload_data(preview.chosen),
            "current": _workload_data(preview.current),
            "suggested_retention": preview.suggested,
            "parameters": _parameters_data(request.user, profile),
        }
        return Response(ss.RetentionPreviewSerializer(data).data)
