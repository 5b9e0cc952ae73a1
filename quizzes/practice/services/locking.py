"""The first-answer lock (issue 26): an item is answered once and the first write wins — THE rule for every
LockedAnswer, an attempt item (the first click) and a pack item (the first upload) alike."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.conf import settings
from django.db.models import Exists

from quizzes.core.rows import row_update
from quizzes.practice.models import LockedAnswer

UNANSWERED = "answered_at IS NULL"


def first_answer_lock(
    model: type[LockedAnswer],
    *,
    pk: Any,
    values: Mapping[str, Any],
    also: tuple[str, Exists] | None = None,
) -> bool:
    """Store ``values`` (attnames → values, ``answered_at`` among them) on item ``pk`` only if no answer is
    stored yet: one conditional ``UPDATE … WHERE id = %s AND answered_at IS NULL [AND also]``, so of concurrent
    writers exactly one wins (PostgreSQL re-checks the condition after waiting for the row's lock). ``also``: the
    caller's own extra guard over the item's row, as SQL and as the ORM's ``Exists`` over the QuerySet that owns
    the rule (an attempt item: its attempt is unfinished) — an ``Exists``, never a filter across a relation, which
    would make Django write ``id IN (SELECT …)`` and lose that re-check. True when this write won.

    Hand-written because the ORM's ``QuerySet.update`` cost 2.5 ms of CPU against 0.5 ms (issue 26; bench/README.md,
    "SQL fast paths"); ``SQL_FAST_PATHS=false`` runs the ORM's, and tests/quizzes/core/test_fast_paths.py checks
    that the two lock the same rows."""
    assert "answered_at" in values  # a lock that does not set answered_at would lock nothing
    if not settings.SQL_FAST_PATHS:
        found = model._default_manager.filter(pk=pk, answered_at__isnull=True)
        return bool((found.filter(also[1]) if also is not None else found).update(**values))
    where = f"{UNANSWERED} AND {also[0]}" if also is not None else UNANSWERED
    return bool(row_update(model, pk=pk, values=values, where=where))
