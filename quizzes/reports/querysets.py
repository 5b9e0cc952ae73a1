"""The shared report filters: whose report, still open, resolved."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.db import models

if TYPE_CHECKING:
    from django.contrib.auth.models import User

    from quizzes.reports.models import ProblemReport  # noqa: F401 (named in the QuerySet[...] string)


class ProblemReportQuerySet(models.QuerySet["ProblemReport"]):
    def owned_by(self, user: User) -> ProblemReportQuerySet:
        """The learner's own reports (another learner's are simply not found)."""
        return self.filter(user=user)

    def open(self) -> ProblemReportQuerySet:
        """Not resolved yet: what an author still has to look at."""
        return self.filter(resolved_at__isnull=True)

    def resolved(self) -> ProblemReportQuerySet:
        return self.filter(resolved_at__isnull=False)
