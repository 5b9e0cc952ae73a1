"""knox's token authentication, plus the device's "last seen" — written at most once per interval per token.

knox authenticates every token request (two statements: the token with its user, the user's tokens for the
clean-up of expired ones). ``device_seen`` adds nothing to that while this process wrote the device less than
``DEVICE_SEEN_INTERVAL`` ago, and one conditional UPDATE after that (tests/bench_queries hold the budgets).
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.contrib.knox_auth_token import KnoxTokenScheme
from knox.auth import TokenAuthentication
from knox.models import AuthToken

from quizzes.accounts.devices import device_seen


class DeviceTokenAuthentication(TokenAuthentication):
    def validate_user(self, auth_token: AuthToken) -> tuple[Any, AuthToken]:
        user, token = super().validate_user(auth_token)
        device_seen(token=token)
        return user, token


class DeviceTokenScheme(KnoxTokenScheme):
    """The schema's security scheme: knox's own (``knoxApiToken``), for the subclass."""

    target_class = "quizzes.api.authentication.DeviceTokenAuthentication"
