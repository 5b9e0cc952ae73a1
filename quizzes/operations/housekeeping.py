"""Periodic clean-up (the hourly task): abandoned attempts, expired API tokens, old idempotency keys, review packs
ended long ago and the shared variants no pack uses (``packs_prune``: its docstring says what stays), data
exports whose links have expired, with their files (``data_exports_prune``).

Each part is its domain's service; this module only runs them together and reports the counts.
Abandoned attempts: an unfinished attempt started more than ATTEMPT_ABANDON_AFTER_HOURS ago is
finished (``attempts_expire_abandoned``, the same as the learner pressing "finish"): answered items
are never touched; unanswered items simply stay unanswered (they score 0, as ``attempt_finish`` documents).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from django.utils import timezone

from quizzes.accounts.idempotency import idempotency_keys_prune
from quizzes.accounts.services import api_tokens_prune_expired
from quizzes.packs.pruning import packs_prune
from quizzes.practice.services import attempts_expire_abandoned
from quizzes.privacy.services import data_exports_prune


@dataclass(frozen=True)
class HousekeepingResult:
    attempts_finished: int
    tokens_deleted: int
    idempotency_keys_deleted: int
    packs_deleted: int
    exports_deleted: int = 0


def housekeeping_run(*, now: dt.datetime | None = None) -> HousekeepingResult:
    now = now or timezone.now()
    return HousekeepingResult(
        attempts_finished=attempts_expire_abandoned(now=now),
        tokens_deleted=api_tokens_prune_expired(now=now),
        idempotency_keys_deleted=idempotency_keys_prune(now=now),
        packs_deleted=packs_prune(now=now).packs,
        exports_deleted=data_exports_prune(now=now).deleted,
    )
