"""One throttle policy for every way in: log-in (web, admin and API), password reset and sign-up.

Why our own and not django-axes: axes counts *failed log-ins* seen through Django's auth signals, so
it cannot limit password-reset requests or sign-ups, which this policy must; it keeps its counters in
the database (a row write per failure, under attack too) or in the cache through the same
``IGNORE_EXCEPTIONS`` client that silently turned every limit off while Redis was down; and its reset
on success clears more than the username's counter. The rules here are short, live in one place and
are used by the authentication backend (every ``authenticate()`` call: the learner log-in page, the
admin's log-in page, the API), by the sign-up view and by the password-reset view.

Policy (``THROTTLE_RATES`` in settings, each ``"<count>/<period>"``, e.g. ``5/15m``):

====================  ======================  ===============================================
scope                 keys                    what counts
====================  ======================  ===============================================
``login``             username, client IP     failed log-ins (a success clears the username's
                                              counter, never the IP's; it does not count itself)
``password_reset``    e-mail, client IP       every request
``signup``            username, client IP     every submitted form
``password_confirm``  username, client IP     every password asked again (account deletion)
``export``            learner id, client IP   every data export asked for (quizzes.privacy)
====================  ======================  ===============================================

The (count+1)-th attempt within the period — and every attempt after it until the period has passed
— is refused: the browser gets a page "Too many attempts; try again in N minutes" (429), the API
429 with ``Retry-After``. While refused, even the right password does not log in. Counting is
*reserve first*: the counter is incremented before the password is checked (an atomic INCR), so 50
concurrent guesses cannot all slip through; a successful log-in gives its reservation back.

Keys are hashes of the case-folded username/e-mail and of the client IP (IPv6 by its /64 network, which
one host usually owns whole). The client IP is ``client_ip()``: ``REMOTE_ADDR``, or with
``NUM_PROXIES=n`` trusted proxies in front, the address the n-th proxy from the right saw in
``X-Forwarded-For`` — the same rule DRF's throttles use (settings pass the same number to both).

**Storage and Redis outages.** Counters live in the ``throttle`` cache: Redis in production (shared by
every gunicorn process and machine), process memory without ``REDIS_URL``. That cache does *not*
ignore Redis errors. When Redis cannot be reached, the throttle falls back to a per-process memory
counter (logged as a warning, Redis retried after ``FALLBACK_SECONDS``): log-ins keep working and stay
limited, each process counting on its own (so at most processes × count attempts per period), instead
of the limit silently disappearing or every log-in failing.

**Unlocking.** Staff use the admin's "Unlock sign-in" action on users or the admin page
``/admin/auth/user/throttles/`` (a username, e-mail or IP), which call ``unlock()``.
"""

from __future__ import annotations

import dataclasses
import hashlib
import ipaddress
import logging
import math
import re
import time
from typing import Any

from django.conf import settings
from django.contrib.auth.backends import ModelBackend
from django.core.cache import caches
from django.core.cache.backends.locmem import LocMemCache
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest

from quizzes.accounts.selectors import user_by_id

logger = logging.getLogger(__name__)

SCOPES = ("login", "password_reset", "signup", "password_confirm", "export")
KINDS = ("username", "ip")
#: After a Redis error, use the per-process fallback for this long before trying Redis again.
FALLBACK_SECONDS = 5

_RATE = re.compile(r"^\s*(\d+)\s*/\s*(\d*)\s*(s|sec|m|min|h|hour|d|day)\s*$")
_UNITS = {"s": 1, "sec": 1, "m": 60, "min": 60, "h": 3600, "hour": 3600, "d": 86400, "day": 86400}


@dataclasses.dataclass(frozen=True)
class Rate:
    count: int
    seconds: int

    def __str__(self) -> str:
        return f"{self.count} per {self.seconds} s"


def parse_rate(text: str) -> Rate:
    """``"5/15m"`` → Rate(5, 900); also ``5/min``, ``10/1h``, ``3/d``."""
    found = _RATE.match(text)
    if not found:
        raise ValueError(f"not a rate: {text!r} (expected e.g. '5/15m', '10/1h')")
    count, number, unit = found.groups()
    seconds = int(number or 1) * _UNITS[unit]
    if int(count) < 1 or seconds < 1:
        raise ValueError(f"a rate needs a count and a period of at least 1: {text!r}")
    return Rate(int(count), seconds)


def rates() -> dict[tuple[str, str], Rate]:
    return {(scope, kind): parse_rate(settings.THROTTLE_RATES[scope][kind]) for scope in SCOPES for kind in KINDS}


class Throttled(Exception):
    """Too many attempts: ``retry_after`` seconds until the next one is allowed."""

    def __init__(self, scope: str, kind: str, retry_after: int) -> None:
        self.scope, self.kind, self.retry_after = scope, kind, max(1, int(retry_after))
        super().__init__(f"{scope} throttled by {kind} for {self.retry_after} s")

    @property
    def minutes(self) -> int:
        return max(1, math.ceil(self.retry_after / 60))


# --- the client IP --------------------------------------------------------------------------------------


def client_ip(request: HttpRequest) -> str:
    """The client's address under the one trusted-proxy rule (``NUM_PROXIES``), shared by pages and the API."""
    remote = request.META.get("REMOTE_ADDR", "") or ""
    proxies = settings.NUM_PROXIES
    forwarded = request.META.get("HTTP_X_FORWARDED_FOR")
    if proxies and forwarded:
        addresses = [a.strip() for a in forwarded.split(",") if a.strip()]
        if addresses:
            return addresses[-min(proxies, len(addresses))]
    return remote


def _ip_ident(ip: str) -> str:
    try:
        address = ipaddress.ip_address(ip)
    except ValueError:
        return ip[:100]
    if address.version == 6:
        if address.ipv4_mapped:
            return str(address.ipv4_mapped)
        return str(ipaddress.ip_network(f"{address}/64", strict=False))
    return str(address)


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "replace")).hexdigest()[:40]


def _identities(request: HttpRequest | None, username: Any) -> list[tuple[str, str]]:
    found = []
    if isinstance(username, str) and username.strip():
        found.append(("username", _digest(username.strip().casefold())))
    if request is not None:
        found.append(("ip", _digest(_ip_ident(client_ip(request)))))
    return found


def _keys(scope: str, kind: str, ident: str) -> tuple[str, str]:
    base = f"throttle:{scope}:{kind}:{ident}"
    return base + ":count", base + ":lock"


# --- the store: the shared cache, or this process's memory while it is unreachable ----------------------

_fallback = LocMemCache("quizsite-throttle-fallback", {"MAX_ENTRIES": 100_000})
_shared_down_until = 0.0


def _call(operation: str, *args: Any, **kwargs: Any) -> Any:
    """Run a cache operation on the shared store; on any error, on the per-process fallback (logged)."""
    global _shared_down_until
    if time.monotonic() >= _shared_down_until:
        try:
            return getattr(caches["throttle"], operation)(*args, **kwargs)
        except Exception as exc:  # redis.ConnectionError, TimeoutError, django-redis' ConnectionInterrupted…
            _shared_down_until = time.monotonic() + FALLBACK_SECONDS
            logger.warning(
                "throttle: the shared cache failed (%s); counting per process for %d s", exc, FALLBACK_SECONDS
            )
    return getattr(_fallback, operation)(*args, **kwargs)


def _incr(key: str, timeout: int) -> int:
    for _attempt in range(3):
        _call("add", key, 0, timeout=timeout)
        try:
            return int(_call("incr", key))
        except ValueError:  # expired between add and incr: start again
            continue
    return 1


def counter_value(key: str) -> int:
    """A counter in the same store (shared cache, or this process's memory while it is down); 0 if unset.
    For other per-user limits than log-ins (quizzes.practice.grading_budget)."""
    try:
        return int(_call("get", key) or 0)
    except (TypeError, ValueError):
        return 0


def counter_add(key: str, amount: int, timeout: int) -> int:
    """Add ``amount`` to a counter in the same store, created with ``timeout`` seconds to live; the new value."""
    for _attempt in range(3):
        _call("add", key, 0, timeout=timeout)
        try:
            return int(_call("incr", key, amount))
        except ValueError:  # expired between add and incr: start again
            continue
    return amount


# --- the policy --------------------------------------------------------------------------------------


def attempt(scope: str, *, request: HttpRequest | None, username: Any = None) -> None:
    """Count one attempt (before the password is checked / the work is done); raise Throttled if over the limit."""
    now = time.time()
    all_rates = rates()
    identities = _identities(request, username)
    for kind, ident in identities:
        count_key, lock = _keys(scope, kind, ident)
        until = _call("get", lock)
        if until is not None and float(until) > now:
            raise Throttled(scope, kind, math.ceil(float(until) - now))
        if until is not None:  # the lock's time is up (the store's own expiry may lag, e.g. clocks): start afresh
            _call("delete_many", [count_key, lock])
    for kind, ident in identities:
        rate = all_rates[(scope, kind)]
        count_key, lock = _keys(scope, kind, ident)
        if _incr(count_key, rate.seconds) > rate.count:
            _call("add", lock, now + rate.seconds, timeout=rate.seconds)
            until = float(_call("get", lock) or now + rate.seconds)
            raise Throttled(scope, kind, math.ceil(until - now))


def succeeded(scope: str, *, request: HttpRequest | None, username: Any) -> None:
    """A successful log-in: the username's counter is cleared; the IP's reservation is given back (not cleared)."""
    for kind, ident in _identities(request, username):
        count_key, lock = _keys(scope, kind, ident)
        if kind == "username":
            _call("delete_many", [count_key, lock])
        else:
            try:
                if int(_call("get", count_key) or 0) > 0:
                    _call("decr", count_key)
            except ValueError:
                pass


def locks(*, username: str = "", ip: str = "") -> list[dict[str, Any]]:
    """Current locks for a username/e-mail and/or IP, for the admin page."""
    now = time.time()
    found = []
    for kind, value in (("username", username), ("ip", ip)):
        if not value.strip():
            continue
        ident = _digest(value.strip().casefold()) if kind == "username" else _digest(_ip_ident(value.strip()))
        for scope in SCOPES:
            count_key, lock = _keys(scope, kind, ident)
            until = _call("get", lock)
            count = _call("get", count_key)
            if until is not None or count:
                found.append(
                    {
                        "scope": scope,
                        "kind": kind,
                        "value": value.strip(),
                        "count": int(count or 0),
                        "locked_seconds": max(0, math.ceil(float(until) - now)) if until is not None else 0,
                    }
                )
    return found


def unlock(*, username: str = "", ip: str = "") -> int:
    """Forget every counter and lock of a username/e-mail and/or an IP in every scope; returns how many were set."""
    cleared = len([row for row in locks(username=username, ip=ip) if row["count"] or row["locked_seconds"]])
    for kind, value in (("username", username), ("ip", ip)):
        if not value.strip():
            continue
        ident = _digest(value.strip().casefold()) if kind == "username" else _digest(_ip_ident(value.strip()))
        for scope in SCOPES:
            _call("delete_many", list(_keys(scope, kind, ident)))
    return cleared


# --- every authenticate() call --------------------------------------------------------------------------


class ThrottledModelBackend(ModelBackend):
    """Django's ModelBackend behind the ``login`` policy, for every caller of ``authenticate()``.

    A refused attempt raises PermissionDenied, which makes ``authenticate()`` stop and return None; the
    Throttled exception is left on the request (``request.throttled``) so the page or the API can say
    why. Wrong passwords also raise PermissionDenied, so no later backend in AUTHENTICATION_BACKENDS
    (ModelBackend stays listed only to load sessions created before this backend existed) ever checks
    a password without the throttle.
    """

    def authenticate(
        self, request: HttpRequest | None, username: Any = None, password: Any = None, **kwargs: Any
    ) -> Any:
        if username is None:
            from django.contrib.auth import get_user_model

            username = kwargs.get(get_user_model().USERNAME_FIELD)
        try:
            attempt("login", request=request, username=username)
        except Throttled as exc:
            if request is not None:
                request.throttled = exc  # type: ignore[attr-defined]  # read by the log-in page and the API
            raise PermissionDenied(str(exc)) from exc
        user = super().authenticate(request, username=username, password=password, **kwargs)
        if user is None:
            raise PermissionDenied("wrong username or password")
        succeeded("login", request=request, username=username)
        return user

    def get_user(self, user_id: Any) -> Any:
        """The signed-in user of a session (every signed-in page asks), read by a compiled statement (issue 16)."""
        if not isinstance(user_id, int):  # a primary key the compiled read does not take: Django's own query
            return super().get_user(user_id)
        user = user_by_id(user_id=user_id)
        return user if user is not None and self.user_can_authenticate(user) else None
