"""The shared review filters, written once: "live cards" (what a learner can review), due, newest log.

A card is **live** for its learner when it is not suspended and its question and lesson are
published (``live_for``): the due queue, the review session, the dashboard, the forecast, the
reminders and the end screen's "next review" all start from it.
"""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from django.db import NotSupportedError, models
from django.db.models.functions import TruncHour

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

    def keys_earned(self) -> ReviewCardQuerySet:
        """Cards with at least one rating the server stands behind: an answer it graded (online or from a pack), a
        self-rating of a prompt or recall card, or a seen answer recorded as Again. A card whose ratings are all
        the client's own grade (the deprecated offline ``correct`` form) is left out: nothing the server saw says
        the learner ever faced the question, so its key is not handed out (quizzes.packs)."""
        from quizzes.reviews.models import ReviewLog  # the models import this module

        return self.filter(models.Exists(ReviewLog.objects.filter(card=models.OuterRef("pk"), client_graded=False)))

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


class StudyDay(models.Func):
    """The learner's study day of a timestamp in SQL, as ``scheduling.local_day`` computes it in Python: the local
    date of the local time less ``rollover_hour`` hours (wall-clock hours, so a DST change moves nothing).

    Why (issue 16): counting ratings per study day converted every log to local time twice (the date, and the
    hour to compare with the rollover); one conversion to the local hour, shifted, is 0.5 → 0.3 ms for a year of
    a learner's logs, and one row per day instead of two. The rollover hour is written into the SQL (0–23).
    """

    output_field = models.DateField()

    def __init__(self, expression: str, *, zone: dt.tzinfo, rollover_hour: int) -> None:
        if not 0 <= int(rollover_hour) <= 23:
            raise ValueError(f"rollover_hour must be 0–23, not {rollover_hour!r}")
        self.rollover_hour = int(rollover_hour)
        super().__init__(TruncHour(expression, tzinfo=zone, output_field=models.DateTimeField()))

    def as_postgresql(self, compiler: Any, connection: Any, **extra_context: Any) -> tuple[str, Any]:
        local_hour, params = compiler.compile(self.source_expressions[0])
        return f"(({local_hour}) - INTERVAL '{self.rollover_hour} hours')::date", params

    def as_sqlite(self, compiler: Any, connection: Any, **extra_context: Any) -> tuple[str, Any]:
        local_hour, params = compiler.compile(self.source_expressions[0])  # local time as text, to the hour
        return f"date({local_hour}, '-{self.rollover_hour} hours')", params

    def as_sql(
        self,
        compiler: Any,
        connection: Any,
        function: str | None = None,
        template: str | None = None,
        arg_joiner: str | None = None,
        **extra_context: Any,
    ) -> tuple[str, Any]:
        raise NotSupportedError(f"StudyDay is written for PostgreSQL and SQLite, not {connection.vendor}")


def unsuspended_through(relation: str) -> models.Q:
    """``live_for``'s card-side rule (not suspended) for cards reached through ``relation`` (a join's alias):
    the card summary joins published questions to the learner's cards and needs it as a condition."""
    return models.Q(**{f"{relation}__suspended": False})
