"""Log in (a token per device), log out this device, log out everywhere, list this learner's tokens."""

from __future__ import annotations

from django.contrib.auth import authenticate, logout
from django.contrib.auth.signals import user_logged_in, user_logged_out
from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiResponse, extend_schema
from knox.models import AuthToken
from rest_framework import status
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from quizzes.accounts.selectors import device_tokens
from quizzes.accounts.services import api_token_create, api_token_delete, api_tokens_delete_all
from quizzes.api import serializers as s
from quizzes.api.errors import ApiError
from quizzes.api.schema import errors
from quizzes.api.throttling import throttled_error
from quizzes.api.types import LearnerApiRequest
from quizzes.core.errors import ErrorCode

TAG = ["auth"]


class LoginView(APIView):
    authentication_classes = ()  # a stale token in the header must not block logging in again
    permission_classes = (AllowAny,)
    # Throttled by the one log-in policy (quizzes.accounts.throttle) inside authenticate(), shared with the web pages.

    @extend_schema(
        tags=TAG,
        operation_id="auth_login",
        summary="Log in: username + password → a token for this device",
        request=s.LoginSerializer,
        responses={200: s.LoginResultSerializer, **errors(400, 429)},
        auth=[],
    )
    def post(self, request: Request) -> Response:
        serializer = s.LoginSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        user = authenticate(request._request, username=data["username"], password=data["password"])
        refused = getattr(request._request, "throttled", None)  # left by the throttled backend
        if user is None and refused is not None:
            raise throttled_error(refused)
        if user is None:
            raise ApiError(
                status_code=400, code=ErrorCode.INVALID_CREDENTIALS, message=_("Wrong username or password.")
            )
        issued = api_token_create(user=user, device_name=data["device_name"])
        user_logged_in.send(sender=user.__class__, request=request._request, user=user)
        result = {
            "token": issued.token,
            "token_key": issued.instance.token_key,
            "device_name": issued.device.name,
            "expiry": issued.instance.expiry,
            "user": {"id": user.pk, "username": user.get_username(), "is_staff": user.is_staff},
        }
        return Response(s.LoginResultSerializer(result).data)


class LogoutView(APIView):
    @extend_schema(
        tags=TAG,
        operation_id="auth_logout",
        summary="Log out this device (its token stops working)",
        request=None,
        responses={204: OpenApiResponse(description="Logged out."), **errors(401)},
    )
    def post(self, request: LearnerApiRequest) -> Response:
        if isinstance(request.auth, AuthToken):
            api_token_delete(token=request.auth)
        else:
            logout(request._request)
        user_logged_out.send(sender=request.user.__class__, request=request._request, user=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)


class LogoutAllView(APIView):
    @extend_schema(
        tags=TAG,
        operation_id="auth_logout_all",
        summary="Log out everywhere (every token of this learner stops working)",
        request=None,
        responses={204: OpenApiResponse(description="Logged out on every device."), **errors(401)},
    )
    def post(self, request: LearnerApiRequest) -> Response:
        user = request.user
        api_tokens_delete_all(user=user)
        if not isinstance(request.auth, AuthToken):
            logout(request._request)
        user_logged_out.send(sender=user.__class__, request=request._request, user=user)
        return Response(status=status.HTTP_204_NO_CONTENT)


class TokenListView(APIView):
    @extend_schema(
        tags=TAG,
        operation_id="auth_tokens_list",
        summary="This learner's unexpired device tokens",
        responses={200: s.DeviceTokenListSerializer, **errors(401)},
    )
    def get(self, request: LearnerApiRequest) -> Response:
        current = request.auth.digest if isinstance(request.auth, AuthToken) else None
        tokens = device_tokens(user=request.user, current_digest=current)
        return Response(s.DeviceTokenListSerializer({"tokens": tokens}).data)
