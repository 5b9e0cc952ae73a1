"""The shared attempt filters: whose attempt, answered or not."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.db import models

if TYPE_CHECKING:
    from django.contrib.auth.models import User

    from quizzes.practice.models import Attempt, AttemptItem  # noqa: F401 (named in the QuerySet[...] strings)


class AttemptQuerySet(models.QuerySet["Attempt"]):
    def owned_by(self, user: User) -> AttemptQuerySet:
        """The learner's own attempts (another learner's are simply not found)."""
        return self.filter(user=user)

    def unfinished(self) -> AttemptQuerySet:
        return self.filter(finished_at__isnull=True)


class AttemptItemQuerySet(models.QuerySet["AttemptItem"]):
    def owned_by(self, user: User | int) -> AttemptItemQuerySet:
        """Items of the learner's attempts (``user``: or its id)."""
        return self.filter(attempt__user=user)

    def answered(self) -> AttemptItemQuerySet:
        """Locked items: the first response is stored."""
        return self.filter(answered_at__isnull=False)

    def unanswered(self) -> AttemptItemQuerySet:
        return self.filter(answered_at__isnull=True)
