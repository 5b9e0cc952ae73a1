"""Read-only queries the learner shell needs beyond quizzes.selectors (dashboard, lesson page).

Kept in their own module so the shared selectors stay as the domain defined them.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import Prefetch

from quizzes import selectors
from quizzes.models import Attempt, AttemptItem, Lesson, Question, ReviewCard


def lesson_published_get(*, key: str) -> Lesson:
    """A published lesson by key; ``Lesson.DoesNotExist`` for drafts and unknown keys (the page 404s)."""
    return Lesson.objects.get(key=key, published=True)


def next_review_at(*, user: AbstractBaseUser) -> dt.datetime | None:
    """When the learner's next live card falls due (None when nothing is scheduled)."""
    cards = ReviewCard.objects.filter(
        user=user, suspended=False, question__published=True, question__lesson__published=True
    )
    return cards.order_by("due").values_list("due", flat=True).first()


@dataclass(frozen=True)
class AttemptSummary:
    attempt: Attempt
    answered: int
    total: int
    correct: int
    score: float | None  # 0..1 over all items; unanswered count as 0

    @property
    def finished(self) -> bool:
        return self.attempt.finished_at is not None


_SCORE_FIELDS = ("id", "attempt_id", "score", "is_correct", "answered_at")


def lesson_attempts(*, user: AbstractBaseUser, lesson: Lesson) -> list[AttemptSummary]:
    """The learner's attempts at one lesson, newest first, with their scores (two queries)."""
    attempts = (
        Attempt.objects.filter(user=user, lesson=lesson)
        .prefetch_related(Prefetch("items", queryset=AttemptItem.objects.only(*_SCORE_FIELDS)))
        .order_by("-number")
    )
    summaries = []
    for attempt in attempts:
        items = list(attempt.items.all())
        summaries.append(
            AttemptSummary(
                attempt=attempt,
                answered=sum(1 for i in items if i.answered_at is not None),
                total=len(items),
                correct=sum(1 for i in items if i.is_correct),
                score=selectors.attempt_score(attempt),
            )
        )
    return summaries


def lesson_practice_questions(*, lesson: Lesson) -> dict[str, list[Question]]:
    """The lesson's published interview prompts and recall cards (the practice links on its page)."""
    grouped: dict[str, list[Question]] = {"prompt": [], "recall": []}
    questions = lesson.questions.filter(
        published=True, kind__in=[Question.Kind.PROMPT, Question.Kind.RECALL]
    ).order_by("order", "key")
    for question in questions:
        grouped[question.kind].append(question)
    return grouped


def lesson_quiz_count(*, lesson: Lesson) -> int:
    return lesson.questions.filter(published=True, kind__in=Question.QUIZ_KINDS).count()
