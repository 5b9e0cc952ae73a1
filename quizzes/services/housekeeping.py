"""Periodic clean-up: abandoned attempts, expired API tokens, old idempotency keys.

Abandoned attempts: an unfinished attempt started more than ATTEMPT_ABANDON_AFTER_HOURS ago is
finished (``finished_at`` stamped, the same as the learner pressing "finish"): the Attempt model
has no separate status, and finishing is what closes it for the pages and the API. Answered items
are never touched — their locked responses, grades and review logs stay exactly as they were;
unanswered items simply stay unanswered (they score 0, as ``attempt_finish`` documents).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from knox.models import AuthToken

from quizzes.models import Attempt, IdempotencyKey


@dataclass(frozen=True)
class HousekeepingResult:
    attempts_finished: int
    tokens_deleted: int
    idempotency_keys_deleted: int


def attempts_expire_abandoned(*, now: dt.datetime | None = None, older_than: dt.timedelta | None = None) -> int:
    """Finish attempts left open too long; returns how many. One UPDATE, so it is idempotent and race-free."""
    now = now or timezone.now()
    older_than = older_than or dt.timedelta(hours=settings.ATTEMPT_ABANDON_AFTER_HOURS)
    with transaction.atomic():
        return Attempt.objects.filter(finished_at__isnull=True, started_at__lt=now - older_than).update(finished_at=now)


def api_tokens_prune_expired(*, now: dt.datetime | None = None) -> int:
    """Delete knox tokens past their expiry (tokens without expiry are kept)."""

    deleted, _ = AuthToken.objects.filter(expiry__lt=now or timezone.now()).delete()
    return deleted


def idempotency_keys_prune(*, now: dt.datetime | None = None, older_than: dt.timedelta | None = None) -> int:
    """Delete stored Idempotency-Key responses older than the API's API_IDEMPOTENCY_TTL (24 h)."""
    now = now or timezone.now()
    older_than = older_than or getattr(settings, "API_IDEMPOTENCY_TTL", dt.timedelta(hours=24))
    deleted, _ = IdempotencyKey.objects.filter(created_at__lt=now - older_than).delete()
    return deleted


def housekeeping_run(*, now: dt.datetime | None = None) -> HousekeepingResult:
    now = now or timezone.now()
    return HousekeepingResult(
        attempts_finished=attempts_expire_abandoned(now=now),
        tokens_deleted=api_tokens_prune_expired(now=now),
        idempotency_keys_deleted=idempotency_keys_prune(now=now),
    )
