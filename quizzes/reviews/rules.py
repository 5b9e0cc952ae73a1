"""The rules a rating must pass, written once for every way a rating arrives.

A self-rating through the pages or the API (``card_rate``) and an entry of an offline upload
(``offline_reviews_merge``) are checked by the same functions, so they can never disagree again:

* the rating is 1 (Again), 2 (Hard), 3 (Good) or 4 (Easy);
* a review time carries a time zone and is not in the future beyond ``MAX_CLOCK_SKEW`` (the refusal says how
  fast the client's clock seems to be; a pack answer gets the same tolerance the other way, quizzes.packs.rules);
* a time a *client's* clock reported (an API rating with ``reviewed_at``, an offline entry) is not
  before the question existed or before the learner's account did;
* a client UUID already stored for the learner names that stored rating: sending it again is a
  no-op, checked before anything else (``stored_client_uuids``), so a retry never fails;
* a quiz result the *client* graded (the deprecated offline ``correct`` form) may move a card that exists,
  never create one (``client_grade_refusal``): a quiz question's first answer is graded on the server, and a
  card is what a review pack carries the key of.

Each check returns a :class:`Refusal` (an ErrorCode and a message) or None; the service decides
whether that is an error (``card_rate``) or a rejected entry (the offline upload).
"""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import User
from django.utils import timezone
from django.utils.translation import gettext as _

from quizzes.content.models import Question
from quizzes.core.errors import ErrorCode
from quizzes.reviews.models import ReviewLog

#: How far a client's clock may be off, either way: a rating stamped further in the future than this is refused,
#: and an offline pack answer may be stamped up to this long before the pack was issued (quizzes.packs.rules).
MAX_CLOCK_SKEW = dt.timedelta(minutes=5)


@dataclass(frozen=True)
class Refusal:
    code: ErrorCode
    message: str


def clock_offset_text(offset: dt.timedelta) -> str:
    """How far off a clock is, in the request's language: "7 min 12 s", "45 s", "2 h 5 min", "3 d 4 h"."""
    seconds = max(1, round(abs(offset.total_seconds())))
    days, rest = divmod(seconds, 86400)
    hours, rest = divmod(rest, 3600)
    minutes, seconds = divmod(rest, 60)
    parts = [
        (days, _("%(n)d d")),
        (hours, _("%(n)d h")),
        (minutes, _("%(n)d min")),
        (seconds, _("%(n)d s")),
    ]
    shown = [text % {"n": n} for n, text in parts if n][:2]  # the two largest units are enough for a clock
    return " ".join(shown)


def clock_fast_refusal(*, ahead: dt.timedelta) -> Refusal:
    """A review time ``ahead`` after the server's now: the client's clock seems at least that fast."""
    offset = clock_offset_text(ahead)
    return Refusal(
        ErrorCode.IN_FUTURE,
        _(
            "The review time is %(offset)s ahead of the server's clock (more than the %(skew)s allowed): your "
            "device's clock seems to be at least %(offset)s fast."
        )
        % {"offset": offset, "skew": clock_offset_text(MAX_CLOCK_SKEW)},
    )


def rating_refusal(*, rating: Any) -> Refusal | None:
    if not isinstance(rating, int) or isinstance(rating, bool) or rating not in ReviewLog.Rating.values:
        return Refusal(ErrorCode.BAD_RATING, _("Rating must be 1 (Again), 2 (Hard), 3 (Good) or 4 (Easy)."))
    return None


def review_time_refusal(
    *,
    reviewed_at: dt.datetime,
    now: dt.datetime,
    question: Question | None = None,
    user: User | None = None,
) -> Refusal | None:
    """Why ``reviewed_at`` cannot be a review time, or None.

    Pass ``question`` and ``user`` for a time a client's clock reported: it may not precede them.
    """
    if timezone.is_naive(reviewed_at):
        return Refusal(ErrorCode.NAIVE_TIME, _("The review time needs a time zone."))
    if reviewed_at > now + MAX_CLOCK_SKEW:
        return clock_fast_refusal(ahead=reviewed_at - now)
    if question is not None and reviewed_at < question.created_at:
        return Refusal(ErrorCode.BEFORE_CARD_EXISTED, _("The review time is before this question existed."))
    joined = getattr(user, "date_joined", None)
    if joined is not None and reviewed_at < joined:
        return Refusal(ErrorCode.BEFORE_CARD_EXISTED, _("The review time is before your account existed."))
    return None


def client_grade_refusal(*, card_exists: bool) -> Refusal | None:
    """Why a client-graded quiz result cannot be stored, or None: it may update the learner's card for the
    question, not create it. Otherwise "correct: false" for a question never answered would make a card, the
    next review pack would carry its key, and the first answer graded on the server would follow the key."""
    if card_exists:
        return None
    return Refusal(
        ErrorCode.NOT_STUDIED,
        _(
            "You have not studied this quiz question yet: its first answer is graded by the server. Answer it "
            "online (or from a review pack) first; correct: true/false can only update a card you already have."
        ),
    )


def stored_client_uuids(*, user: User, uuids: Iterable[uuid.UUID]) -> set[uuid.UUID]:
    """The client UUIDs among ``uuids`` already stored for this learner (those ratings are not stored again)."""
    stored = ReviewLog.objects.with_client_uuids(user=user, uuids=uuids).values_list("client_uuid", flat=True)
    return {client_uuid for client_uuid in stored if client_uuid is not None}
