"""The first-answer lock (issue 26): an item is answered once and the first write wins — THE rule for every
LockedAnswer, an attempt item (the first click) and a pack item (the first upload) alike."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.db.models import Exists, Q

from quizzes.practice.models import LockedAnswer


def first_answer_lock(
    model: type[LockedAnswer], *, pk: Any, values: Mapping[str, Any], also: Exists | Q | None = None
) -> bool:
    """Store ``values`` (attnames → values, ``answered_at`` among them) on item ``pk`` only if no answer is
    stored yet: one conditional ``UPDATE … WHERE id = %s AND answered_at IS NULL [AND also]`` (``QuerySet.update``),
    so of concurrent writers exactly one wins (PostgreSQL re-checks the condition after waiting for the row's
    lock). ``also``: the caller's own extra guard over the item's row — an ``Exists`` over ``OuterRef`` columns
    (an attempt item: its attempt is unfinished), never a filter across a relation, which would make Django
    write the UPDATE as ``id IN (SELECT …)`` and lose that re-check. True when this write won.

    The ORM's statement, not a hand-written one (issue 26): bench/README.md, "SQL fast paths", measured the
    hand-written UPDATE at no gain worth its second copy of the rule."""
    assert "answered_at" in values  # a lock that does not set answered_at would lock nothing
    found = model._default_manager.filter(pk=pk, answered_at__isnull=True)
    return bool((found.filter(also) if also is not None else found).update(**values))
