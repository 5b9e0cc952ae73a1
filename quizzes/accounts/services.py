"""Account writes: learner profiles, sign-up (confusable usernames refused), API tokens with their devices, the
browser-session index, credentials that revoke (a password change ends the other tokens and sessions), demo accounts,
token clean-up. Devices themselves: quizzes.accounts.devices.

Keyword-only ``<entity>_<action>`` functions, each in a transaction (quizzes/README.md). Pages, the API,
the admin, commands and tasks call these; none of them writes an account row itself.
"""

from __future__ import annotations

import datetime as dt
import os
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django.contrib.auth import get_user_model, password_validation
from django.contrib.auth.models import User
from django.contrib.sessions.models import Session
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from knox.models import AuthToken
from knox.settings import knox_settings

from quizzes.accounts.models import CHECK_SOON, BrowserSession, Device, LearnerProfile, TokenDevice, UsernameSkeleton
from quizzes.accounts.selectors import email_taken, session_keys_of
from quizzes.accounts.usernames import username_digest
from quizzes.core.errors import DomainError, ErrorCode

PROFILE_FIELDS = (
    "time_zone",
    "day_rollover_hour",
    "desired_retention",
    "new_per_day",
    "reviews_per_day",
    "reminder_opt_in",
    "reminder_channel",
    "reminder_hour",
)

#: The settings a learner's reminder moment depends on (besides their cards).
REMINDER_FIELDS = {"time_zone", "day_rollover_hour", "reminder_opt_in", "reminder_channel", "reminder_hour"}

#: Shown when a username looks like one already taken (quizzes.accounts.usernames).
USERNAME_CONFUSABLE_MESSAGE = gettext_lazy("This username looks too much like an existing one. Please choose another.")

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

    The caller validated the input (the sign-up form: username rules, confusable usernames, password validators);
    the database's unique indexes settle a concurrent sign-up with the same username, a confusable one (the
    skeleton's digest) or the same address, which is refused with ``USERNAME_TAKEN``, ``USERNAME_CONFUSABLE`` or
    ``EMAIL_TAKEN`` on that field.
    """
    user_model = get_user_model()
    user = user_model(username=username, email=email)
    user.set_password(password)
    try:
        with transaction.atomic():
            user.full_clean(validate_unique=False, validate_constraints=False)  # unique: the database's word
            user.save()  # writes the username's skeleton (signals), unless a confusable one holds it
            if not UsernameSkeleton.objects.filter(user=user).exists():
                raise DomainError(ErrorCode.USERNAME_CONFUSABLE, str(USERNAME_CONFUSABLE_MESSAGE), field="username")
            learner_profile_get_or_create(user=user)
    except IntegrityError:
        if email and email_taken(email=email):
            raise DomainError(ErrorCode.EMAIL_TAKEN, str(EMAIL_TAKEN_MESSAGE), field="email") from None
        raise DomainError(ErrorCode.USERNAME_TAKEN, _("This username is taken."), field="username") from None
    return user


def username_skeleton_write(*, user: User) -> bool:
    """Index the user's username by its confusable skeleton (every save of a new or renamed user, quizzes.accounts
    .signals). False, and nothing written, when another account's username has the same skeleton: sign-up refuses
    that (``account_signup``); an account made another way (the admin, createsuperuser) is then simply not indexed."""
    digest = username_digest(user.get_username())
    try:
        with transaction.atomic():
            UsernameSkeleton.objects.update_or_create(user=user, defaults={"digest": digest})
    except IntegrityError:
        return False
    return True


# --- API tokens (knox) and the device each was issued to -----------------------------------------


@dataclass(frozen=True)
class IssuedToken:
    """A new API token: the secret (shown once), its row and the device it was issued to."""

    token: str
    instance: AuthToken
    device: Device
    device_created: bool


@transaction.atomic
def api_token_create(*, user: User, device_name: str = "", device_id: str = "", platform: str = "") -> IssuedToken:
    """A token for one device, and the device's row, together or not at all.

    ``device_id`` is the app's own stable id: a log-in with an id this learner's devices already have finds that
    device again — its name (a rename included) and push registration are kept, ``device_name`` is only the name of a
    new device, and a known ``platform`` fills in one the device did not have. Without an id every log-in is a new
    device (the old clients). The (user, device_id) unique constraint settles two log-ins of one phone at once.
    """
    now = timezone.now()
    fields = {"name": device_name, "platform": platform or Device.Platform.OTHER, "created_at": now}
    candidate = Device(user=user, device_id=device_id or uuid.uuid4().hex, **fields)
    candidate.full_clean(exclude=["user"], validate_unique=False, validate_constraints=False)
    instance, token = AuthToken.objects.create(user=user, expiry=knox_settings.TOKEN_TTL)
    if device_id:
        device, created = Device.objects.get_or_create(user=user, device_id=device_id, defaults=fields)
    else:
        candidate.save()
        device, created = candidate, True
    if not created:
        device.last_seen_at = now
        if platform and device.platform == Device.Platform.OTHER:
            device.platform = platform
        device.save(update_fields=["last_seen_at", "platform"])
    TokenDevice.objects.create(token=instance, device=device)  # (the token's post_save noted the device as seen)
    return IssuedToken(token=token, instance=instance, device=device, device_created=created)


def api_token_delete(*, token: AuthToken) -> None:
    """Log out one device: its token stops working (the device stays listed, with its push registration, so that
    logging in again on it keeps them; it gets no pushes while none of its tokens is live)."""
    token.delete()


def api_tokens_delete_all(*, user: User, keep: AuthToken | None = None) -> int:
    """Log out everywhere (but ``keep``): every other token of the learner stops working. Returns how many ended."""
    tokens = AuthToken.objects.filter(user=user)
    if keep is not None:
        tokens = tokens.exclude(digest=keep.digest)
    _total, per_model = tokens.delete()
    return per_model.get(AuthToken._meta.label, 0)


# --- browser sessions: the user → session index, and ending them ------------------------------------------


def browser_session_index(
    *, session_key: str, user_id: int, user_agent: str = "", created_at: dt.datetime | None = None
) -> None:
    """Index a signed-in browser session under its learner (at log-in, and when the session's key rotates)."""
    BrowserSession.objects.update_or_create(
        session_id=session_key,
        defaults={"user_id": user_id, "user_agent": user_agent[:200], "created_at": created_at or timezone.now()},
    )


def browser_sessions_end(*, user: User, keep_session_key: str | None = None) -> int:
    """Sign the learner out of every browser (but the one with ``keep_session_key``). Returns how many ended."""
    sessions = Session.objects.filter(learner__user=user)
    if keep_session_key:
        sessions = sessions.exclude(session_key=keep_session_key)
    _total, per_model = sessions.delete()
    return per_model.get(Session._meta.label, 0)


def browser_session_end(*, user: User, session_id: int) -> bool:
    """Sign one of the learner's browser sessions out (by the index's id). False: no such session of theirs."""
    _total, per_model = Session.objects.filter(learner__user=user, learner__pk=session_id).delete()
    return per_model.get(Session._meta.label, 0) > 0


# --- credentials that revoke -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Revoked:
    tokens: int
    sessions: int


@transaction.atomic
def account_signed_out_elsewhere(
    *, user: User, keep_token: AuthToken | None = None, keep_session_key: str | None = None
) -> Revoked:
    """After a password change or reset: every API token and browser session of the learner ends, except the token
    or the browser session that made the change (Django's session hash already refuses the old sessions; deleting
    them also takes them off the settings page)."""
    return Revoked(
        tokens=api_tokens_delete_all(user=user, keep=keep_token),
        sessions=browser_sessions_end(user=user, keep_session_key=keep_session_key),
    )


@transaction.atomic
def account_password_change(
    *, user: User, new_password: str, keep_token: AuthToken | None = None, keep_session_key: str | None = None
) -> Revoked:
    """Set a new password (Django's validators, refused on ``new_password``), then end every other token and session.

    The caller checked the current password (through ``authenticate()``, so the log-in throttle counts guesses).
    """
    try:
        password_validation.validate_password(new_password, user)
    except ValidationError as exc:
        raise ValidationError({"new_password": exc.error_list}) from None
    user.set_password(new_password)
    user.save(update_fields=["password"])
    return account_signed_out_elsewhere(user=user, keep_token=keep_token, keep_session_key=keep_session_key)


def account_sign_out_everywhere(*, user: User) -> Revoked:
    """ "Log out everywhere": every API token and every browser session of the learner, the current ones too."""
    return account_signed_out_elsewhere(user=user)


def api_tokens_prune_expired(*, now: dt.datetime | None = None) -> int:
    """Delete knox tokens past their expiry (tokens without expiry are kept)."""
    deleted, _rows = AuthToken.objects.filter(expiry__lt=now or timezone.now()).delete()
    return deleted


# --- browser sessions ----------------------------------------------------------------------------


def user_sessions_end(*, user_id: int) -> int:
    """Sign the account out of every browser: its stored sessions are deleted. Returns how many."""
    keys = session_keys_of(user_id=user_id)
    _total, by_model = Session.objects.filter(session_key__in=keys).delete()  # their BrowserSession rows go too
    return by_model.get(Session._meta.label, 0)


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
