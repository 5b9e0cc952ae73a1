"""What the offline-merge property tests compare, in one place: a learner's cards and logs as plain tuples,
and the ways a phone can deliver one recorded batch (split, repeated, reordered, uploaded twice).

Card ids and the ``card_id`` inside the stored FSRS card are left out: a replay may recreate a card, and the
learner sees neither. Each tuple starts with the question id, so a test can keep the cards it cares about.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterable, Sequence
from typing import TypeVar

from django.db import transaction
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from quizzes.models import ReviewCard, ReviewLog
from quizzes.reviews.offline import EntryStatus

T = TypeVar("T")

# Property tests on a function-scoped database: each example works inside a savepoint of it, some take a second.
DB_PROPERTY = settings(
    deadline=None, database=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)


def cards_snapshot(user) -> list[tuple]:
    return sorted(
        (
            card.question_id,
            card.state,
            card.due,
            card.last_review,
            card.stability,
            card.difficulty,
            card.reps,
            card.lapses,
            card.is_leech,
            card.schedule_key,
            {k: v for k, v in card.fsrs_card.items() if k != "card_id"},
        )
        for card in ReviewCard.objects.filter(user=user)
    )


def logs_snapshot(user) -> list[tuple]:
    rows = ReviewLog.objects.filter(user=user).values_list(
        "card__question_id", "client_uuid", "rating", "reviewed_at", "duration_ms", "source", "role", "client_graded"
    )
    return sorted(rows, key=str)  # client_uuid may be None: compare as text


def draw_deliveries(data: st.DataObject, entries: Sequence[T]) -> list[list[T]]:
    """The recorded batch as a phone might send it: some entries again, in any order, cut into up to four
    uploads, and maybe the whole batch once more after a lost response."""
    repeated = [*entries, *data.draw(st.lists(st.sampled_from(entries), max_size=5), label="repeats")]
    shuffled = data.draw(st.permutations(repeated), label="order")
    cuts = sorted(data.draw(st.sets(st.integers(1, max(1, len(shuffled) - 1)), max_size=3), label="cuts"))
    batches = [shuffled[a:b] for a, b in zip([0, *cuts], [*cuts, len(shuffled)], strict=True) if shuffled[a:b]]
    if data.draw(st.booleans(), label="upload everything twice"):
        batches.append(list(entries))
    return batches


Outcome = tuple[uuid.UUID, str, "str | None"]  # client UUID, status, reason


def merged_in_savepoint(
    batches: Iterable[Sequence[T]], merge: Callable[[Sequence[T]], Iterable[Outcome]], state: Callable[[], tuple]
) -> tuple[tuple, dict[uuid.UUID, list[tuple[str, str | None]]]]:
    """Merge the batches in order inside a savepoint rolled back afterwards: the final ``state()`` and each
    entry's outcomes over all deliveries (one database, no per-example setup)."""
    outcomes: dict[uuid.UUID, list[tuple[str, str | None]]] = {}
    with transaction.atomic():
        for batch in batches:
            for client_uuid, status, reason in merge(batch):
                outcomes.setdefault(client_uuid, []).append((status, reason))
        final = state()
        transaction.set_rollback(True)
    return final, outcomes


def assert_stored_once_or_rejected_alike(first: list[tuple[str, str | None]], seen: list[tuple[str, str | None]]):
    """An entry's outcomes over all deliveries, against its outcome when the batch came once, as recorded:
    stored exactly once (later copies are duplicates), or rejected for the same reason every time."""
    first_status, reason = first[0]
    statuses = [status for status, _reason in seen]
    if first_status == EntryStatus.REJECTED:
        assert (EntryStatus.REJECTED, reason) in seen
        assert set(seen) <= {(EntryStatus.REJECTED, reason), (EntryStatus.DUPLICATE, None)}
    else:
        assert statuses.count(EntryStatus.APPLIED) == 1
        assert set(statuses) <= {EntryStatus.APPLIED, EntryStatus.ALREADY_STORED, EntryStatus.DUPLICATE}
