"""Login throttles: 5 attempts a minute per client IP and per username (settings DEFAULT_THROTTLE_RATES).

They count in the Django cache (Redis when REDIS_URL is set, local memory otherwise), so the limit
holds across web processes in production. A throttled login gets 429 with ``Retry-After``.
"""

from __future__ import annotations

import hashlib

from rest_framework.request import Request
from rest_framework.throttling import SimpleRateThrottle


class LoginIPThrottle(SimpleRateThrottle):
    scope = "login_ip"

    def get_cache_key(self, request: Request, view: object) -> str:
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}


class LoginUsernameThrottle(SimpleRateThrottle):
    """Per account, whatever IPs the guesses come from (usernames compared case-insensitively)."""

    scope = "login_username"

    def get_cache_key(self, request: Request, view: object) -> str | None:
        data = request.data
        username = data.get("username") if isinstance(data, dict) else None
        if not isinstance(username, str) or not username.strip():
            return None
        ident = hashlib.sha256(username.strip().casefold().encode()).hexdigest()
        return self.cache_format % {"scope": self.scope, "ident": ident}
