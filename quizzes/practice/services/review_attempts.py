"""Writes behind the practice pages that combine other services: the review session's quiz part."""

from __future__ import annotations

import datetime as dt

from django.contrib.auth.models import User
from django.utils import timezone

from quizzes.content.models import Lesson
from quizzes.practice.models import Attempt
from quizzes.practice.selectors import review_attempt_open
from quizzes.practice.services.attempts import attempt_start


def review_attempt_get_or_start(*, user: User, lesson: Lesson, now: dt.datetime | None = None) -> Attempt:
    """The review attempt for a lesson's due quiz questions: today's open one, or a new one.

    A review session walks lesson by lesson; each lesson's due quiz items are answered in one
    ``mode="review"`` attempt (``attempt_start`` picks the due questions and reshuffles every
    option order). Resuming an unfinished one keeps a reload or a second tab from starting a
    parallel attempt. Raises DomainError(NOTHING_DUE) when nothing in the lesson is due.
    """
    now = now or timezone.now()
    existing = review_attempt_open(user=user, lesson=lesson, now=now)
    if existing is not None:
        return existing
    return attempt_start(user=user, lesson=lesson, mode=Attempt.Mode.REVIEW, now=now)
