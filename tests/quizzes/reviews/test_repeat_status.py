"""One rule for a client UUID sent before (issue 26): ``repeat_status``, asked by the offline merge and the pack
upload alike."""

from __future__ import annotations

import uuid

from quizzes.reviews.offline import EntryStatus, repeat_status

A, B, C = (uuid.uuid4() for _ in range(3))


def test_new_then_duplicate_in_the_batch_then_already_stored():
    seen: set[uuid.UUID] = set()
    stored = {C}
    statuses = [repeat_status(u, seen=seen, stored=stored) for u in (A, B, A, C, C)]
    assert statuses == [None, None, EntryStatus.DUPLICATE, EntryStatus.ALREADY_STORED, EntryStatus.DUPLICATE]
    assert seen == {A, B, C}
