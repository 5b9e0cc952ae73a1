"""The first-answer lock (issue 26): an item is answered once and the first write wins — THE rule for every
LockedAnswer, an attempt item (the first click) and a pack item (the first upload) alike."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from quizzes.core.rows import row_update
from quizzes.practice.models import LockedAnswer

UNANSWERED = "answered_at IS NULL"


def first_answer_lock(model: type[LockedAnswer], *, pk: Any, values: Mapping[str, Any], also: str = "") -> bool:
    """Store ``values`` (attnames → values, ``answered_at`` among them) on item ``pk`` only if no answer is
    stored yet: one conditional ``UPDATE … WHERE id = %s AND answered_at IS NULL [AND also]``, so of concurrent
    writers exactly one wins (PostgreSQL re-checks the condition after waiting for the row's lock). ``also``:
    the caller's own extra guard in SQL over the item's table (an attempt item: its attempt is not finished).
    True when this write won."""
    assert "answered_at" in values  # a lock that does not set answered_at would lock nothing
    return bool(row_update(model, pk=pk, values=values, where=f"{UNANSWERED} AND {also}" if also else UNANSWERED))
