"""Change the password from the app: every other token and every browser session of the learner ends at once.

The current password is checked through ``authenticate()``, so wrong guesses count in the log-in throttle (as this
device's, when it is a known device) and an attacker holding a stolen token cannot try passwords freely.
"""

from __future__ import annotations

from django.contrib.auth import authenticate, update_session_auth_hash
from django.utils.translation import gettext as _
from drf_spectacular.utils import extend_schema
from knox.models import AuthToken
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from quizzes.accounts.selectors import device_id_of_token
from quizzes.accounts.services import account_password_change
from quizzes.api.errors import ApiError
from quizzes.api.fields import StrictCharField
from quizzes.api.schema import errors
from quizzes.api.throttling import throttled_error
from quizzes.api.types import LearnerApiRequest
from quizzes.api.views.common import validated_body
from quizzes.core.errors import ErrorCode

TAG = ["auth"]


class PasswordChangeView(APIView):
    class InputSerializer(serializers.Serializer):
        current_password = StrictCharField(max_length=4096, trim_whitespace=False)
        new_password = StrictCharField(
            max_length=4096, trim_whitespace=False, help_text="Checked by the site's password rules (400 naming it)."
        )

        class Meta:
            ref_name = "PasswordChange"

    class OutputSerializer(serializers.Serializer):
        tokens_ended = serializers.IntegerField(help_text="Other devices' tokens that stopped working.")
        sessions_ended = serializers.IntegerField(help_text="Browser sessions that were signed out.")

        class Meta:
            ref_name = "PasswordChangeResult"

    @extend_schema(
        tags=TAG,
        operation_id="auth_password_change",
        summary="Change your password: every other token and every browser session ends",
        description="The token this request was made with keeps working. Wrong current password: 400 "
        "`invalid_credentials` on `current_password` (counted by the log-in throttle, 429 when over it).",
        request=InputSerializer,
        responses={200: OutputSerializer, **errors(400, 401, 429)},
    )
    def post(self, request: LearnerApiRequest) -> Response:
        data = validated_body(self.InputSerializer, request)
        user = request.user
        token = request.auth if isinstance(request.auth, AuthToken) else None
        # DRF's Request stands in for Django's HttpRequest, as in the log-in view: the throttled backend reads its
        # META and leaves ``throttled`` on it, and the session is the underlying request's.
        checked = authenticate(
            request,
            username=user.get_username(),
            password=data["current_password"],
            device_id=device_id_of_token(token=token) if token is not None else "",
        )
        refused = getattr(request, "throttled", None)
        if checked is None and refused is not None:
            raise throttled_error(refused)
        if checked is None or checked.pk != user.pk:
            message = _("Your current password is not right.")
            raise ApiError(
                status_code=400,
                code=ErrorCode.INVALID_CREDENTIALS,
                message=message,
                fields={"current_password": [message]},
            )
        session = getattr(request, "session", None)
        keep_session = session.session_key if token is None and session is not None else None
        revoked = account_password_change(
            user=user, new_password=data["new_password"], keep_token=token, keep_session_key=keep_session
        )
        if token is None and session is not None:  # a browser calling the API: keep it signed in (Django's rule)
            update_session_auth_hash(request, user)
        result = {"tokens_ended": revoked.tokens, "sessions_ended": revoked.sessions}
        return Response(self.OutputSerializer(result).data)
