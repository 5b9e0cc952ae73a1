"""Reads about accounts: the learner's profile, whether an e-mail address is taken, a learner's device tokens."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from django.contrib.auth import SESSION_KEY, get_user_model
from django.contrib.auth.models import User
from django.contrib.sessions.models import Session
from django.db.models import Q, QuerySet
from django.utils import timezone
from knox.models import AuthToken

from quizzes.accounts.models import LearnerProfile
from quizzes.core.compiled import CompiledRead


def _profile_query(_key: object, *, user_id: int) -> QuerySet[Any]:
    return LearnerProfile.objects.filter(user_id=user_id).values_list(*_PROFILE_COLUMNS)


_PROFILE_COLUMNS = tuple(field.attname for field in LearnerProfile._meta.concrete_fields)
#: every request of a signed-in learner reads the profile: compiled once per process (issue 16)
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
#: every signed-in page loads its user by the id in the session: compiled once per process (issue 16)
_USER = CompiledRead(_user_query, {"user_id": int})


def user_by_id(*, user_id: int) -> User | None:
    """The account with this id, active or not (the log-in backend decides who may be signed in)."""
    rows = _USER.rows(None, user_id=user_id)
    return User.from_db("default", _USER_COLUMNS, rows[0]) if rows else None


def email_taken(*, email: str, exclude_pk: int | None = None) -> bool:
    """Whether another account uses this address (case-insensitive; the unique index has the final word)."""
    users = get_user_model().objects.filter(email__iexact=email.strip())
    if exclude_pk is not None:
        users = users.exclude(pk=exclude_pk)
    return users.exists()


@dataclass(frozen=True)
class DeviceToken:
    token_key: str
    device_name: str
    created: dt.datetime
    expiry: dt.datetime | None
    current: bool


def device_tokens(*, user: User, current_digest: str | None = None) -> list[DeviceToken]:
    """The learner's unexpired API tokens, newest first, each with the device it was issued to."""
    tokens = (
        AuthToken.objects.filter(Q(expiry__gt=timezone.now()) | Q(expiry__isnull=True), user=user)
        .select_related("device")
        .order_by("-created")
    )
    return [
        DeviceToken(
            token_key=token.token_key,
            device_name=token.device.name if hasattr(token, "device") else "",
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
