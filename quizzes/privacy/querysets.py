"""The shared export filters: whose export, still to finish, past its links' expiry, stuck."""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING

from django.db import models

if TYPE_CHECKING:
    from django.contrib.auth.models import User

    from quizzes.privacy.models import DataExport  # noqa: F401 (named in the QuerySet[...] string)


class DataExportQuerySet(models.QuerySet["DataExport"]):
    def owned_by(self, user: User) -> DataExportQuerySet:
        """The learner's own exports (another learner's are simply not found)."""
        return self.filter(user=user)

    def active(self) -> DataExportQuerySet:
        """Pending or running: at most one per learner."""
        return self.filter(status__in=("pending", "running"))

    def expired_at(self, moment: dt.datetime) -> DataExportQuerySet:
        """Finished exports whose links have expired at ``moment`` (their files are deleted with them)."""
        return self.filter(expires_at__lte=moment)

    def stale_at(self, moment: dt.datetime, *, after: dt.timedelta) -> DataExportQuerySet:
        """Still pending or running ``after`` their request: the job was lost (a broker down, a worker killed)."""
        return self.active().filter(created_at__lt=moment - after)
