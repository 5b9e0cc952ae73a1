"""Reads about reviews: the learner's study day, the due queue, new questions, the review session,
rating previews, forecast, heatmap, streak and progress counts. Nothing here writes.

"Today" is always the learner's study day: their time zone, starting at their rollover hour.
"Due today" means due before the end of that day, so a card due at 23:00 shows up in the
morning session, as in Anki. Every card query starts from ``ReviewCard.objects.live_for(user)``
(not suspended, question and lesson published) unless it says otherwise.
"""

from __future__ import annotations

import datetime as dt
import functools
import random
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from django.contrib.auth.models import User
from django.db.models import Count, FilteredRelation, Min, Q, QuerySet
from django.utils import timezone

from quizzes.accounts.models import LearnerProfile
from quizzes.accounts.selectors import profile_for
from quizzes.content.models import Lesson, Question
from quizzes.core.compiled import CompiledRead, Later, together
from quizzes.reviews import scheduling
from quizzes.reviews.models import ReviewCard, ReviewLog
from quizzes.reviews.parameters import learner_schedule
from quizzes.reviews.querysets import StudyDay, unsuspended_through

T = TypeVar("T")

#: A card counts as mastered ("mature", in Anki's terms) once its stability reaches this many days.
MASTERY_STABILITY_DAYS = 21.0

#: review_streak reads this many days of logs first, more only if the streak is longer.
STREAK_WINDOW_DAYS = 40

#: The due queue and the dashboard read this many days of logs in one grouped query (``recent_logs``): the
#: heatmap's year, so the streak needs no second query unless it is a year long (grouping a year of a
#: learner's logs costs about what a 40-day window does; a second query costs a round trip).
RECENT_LOG_DAYS = 365


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


# --- cards and reviews -------------------------------------------------------------------------


def _logs_today(user: User, profile: LearnerProfile, now: dt.datetime) -> QuerySet[ReviewLog]:
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
    counts = _logs_today(user, profile, now).aggregate(
        total=Count("id"),
        reviews=Count("id", filter=Q(role=ReviewLog.Role.REVIEW)),
        first=Count("id", filter=Q(role=ReviewLog.Role.FIRST)),
    )
    return TodayLogs(**counts)


def _due_today(user: User, profile: LearnerProfile, now: dt.datetime) -> QuerySet[ReviewCard]:
    return ReviewCard.objects.live_for(user).due_before(end_of_today(profile=profile, now=now)).order_by("due", "id")


def due_queue(
    *,
    user: User,
    now: dt.datetime,
    profile: LearnerProfile,
    today: TodayLogs | None = None,
    only: Sequence[str] | None = None,
) -> QuerySet[ReviewCard]:
    """``due_cards`` as a capped queryset, for a COUNT or a page in SQL (slicing it again keeps the cap)."""
    return _due_rows(user, profile, now, only)[: _reviews_left(user, profile, now, today)]


def _due_rows(
    user: User, profile: LearnerProfile, now: dt.datetime, only: Sequence[str] | None
) -> QuerySet[ReviewCard]:
    cards = _due_today(user, profile, now).select_related("question", "question__lesson")
    return cards.only(*only) if only is not None else cards


def due_cards(
    *,
    user: User,
    now: dt.datetime | None = None,
    capped: bool = True,
    profile: LearnerProfile | None = None,
    only: Sequence[str] | None = None,
    today: TodayLogs | None = None,
) -> list[ReviewCard]:
    """Cards due today, most overdue first; excludes suspended and unpublished.

    Capped by the profile's ``reviews_per_day`` minus reviews already done today.
    ``profile``, ``today``: the learner's profile and ``today_logs`` when the caller already has them
    (each saves a query); ``only``: load just these columns (``QuerySet.only`` paths) when the caller
    knows what it reads.
    """
    now = now or timezone.now()
    profile = profile if profile is not None else profile_for(user=user)
    if not capped:
        return list(_due_rows(user, profile, now, only))
    return list(due_queue(user=user, now=now, profile=profile, today=today, only=only))


def _due_page_query(key: tuple[tuple[str, ...], int, int], *, user_id: int, end: dt.datetime) -> QuerySet[Any]:
    fields, start, stop = key
    return ReviewCard.objects.live_for(user_id).due_before(end).order_by("due", "id").values_list(*fields)[start:stop]


_DUE_PAGE = CompiledRead(_due_page_query, {"user_id": int, "end": dt.datetime})


def _due_page_later(
    *, user: User, profile: LearnerProfile, now: dt.datetime, start: int, size: int, fields: Sequence[str]
) -> Later[list[dict[str, Any]]]:
    """Rows ``start`` to ``start + size`` of the *uncapped* due queue as dicts of ``fields`` (``values()`` paths)."""
    names = tuple(fields)

    def finish(rows: list[tuple[Any, ...]]) -> list[dict[str, Any]]:
        return [dict(zip(names, row, strict=True)) for row in rows]

    end = end_of_today(profile=profile, now=now)
    return _DUE_PAGE.later((names, start, start + size), finish, user_id=user.pk, end=end)


@dataclass(frozen=True)
class DueQueueReads:
    """What a due-queue page needs: the recent logs, the card summary and the page's rows (capped)."""

    recent: RecentLogs
    summary: CardSummary
    rows: list[dict[str, Any]]


def due_queue_reads(
    *, user: User, profile: LearnerProfile, now: dt.datetime, start: int, size: int, fields: Sequence[str]
) -> DueQueueReads:
    """``recent_logs``, ``card_summary`` and rows ``start`` to ``start + size`` of ``due_queue`` (capped by
    ``reviews_per_day`` less today's reviews) as dicts of ``fields``: three statements in one round trip.

    The page is read uncapped and cut here (the cap needs today's logs, read in the same trip): the same rows
    as slicing ``due_queue``. Compiled once per process (``CompiledRead``): a first fetch builds no QuerySet.
    """
    recent, summary, rows = together(
        recent_logs_later(user=user, profile=profile, now=now, days=RECENT_LOG_DAYS),
        card_summary_later(user=user, profile=profile, now=now),
        _due_page_later(user=user, profile=profile, now=now, start=start, size=size, fields=fields),
    )
    left = _reviews_left(user, profile, now, recent.today) - start
    return DueQueueReads(recent=recent, summary=summary, rows=rows[: max(0, left)])


def _reviews_left(user: User, profile: LearnerProfile, now: dt.datetime, today: TodayLogs | None) -> int:
    today = today if today is not None else today_logs(user=user, profile=profile, now=now)
    return max(0, profile.reviews_per_day - today.reviews)


def due_count(
    *,
    user: User,
    now: dt.datetime | None = None,
    profile: LearnerProfile | None = None,
    today: TodayLogs | None = None,
) -> int:
    """``len(due_cards(...))`` as one COUNT."""
    now = now or timezone.now()
    profile = profile if profile is not None else profile_for(user=user)
    return due_queue(user=user, now=now, profile=profile, today=today).count()


def _unseen_questions(user: User) -> QuerySet[Question]:
    return Question.objects.published().unseen_by(user)


def _new_left(user: User, profile: LearnerProfile, now: dt.datetime, today: TodayLogs | None) -> int:
    today = today if today is not None else today_logs(user=user, profile=profile, now=now)
    return max(0, profile.new_per_day - today.first)


def new_questions(
    *, user: User, now: dt.datetime | None = None, profile: LearnerProfile | None = None
) -> list[Question]:
    """Published questions the learner has never answered, in lesson order.

    Capped by ``new_per_day`` minus questions first studied today.
    """
    now = now or timezone.now()
    profile = profile if profile is not None else profile_for(user=user)
    questions = _unseen_questions(user).select_related("lesson")
    questions = questions.order_by("lesson__order", "lesson__key", "order", "key")
    return list(questions[: _new_left(user, profile, now, None)])


def first_unseen_question(*, user: User) -> Question | None:
    """The first published question the learner has never answered, in lesson order (where they left off)."""
    questions = _unseen_questions(user).select_related("lesson")
    return questions.order_by("lesson__order", "lesson__key", "order", "key").first()


def new_count(
    *,
    user: User,
    now: dt.datetime | None = None,
    profile: LearnerProfile | None = None,
    today: TodayLogs | None = None,
) -> int:
    """``len(new_questions(...))`` as one COUNT."""
    now = now or timezone.now()
    profile = profile if profile is not None else profile_for(user=user)
    return _unseen_questions(user)[: _new_left(user, profile, now, today)].count()


@dataclass
class ReviewSessionLesson:
    """One lesson's part of a review session, in the seed's order: redo the quiz, then recall."""

    lesson: Lesson
    quiz_cards: list[ReviewCard] = field(default_factory=list)  # choice + numeric, reshuffled
    prompt_cards: list[ReviewCard] = field(default_factory=list)  # interview prompts
    recall_cards: list[ReviewCard] = field(default_factory=list)  # "write the lines from memory", last

    @property
    def cards(self) -> list[ReviewCard]:
        return [*self.quiz_cards, *self.prompt_cards, *self.recall_cards]


def review_session(
    *, user: User, now: dt.datetime | None = None, profile: LearnerProfile | None = None
) -> list[ReviewSessionLesson]:
    """Today's due cards grouped by lesson (lesson order).

    Within a lesson the quiz cards are reshuffled — stable for the day, so a reload shows the
    same session — then prompts, and the recall card last (the seed: "come back in two days,
    redo only the quiz, then write the three lines from memory"). Answering the quiz part goes
    through ``attempt_start(mode="review")``, which also reshuffles every question's options.
    """
    now = now or timezone.now()
    profile = profile if profile is not None else profile_for(user=user)
    groups: dict[int, ReviewSessionLesson] = {}
    for card in due_cards(user=user, now=now, profile=profile):
        lesson = card.question.lesson
        group = groups.setdefault(lesson.pk, ReviewSessionLesson(lesson=lesson))
        if card.question.kind in Question.QUIZ_KINDS:
            group.quiz_cards.append(card)
        elif card.question.kind == Question.Kind.PROMPT:
            group.prompt_cards.append(card)
        else:
            group.recall_cards.append(card)
    shuffle = random.Random(f"{user.pk}:{today_for(profile=profile, now=now).isoformat()}")
    for group in groups.values():
        group.quiz_cards.sort(key=lambda c: c.pk)
        shuffle.shuffle(group.quiz_cards)
        group.prompt_cards.sort(key=lambda c: (c.question.order, c.question.key))
        group.recall_cards.sort(key=lambda c: (c.question.order, c.question.key))
    return sorted(groups.values(), key=lambda g: (g.lesson.order, g.lesson.key))


def lesson_due_questions(
    *, user: User, lesson: Lesson, now: dt.datetime | None = None, profile: LearnerProfile | None = None
) -> list[Question]:
    """The lesson's quiz questions due today for this learner (uncapped; a review attempt)."""
    now = now or timezone.now()
    profile = profile if profile is not None else profile_for(user=user)
    cards = (
        ReviewCard.objects.live_for(user)
        .due_before(end_of_today(profile=profile, now=now))
        .filter(question__lesson=lesson, question__kind__in=Question.QUIZ_KINDS)
    )
    return list(Question.objects.filter(review_cards__in=cards).prefetch_related("options").order_by("order", "key"))


@dataclass(frozen=True)
class RatingPreview:
    rating: int
    label: str
    due: dt.datetime
    interval: dt.timedelta
    counts: bool  # False: a same-day repeat, logged but the schedule stays as it is


def card_state(
    *,
    card: ReviewCard,
    profile: LearnerProfile,
    logs: list[ReviewLog] | None = None,
    schedule: scheduling.Schedule | None = None,
) -> scheduling.Replay:
    """Replay a card's logs (oldest first) into FSRS state, without saving anything (``schedule``: the learner's,
    ``learner_schedule(profile)``, when the caller has it)."""
    if logs is None:
        logs = list(card.logs.oldest_first())
    entries = [scheduling.LogEntry(rating=log.rating, reviewed_at=log.reviewed_at) for log in logs]
    return scheduling.replay(entries, card_id=card.pk, schedule=schedule or learner_schedule(profile))


def rating_preview(
    *, user: User, question: Question, now: dt.datetime | None = None, profile: LearnerProfile | None = None
) -> list[RatingPreview]:
    """The due date and interval each self-rating (Again/Hard/Good/Easy) would give right now."""
    now = now or timezone.now()
    profile = profile if profile is not None else profile_for(user=user)
    card = ReviewCard.objects.filter(user=user, question=question).first()
    schedule = learner_schedule(profile)
    state = card_state(card=card, profile=profile, schedule=schedule) if card else scheduling.EMPTY
    outcomes = scheduling.preview(state, now=now, schedule=schedule)
    return [
        RatingPreview(
            rating=int(rating),
            label=str(ReviewLog.Rating(int(rating)).label),
            due=due,
            interval=due - now,
            counts=counts,
        )
        for rating, (due, counts) in outcomes.items()
    ]


# --- progress and statistics -------------------------------------------------------------------


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
class DayCount:
    day: dt.date
    count: int


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


# --- cards, next reviews, the review session's progress -------------------------------------------


def cards_for(*, user: User) -> QuerySet[ReviewCard]:
    """All the learner's cards (suspended and unpublished too), by due date, with question and lesson."""
    return ReviewCard.objects.filter(user=user).select_related("question", "question__lesson").order_by("due", "id")


def card_for(*, user: User, card_id: int) -> ReviewCard | None:
    """One of the learner's cards with its question and lesson (another learner's is simply not found)."""
    return cards_for(user=user).filter(pk=card_id).first()


def card_due(*, user: User, question: Question) -> dt.datetime | None:
    card = ReviewCard.objects.filter(user=user, question=question).only("due").first()
    return card.due if card else None


def next_review_at(*, user: User) -> dt.datetime | None:
    """When the learner's next live card falls due (None when nothing is scheduled)."""
    return ReviewCard.objects.live_for(user).order_by("due").values_list("due", flat=True).first()


def next_review_after_today(
    *, user: User, now: dt.datetime | None = None, profile: LearnerProfile | None = None
) -> dt.datetime | None:
    """When the next live card falls due once today's are done (the review session's empty state, the counts)."""
    profile = profile if profile is not None else profile_for(user=user)
    horizon = end_of_today(profile=profile, now=now or timezone.now())
    return ReviewCard.objects.live_for(user).due_from(horizon).aggregate(due=Min("due"))["due"]


def next_review_of(*, user: User, question_ids: list[int]) -> dt.datetime | None:
    """The earliest due date among the learner's live cards of these questions (an attempt's end screen)."""
    return ReviewCard.objects.live_for(user).filter(question_id__in=question_ids).aggregate(due=Min("due"))["due"]


@dataclass(frozen=True)
class ReviewProgress:
    done: int  # reviews that counted today
    remaining: int  # cards still due today

    @property
    def total(self) -> int:
        return self.done + self.remaining


def review_progress(*, user: User, now: dt.datetime | None = None) -> ReviewProgress:
    """Today's counted reviews against what is still due: the review session's progress bar."""
    now = now or timezone.now()
    profile = profile_for(user=user)
    done = _logs_today(user, profile, now).filter(role=ReviewLog.Role.REVIEW).values("card_id").distinct().count()
    return ReviewProgress(done=done, remaining=due_count(user=user, now=now))


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
