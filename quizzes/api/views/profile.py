"""The learner's settings: read and update (validated by the model through learner_profile_update); the account's
deletion (``DELETE``) is views.account_deletion's."""

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
from quizzes.api.views.account_deletion import AccountDeleteMixin

TAG = ["profile"]


def _profile_data(user: User) -> dict:
    profile = profile_for(user=user)
    return {"username": user.get_username(), **{name: getattr(profile, name) for name in PROFILE_FIELDS}}


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
        description="Time zone from the tz database; rollover and reminder hours 0–23; retention 0.7–0.99; limits ≥ 0.",
        request=s.ProfileUpdateSerializer,
        responses={200: s.ProfileSerializer, **errors(400, 401)},
    )
    def patch(self, request: LearnerApiRequest) -> Response:
        serializer = s.ProfileUpdateSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        if serializer.validated_data:
            learner_profile_update(user=request.user, **serializer.validated_data)
        return Response(s.ProfileSerializer(_profile_data(request.user)).data)
