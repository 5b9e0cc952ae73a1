"""Reads about accounts: the learner's profile, whether an e-mail address is taken or a username confusable, a
learner's devices and device tokens, their browser sessions, whether a log-in comes from a known device."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from django.contrib.auth import SESSION_KEY, get_user_model
from django.contrib.auth.models import User
from django.contrib.sessions.models import Session
from django.db.models import Exists, OuterRef, Q, QuerySet
from django.utils import timezone
from knox.models import AuthToken

from quizzes.accounts.models import BrowserSession, Device, LearnerProfile, UsernameSkeleton
from quizzes.accounts.usernames import username_digest
from quizzes.core.compiled import CompiledRead


def _profile_query(_key: object, *, user_id: int) -> QuerySet[Any]:
    return LearnerProfile.objects.filter(user_id=user_id).values_list(*_PROFILE_COLUMNS)


_PROFILE_COLUMNS = tuple(field.attname for field in LearnerProfile._meta.concrete_fields)
#: every request of a signed-in learner reads the profile: compiled once per process (issue 16), kept for its
#: measurement (bench/README.md, "SQL fast paths": 0.58 against 1.74 ms of CPU; tests/quizzes/core/test_fast_paths.py)
_PROFILE = CompiledRead(_profile_query, {"user_id": int})


def profile_for(*, user: User) -> LearnerProfile:
    """The learner's profile, or an unsaved one with the defaults (selectors never write)."""
    rows = _PROFILE.rows(None, user_id=user.pk)
    if not rows:
        return LearnerProfile(user=user)
    return LearnerProfile.from_db("default", _PROFILE_COLUMNS, rows[0])


def _user_query(_key: object, *, user_id: int) -> QuerySet[Any]:
    return User._default_manager.filter(pk=user_id).values_list(*_USER_COLUMNS)


_USER_COLUMNS = tuple(field.attname for field in User._meta.concrete_fields)
#: every signed-in page loads its user by the id in the session: compiled once per process (issue 16), kept for its
#: measurement (bench/README.md, "SQL fast paths": 0.54 against 1.62 ms of CPU; tests/quizzes/core/test_fast_paths.py)
_USER = CompiledRead(_user_query, {"user_id": int})


def user_by_id(*, user_id: int) -> User | None:
    """The account with this id, active or not (the log-in backend decides who may be signed in)."""
    rows = _USER.rows(None, user_id=user_id)
    return User.from_db("default", _USER_COLUMNS, rows[0]) if rows else None


def user_table_answers() -> bool:
    """One indexed LIMIT 1 read of the user table through the ORM: raises DatabaseError when the database is down
    (the health check's probe)."""
    get_user_model().objects.exists()
    return True


def email_taken(*, email: str, exclude_pk: int | None = None) -> bool:
    """Whether another account uses this address (case-insensitive; the unique index has the final word)."""
    users = get_user_model().objects.filter(email__iexact=email.strip())
    if exclude_pk is not None:
        users = users.exclude(pk=exclude_pk)
    return users.exists()


def username_confusable(*, username: str, exclude_pk: int | None = None) -> bool:
    """Whether another account's username has this username's skeleton (UTS #39; the unique digest is final)."""
    found = UsernameSkeleton.objects.filter(digest=username_digest(username))
    if exclude_pk is not None:
        found = found.exclude(user_id=exclude_pk)
    return found.exists()


def _live_tokens() -> Q:
    return Q(expiry__gt=timezone.now()) | Q(expiry__isnull=True)


@dataclass(frozen=True)
class DeviceToken:
    token_key: str
    device_name: str
    device: int | None
    created: dt.datetime
    expiry: dt.datetime | None
    current: bool


def device_tokens(*, user: User, current_digest: str | None = None) -> list[DeviceToken]:
    """The learner's unexpired API tokens, newest first, each with the device it was issued to."""
    tokens = AuthToken.objects.filter(_live_tokens(), user=user).select_related("device__device").order_by("-created")
    return [
        DeviceToken(
            token_key=token.token_key,
            device_name=token.device.device.name if hasattr(token, "device") else "",
            device=token.device.device_id if hasattr(token, "device") else None,
            created=token.created,
            expiry=token.expiry,
            current=token.digest == current_digest,
        )
        for token in tokens
    ]


#: Sessions are read this many rows at a time when looking for a learner's (each row is decoded in Python).
SESSION_SCAN_CHUNK = 2000


def session_keys_of(*, user_id: int) -> list[str]:
    """Every stored browser session signed in as this account, expired ones too (their data still names it).

    Django's database sessions have no user column: the user id is inside the signed session data, so every
    row is decoded (chunked; account deletion is the only caller, and it is rare). A session whose data does
    not decode is not anyone's.
    """
    from quizzes.accounts.sessions import SessionStore

    store = SessionStore()
    wanted = str(user_id)
    keys = []
    rows = Session.objects.values_list("session_key", "session_data").iterator(chunk_size=SESSION_SCAN_CHUNK)
    for key, data in rows:
        if str(store.decode(data).get(SESSION_KEY, "")) == wanted:  # decode: {} for data that does not verify
            keys.append(key)
    return keys


@dataclass(frozen=True)
class DeviceView:
    """A device as the learner sees it listed (API and settings page)."""

    id: int
    device_id: str
    name: str
    platform: str
    platform_label: str
    created: dt.datetime
    last_seen: dt.datetime
    signed_in: bool  # has a live token: gets pushes, can call the API
    current: bool  # the device of the request's token
    push: str | None  # "fcm", "apns", "webpush", or None


def _push_service(device: Device) -> str | None:
    for service in ("fcm", "apns", "webpush"):
        if getattr(device, f"{service}_id") is not None:
            return service
    return None


def devices_of(*, user: User, current_digest: str | None = None) -> list[DeviceView]:
    """The learner's devices, the most recently seen first: one query."""
    live = AuthToken.objects.filter(_live_tokens(), device__device=OuterRef("pk"))
    current = AuthToken.objects.filter(digest=current_digest or "", device__device=OuterRef("pk"))
    devices = (
        Device.objects.filter(user=user)
        .annotate(signed_in=Exists(live), current=Exists(current))
        .order_by("-last_seen_at", "-pk")
    )
    return [
        DeviceView(
            id=device.pk,
            device_id=device.device_id,
            name=device.name,
            platform=device.platform,
            platform_label=str(device.get_platform_display()),
            created=device.created_at,
            last_seen=device.last_seen_at,
            signed_in=device.signed_in,  # annotated
            current=device.current,
            push=_push_service(device),
        )
        for device in devices
    ]


def device_view(*, user: User, device_pk: int, current_digest: str | None = None) -> DeviceView | None:
    return next((view for view in devices_of(user=user, current_digest=current_digest) if view.id == device_pk), None)


def device_for(*, user: User, device_pk: int) -> Device | None:
    """One of the learner's devices, or None — also for another learner's (which must look the same: 404)."""
    return Device.objects.filter(user=user, pk=device_pk).first()


def device_id_of_token(*, token: AuthToken) -> str:
    """The app's id of the device a token was issued to ("" for a token without a device)."""
    return Device.objects.filter(tokens__token=token.digest).values_list("device_id", flat=True).first() or ""


def device_known(*, username: str, device_id: str) -> bool:
    """Whether the account with this username has signed in on the device with this app id before."""
    if not device_id:
        return False
    return Device.objects.filter(user__username=username, device_id=device_id).exists()


@dataclass(frozen=True)
class SessionView:
    id: int
    created: dt.datetime
    expires: dt.datetime
    user_agent: str
    current: bool


def browser_sessions_of(*, user: User, current_key: str | None = None) -> list[SessionView]:
    """The learner's signed-in browser sessions (unexpired), the newest first."""
    rows = (
        BrowserSession.objects.filter(user=user, session__expire_date__gt=timezone.now())
        .select_related("session")
        .order_by("-created_at", "-pk")
    )
    return [
        SessionView(
            id=row.pk,
            created=row.created_at,
            expires=row.session.expire_date,
            user_agent=row.user_agent,
            current=row.session_id == current_key,
        )
        for row in rows
    ]


def browser_session_for_key(*, session_key: str) -> BrowserSession | None:
    return BrowserSession.objects.filter(session_id=session_key).first()
