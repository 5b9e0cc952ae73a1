"""One throttle policy for every way in: log-in (web, admin and API), password reset and sign-up.

Why our own and not django-axes: axes counts *failed log-ins* seen through Django's auth signals, so
it cannot limit password-reset requests or sign-ups, which this policy must; it keeps its counters in
the database (a row write per failure, under attack too) or in the cache through the same
``IGNORE_EXCEPTIONS`` client that silently turned every limit off while Redis was down; and its reset
on success clears more than the username's counter. The rules here are short, live in one place and
are used by the authentication backend (every ``authenticate()`` call: the learner log-in page, the
admin's log-in page, the API), by the sign-up view and by the password-reset view.

**Log-in must not become a way to lock anyone out** (OWASP's Authentication Cheat Sheet, "Account Lockout"
and "device cookies"). A log-in from an unknown client counts its failure three times — per (account,
client address), per address, and per account — and each has its own limit: an attacker at one address
locks only that address out of that account (5 failures), or that address out of every account (20, which
catches one address spraying many usernames); the account-wide limit is far higher (100 an hour), so it takes
many addresses to reach it, and only then are unknown clients refused for that account. A **known device** —
a browser that signed in to this account before (a signed cookie, ``KNOWN_DEVICE_COOKIE``) or an app that
sends the id of one of the account's devices — is counted on its own (per account and device) and held by
none of the other limits, so an account under attack still lets its owner in from their own phone and
browser. A **password reset by e-mail** is another way in: its requests have their own scope, and setting the
new password clears the account-wide counter and makes that browser a known device (quizzes.web.views.accounts).

Policy (``THROTTLE_RATES`` in settings, each ``"<count>/<period>"``, e.g. ``5/15m``):

====================  ==============================  ==============================================
scope                 keys                            what counts
====================  ==============================  ==============================================
``login``             ``pair``: account + client IP   failed log-ins from unknown clients (a success
                      ``ip``: client IP               clears the pair's counter and gives back its
                      ``username``: the account       reservations on the others)
                      ``device``: account + device    failed log-ins from a known device
``password_reset``    e-mail, client IP               every request
``signup``            username, client IP             every submitted form (a quota: ``request_quotas``)
``password_confirm``  username, client IP             every password asked again (account deletion)
``export``            learner id, client IP           every data export asked for (quizzes.privacy; a quota)
====================  ==============================  ==============================================

``signup`` and ``export`` are **quotas**, counted by the same mechanism as the learners' quotas below
(``quotas_take``: a fixed window per key, RateLimit-Policy / RateLimit on the response, 429 + Retry-After until the
window ends); the log-in, password-reset and password-confirm scopes lock for a period (``attempt``).

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
``/admin/auth/user/throttles/`` (a username, e-mail or IP), which call ``unlock()``; unlocking an account
also ends its per-address and per-device locks (their keys carry the account's *epoch*, which unlocking moves on).
"""

from __future__ import annotations

import dataclasses
import hashlib
import ipaddress
import logging
import math
import re
import secrets
import time
from typing import Any

from django.conf import settings
from django.contrib.auth.backends import ModelBackend
from django.core import signing
from django.core.cache import caches
from django.core.cache.backends.locmem import LocMemCache
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse

from quizzes.accounts.selectors import device_known, user_by_id

logger = logging.getLogger(__name__)

#: Each scope's kinds of key (the settings' THROTTLE_RATES has a rate for each).
SCOPE_KINDS = {
    "login": ("pair", "ip", "username", "device"),
    "password_reset": ("username", "ip"),
    "signup": ("username", "ip"),
    "password_confirm": ("username", "ip"),
    "export": ("username", "ip"),
}
SCOPES = tuple(SCOPE_KINDS)
#: The kinds a success clears; the others only get the success's own reservation back.
CLEARED_ON_SUCCESS = frozenset({"pair", "device"})
#: The kinds whose keys carry the account's epoch (so that unlocking the account ends them).
PER_ACCOUNT = frozenset({"pair", "device"})
KNOWN_DEVICE_COOKIE = "known_device"
_KNOWN_DEVICE_SALT = "quizzes.accounts.throttle.known-device"
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
    return {
        (scope, kind): parse_rate(settings.THROTTLE_RATES[scope][kind])
        for scope, kinds in SCOPE_KINDS.items()
        for kind in kinds
    }


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


def _account(username: Any) -> str | None:
    return _digest(username.strip().casefold()) if isinstance(username, str) and username.strip() else None


def _identities(
    request: HttpRequest | None, username: Any, *, scope: str = "signup", device: str | None = None
) -> list[tuple[str, str]]:
    """The (kind, key) pairs one attempt counts against."""
    account = _account(username)
    address = _digest(_ip_ident(client_ip(request))) if request is not None else None
    if scope != "login":
        return [(kind, ident) for kind, ident in (("username", account), ("ip", address)) if ident is not None]
    if account is not None and device:
        return [("device", _digest(f"{account}:{_epoch(account)}:{device}"))]
    found = []
    if account is not None and address is not None:
        found.append(("pair", _digest(f"{account}:{_epoch(account)}:{address}")))
    if address is not None:
        found.append(("ip", address))
    if account is not None:
        found.append(("username", account))
    return found


def _epoch_key(account: str) -> str:
    return f"throttle:login:epoch:{account}"


def _epoch(account: str) -> int:
    return int(_call("get", _epoch_key(account)) or 0)


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


def attempt(scope: str, *, request: HttpRequest | None, username: Any = None, device: str | None = None) -> None:
    """Count one attempt (before the password is checked / the work is done); raise Throttled if over the limit.

    ``device``: a known device's own id (a log-in only; the caller checked it belongs to this account).
    """
    if scope in REQUEST_SCOPES:
        raise ValueError(f"{scope} is a quota: count it with request_quotas()")
    now = time.time()
    all_rates = rates()
    identities = _identities(request, username, scope=scope, device=device)
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


def succeeded(scope: str, *, request: HttpRequest | None, username: Any, device: str | None = None) -> None:
    """A successful log-in: the pair's (or the device's) counter is cleared; the address's and the account's
    reservations are given back (a success does not count), their counts of earlier failures kept."""
    for kind, ident in _identities(request, username, scope=scope, device=device):
        count_key, lock = _keys(scope, kind, ident)
        if kind in CLEARED_ON_SUCCESS:
            _call("delete_many", [count_key, lock])
        else:
            try:
                if int(_call("get", count_key) or 0) > 0:
                    _call("decr", count_key)
            except ValueError:
                pass


def account_reset(*, username: str) -> None:
    """The owner proved they hold the account's e-mail (a password reset): its account-wide log-in lock ends."""
    account = _account(username)
    if account is not None:
        _call("delete_many", list(_keys("login", "username", account)))


def _lookup_keys(kind: str, value: str) -> list[tuple[str, str, str]]:
    """(scope, kind, ident) a username/e-mail or an IP is counted under, in every scope."""
    if kind == "username":
        account = _digest(value.casefold())
        return [(scope, "username", account) for scope in SCOPES]
    address = _digest(_ip_ident(value))
    return [(scope, "ip", address) for scope in SCOPES]


def locks(*, username: str = "", ip: str = "") -> list[dict[str, Any]]:
    """Current locks for a username/e-mail and/or IP (and the pair of both), for the admin page."""
    now = time.time()
    username, ip = username.strip(), ip.strip()
    keys = [(s, k, i, username) for s, k, i in _lookup_keys("username", username)] if username else []
    keys += [(s, k, i, ip) for s, k, i in _lookup_keys("ip", ip)] if ip else []
    if username and ip:
        account = _digest(username.casefold())
        pair = _digest(f"{account}:{_epoch(account)}:{_digest(_ip_ident(ip))}")
        keys.append(("login", "pair", pair, f"{username} @ {ip}"))
    found = []
    for scope, kind, ident, value in keys:
        if scope in REQUEST_SCOPES:  # a quota: its current window's counter; spent until the window ends
            rate = parse_rate(settings.THROTTLE_RATES[scope][kind])
            window, reset = _window_key(scope, kind, ident, rate, now)
            used = counter_value(window)
            if used:
                locked = reset if used > rate.count else 0
                found.append({"scope": scope, "kind": kind, "value": value, "count": used, "locked_seconds": locked})
            continue
        count_key, lock = _keys(scope, kind, ident)
        until = _call("get", lock)
        count = _call("get", count_key)
        if until is not None or count:
            found.append(
                {
                    "scope": scope,
                    "kind": kind,
                    "value": value,
                    "count": int(count or 0),
                    "locked_seconds": max(0, math.ceil(float(until) - now)) if until is not None else 0,
                }
            )
    return found


def unlock(*, username: str = "", ip: str = "") -> int:
    """Forget every counter and lock of a username/e-mail (its per-address and per-device ones too) and/or an IP in
    every scope; returns how many were set."""
    cleared = len([row for row in locks(username=username, ip=ip) if row["count"] or row["locked_seconds"]])
    for kind, value in (("username", username.strip()), ("ip", ip.strip())):
        if value:
            now = time.time()
            for scope, key_kind, ident in _lookup_keys(kind, value):
                if scope in REQUEST_SCOPES:
                    rate = parse_rate(settings.THROTTLE_RATES[scope][key_kind])
                    _call("delete", _window_key(scope, key_kind, ident, rate, now)[0])
                    continue
                _call("delete_many", list(_keys(scope, key_kind, ident)))
    if username.strip():
        epoch_key = _epoch_key(_digest(username.strip().casefold()))
        _call("set", epoch_key, _epoch(_digest(username.strip().casefold())) + 1, timeout=None)
    return cleared


# --- known devices: a browser (signed cookie) or an app (a device id of the account) ---------------------------


def known_device_cookie(*, username: str) -> str:
    """A new signed value for the cookie that makes this browser a known device of this account."""
    return signing.dumps({"a": _account(username), "n": secrets.token_urlsafe(12)}, salt=_KNOWN_DEVICE_SALT)


def remember_device(response: HttpResponse, *, username: str) -> None:
    """Set the known-device cookie on a response (a successful log-in, a password reset by e-mail)."""
    response.set_cookie(
        KNOWN_DEVICE_COOKIE,
        known_device_cookie(username=username),
        max_age=settings.KNOWN_DEVICE_COOKIE_DAYS * 86400,
        secure=settings.SESSION_COOKIE_SECURE,
        httponly=True,
        samesite="Lax",
    )


def known_device(request: HttpRequest | None, *, username: Any, device_id: Any = None) -> str | None:
    """This log-in's known device, if it has one for this account: the app's device id when the account has a
    device with it, else the browser's cookie when it was set for this account. None: an unknown client."""
    account = _account(username)
    if request is None or account is None:
        return None
    if isinstance(device_id, str) and device_id and device_known(username=username, device_id=device_id):
        return f"app:{device_id}"
    value = request.COOKIES.get(KNOWN_DEVICE_COOKIE)
    if not value:
        return None
    try:
        found = signing.loads(value, salt=_KNOWN_DEVICE_SALT, max_age=settings.KNOWN_DEVICE_COOKIE_DAYS * 86400)
    except signing.BadSignature:
        return None
    if not isinstance(found, dict) or found.get("a") != account or not isinstance(found.get("n"), str):
        return None
    return f"web:{found['n']}"


# --- every authenticate() call --------------------------------------------------------------------------


class ThrottledModelBackend(ModelBackend):
    """Django's ModelBackend behind the ``login`` policy, for every caller of ``authenticate()``.

    ``device_id`` (the API's log-in passes it) may name a known device of the account. A refused attempt raises
    PermissionDenied, which makes ``authenticate()`` stop and return None; the
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
        device = known_device(request, username=username, device_id=kwargs.get("device_id"))
        try:
            attempt("login", request=request, username=username, device=device)
        except Throttled as exc:
            if request is not None:
                request.throttled = exc  # type: ignore[attr-defined]  # read by the log-in page and the API
            raise PermissionDenied(str(exc)) from exc
        user = super().authenticate(request, username=username, password=password, **kwargs)
        if user is None:
            raise PermissionDenied("wrong username or password")
        succeeded("login", request=request, username=username, device=device)
        return user

    def get_user(self, user_id: Any) -> Any:
        """The signed-in user of a session (every signed-in page asks), read by a compiled statement (issue 16)."""
        if not isinstance(user_id, int):  # a primary key the compiled read does not take: Django's own query
            return super().get_user(user_id)
        user = user_by_id(user_id=user_id)
        return user if user is not None and self.user_can_authenticate(user) else None


# --- quotas where abuse costs us (issue 28): answers, offline uploads, pack creation, reports, sign-up, exports ---

#: Each per-learner quota's scope → its name in RateLimit-Policy / RateLimit; the rate is
#: ``THROTTLE_RATES[scope]["learner"]``.
LEARNER_SCOPES = ("answers", "offline_uploads", "packs", "reports")
#: Scopes counted by the same quotas per request identity (``request_quotas``): each of their kinds
#: (``SCOPE_KINDS``) is one quota, named ``<scope>_<kind>`` in the headers (e.g. ``"signup_ip"``).
REQUEST_SCOPES = ("signup", "export")


@dataclasses.dataclass(frozen=True)
class Quota:
    """One identity's standing in one quota's current window (a fixed window of ``rate.seconds``)."""

    scope: str  # the policy's name in the headers
    rate: Rate
    remaining: int
    reset: int  # seconds until the window ends and the quota is whole again


class QuotaExceeded(Throttled):
    """Past a quota: ``quota`` is the one spent (the longest wait), ``quotas`` every quota the request counted."""

    def __init__(self, quota: Quota, quotas: tuple[Quota, ...] = ()) -> None:
        super().__init__(quota.scope, "learner", quota.reset)
        self.quota = quota
        self.quotas = quotas or (quota,)


def _window_key(scope: str, kind: str, ident: str, rate: Rate, now: float) -> tuple[str, int]:
    """The counter of the fixed window ``now`` falls in, and the seconds until that window ends."""
    window = int(now // rate.seconds)
    return f"throttle:{scope}:{kind}:{ident}:{window}", max(1, math.ceil((window + 1) * rate.seconds - now))


def quotas_take(scope: str, *, keys: list[tuple[str, str, str]]) -> tuple[Quota, ...]:
    """Count one request against each ``(kind, ident, name)`` quota of the scope; raise QuotaExceeded past any.

    A fixed window per quota (``THROTTLE_RATES[scope][kind]``, ``<count>/<period>``, the clock's own windows): one
    counter in the throttle cache (ADD with its expiry, then the atomic INCR: two round trips), no database query,
    so the answer POST keeps its speed; while Redis is down, counted per process (``_call``). Every quota is counted
    before any refusal (reserve first), so concurrent requests cannot slip past a limit together.
    """
    now = time.time()
    quotas = []
    for kind, ident, name in keys:
        rate = parse_rate(settings.THROTTLE_RATES[scope][kind])
        key, reset = _window_key(scope, kind, ident, rate, now)
        used = counter_add(key, 1, rate.seconds + 1)
        quotas.append((Quota(name, rate, max(0, rate.count - used), reset), used > rate.count))
    counted = tuple(quota for quota, _over in quotas)
    spent = [quota for quota, over in quotas if over]
    if spent:
        raise QuotaExceeded(max(spent, key=lambda quota: quota.reset), counted)
    return counted


def learner_quota(scope: str, *, user_id: int) -> Quota:
    """Count one request of this learner against the scope's quota (``quotas_take``); raise QuotaExceeded past it."""
    return quotas_take(scope, keys=[("learner", str(user_id), scope)])[0]


def request_quotas(scope: str, *, request: HttpRequest | None, username: Any = None) -> tuple[Quota, ...]:
    """Count one sign-up or export request against its scope's quotas — per account (the probed username, or
    ``learner:<id>``) and per client address (``_identities``) — with the same mechanism as the learners' quotas."""
    return quotas_take(
        scope, keys=[(kind, ident, f"{scope}_{kind}") for kind, ident in _identities(request, username, scope=scope)]
    )


def ratelimit_headers(*quotas: Quota) -> dict[str, str]:
    """RateLimit-Policy and RateLimit in draft-ietf-httpapi-ratelimit-headers-11's structured-field form, each a List
    with one member per quota: ``RateLimit-Policy: "answers";q=120;w=60`` and ``RateLimit: "answers";r=119;t=42``."""
    if not quotas:
        return {}
    return {
        "RateLimit-Policy": ", ".join(f'"{q.scope}";q={q.rate.count};w={q.rate.seconds}' for q in quotas),
        "RateLimit": ", ".join(f'"{q.scope}";r={q.remaining};t={q.reset}' for q in quotas),
    }
