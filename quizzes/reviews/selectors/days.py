"""The learner's study day (their time zone, from their rollover hour) and what they rated on it so far."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from django.contrib.auth.models import User
from django.db.models import Count, Q, QuerySet
from django.utils import timezone

from quizzes.accounts.models import LearnerProfile
from quizzes.reviews import scheduling
from quizzes.reviews.models import ReviewLog


def today_for(*, profile: LearnerProfile, now: dt.datetime | None = None) -> dt.date:
    """The learner's current study day."""
    return scheduling.local_day(now or timezone.now(), profile.zone, profile.day_rollover_hour)


def start_of_today(*, profile: LearnerProfile, now: dt.datetime | None = None) -> dt.datetime:
    return scheduling.day_start(today_for(profile=profile, now=now), profile.zone, profile.day_rollover_hour)


def end_of_today(*, profile: LearnerProfile, now: dt.datetime | None = None) -> dt.datetime:
    return scheduling.day_end(today_for(profile=profile, now=now), profile.zone, profile.day_rollover_hour)


def local_day_of(*, profile: LearnerProfile, moment: dt.datetime) -> dt.date:
    """The study day ``moment`` falls on, for this learner."""
    return scheduling.local_day(moment, profile.zone, profile.day_rollover_hour)


def logs_today(user: User, profile: LearnerProfile, now: dt.datetime) -> QuerySet[ReviewLog]:
    start, end = start_of_today(profile=profile, now=now), end_of_today(profile=profile, now=now)
    return ReviewLog.objects.filter(user=user).between(start, end)


@dataclass(frozen=True)
class TodayLogs:
    """The learner's ratings so far today: all of them, the counted reviews, the first studies."""

    total: int
    reviews: int
    first: int


def today_logs(*, user: User, profile: LearnerProfile, now: dt.datetime) -> TodayLogs:
    """One query for the three counts the daily caps and the dashboard need."""
    counts = logs_today(user, profile, now).aggregate(
        total=Count("id"),
        reviews=Count("id", filter=Q(role=ReviewLog.Role.REVIEW)),
        first=Count("id", filter=Q(role=ReviewLog.Role.FIRST)),
    )
    return TodayLogs(**counts)


@dataclass(frozen=True)
class DayCount:
    day: dt.date
    count: int
