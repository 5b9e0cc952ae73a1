"""Log in (a token for a device), log out this device, log out everywhere, list this learner's tokens.

Log-in with the app's stable ``device_id`` finds that device again (its name and push registration are kept) and
counts its failed attempts as a known device's (quizzes.accounts.throttle). ``/auth/tokens/`` is kept as it was,
each token now naming its device; ``/auth/devices/`` (quizzes.api.views.devices) is the devices' own list.
"""

from __future__ import annotations

from django.contrib.auth import authenticate, logout
from django.contrib.auth.signals import user_logged_in, user_logged_out
from django.core.validators import RegexValidator
from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiResponse, extend_schema
from knox.models import AuthToken
from rest_framework import serializers, status
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from quizzes.accounts.models import Device
from quizzes.accounts.selectors import device_tokens, device_view
from quizzes.accounts.services import account_sign_out_everywhere, api_token_create, api_token_delete
from quizzes.api.errors import ApiError
from quizzes.api.fields import StrictCharField, optional_text
from quizzes.api.schema import errors
from quizzes.api.throttling import throttled_error
from quizzes.api.types import LearnerApiRequest
from quizzes.api.views.common import validated_body
from quizzes.api.views.devices import DEVICE_ID_PATTERN, DeviceSerializer, current_token_digest, device_data
from quizzes.core.errors import ErrorCode

TAG = ["auth"]


# --- serializers -----------------------------------------------------------------------------------------------


class LoginSerializer(serializers.Serializer):
    username = StrictCharField(max_length=150)
    password = StrictCharField(max_length=4096, trim_whitespace=False)
    device_name = optional_text(
        max_length=100,
        help_text='The device, e.g. "Pixel 8": the name of a new device (a known device keeps its own).',
    )
    device_id = optional_text(
        max_length=128,
        validators=[RegexValidator(DEVICE_ID_PATTERN, _("1–128 letters, digits and . _ : -"))],
        help_text="The app's own stable id for this install (e.g. a UUID it keeps): a re-login with it keeps the "
        "device's name and push registration, and a device the account knows is not held by other clients' "
        "failed log-ins. Without it every log-in is a new device.",
    )
    platform = serializers.ChoiceField(
        choices=Device.Platform.choices,
        required=False,
        help_text="Which push services it can use (fills in a known device's platform when it had none).",
    )


class TokenUserSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    username = serializers.CharField()
    is_staff = serializers.BooleanField()


class LoginResultSerializer(serializers.Serializer):
    token = serializers.CharField(help_text="Send as `Authorization: Token <token>`. Shown once.")
    token_key = serializers.CharField(help_text="The token's first characters: identifies this device's token.")
    device_name = serializers.CharField(allow_blank=True, help_text="The device's name (a known device's own).")
    expiry = serializers.DateTimeField(allow_null=True)
    user = TokenUserSerializer()
    device = DeviceSerializer()


class DeviceTokenSerializer(serializers.Serializer):
    token_key = serializers.CharField()
    device_name = serializers.CharField(allow_blank=True, help_text="The name of the device it was issued to.")
    device = serializers.IntegerField(allow_null=True, help_text="The device's id (/api/v1/auth/devices/{device_pk}/).")
    created = serializers.DateTimeField()
    expiry = serializers.DateTimeField(allow_null=True)
    current = serializers.BooleanField(help_text="The token this request was made with.")


class DeviceTokenListSerializer(serializers.Serializer):
    tokens = DeviceTokenSerializer(many=True)


# --- views -----------------------------------------------------------------------------------------------------


class LoginView(APIView):
    authentication_classes = ()  # a stale token in the header must not block logging in again
    permission_classes = (AllowAny,)
    # Throttled by the one log-in policy (quizzes.accounts.throttle) inside authenticate(), shared with the web pages.

    @extend_schema(
        tags=TAG,
        operation_id="auth_login",
        summary="Log in: username + password → a token for this device",
        request=LoginSerializer,
        responses={200: LoginResultSerializer, **errors(400, 429)},
        auth=[],
    )
    def post(self, request: Request) -> Response:
        data = validated_body(LoginSerializer, request)
        # DRF's Request stands in for Django's HttpRequest ("all the other standard attributes and methods are
        # also available"): the backend reads its META and cookies and leaves ``throttled`` on it.
        user = authenticate(request, username=data["username"], password=data["password"], device_id=data["device_id"])
        refused = getattr(request, "throttled", None)  # left by the throttled backend
        if user is None and refused is not None:
            raise throttled_error(refused)
        if user is None:
            raise ApiError(
                status_code=400, code=ErrorCode.INVALID_CREDENTIALS, message=_("Wrong username or password.")
            )
        issued = api_token_create(
            user=user, device_name=data["device_name"], device_id=data["device_id"], platform=data.get("platform", "")
        )
        user_logged_in.send(sender=user.__class__, request=request, user=user)
        device = device_view(user=user, device_pk=issued.device.pk, current_digest=issued.instance.digest)
        result = {
            "token": issued.token,
            "token_key": issued.instance.token_key,
            "device_name": issued.device.name,
            "expiry": issued.instance.expiry,
            "user": {"id": user.pk, "username": user.get_username(), "is_staff": user.is_staff},
            "device": device_data(device) if device is not None else None,
        }
        return Response(LoginResultSerializer(result).data)


def _logged_out(request: LearnerApiRequest) -> Response:
    """A log-out's 204, once its tokens are deleted; user_logged_out goes out once: sent here for a token, while
    for a browser's session ``logout()`` ends it and sends the signal itself."""
    if isinstance(request.auth, AuthToken):
        user_logged_out.send(sender=request.user.__class__, request=request, user=request.user)
    else:
        logout(request)
    return Response(status=status.HTTP_204_NO_CONTENT)


class LogoutView(APIView):
    @extend_schema(
        tags=TAG,
        operation_id="auth_logout",
        summary="Log out this device (its token stops working; the device stays listed)",
        description="To sign a device out for good, with its other tokens and push registration: "
        "DELETE /api/v1/auth/devices/{device_pk}/.",
        request=None,
        responses={204: OpenApiResponse(description="Logged out."), **errors(401)},
    )
    def post(self, request: LearnerApiRequest) -> Response:
        if isinstance(request.auth, AuthToken):
            api_token_delete(token=request.auth)
        return _logged_out(request)


class LogoutAllView(APIView):
    @extend_schema(
        tags=TAG,
        operation_id="auth_logout_all",
        summary="Log out everywhere: every token and every browser session of this learner ends",
        request=None,
        responses={204: OpenApiResponse(description="Logged out on every device and browser."), **errors(401)},
    )
    def post(self, request: LearnerApiRequest) -> Response:
        account_sign_out_everywhere(user=request.user)
        return _logged_out(request)


class TokenListView(APIView):
    @extend_schema(
        tags=TAG,
        operation_id="auth_tokens_list",
        summary="This learner's unexpired tokens, each with its device",
        description="Kept for older clients; /api/v1/auth/devices/ lists the devices themselves.",
        responses={200: DeviceTokenListSerializer, **errors(401)},
    )
    def get(self, request: LearnerApiRequest) -> Response:
        tokens = device_tokens(user=request.user, current_digest=current_token_digest(request))
        return Response(DeviceTokenListSerializer({"tokens": tokens}).data)
