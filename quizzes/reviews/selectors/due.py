"""What is due today: the due queue (capped by reviews_per_day), new questions (capped by new_per_day),
the review session grouped by lesson and its progress."""

from __future__ import annotations

import datetime as dt
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from django.contrib.auth.models import User
from django.db.models import QuerySet
from django.utils import timezone

from quizzes.accounts.models import LearnerProfile
from quizzes.accounts.selectors import profile_for
from quizzes.content.models import Lesson, Question
from quizzes.core.compiled import CompiledRead, Later, together
from quizzes.reviews.models import ReviewCard, ReviewLog
from quizzes.reviews.selectors.days import TodayLogs, end_of_today, logs_today, today_for, today_logs
from quizzes.reviews.selectors.history import RECENT_LOG_DAYS, RecentLogs, recent_logs_later
from quizzes.reviews.selectors.summary import CardSummary, card_summary_later


def _moment_and_profile(
    user: User, now: dt.datetime | None, profile: LearnerProfile | None
) -> tuple[dt.datetime, LearnerProfile]:
    """The moment asked about (now, unless the caller gives one) and the learner's settings (read, unless the
    caller already holds them): every question about the learner's day starts from these two."""
    return now or timezone.now(), profile if profile is not None else profile_for(user=user)


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
    now, profile = _moment_and_profile(user, now, profile)
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
    now, profile = _moment_and_profile(user, now, profile)
    return due_queue(user=user, now=now, profile=profile, today=today).count()


def _unseen_questions(user: User) -> QuerySet[Question]:
    return Question.objects.published().unseen_by(user)


def _unseen_in_lesson_order(user: User) -> QuerySet[Question]:
    """Unseen questions with their lesson, in the order the lessons teach them (the new queue, where to resume)."""
    return _unseen_questions(user).select_related("lesson").order_by("lesson__order", "lesson__key", "order", "key")


def _new_left(user: User, profile: LearnerProfile, now: dt.datetime, today: TodayLogs | None) -> int:
    today = today if today is not None else today_logs(user=user, profile=profile, now=now)
    return max(0, profile.new_per_day - today.first)


def new_questions(
    *, user: User, now: dt.datetime | None = None, profile: LearnerProfile | None = None
) -> list[Question]:
    """Published questions the learner has never answered, in lesson order.

    Capped by ``new_per_day`` minus questions first studied today.
    """
    now, profile = _moment_and_profile(user, now, profile)
    return list(_unseen_in_lesson_order(user)[: _new_left(user, profile, now, None)])


def first_unseen_question(*, user: User) -> Question | None:
    """The first published question the learner has never answered, in lesson order (where they left off)."""
    return _unseen_in_lesson_order(user).first()


def new_count(
    *,
    user: User,
    now: dt.datetime | None = None,
    profile: LearnerProfile | None = None,
    today: TodayLogs | None = None,
) -> int:
    """``len(new_questions(...))`` as one COUNT."""
    now, profile = _moment_and_profile(user, now, profile)
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
    now, profile = _moment_and_profile(user, now, profile)
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
    now, profile = _moment_and_profile(user, now, profile)
    cards = (
        ReviewCard.objects.live_for(user)
        .due_before(end_of_today(profile=profile, now=now))
        .filter(question__lesson=lesson, question__kind__in=Question.QUIZ_KINDS)
    )
    return list(Question.objects.filter(review_cards__in=cards).prefetch_related("options").order_by("order", "key"))


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
    done = logs_today(user, profile, now).filter(role=ReviewLog.Role.REVIEW).values("card_id").distinct().count()
    return ReviewProgress(done=done, remaining=due_count(user=user, now=now))
