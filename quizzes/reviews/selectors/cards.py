"""One learner's cards and when they fall due next."""

from __future__ import annotations

import datetime as dt

from django.contrib.auth.models import User
from django.db.models import Min, QuerySet
from django.utils import timezone

from quizzes.accounts.models import LearnerProfile
from quizzes.accounts.selectors import profile_for
from quizzes.content.models import Question
from quizzes.reviews.models import ReviewCard
from quizzes.reviews.selectors.days import end_of_today


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
