"""The shared review filters, written once: "live cards" (what a learner can review), due, newest log.

A card is **live** for its learner when it is not suspended and its question and lesson are
published (``live_for``): the due queue, the review session, the dashboard, the forecast, the
reminders and the end screen's "next review" all start from it.
"""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Iterable
from typing import TYPE_CHECKING

from django.db import models

if TYPE_CHECKING:
    from django.contrib.auth.models import User

    from quizzes.reviews.models import ReviewCard, ReviewLog  # noqa: F401 (named in the QuerySet[...] strings)


class ReviewCardQuerySet(models.QuerySet["ReviewCard"]):
    def of_published_questions(self) -> ReviewCardQuerySet:
        """Cards whose question and lesson learners can see (suspended or not)."""
        return self.filter(question__published=True, question__lesson__published=True)

    def live_for(self, user: User | int) -> ReviewCardQuerySet:
        """The learner's cards they can review: not suspended, question and lesson published (``user``: or its id)."""
        return self.filter(user=user, suspended=False).of_published_questions()

    def due_before(self, moment: dt.datetime) -> ReviewCardQuerySet:
        return self.filter(due__lt=moment)

    def due_from(self, moment: dt.datetime) -> ReviewCardQuerySet:
        return self.filter(due__gte=moment)


class ReviewLogQuerySet(models.QuerySet["ReviewLog"]):
    def newest_first(self) -> ReviewLogQuerySet:
        """Newest rating first (ties: the later row), the order undo reads."""
        return self.order_by("-reviewed_at", "-id")

    def oldest_first(self) -> ReviewLogQuerySet:
        """The replay order (quizzes.reviews.scheduling.replay)."""
        return self.order_by("reviewed_at", "id")

    def with_client_uuids(self, *, user: User, uuids: Iterable[uuid.UUID]) -> ReviewLogQuerySet:
        """The learner's logs stored under any of these client UUIDs (re-sent ratings are no-ops)."""
        return self.filter(user=user, client_uuid__in=list(uuids))

    def newest_per_card(self, *, cards: Iterable[ReviewCard]) -> dict[int, dt.datetime]:
        """Card id → its newest review time, for these cards (a card without logs is absent): one query."""
        rows = self.filter(card__in=list(cards)).order_by().values("card_id").annotate(newest=models.Max("reviewed_at"))
        return {row["card_id"]: row["newest"] for row in rows}

    def between(self, start: dt.datetime, end: dt.datetime) -> ReviewLogQuerySet:
        return self.filter(reviewed_at__gte=start, reviewed_at__lt=end)


def unsuspended_through(relation: str) -> models.Q:
    """``live_for``'s card-side rule (not suspended) for cards reached through ``relation`` (a join's alias):
    the card summary joins published questions to the learner's cards and needs it as a condition."""
    return models.Q(**{f"{relation}__suspended": False})
