"""Learner profile writes."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction

from quizzes.models import LearnerProfile

PROFILE_FIELDS = (
    "time_zone",
    "day_rollover_hour",
    "desired_retention",
    "new_per_day",
    "reviews_per_day",
    "reminder_opt_in",
    "reminder_hour",
)


def learner_profile_get_or_create(*, user: AbstractBaseUser) -> LearnerProfile:
    profile, _ = LearnerProfile.objects.get_or_create(user=user)
    return profile


@transaction.atomic
def learner_profile_update(*, user: AbstractBaseUser, **changes: Any) -> LearnerProfile:
    """Update preference fields (validated). Existing cards are rescheduled lazily: the next
    rating replays the card with the new retention / day boundaries."""
    unknown = set(changes) - set(PROFILE_FIELDS)
    if unknown:
        raise TypeError(f"not a profile field: {', '.join(sorted(unknown))}")
    profile, _ = LearnerProfile.objects.select_for_update().get_or_create(user=user)
    for name, value in changes.items():
        setattr(profile, name, value)
    profile.full_clean()
    profile.save()
    return profile
