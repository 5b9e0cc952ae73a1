"""Small builders shared by the ops tests."""

from __future__ import annotations

import datetime as dt

from quizzes.models import LearnerProfile, ReviewCard
from tests import factories


def learner(
    *,
    time_zone: str = "UTC",
    rollover: int = 4,
    reminder_hour: int = 18,
    opt_in: bool = True,
    email: str | None = None,
) -> LearnerProfile:
    profile = factories.LearnerProfileFactory(
        time_zone=time_zone, day_rollover_hour=rollover, reminder_hour=reminder_hour, reminder_opt_in=opt_in
    )
    if email is not None:
        profile.user.email = email
        profile.user.save(update_fields=["email"])
    return profile


def due_card(profile: LearnerProfile, *, due: dt.datetime, question=None) -> ReviewCard:
    """A review card due at ``due`` (the reminder only reads ``due``; FSRS state is irrelevant here)."""
    question = question or factories.ChoiceQuestionFactory()
    return ReviewCard.objects.create(
        user=profile.user, question=question, due=due, last_review=due - dt.timedelta(days=2), state=2
    )
