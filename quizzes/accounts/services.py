"""Account writes: learner profiles, sign-up, API tokens with their device rows, demo accounts, token clean-up.

Keyword-only ``<entity>_<action>`` functions, each in a transaction (DESIGN.md §7). Pages, the API,
the admin, commands and tasks call these; none of them writes an account row itself.
"""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.contrib.sessions.models import Session
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from knox.models import AuthToken
from knox.settings import knox_settings

from quizzes.accounts.models import CHECK_SOON, LearnerProfile, TokenDevice
from quizzes.accounts.selectors import email_taken, session_keys_of
from quizzes.core.errors import DomainError, ErrorCode

PROFILE_FIELDS = (
    "time_zone",
    "day_rollover_hour",
    "desired_retention",
    "new_per_day",
    "reviews_per_day",
    "reminder_opt_in",
    "reminder_hour",
)

#: The settings a learner's reminder moment depends on (besides their cards).
REMINDER_FIELDS = {"time_zone", "day_rollover_hour", "reminder_opt_in", "reminder_hour"}

#: Shown when an address is already used (sign-up form, and a sign-up that lost the race for it).
EMAIL_TAKEN_MESSAGE = gettext_lazy(
    "Another account already uses this e-mail address. Log in, or reset that account's password."
)


# --- learner profiles ----------------------------------------------------------------------------


def learner_profile_get_or_create(*, user: User) -> LearnerProfile:
    profile, _created = LearnerProfile.objects.get_or_create(user=user)
    return profile


@transaction.atomic
def learner_profile_update(*, user: User, **changes: Any) -> LearnerProfile:
    """Update preference fields (validated). Existing cards are rescheduled lazily: the next
    rating replays the card with the new retention / day boundaries."""
    unknown = set(changes) - set(PROFILE_FIELDS)
    if unknown:
        raise TypeError(f"not a profile field: {', '.join(sorted(unknown))}")
    profile, _created = LearnerProfile.objects.select_for_update().get_or_create(user=user)
    for name, value in changes.items():
        setattr(profile, name, value)
    if REMINDER_FIELDS & set(changes):
        profile.next_reminder_at = CHECK_SOON  # the reminder pass works out the new moment (reviews.reminder_clock)
    profile.full_clean()
    profile.save()
    return profile


# --- sign-up -------------------------------------------------------------------------------------


def account_signup(*, username: str, email: str, password: str) -> User:
    """Create an account and its learner profile in one transaction.

    The caller validated the input (the sign-up form: username rules, password validators); the
    database's unique indexes settle a concurrent sign-up with the same username or address, which
    is refused with ``USERNAME_TAKEN`` or ``EMAIL_TAKEN`` on that field.
    """
    user_model = get_user_model()
    user = user_model(username=username, email=email)
    user.set_password(password)
    try:
        with transaction.atomic():
            user.full_clean(validate_unique=False, validate_constraints=False)  # unique: the database's word
            user.save()
            learner_profile_get_or_create(user=user)
    except IntegrityError:
        if email and email_taken(email=email):
            raise DomainError(ErrorCode.EMAIL_TAKEN, str(EMAIL_TAKEN_MESSAGE), field="email") from None
        raise DomainError(ErrorCode.USERNAME_TAKEN, _("This username is taken."), field="username") from None
    return user


# --- API tokens (knox) and the device each was issued to -----------------------------------------


@dataclass(frozen=True)
class IssuedToken:
    """A new API token: the secret (shown once), its row and the device row beside it."""

    token: str
    instance: AuthToken
    device: TokenDevice


@transaction.atomic
def api_token_create(*, user: User, device_name: str) -> IssuedToken:
    """A token for one device, and its device row, together or not at all."""
    instance, token = AuthToken.objects.create(user=user, expiry=knox_settings.TOKEN_TTL)
    device = TokenDevice(token=instance, name=device_name)
    device.full_clean(exclude=["token"], validate_unique=False, validate_constraints=False)
    device.save()
    return IssuedToken(token=token, instance=instance, device=device)


def api_token_delete(*, token: AuthToken) -> None:
    """Log out one device: its token stops working (its device row goes with it)."""
    token.delete()


def api_tokens_delete_all(*, user: User) -> int:
    """Log out everywhere: every token of the learner stops working. Returns how many were deleted."""
    deleted, _rows = AuthToken.objects.filter(user=user).delete()
    return deleted


def api_tokens_prune_expired(*, now: dt.datetime | None = None) -> int:
    """Delete knox tokens past their expiry (tokens without expiry are kept)."""
    deleted, _rows = AuthToken.objects.filter(expiry__lt=now or timezone.now()).delete()
    return deleted


# --- browser sessions ----------------------------------------------------------------------------


def user_sessions_end(*, user_id: int) -> int:
    """Sign the account out of every browser: its stored sessions are deleted. Returns how many."""
    keys = session_keys_of(user_id=user_id)
    deleted, _rows = Session.objects.filter(session_key__in=keys).delete()
    return deleted


# --- demo accounts -------------------------------------------------------------------------------

DEMO_LEARNER = ("DEMO_USERNAME", "demo", "DEMO_PASSWORD", "demo-pass")
DEMO_ADMIN = ("DEMO_ADMIN_USERNAME", "admin", "DEMO_ADMIN_PASSWORD", "admin-pass")


@dataclass(frozen=True)
class DemoAccount:
    username: str
    password: str
    is_staff: bool
    created: bool


@transaction.atomic
def demo_accounts_ensure(*, environ: Mapping[str, str] | None = None) -> list[DemoAccount]:
    """Create or refresh the demo learner and demo admin (idempotent; passwords from the environment).

    Why here and not in a fixture: passwords must be hashed with the project's hasher, and the
    learner needs a profile, like any learner created through the services.
    """
    env = os.environ if environ is None else environ
    accounts = []
    user_model = get_user_model()
    for (user_var, user_default, pass_var, pass_default), staff in ((DEMO_LEARNER, False), (DEMO_ADMIN, True)):
        username = env.get(user_var) or user_default
        password = env.get(pass_var) or pass_default
        user, created = user_model.objects.get_or_create(username=username)
        dirty = created or not user.check_password(password)
        if dirty:
            user.set_password(password)
        if user.is_staff != staff or user.is_superuser != staff or not user.is_active:
            user.is_staff = user.is_superuser = staff
            user.is_active = True
            dirty = True
        if dirty:
            user.save()
        learner_profile_get_or_create(user=user)
        accounts.append(DemoAccount(username=username, password=password, is_staff=staff, created=created))
    return accounts
