"""Reads for reminders: who opted in, and which learner an unsubscribe link names."""

from __future__ import annotations

import datetime as dt

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.core import signing
from django.db.models import QuerySet

from quizzes.accounts.models import LearnerProfile

UNSUBSCRIBE_SALT = "quizzes.reminders.unsubscribe"


def learners_to_remind() -> QuerySet[LearnerProfile]:
    """Profiles of active learners with an e-mail address who opted in to reminders, in a stable order."""
    return (
        LearnerProfile.objects.filter(reminder_opt_in=True, user__is_active=True)
        .exclude(user__email="")
        .select_related("user")
        .order_by("pk")
    )


def unsubscribe_user_for_token(*, token: str) -> User:
    """The learner a link was made for. Raises signing.BadSignature (or SignatureExpired) otherwise."""
    max_age = dt.timedelta(days=settings.REMINDER_UNSUBSCRIBE_MAX_AGE_DAYS)
    user_id = signing.TimestampSigner(salt=UNSUBSCRIBE_SALT).unsign(token, max_age=max_age)
    try:
        return get_user_model().objects.get(pk=int(user_id))
    except (ValueError, get_user_model().DoesNotExist) as exc:
        raise signing.BadSignature("no such learner") from exc
