"""The shared pack filters, written once: whose pack, usable (not revoked, not expired) at a moment, revoked,
expired, ended (no upload can count any more) before a moment; each pack's item count."""

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

    def revoked(self) -> ReviewPackQuerySet:
        return self.filter(revoked_at__isnull=False)

    def expired_at(self, moment: dt.datetime) -> ReviewPackQuerySet:
        """Packs past their expiry at ``moment`` and not revoked (a revoked pack counts as revoked)."""
        return self.filter(revoked_at__isnull=True, expires_at__lte=moment)

    def ended_before(self, moment: dt.datetime, *, grace: dt.timedelta) -> ReviewPackQuerySet:
        """Packs revoked before ``moment``, or whose expiry plus ``grace`` (the upload grace) was before it."""
        return self.filter(models.Q(revoked_at__lt=moment) | models.Q(expires_at__lt=moment - grace))

    def with_item_counts(self) -> ReviewPackQuerySet:
        """Each pack with ``item_count`` and ``answered_count``."""
        return self.annotate(
            item_count=models.Count("items"),
            answered_count=models.Count("items", filter=models.Q(items__answered_at__isnull=False)),
        )


class PackItemQuerySet(models.QuerySet["PackItem"]):
    def owned_by(self, user: User) -> PackItemQuerySet:
        return self.filter(pack__user=user)
