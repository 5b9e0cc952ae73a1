"""Pruning review packs whose life ended long ago, and the shared numeric variants no pack uses.

Run hourly by housekeeping (quizzes.operations.housekeeping). Idempotent: a second run finds nothing more.

What goes, and what must stay:

* **A pack ends** when it is revoked, or when its expiry plus the upload grace (quizzes.packs.rules) has passed.
  Answers are judged by when they were *reviewed*, so an answer reviewed in time may still be uploaded later;
  ``RETENTION`` after the end, the pack is pruned and a late upload naming its items is refused as unknown.
* **Its unanswered items go**; an **answered item stays while the review log it produced exists** (same learner,
  same client UUID): the item holds what that log was graded against (the pinned version, the option order, the
  variant, the response and the server's result). Logs are kept forever, so in practice an answered item stays;
  it goes only once its log is gone (the card was deleted, e.g. with its question). A pack goes once it has
  no item left, so a pack with a logged answer stays in the list, with just those items.
* **A shared variant (PackedVariant) goes only once no pack item refers to it**, of any pack, any learner (the
  foreign key is RESTRICT: the database refuses anything else). A pack being issued at that moment may have just
  found the variant it needs: on PostgreSQL the two take an advisory lock (shared by every pack issue, exclusive
  here), so a variant is never deleted under a pack that uses it.
* **Question versions (QuestionVersion) are never pruned here**: they are the question's history (issue 27), and
  attempt items pin them too; a version goes only with its question.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from django.db import connection, transaction
from django.db.models import Exists, OuterRef, Q
from django.utils import timezone

from quizzes.packs.models import PackedVariant, PackItem, ReviewPack
from quizzes.packs.rules import UPLOAD_GRACE
from quizzes.reviews.models import ReviewLog

RETENTION = dt.timedelta(days=30)  # after a pack's end (revocation, or expiry + UPLOAD_GRACE)
#: pg_advisory_xact_lock key: taken shared by every pack issue, exclusive by the pruning of shared variants
SHARED_VERSIONS_LOCK = 0x5150_4B53  # "QPKS"


def shared_versions_lock(*, exclusive: bool) -> None:
    """Hold the shared-variants lock until the current transaction ends (PostgreSQL; SQLite serialises writers)."""
    if connection.vendor != "postgresql":
        return
    function = "pg_advisory_xact_lock" if exclusive else "pg_advisory_xact_lock_shared"
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {function}(%s)", [SHARED_VERSIONS_LOCK])


@dataclass(frozen=True)
class PacksPruned:
    packs: int
    items: int
    variants: int


def packs_prune(*, now: dt.datetime | None = None) -> PacksPruned:
    """Delete what the module docstring says may go, as of ``now``."""
    now = now or timezone.now()
    ended = ReviewPack.objects.ended_before(now - RETENTION, grace=UPLOAD_GRACE)
    logged = ReviewLog.objects.filter(user_id=OuterRef("pack__user_id"), client_uuid=OuterRef("client_uuid"))
    with transaction.atomic():
        _, items = (
            PackItem.objects.filter(pack__in=ended).filter(Q(answered_at__isnull=True) | ~Exists(logged)).delete()
        )
        _, packs = ended.filter(items__isnull=True).delete()
        shared_versions_lock(exclusive=True)
        _, variants = PackedVariant.objects.filter(items__isnull=True).delete()
    return PacksPruned(
        packs=packs.get(ReviewPack._meta.label, 0),
        items=items.get(PackItem._meta.label, 0),
        variants=variants.get(PackedVariant._meta.label, 0),
    )
