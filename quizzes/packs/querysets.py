"""The shared pack filters, written once: whose pack, usable (not revoked, not expired) at a moment."""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING

from django.db import models

if TYPE_CHECKING:
    from django.contrib.auth.models import User

    from quizzes.packs.models import PackItem, ReviewPack  # noqa: F401 (named in the QuerySet[...] strings)


class ReviewPackQuerySet(models.QuerySet["ReviewPack"]):
    def owned_by(self, user: User) -> ReviewPackQuerySet:
        """The learner's own packs (another learner's are simply not found)."""
        return self.filter(user=user)

    def usable_at(self, moment: dt.datetime) -> ReviewPackQuerySet:
        """Packs neither revoked nor expired at ``moment``."""
        return self.filter(revoked_at__isnull=True, expires_at__gt=moment)


class PackItemQuerySet(models.QuerySet["PackItem"]):
    def owned_by(self, user: User) -> PackItemQuerySet:
        return self.filter(pack__user=user)
