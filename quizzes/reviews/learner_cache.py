"""Per-learner cached reads, made stale by version stamps rather than by deleting keys.

Why: clients fetch the due queue over and over (opening the app, pull-to-refresh, coming back
from a card), and each build costs about ten queries; between two of the learner's own writes
the answer cannot change, except when their study day ends. So a read is cached under the
learner, and carries three checks:

* the learner's **stamp**, renewed by every write to their cards, logs or profile
  (``quizzes.reviews.signals``) when its transaction commits, so a read that raced the commit cannot keep
  its pre-commit copy (issue 16: one Redis round trip per write). A read later in the writing transaction
  skips the cache: the copy there predates the write, and a copy of what it reads now would outlive a
  rollback;
* the **content stamp**, renewed by every change to a lesson, question or option;
* **valid until**: the end of the learner's study day, after which the value is rebuilt (and
  never before the moment it was built, should a clock go back).

The stamps and the value come back in one cache round trip. Stamps are random, never counters:
a stamp lost to eviction comes back as a new value and can never match an old entry.
Only a cache every serving process shares may hold these: with a per-process cache one worker's
write could not reach another worker's copy. So the cache is on with Redis, and with local memory
only where one process serves everything (``SINGLE_PROCESS``, which ``make run`` sets); the start-up
check ``quizzes.E001`` refuses local memory anywhere else. ``LEARNER_CACHE_SECONDS`` also bounds how
long a copy can outlive a write the cache never saw (Redis down at that moment: django-redis drops
the write and logs it).

Stamps are renewed in one way only: the receivers in ``quizzes.reviews.signals``, for Django's model
signals and for the two signals there that the writes Django sends none for (bulk and plain SQL) send.
"""

from __future__ import annotations

import datetime as dt
import secrets
from collections.abc import Callable, Sequence
from typing import Any

from asgiref.local import Local
from django.conf import settings
from django.core.cache import cache
from django.db import transaction

CONTENT_STAMP = "stamp:content"


def _learner_stamp_key(user_id: int) -> str:
    return f"stamp:learner:{user_id}"


def _new_stamp() -> str:
    return secrets.token_hex(8)


def enabled() -> bool:
    return settings.LEARNER_CACHE_SECONDS > 0


def _renew(key: str) -> None:
    cache.set(key, _new_stamp(), timeout=None)


def _renew_now_and_on_commit(key: str) -> None:
    _renew(key)
    transaction.on_commit(lambda: _renew(key))


#: Learners written in this thread's open transaction (Django's connections are per thread, as this is).
_open_writes = Local()


def _written() -> set[int]:
    found: set[int] | None = getattr(_open_writes, "learners", None)
    if found is None:
        found = _open_writes.learners = set()
    return found


def _skip(user_id: int) -> bool:
    """Whether a read of this learner must skip the cache: they were written in the transaction still open.

    With no transaction open, every earlier write has ended, committed (its stamp renewed on commit) or
    rolled back (nothing to renew), and the record is cleared.
    """
    written = _written()
    if not written:
        return False
    if transaction.get_autocommit():
        written.clear()
        return False
    return user_id in written


def _renew_learner(user_id: int) -> None:
    _written().discard(user_id)
    _renew(_learner_stamp_key(user_id))


def learner_changed(user_id: int) -> None:
    """Every cached read of this learner is stale once the transaction commits; until then their reads in
    this transaction skip the cache (see learner_read). Called by the receivers in quizzes.reviews.signals."""
    if enabled():
        if not transaction.get_autocommit():
            _written().add(user_id)
        transaction.on_commit(lambda: _renew_learner(user_id))  # at once when no transaction is open


def content_changed() -> None:
    """Every learner's cached reads are stale: lessons, questions or options changed."""
    if enabled():
        _renew_now_and_on_commit(CONTENT_STAMP)


def _stamps(found: dict[str, Any], keys: list[str]) -> list[str]:
    """The current stamps; a missing one is created (``add``: of racing readers, the first one wins)."""
    missing = [key for key in keys if key not in found]
    found = dict(found)
    lost = []
    for key in missing:
        stamp = _new_stamp()
        if cache.add(key, stamp, timeout=None):
            found[key] = stamp  # ours won: no need to read it back (a learner's first read saves a round trip)
        else:
            lost.append(key)
    if lost:
        found.update(cache.get_many(lost))
    return [found.get(key, "") for key in keys]  # "" only when the cache is down: never matches a stored stamp


def learner_read(
    *,
    user_id: int,
    name: str,
    params: Sequence[object],
    now: dt.datetime,
    build: Callable[[], tuple[Any, dt.datetime]],
) -> Any:
    """``build()``'s value, from the cache while the learner, the content and the study day are unchanged.

    ``build`` returns (value, valid_until); the value must pickle. ``params`` tells apart reads
    of the same name (a page number, say).
    """
    if not enabled() or _skip(user_id):
        return build()[0]  # after a write in this transaction: neither the old copy nor a copy that may roll back
    stamp_keys = [_learner_stamp_key(user_id), CONTENT_STAMP]
    value_key = ":".join(["learner", str(user_id), name, *map(str, params)])
    found = cache.get_many([*stamp_keys, value_key])
    stamps = _stamps(found, stamp_keys)
    entry = found.get(value_key)
    if entry is not None and entry["stamps"] == stamps and entry["built_at"] <= now < entry["valid_until"]:
        return entry["value"]
    value, valid_until = build()
    if all(stamps):
        entry = {"stamps": stamps, "built_at": now, "valid_until": valid_until, "value": value}
        cache.set(value_key, entry, timeout=settings.LEARNER_CACHE_SECONDS)
    return value
