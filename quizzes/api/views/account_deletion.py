"""``DELETE /api/v1/profile/``: the learner deletes their own account, sending the password again.

The handler is a mixin of ``ProfileView`` (one view per URL); the rule is ``quizzes.privacy.deletion.account_delete``,
which the settings page calls too. 204 once deleted (the token dies with the account, so a retry gets 401).
Refused with nothing deleted: a wrong password (403 ``wrong_password``), a staff account (403 ``staff_account``),
too many wrong passwords (429 ``throttled``, the ``password_confirm`` limits in settings).
"""

from __future__ import annotations

from django.contrib.auth import logout
from django.utils.translation import gettext_lazy as _
from drf_spectacular.utils import OpenApiResponse, extend_schema
from knox.models import AuthToken
from rest_framework import serializers, status
from rest_framework.response import Response

from quizzes.accounts import throttle
from quizzes.api.errors import ApiError
from quizzes.api.schema import errors
from quizzes.api.throttling import throttled_error
from quizzes.api.types import LearnerApiRequest
from quizzes.api.views.common import validated_body
from quizzes.core.errors import DomainError
from quizzes.privacy.deletion import account_delete

DESCRIPTION = (
    "Deletes the account and everything keyed to it: profile, API tokens and devices, browser sessions, cards, "
    "review logs, attempts, review packs, reminder records, Idempotency-Key records and data exports. The "
    "answers of each lesson's first study attempt are kept only as anonymous rows for item statistics (no user, "
    'no link back, no free text; README "Your data"). The username and e-mail address can sign up again.\n\n'
    "403 `wrong_password` (nothing deleted), 403 `staff_account` (staff accounts are removed by an "
    "administrator), 429 `throttled` after repeated wrong passwords. After 204 the token no longer works, so a "
    "retry answers 401."
)


class AccountDeleteInputSerializer(serializers.Serializer):
    password = serializers.CharField(
        max_length=4096, trim_whitespace=False, help_text=_("Your current password, asked again.")
    )


class AccountDeleteMixin:
    """``delete`` for the profile's URL."""

    @extend_schema(
        tags=["profile"],
        operation_id="profile_delete",
        summary="Delete your account and your data (password asked again)",
        description=DESCRIPTION,
        request=AccountDeleteInputSerializer,
        responses={
            204: OpenApiResponse(description="The account and its data are deleted."),
            **errors(400, 401, 403, 413, 415, 429),
        },
    )
    def delete(self, request: LearnerApiRequest) -> Response:
        data = validated_body(AccountDeleteInputSerializer, request)
        user = request.user
        try:  # counted before the password is checked, so parallel guesses cannot slip through
            throttle.attempt("password_confirm", request=request, username=user.get_username())
        except throttle.Throttled as exc:
            raise throttled_error(exc) from None
        try:
            account_delete(user=user, password=data["password"])
        except DomainError as exc:
            raise ApiError(status_code=403, code=exc.error_code, message=" ".join(exc.messages)) from None
        if not isinstance(request.auth, AuthToken):  # a browser's session: it was deleted, clear its cookie
            logout(request)
        return Response(status=status.HTTP_204_NO_CONTENT)
