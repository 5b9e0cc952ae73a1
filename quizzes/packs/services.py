"""Review pack writes: issuing a pack (its items pinned to the questions' versions as they are now) and revoking one.

A pack holds the learner's live cards due now and in the next ``days`` days (at most ``max_items``), each
drawn as an attempt would draw it: a uniformly random option order (``choose_option_order``, independent
of earlier orders) and a numeric variant from the engine with a stored seed and the question's own
template version, so the server can regrade exactly what the phone showed.
"""

from __future__ import annotations

import datetime as dt
import random
import secrets
from typing import Any

from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from quizzes.accounts.selectors import profile_for
from quizzes.content.models import Question, QuestionVersion
from quizzes.content.selectors import live_options
from quizzes.content.versions import versions_current
from quizzes.core.errors import DomainError, ErrorCode
from quizzes.packs import selectors
from quizzes.packs.items import PACKED_KINDS, variant_digest
from quizzes.packs.models import PackedVariant, PackItem, ReviewPack
from quizzes.packs.pruning import shared_versions_lock
from quizzes.packs.rules import DEFAULT_DAYS, MAX_DAYS, MAX_ITEMS, PACK_LIFETIME
from quizzes.practice.selectors import seen_variant_seeds
from quizzes.practice.services.attempts import choose_option_order, variant_seed_for
from quizzes.reviews.selectors.days import end_of_today

MAX_DEVICE_CHARS = 100


def _item(
    *,
    pack: ReviewPack,
    position: int,
    card_due: dt.datetime,
    question: Question,
    packed: QuestionVersion,
    used: set[int],
    rng: random.Random,
    variants: dict[str, tuple[PackedVariant, dict[str, Any]]],
) -> PackItem:
    item = PackItem(pack=pack, question=question, position=position, due=card_due, packed=packed)
    if question.kind == Question.Kind.CHOICE:
        item.option_order = choose_option_order(options=live_options(question=question), rng=rng)
    elif question.kind == Question.Kind.NUMERIC:
        seed = variant_seed_for(question=question, used=used, rng=rng)
        item.variant_seed = seed
        item.template_version = question.template_version  # the question's own version, never "the newest"
        digest = variant_digest(
            template=question.template, version=question.template_version, seed=seed, params=question.params
        )
        if digest not in variants:
            assert question.template_version is not None  # a numeric question's is set when it is saved
            variant = PackedVariant(
                digest=digest, template=question.template, template_version=question.template_version, seed=seed
            )
            variants[digest] = (variant, question.params or {})
        item.packed_variant = variants[digest][0]
    # pack, question, packed and packed_variant excluded: all are stored or about to be (a query per item)
    item.full_clean(
        exclude=["pack", "question", "packed", "packed_variant"], validate_unique=False, validate_constraints=False
    )
    return item


def _store_variants(variants: dict[str, tuple[PackedVariant, dict[str, Any]]]) -> None:
    """Give each variant its stored id; only those no pack has carried yet are generated and inserted.

    A variant is a pure function of template, version, seed and params (the engine's contract) and its digest is
    that of those inputs, so a stored one is found without generating it (the Monte Carlo templates cost
    ≈ 16 ms each). Race-safe, as question versions: a variant two packs insert at once is stored once.
    """
    if not variants:
        return
    known = selectors.packed_variant_ids(digests=list(variants))
    missing = [(variant, params) for digest, (variant, params) in variants.items() if digest not in known]
    if missing:
        for variant, params in missing:
            variant.variant = _generated(variant.template, variant.template_version, variant.seed, params)
        PackedVariant.objects.bulk_create([variant for variant, _params in missing], ignore_conflicts=True)
        known = selectors.packed_variant_ids(digests=list(variants))
    for digest, (variant, _params) in variants.items():
        variant.pk = known[digest]


def _generated(template: str, version: int, seed: int, params: dict[str, Any]) -> dict[str, Any]:
    """A numeric variant as stored (``Variant.to_dict()``)."""
    from attention_engine import generators

    return generators.generate(template, seed, version=version, **params).to_dict()


def pack_issue(
    *,
    user: User,
    device: str = "",
    days: int = DEFAULT_DAYS,
    max_items: int = MAX_ITEMS,
    now: dt.datetime | None = None,
) -> ReviewPack:
    """Issue a pack of the learner's items due before the end of their study day ``days`` days from now.

    A pack may be empty (nothing due). ``days`` is 0 (today only) to MAX_DAYS, ``max_items`` 1 to MAX_ITEMS.
    """
    now = now or timezone.now()
    if not isinstance(days, int) or isinstance(days, bool) or not 0 <= days <= MAX_DAYS:
        raise DomainError(
            ErrorCode.PACK_SIZE, _("days must be a whole number from 0 to %(max)d.") % {"max": MAX_DAYS}, field="days"
        )
    if not isinstance(max_items, int) or isinstance(max_items, bool) or not 1 <= max_items <= MAX_ITEMS:
        raise DomainError(
            ErrorCode.PACK_SIZE,
            _("max_items must be a whole number from 1 to %(max)d.") % {"max": MAX_ITEMS},
            field="max_items",
        )
    profile = profile_for(user=user)
    until = end_of_today(profile=profile, now=now) + dt.timedelta(days=days)
    cards = selectors.cards_to_pack(user=user, until=until, kinds=PACKED_KINDS, limit=max_items)
    seed = secrets.randbits(62)
    rng = random.Random(seed)
    seen = seen_variant_seeds(user=user, questions=[card.question for card in cards])
    with transaction.atomic():
        pack = ReviewPack(
            user=user,
            device=(device or "")[:MAX_DEVICE_CHARS],
            horizon_days=days,
            seed=seed,
            issued_at=now,
            expires_at=now + PACK_LIFETIME,
        )
        pack.full_clean(exclude=["user"], validate_constraints=False)
        pack.save()
        shared_versions_lock(exclusive=False)  # no shared variant is pruned while this pack uses it
        packed = versions_current(questions=[card.question for card in cards])  # each question's newest version
        variants: dict[str, tuple[PackedVariant, dict[str, Any]]] = {}
        items = [
            _item(
                pack=pack,
                position=position,
                card_due=card.due,
                question=card.question,
                packed=packed[card.question_id],
                used=seen[card.question_id],
                rng=rng,
                variants=variants,
            )
            for position, card in enumerate(cards)
        ]
        _store_variants(variants)  # bulk_create takes each item's packed_variant_id from its (now stored) variant
        PackItem.objects.bulk_create(items)
    return pack


def pack_revoke(*, user: User, pack: ReviewPack, now: dt.datetime | None = None) -> ReviewPack:
    """Revoke a pack (idempotent: the first revocation time stays). Answers reviewed from then on are rejected."""
    if pack.user_id != user.pk:
        raise PermissionDenied(_("This pack belongs to another learner."))
    now = now or timezone.now()
    with transaction.atomic():
        ReviewPack.objects.filter(pk=pack.pk, revoked_at__isnull=True).update(revoked_at=now)
        pack.refresh_from_db(fields=["revoked_at"])
    return pack
