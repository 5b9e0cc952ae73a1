"""What the learner's cards add up to: studied, mastered and due per lesson, the one-query card summary
and the dashboard's numbers."""

from __future__ import annotations

import datetime as dt
import functools
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any

from django.contrib.auth.models import User
from django.db.models import Count, FilteredRelation, Min, Q, QuerySet
from django.utils import timezone

from quizzes.accounts.models import LearnerProfile
from quizzes.accounts.selectors import profile_for
from quizzes.content.models import Question
from quizzes.core.compiled import CompiledRead, Later, together
from quizzes.reviews import scheduling
from quizzes.reviews.models import ReviewCard
from quizzes.reviews.querysets import unsuspended_through
from quizzes.reviews.selectors.days import DayCount, TodayLogs, end_of_today, today_for
from quizzes.reviews.selectors.history import RECENT_LOG_DAYS, RecentLogs, recent_logs, review_streak

#: A card counts as mastered ("mature", in Anki's terms) once its stability reaches this many days.
MASTERY_STABILITY_DAYS = 21.0


def lesson_card_counts(
    *, user: User, now: dt.datetime | None = None, profile: LearnerProfile | None = None
) -> dict[int, Counter]:
    """Per lesson id: cards ``studied`` (of published questions), ``mastered`` (stability ≥ MASTERY_STABILITY_DAYS)
    and ``due`` today (live cards). Two narrow queries."""
    now = now or timezone.now()
    profile = profile if profile is not None else profile_for(user=user)
    per_lesson: dict[int, Counter] = defaultdict(Counter)
    studied = ReviewCard.objects.filter(user=user).of_published_questions()
    for lesson_id, stability in studied.values_list("question__lesson_id", "stability"):
        per_lesson[lesson_id]["studied"] += 1
        if stability is not None and stability >= MASTERY_STABILITY_DAYS:
            per_lesson[lesson_id]["mastered"] += 1
    due = ReviewCard.objects.live_for(user).due_before(end_of_today(profile=profile, now=now))
    for lesson_id in due.values_list("question__lesson_id", flat=True):
        per_lesson[lesson_id]["due"] += 1
    return per_lesson


@dataclass(frozen=True)
class CardSummary:
    """What the learner's cards add up to today, from one query (the due queue's counts, the dashboard)."""

    due: int  # live cards due before today's end, uncapped (``capped_due`` applies reviews_per_day)
    unseen: int  # published questions without a card, uncapped (``capped_new`` applies new_per_day)
    next_due_after_today: dt.datetime | None
    per_lesson: dict[int, Counter]  # lesson id → studied / mastered / due, as ``lesson_card_counts``
    forecast: list[DayCount] = field(default_factory=list)  # ``due_forecast(days=forecast_days)``, when asked for

    def capped_due(self, *, profile: LearnerProfile, today: TodayLogs) -> int:
        return min(self.due, max(0, profile.reviews_per_day - today.reviews))

    def capped_new(self, *, profile: LearnerProfile, today: TodayLogs) -> int:
        return min(self.unseen, max(0, profile.new_per_day - today.first))


def _card_summary_query(
    forecast_days: int, *, user_id: int, end: dt.datetime, **day_ends: dt.datetime
) -> QuerySet[Any]:
    live = unsuspended_through("mine")
    # day i of the forecast (i ≥ 1): live cards due in [end of day i - 1, end of day i); day 0 is ``due``
    bounds = [end, *(day_ends[f"end_{i}"] for i in range(1, forecast_days))]
    forecast = {
        f"due_{i}": Count("mine__id", filter=live & Q(mine__due__gte=bounds[i - 1], mine__due__lt=bounds[i]))
        for i in range(1, forecast_days)
    }
    return (
        Question.objects.published()
        .annotate(mine=FilteredRelation("review_cards", condition=Q(review_cards__user_id=user_id)))
        .order_by()
        .values("lesson_id")
        .annotate(
            studied=Count("mine__id"),
            unseen=Count("id", filter=Q(mine__id__isnull=True)),
            mastered=Count("mine__id", filter=Q(mine__stability__gte=MASTERY_STABILITY_DAYS)),
            due=Count("mine__id", filter=live & Q(mine__due__lt=end)),
            next_due=Min("mine__due", filter=live & Q(mine__due__gte=end)),
            **forecast,
        )
        .values_list("lesson_id", "studied", "unseen", "mastered", "due", "next_due", *forecast)
    )


@functools.cache
def _card_summary_read(forecast_days: int) -> CompiledRead:
    ends = {f"end_{i}": dt.datetime for i in range(1, forecast_days)}
    return CompiledRead(_card_summary_query, {"user_id": int, "end": dt.datetime, **ends})


def card_summary(*, user: User, profile: LearnerProfile, now: dt.datetime, forecast_days: int = 0) -> CardSummary:
    """Every published question left-joined to the learner's card for it, grouped by lesson: one narrow query.

    Same rules as ``due_count`` / ``new_count`` / ``lesson_card_counts`` / ``next_review_after_today``
    (live = not suspended, question and lesson published; a card is unique per learner and question),
    which cost one query each. ``forecast_days``: also ``due_forecast(days=...)``'s counts, from the same
    query (the dashboard). Compiled once per process (``CompiledRead``): the hot paths' first read.
    """
    return together(card_summary_later(user=user, profile=profile, now=now, forecast_days=forecast_days))[0]


def card_summary_later(
    *, user: User, profile: LearnerProfile, now: dt.datetime, forecast_days: int = 0
) -> Later[CardSummary]:
    """``card_summary``, to run ``together`` with the page's other reads."""
    today = today_for(profile=profile, now=now)
    zone, rollover = profile.zone, profile.day_rollover_hour
    end = scheduling.day_end(today, zone, rollover)
    ends = {
        f"end_{i}": scheduling.day_end(today + dt.timedelta(days=i), zone, rollover) for i in range(1, forecast_days)
    }

    def finish(rows: list[tuple[Any, ...]]) -> CardSummary:
        per_lesson: dict[int, Counter] = defaultdict(Counter)
        due = unseen = 0
        next_due: dt.datetime | None = None
        later = [0] * max(0, forecast_days - 1)
        for lesson_id, studied, lesson_unseen, mastered, lesson_due, lesson_next, *lesson_later in rows:
            lesson = per_lesson[lesson_id]
            for name, number in (("studied", studied), ("mastered", mastered), ("due", lesson_due)):
                if number:
                    lesson[name] = number
            due += lesson_due
            unseen += lesson_unseen
            if lesson_next is not None and (next_due is None or lesson_next < next_due):
                next_due = lesson_next
            for i, number in enumerate(lesson_later):
                later[i] += number
        forecast = (
            [DayCount(today + dt.timedelta(days=i), count) for i, count in enumerate([due, *later])]
            if forecast_days
            else []
        )
        return CardSummary(
            due=due, unseen=unseen, next_due_after_today=next_due, per_lesson=per_lesson, forecast=forecast
        )

    return _card_summary_read(forecast_days).later(forecast_days, finish, user_id=user.pk, end=end, **ends)


def dashboard_counts(
    *,
    user: User,
    now: dt.datetime | None = None,
    profile: LearnerProfile | None = None,
    summary: CardSummary | None = None,
    recent: RecentLogs | None = None,
) -> dict[str, Any]:
    """The numbers the dashboard shows: due today, new available, rated today, streak, next due.

    ``profile``, ``summary``, ``recent``: the learner's profile, ``card_summary`` and ``recent_logs`` when the
    caller already has them (the due queue): then no query unless the streak is longer than ``recent``.
    """
    now = now or timezone.now()
    profile = profile if profile is not None else profile_for(user=user)
    summary = summary if summary is not None else card_summary(user=user, profile=profile, now=now)
    recent = recent if recent is not None else recent_logs(user=user, profile=profile, now=now, days=RECENT_LOG_DAYS)
    return {
        "due": summary.capped_due(profile=profile, today=recent.today),
        "new": summary.capped_new(profile=profile, today=recent.today),
        "reviewed_today": recent.today.total,
        "streak": review_streak(user=user, now=now, profile=profile, recent=recent),
        "next_due_after_today": summary.next_due_after_today,
        "study_day": today_for(profile=profile, now=now),
    }
