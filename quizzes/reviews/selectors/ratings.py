"""A card's FSRS state replayed from its logs, and what each self-rating would schedule."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from django.contrib.auth.models import User
from django.utils import timezone

from quizzes.accounts.models import LearnerProfile
from quizzes.accounts.selectors import profile_for
from quizzes.content.models import Question
from quizzes.reviews import scheduling
from quizzes.reviews.models import ReviewCard, ReviewLog
from quizzes.reviews.parameters import learner_schedule


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
