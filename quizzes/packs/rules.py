"""The rules of a pack's life and of an uploaded pack answer, written once.

A pack lives ``PACK_LIFETIME`` from its issue. An uploaded answer is judged by **when the review
happened** (its ``reviewed_at``), never by when it is uploaded: an answer reviewed more than
``MAX_CLOCK_SKEW`` before the pack was issued (a slow phone clock gets the tolerance a fast one gets), at
or after its revocation, or later than ``UPLOAD_GRACE`` after its expiry is refused, whenever it arrives.
The grace covers a session that began before the pack expired, and a phone clock a little off.
The general checks of a client's review time (time zone, not in the future, not before the account)
are quizzes.reviews.rules, as for every rating.
"""

from __future__ import annotations

import datetime as dt

from django.contrib.auth.models import User
from django.utils.translation import gettext as _

from quizzes.core.errors import ErrorCode
from quizzes.packs.models import PackItem, ReviewPack
from quizzes.reviews.rules import MAX_CLOCK_SKEW, Refusal, clock_offset_text, review_time_refusal

DEFAULT_DAYS = 3  # items due today and in the next 3 days
MAX_DAYS = 14
MAX_ITEMS = 200
PACK_LIFETIME = dt.timedelta(days=14)
UPLOAD_GRACE = dt.timedelta(days=1)


def pack_usable(*, pack: ReviewPack, now: dt.datetime) -> bool:
    """A pack may still be downloaded again (an Idempotency-Key replay, a re-sync): not revoked, not expired."""
    return pack.revoked_at is None and now < pack.expires_at


def pack_status(*, pack: ReviewPack, now: dt.datetime) -> str:
    """ "revoked", "active" or "expired": what the API's pack list and the admin say of a pack."""
    if pack.revoked_at is not None:
        return "revoked"
    return "active" if pack_usable(pack=pack, now=now) else "expired"


def pack_answer_refusal(*, item: PackItem, reviewed_at: dt.datetime, now: dt.datetime, user: User) -> Refusal | None:
    """Why an answer to ``item`` reviewed at ``reviewed_at`` cannot count, or None."""
    refused = review_time_refusal(reviewed_at=reviewed_at, now=now, user=user)
    if refused is not None:
        return refused
    pack = item.pack
    if reviewed_at < pack.issued_at - MAX_CLOCK_SKEW:  # a slow clock gets the tolerance a fast one gets
        offset = clock_offset_text(pack.issued_at - reviewed_at)
        return Refusal(
            ErrorCode.BEFORE_PACK_ISSUED,
            _(
                "The review time is %(offset)s before this pack was issued (more than the %(skew)s allowed): if "
                "you reviewed after downloading it, your device's clock seems to be at least %(offset)s slow."
            )
            % {"offset": offset, "skew": clock_offset_text(MAX_CLOCK_SKEW)},
        )
    if pack.revoked_at is not None and reviewed_at >= pack.revoked_at:
        return Refusal(ErrorCode.PACK_REVOKED, _("This pack was revoked before the review time."))
    if reviewed_at > pack.expires_at + UPLOAD_GRACE:
        return Refusal(ErrorCode.PACK_EXPIRED, _("This pack had expired at the review time."))
    return None
