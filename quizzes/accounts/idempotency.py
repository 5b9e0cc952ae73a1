"""Idempotency-Key records: a POST's response kept under the client's key, so a retry creates nothing.

The API's ``@idempotent`` decorator (quizzes.api.idempotency) hashes the request and renders the
response; the rows are written here. Concurrency: ``idempotency_key_claim`` opens the transaction
in which the caller does the work, and inserts the key row first. A concurrent retry's INSERT waits
on the (user, key) unique index until the first commits, then fails and finds the stored response;
if the first rolled back, the retry does the work. Keys expire after ``API_IDEMPOTENCY_TTL``.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.utils import timezone

from quizzes.accounts.models import IdempotencyKey

MAX_PATH_LENGTH = 512


@dataclass(frozen=True)
class Claim:
    """``record``: the row this request inserted (it does the work); ``existing``: the key's earlier row."""

    record: IdempotencyKey | None
    existing: IdempotencyKey | None


@contextmanager
def idempotency_key_claim(*, user: User, key: str, method: str, path: str, request_hash: str) -> Iterator[Claim]:
    """Claim ``key`` for this request inside a transaction that lasts as long as the ``with`` block.

    An expired record of the key is deleted first. Run the work inside the block, then call
    ``idempotency_key_store`` (a success) or ``idempotency_key_release`` (anything else).
    """
    with transaction.atomic():
        expired = timezone.now() - settings.API_IDEMPOTENCY_TTL
        IdempotencyKey.objects.filter(user=user, key=key, created_at__lt=expired).delete()
        try:
            with transaction.atomic():
                record = IdempotencyKey.objects.create(
                    user=user, key=key, method=method, path=path[:MAX_PATH_LENGTH], request_hash=request_hash
                )
        except IntegrityError:
            yield Claim(record=None, existing=IdempotencyKey.objects.get(user=user, key=key))
            return
        yield Claim(record=record, existing=None)


def idempotency_key_store(*, record: IdempotencyKey, status: int, body: str | dict[str, Any]) -> None:
    """Keep a successful response: ``body`` is the rendered JSON text, replayed byte for byte, or for a
    response that must not be stored (an offline review pack's answer keys) a small reference to re-render it."""
    record.response_status = status
    record.response_body = body
    record.save(update_fields=["response_status", "response_body"])


def idempotency_key_release(*, record: IdempotencyKey) -> None:
    """Forget the key: the request failed, so a retry with the same key may do the work."""
    record.delete()


def idempotency_keys_prune(*, now: dt.datetime | None = None, older_than: dt.timedelta | None = None) -> int:
    """Delete stored Idempotency-Key responses older than the API's API_IDEMPOTENCY_TTL (24 h)."""
    now = now or timezone.now()
    older_than = older_than or settings.API_IDEMPOTENCY_TTL
    deleted, _rows = IdempotencyKey.objects.filter(created_at__lt=now - older_than).delete()
    return deleted
