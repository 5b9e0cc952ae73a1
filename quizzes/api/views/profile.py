"""The learner's settings: read and update (validated by the model through learner_profile_update)."""

from __future__ import annotations

from django.contrib.auth.models import User
from drf_spectacular.utils import extend_schema
from rest_framework.response import Response
from rest_framework.views import APIView

from quizzes.accounts.selectors import profile_for
from quizzes.accounts.services import PROFILE_FIELDS, learner_profile_update
from quizzes.api import serializers as s
from quizzes.api.schema import errors
from quizzes.api.types import LearnerApiRequest

TAG = ["profile"]


def _profile_data(user: User) -> dict:
    profile = profile_for(user=user)
    data = {"username": user.get_username(), **{name: getattr(profile, name) for name in PROFILE_FIELDS}}
    data["reminder_channel"] = profile.reminder_channel if profile.reminder_opt_in else "none"
    return data


def _profile_changes(data: dict) -> dict:
    """``reminder_channel`` "none" turns reminders off; "push"/"email" turns them on by that channel."""
    changes = dict(data)
    channel = changes.pop("reminder_channel", None)
    if channel == "none":
        changes["reminder_opt_in"] = False
    elif channel is not None:
        changes |= {"reminder_opt_in": True, "reminder_channel": channel}
    return changes


class ProfileView(APIView):
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
        description="Time zone from the tz database; rollover and reminder hours 0–23; retention 0.7–0.99; limits ≥ 0. "
        "reminder_channel: push, email or none (none = reminder_opt_in false).",
        request=s.ProfileUpdateSerializer,
        responses={200: s.ProfileSerializer, **errors(400, 401)},
    )
    def patch(self, request: LearnerApiRequest) -> Response:
        serializer = s.ProfileUpdateSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        if serializer.validated_data:
            learner_profile_update(user=request.user, **_profile_changes(serializer.validated_data))
        return Response(s.ProfileSerializer(_profile_data(request.user)).data)
