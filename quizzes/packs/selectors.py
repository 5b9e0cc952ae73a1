"""Reads about review packs: what a new pack would hold, a learner's packs and their items. Nothing here writes."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from typing import Any

from django.contrib.auth.models import User
from django.db.models import Prefetch, QuerySet

from quizzes.content.models import Option, QuestionVersion
from quizzes.packs.models import PackedVariant, PackItem, ReviewPack
from quizzes.reviews.models import ReviewCard


def cards_to_pack(*, user: User, until: dt.datetime, kinds: Iterable[str], limit: int) -> list[ReviewCard]:
    """The learner's live cards due before ``until``, most overdue first, with questions and their options.

    Only cards whose schedule rests on a rating the server stands behind (``keys_earned``): a pack carries each
    quiz item's key, so a card built only from client-graded offline entries stays online-only until answered.
    """
    return list(
        ReviewCard.objects.live_for(user)
        .keys_earned()
        .due_before(until)
        .filter(question__kind__in=list(kinds))
        .select_related("question")
        .prefetch_related(Prefetch("question__options", queryset=Option.objects.all()))
        .order_by("due", "id")[:limit]
    )


def packed_variant_ids(*, digests: Iterable[str]) -> dict[str, int]:
    """The stored numeric variants among ``digests``: digest → id."""
    return dict(PackedVariant.objects.filter(digest__in=list(digests)).values_list("digest", "pk"))


def packs_for(*, user: User) -> QuerySet[ReviewPack]:
    """The learner's packs, newest first, each with ``item_count`` and ``answered_count``."""
    return ReviewPack.objects.owned_by(user).with_item_counts().order_by("-issued_at", "-id")


def pack_for(*, user: User, pack_id: int) -> ReviewPack | None:
    """One of the learner's packs (another learner's is not found)."""
    return ReviewPack.objects.owned_by(user).filter(pk=pack_id).first()


def pack_items(*, pack: ReviewPack) -> list[PackItem]:
    """A pack's items in order, as stored, with their question versions and variants (each knows its pack).

    Always read back, even right after ``pack_issue``: a JSON column comes back with its keys in the database's
    order (jsonb sorts them), and a pack must render byte for byte the same the first time and on every replay.
    The versions' and variants' JSON comes from :func:`_shared_json` (read once per process).
    """
    items = list(
        PackItem.objects.filter(pack=pack)
        .select_related("packed", "packed_variant")
        .defer("packed__snapshot", "packed_variant__variant")
        .order_by("position")
    )
    snapshots = _shared_json(QuestionVersion, "snapshot", digests={item.packed.digest for item in items})
    variants = _shared_json(
        PackedVariant, "variant", digests={item.packed_variant.digest for item in items if item.packed_variant}
    )
    for item in items:
        item.pack = pack
        item.packed.snapshot = snapshots[item.packed.digest]
        if item.packed_variant is not None:
            item.packed_variant.variant = variants[item.packed_variant.digest]
    return items


#: (model, digest) -> the row's JSON as read from the database. A question version or variant never changes (its
#: digest is its content; two versions with one digest hold the same content), so a process reads each once:
#: most of the bytes a pack read back were these copies, the same for every learner. Read-only for callers.
_SHARED: dict[tuple[type, str], Any] = {}
_MAX_SHARED = 4096  # entries (≈ 5–10 KB each in memory): every version and variant of today's content


def _shared_json(model: type[QuestionVersion | PackedVariant], field: str, *, digests: set[str]) -> dict[str, Any]:
    found = {digest: _SHARED[(model, digest)] for digest in digests if (model, digest) in _SHARED}
    missing = digests - found.keys()
    if missing:
        if len(_SHARED) + len(missing) > _MAX_SHARED:
            _SHARED.clear()
        for digest, value in model.objects.filter(digest__in=missing).values_list("digest", field):
            found[digest] = _SHARED[(model, digest)] = value
    return found


def pack_items_by_id(*, user: User, ids: Iterable[int]) -> dict[int, PackItem]:
    """The learner's pack items among ``ids``, with their packs and questions (others' are not found)."""
    rows = (
        PackItem.objects.owned_by(user)
        .filter(pk__in=list(ids))
        .select_related("pack", "question", "packed", "packed_variant")
    )
    return {item.pk: item for item in rows}
