"""Reads for reminders: which learner an unsubscribe link names (who is due: services.reminders_take_due)."""

from __future__ import annotations

import datetime as dt

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.core import signing

UNSUBSCRIBE_SALT = "quizzes.reminders.unsubscribe"


def unsubscribe_user_for_token(*, token: str) -> User:
    """The learner a link was made for. Raises signing.BadSignature (or SignatureExpired) otherwise."""
    max_age = dt.timedelta(days=settings.REMINDER_UNSUBSCRIBE_MAX_AGE_DAYS)
    user_id = signing.TimestampSigner(salt=UNSUBSCRIBE_SALT).unsign(token, max_age=max_age)
    try:
        return get_user_model().objects.get(pk=int(user_id))
    except (ValueError, get_user_model().DoesNotExist) as exc:
        raise signing.BadSignature("no such learner") from exc
