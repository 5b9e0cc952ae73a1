"""Read-only queries for the practice pages: attempt summaries, review progress, mock interviews.

Like ``quizzes.selectors``: nothing here writes, every query is scoped to the learner.
"""

from __future__ import annotations

import datetime as dt
import random
from dataclasses import dataclass

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import Min, QuerySet
from django.utils import timezone

from quizzes import scheduling, selectors
from quizzes.models import Attempt, AttemptItem, Lesson, Question, ReviewCard, ReviewLog

MOCK_INTERVIEW_MAX = 10


def _live_cards(user: AbstractBaseUser) -> QuerySet[ReviewCard]:
    return ReviewCard.objects.filter(
        user=user, suspended=False, question__published=True, question__lesson__published=True
    )


def self_rated_question(*, key: str, kind: str) -> Question | None:
    """A published interview prompt or recall card of a published lesson, by key."""
    return (
        Question.objects.filter(key=key, kind=kind, published=True, lesson__published=True)
        .select_related("lesson")
        .first()
    )


def user_attempt(*, user: AbstractBaseUser, attempt_id: int) -> Attempt | None:
    """The learner's own attempt (another learner's id is simply not found)."""
    return Attempt.objects.filter(pk=attempt_id, user=user).select_related("lesson").first()


def attempt_items(*, attempt: Attempt) -> list[AttemptItem]:
    return list(
        attempt.items.select_related("question", "chosen_option")
        .prefetch_related("question__options")
        .order_by("position")
    )


def attempt_first_unanswered(*, attempt: Attempt) -> AttemptItem | None:
    return attempt.items.filter(answered_at__isnull=True).order_by("position").first()


@dataclass(frozen=True)
class AttemptSummary:
    attempt: Attempt
    items: list[AttemptItem]
    correct: int
    answered: int
    score: float  # 0..1, unanswered items count as 0
    missed: list[AttemptItem]  # wrong or unanswered, in position order
    next_review: dt.datetime | None  # the earliest due date among this attempt's questions

    @property
    def total(self) -> int:
        return len(self.items)


def attempt_summary(*, user: AbstractBaseUser, attempt: Attempt) -> AttemptSummary:
    """Score, what was missed and when the attempt's questions come back for review."""
    items = attempt_items(attempt=attempt)
    question_ids = [item.question_id for item in items]
    next_review = _live_cards(user).filter(question_id__in=question_ids).aggregate(due=Min("due"))["due"]
    return AttemptSummary(
        attempt=attempt,
        items=items,
        correct=sum(1 for item in items if item.is_correct),
        answered=sum(1 for item in items if item.is_answered),
        score=selectors.attempt_score(attempt) or 0.0,
        missed=[item for item in items if not item.is_correct],
        next_review=next_review,
    )


def next_review_after_today(*, user: AbstractBaseUser, now: dt.datetime | None = None) -> dt.datetime | None:
    """When the next review falls once today's are done (the review session's empty state)."""
    now = now or timezone.now()
    profile = selectors.profile_for(user)
    horizon = selectors.end_of_today(profile, now)
    return _live_cards(user).filter(due__gte=horizon).aggregate(due=Min("due"))["due"]


def card_due(*, user: AbstractBaseUser, question: Question) -> dt.datetime | None:
    card = ReviewCard.objects.filter(user=user, question=question).only("due").first()
    return card.due if card else None


@dataclass(frozen=True)
class ReviewProgress:
    done: int  # reviews that counted today
    remaining: int  # cards still due today

    @property
    def total(self) -> int:
        return self.done + self.remaining


def review_progress(*, user: AbstractBaseUser, now: dt.datetime | None = None) -> ReviewProgress:
    """Today's counted reviews against what is still due: the review session's progress bar."""
    now = now or timezone.now()
    profile = selectors.profile_for(user)
    today = selectors.today_for(profile, now)
    start = scheduling.day_start(today, profile.zone, profile.day_rollover_hour)
    done = (
        ReviewLog.objects.filter(
            user=user,
            role=ReviewLog.Role.REVIEW,
            reviewed_at__gte=start,
            reviewed_at__lt=selectors.end_of_today(profile, now),
        )
        .values("card_id")
        .distinct()
        .count()
    )
    return ReviewProgress(done=done, remaining=selectors.due_count(user=user, now=now))


def review_attempt_open(*, user: AbstractBaseUser, lesson: Lesson, now: dt.datetime | None = None) -> Attempt | None:
    """An unfinished review attempt of this lesson started today with an item left to answer."""
    now = now or timezone.now()
    profile = selectors.profile_for(user)
    start = scheduling.day_start(selectors.today_for(profile, now), profile.zone, profile.day_rollover_hour)
    return (
        Attempt.objects.filter(
            user=user,
            lesson=lesson,
            mode=Attempt.Mode.REVIEW,
            finished_at__isnull=True,
            started_at__gte=start,
            items__answered_at__isnull=True,
        )
        .order_by("-started_at", "-pk")
        .distinct()
        .first()
    )


def interview_prompts() -> list[Question]:
    """Every published interview prompt, lesson by lesson."""
    return list(
        Question.objects.filter(kind=Question.Kind.PROMPT, published=True, lesson__published=True)
        .select_related("lesson")
        .order_by("lesson__order", "lesson__key", "order", "key")
    )


def mock_interview_questions(*, n: int, rng: random.Random | None = None) -> list[Question]:
    """``n`` interview prompts drawn at random across lessons (all of them if there are fewer)."""
    prompts = interview_prompts()
    rng = rng or random.Random()
    return rng.sample(prompts, min(n, len(prompts)))


def questions_by_ids(*, ids: list[int]) -> list[Question]:
    """Published questions in the given order (ids that vanished are dropped)."""
    found = Question.objects.filter(pk__in=ids, published=True).select_related("lesson").in_bulk()
    return [found[pk] for pk in ids if pk in found]
