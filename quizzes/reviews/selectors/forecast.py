"""Due cards per study day ahead."""

from __future__ import annotations

import datetime as dt
from collections import Counter
from typing import Any

from django.contrib.auth.models import User
from django.db.models import QuerySet
from django.utils import timezone

from quizzes.accounts.models import LearnerProfile
from quizzes.accounts.selectors import profile_for
from quizzes.core.compiled import CompiledRead
from quizzes.reviews import scheduling
from quizzes.reviews.models import ReviewCard
from quizzes.reviews.selectors.days import DayCount, today_for


def _due_before_query(_key: object, *, user_id: int, horizon: dt.datetime) -> QuerySet[Any]:
    return ReviewCard.objects.live_for(user_id).due_before(horizon).values_list("due")


_DUE_BEFORE = CompiledRead(_due_before_query, {"user_id": int, "horizon": dt.datetime})


def due_forecast(
    *, user: User, days: int = 14, now: dt.datetime | None = None, profile: LearnerProfile | None = None
) -> list[DayCount]:
    """Due cards per study day for the next ``days`` days; today includes everything overdue."""
    now = now or timezone.now()
    profile = profile if profile is not None else profile_for(user=user)
    today = today_for(profile=profile, now=now)
    horizon = scheduling.day_end(today + dt.timedelta(days=days - 1), profile.zone, profile.day_rollover_hour)
    counts: Counter = Counter()
    for (due,) in _DUE_BEFORE.rows(None, user_id=user.pk, horizon=horizon):
        counts[max(today, scheduling.local_day(due, profile.zone, profile.day_rollover_hour))] += 1
    return [DayCount(today + dt.timedelta(days=i), counts[today + dt.timedelta(days=i)]) for i in range(days)]
