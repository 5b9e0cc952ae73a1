"""What the learner did: ratings per study day (the heatmap), the recent logs the hot pages read in one
query, and the streak."""

from __future__ import annotations

import datetime as dt
import functools
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from django.contrib.auth.models import User
from django.db.models import Count, QuerySet
from django.utils import timezone

from quizzes.accounts.models import LearnerProfile
from quizzes.accounts.selectors import profile_for
from quizzes.core.compiled import CompiledRead, Later, together
from quizzes.reviews import scheduling
from quizzes.reviews.models import ReviewLog
from quizzes.reviews.querysets import StudyDay
from quizzes.reviews.selectors.days import DayCount, TodayLogs, today_for

T = TypeVar("T")


#: review_streak reads this many days of logs first, more only if the streak is longer.
STREAK_WINDOW_DAYS = 40


#: The due queue and the dashboard read this many days of logs in one grouped query (``recent_logs``): the
#: heatmap's year, so the streak needs no second query unless it is a year long (grouping a year of a
#: learner's logs costs about what a 40-day window does; a second query costs a round trip).
RECENT_LOG_DAYS = 365


def _log_day_roles_query(key: tuple[dt.tzinfo, int], *, user_id: int, since: dt.datetime) -> QuerySet[Any]:
    zone, rollover = key
    return (
        ReviewLog.objects.filter(user_id=user_id, reviewed_at__gte=since)
        .annotate(day=StudyDay("reviewed_at", zone=zone, rollover_hour=rollover))
        .values("day", "role")
        .annotate(ratings=Count("id"))
        .values_list("day", "role", "ratings")
    )


#: keyed by (zone, rollover hour): both are written into the SQL
_LOG_DAY_ROLES = CompiledRead(_log_day_roles_query, {"user_id": int, "since": dt.datetime})


def _log_day_roles_later(
    user: User, profile: LearnerProfile, since: dt.datetime, finish: Callable[[Counter], T]
) -> Later[T]:
    """Ratings per (study day, role) since ``since``, handed to ``finish``.

    The database counts per study day (``StudyDay``, as ``scheduling.local_day``): one row per day and role
    instead of every log.
    """

    def roles(rows: list[tuple[Any, ...]]) -> T:
        return finish(Counter({(day, role): ratings for day, role, ratings in rows}))

    key = (profile.zone, profile.day_rollover_hour)
    return _LOG_DAY_ROLES.later(key, roles, user_id=user.pk, since=since)


def _log_day_roles(user: User, profile: LearnerProfile, since: dt.datetime) -> Counter:
    return together(_log_day_roles_later(user, profile, since, lambda days: days))[0]


def _log_days(user: User, profile: LearnerProfile, since: dt.datetime) -> Counter:
    """Ratings per study day since ``since`` (every role)."""
    days: Counter = Counter()
    for (day, _role), ratings in _log_day_roles(user, profile, since).items():
        days[day] += ratings
    return days


@dataclass(frozen=True)
class RecentLogs:
    """One query over the learner's recent logs: today's counts and the ratings per study day."""

    today: TodayLogs
    first: dt.date  # the first study day read
    last: dt.date  # today
    per_day: Counter  # study day → ratings, only the days with some

    @functools.cached_property
    def active_days(self) -> dict[dt.date, int]:
        """The days from ``first`` to today with ratings, oldest first, and their counts (``days`` without the
        quiet ones: the heatmap of a learner who studied on 60 days of the year needs 60, not 365)."""
        return {day: self.per_day[day] for day in sorted(self.per_day) if self.first <= day <= self.last}

    @functools.cached_property
    def days(self) -> list[DayCount]:
        """Every day from ``first`` to today, oldest first (the heatmap): built only when asked for."""
        length = (self.last - self.first).days + 1
        return [DayCount(day, self.per_day[day]) for day in (self.first + dt.timedelta(days=i) for i in range(length))]


def recent_logs(*, user: User, profile: LearnerProfile, now: dt.datetime, days: int) -> RecentLogs:
    """``today_logs`` and ``review_heatmap(days=...)`` from one grouped query (the dashboard, the due queue)."""
    return together(recent_logs_later(user=user, profile=profile, now=now, days=days))[0]


def recent_logs_later(*, user: User, profile: LearnerProfile, now: dt.datetime, days: int) -> Later[RecentLogs]:
    """``recent_logs``, to run ``together`` with the page's other reads."""
    today = today_for(profile=profile, now=now)
    first = today - dt.timedelta(days=days - 1)

    def finish(roles: Counter) -> RecentLogs:
        per_day: Counter = Counter()
        for (day, _role), ratings in roles.items():
            if ratings:
                per_day[day] += ratings
        counts = TodayLogs(
            total=per_day[today],
            reviews=roles[(today, ReviewLog.Role.REVIEW)],
            first=roles[(today, ReviewLog.Role.FIRST)],
        )
        return RecentLogs(today=counts, first=first, last=today, per_day=per_day)

    since = scheduling.day_start(first, profile.zone, profile.day_rollover_hour)
    return _log_day_roles_later(user, profile, since, finish)


def review_heatmap(
    *, user: User, days: int = 365, now: dt.datetime | None = None, profile: LearnerProfile | None = None
) -> list[DayCount]:
    """Ratings per study day (every log, including same-day repeats), oldest first, ending today."""
    now = now or timezone.now()
    profile = profile if profile is not None else profile_for(user=user)
    today = today_for(profile=profile, now=now)
    first = today - dt.timedelta(days=days - 1)
    counts = _log_days(user, profile, scheduling.day_start(first, profile.zone, profile.day_rollover_hour))
    return [DayCount(first + dt.timedelta(days=i), counts[first + dt.timedelta(days=i)]) for i in range(days)]


def _streak_in(days_seen: set[dt.date] | Counter, today: dt.date) -> tuple[int, dt.date]:
    """The streak ending today (or yesterday) within ``days_seen``, and the first day without a rating before it."""
    day = today if today in days_seen else today - dt.timedelta(days=1)
    streak = 0
    while day in days_seen:
        streak += 1
        day -= dt.timedelta(days=1)
    return streak, day


def review_streak(
    *,
    user: User,
    now: dt.datetime | None = None,
    profile: LearnerProfile | None = None,
    recent: Sequence[DayCount] | RecentLogs | None = None,
) -> int:
    """Consecutive study days with at least one rating, ending today (or yesterday if none yet today).

    Reads only the logs of the last few weeks; the window grows while the streak reaches its start.
    ``recent``: ``recent_logs`` or ``review_heatmap``'s days ending today when the caller has them — no
    query then, unless the streak is as long as they are.
    """
    now = now or timezone.now()
    profile = profile if profile is not None else profile_for(user=user)
    today = today_for(profile=profile, now=now)
    if isinstance(recent, RecentLogs):
        if recent.last == today:
            streak, gap = _streak_in(recent.per_day, today)
            if gap >= recent.first:
                return streak
    elif recent and recent[-1].day == today:
        streak, gap = _streak_in({d.day for d in recent if d.count}, today)
        if gap >= recent[0].day:
            return streak
    window = STREAK_WINDOW_DAYS
    while True:
        first = today - dt.timedelta(days=window)
        since = scheduling.day_start(first, profile.zone, profile.day_rollover_hour)
        streak, day = _streak_in(_log_days(user, profile, since), today)
        if day >= first:  # the streak ended inside the window
            return streak
        if not ReviewLog.objects.filter(user=user, reviewed_at__lt=since).exists():
            return streak
        window *= 4
