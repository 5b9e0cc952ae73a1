"""The reviews domain's hand-written SQL (issue 26, item 2), in one place: the answer's card lock.

Kept because bench/README.md ("SQL fast paths") measures what it saves on the answer POST and names that
measurement; the ORM query it replaces stands beside it (``SQL_FAST_PATHS=false`` runs that one), and
tests/quizzes/core/test_fast_paths.py holds the two to the same rows. The statement is built from the models' own
columns through quizzes.core.rows, so a model change or a Django upgrade that moves them fails those tests.
The card and log writes use quizzes.core.rows' statements directly (measured there).
"""

from __future__ import annotations

import datetime as dt
import functools
from dataclasses import dataclass

from django.conf import settings
from django.db import connection

from quizzes.accounts.models import LearnerProfile
from quizzes.core import rows
from quizzes.reviews.models import ReviewCard, ReviewLog


@dataclass(frozen=True)
class CardRow:
    card: ReviewCard
    last_log_at: dt.datetime | None  # its newest log's time, as the statement's snapshot saw the logs
    fresh: bool  # the snapshot saw the locked version of the card (see card_locked)
    profile: LearnerProfile | None  # None: the learner never saved one


def card_locked(*, user_id: int, question_id: int) -> CardRow | None:
    """The learner's card for a question under its row lock, with its newest log time and the learner's
    profile; None when there is no card. One statement written once (quizzes.core.rows), kept for its measurement
    (issue 26; bench/README.md, "SQL fast paths", ``bench/sql_paths.py --only "card lock"``): 1.3 ms of CPU against
    5.9 ms for ``card_locked_orm``'s two queries; tests/quizzes/core/test_fast_paths.py compares the two.

    The newest log time is a subquery, read under the statement's snapshot. When the row lock had to wait for
    another transaction that changed the card (a rating of the same card committing meanwhile), PostgreSQL
    hands back the card's new version but the subquery still sees the old logs; ``fresh`` says whether the
    snapshot's ``updated_at`` is the locked row's (every write of a card's logs saves the card).
    """
    if not settings.SQL_FAST_PATHS:
        return card_locked_orm(user_id=user_id, question_id=question_id)
    with connection.cursor() as cursor:
        cursor.execute(_card_lock_sql(connection.vendor), [user_id, question_id])
        row = cursor.fetchone()
    if row is None:
        return None
    width = rows.width(ReviewCard)
    profile = row[width + 2 :]
    return CardRow(
        card=rows.instance_from_row(ReviewCard, row[:width]),
        last_log_at=rows.convert(ReviewLog, "reviewed_at", row[width]),
        fresh=bool(row[width + 1]),
        profile=rows.instance_from_row(LearnerProfile, profile) if profile[0] is not None else None,
    )


def card_locked_orm(*, user_id: int, question_id: int) -> CardRow | None:
    """``card_locked`` by the ORM: the card and the profile under ``select_for_update``, then the card's newest
    log time (tests/quizzes/core/test_fast_paths.py compares the two; ``SQL_FAST_PATHS=false`` runs this one).
    ``fresh`` is always true: the log time is read after the lock, by a statement that sees the locked card."""
    of = ("self",) if connection.features.has_select_for_update_of else ()
    card = (
        ReviewCard.objects.select_for_update(of=of)
        .select_related("user__learner_profile")
        .filter(user_id=user_id, question_id=question_id)
        .first()
    )
    if card is None:
        return None
    try:
        profile: LearnerProfile | None = card.user.learner_profile
    except LearnerProfile.DoesNotExist:
        profile = None
    return CardRow(
        card=card, last_log_at=ReviewLog.objects.newest_per_card(cards=[card]).get(card.pk), fresh=True, profile=profile
    )


@functools.cache
def _card_lock_sql(_vendor: str) -> str:  # the quoting and the lock clause are the backend's
    cards, logs, profiles = (rows.quote(m._meta.db_table) for m in (ReviewCard, ReviewLog, LearnerProfile))
    if connection.features.has_select_for_update_of:
        lock = " FOR UPDATE OF c"  # the card only: the profile is a plain read (and the nullable side)
    else:
        lock = " FOR UPDATE" if connection.features.has_select_for_update else ""
    return (
        f"SELECT {rows.select_list(ReviewCard, 'c')}, "
        f"(SELECT MAX(l.reviewed_at) FROM {logs} l WHERE l.card_id = c.id), "
        f"(SELECT s.updated_at FROM {cards} s WHERE s.id = c.id) = c.updated_at, "
        f"{rows.select_list(LearnerProfile, 'p')} "
        f"FROM {cards} c LEFT JOIN {profiles} p ON p.user_id = c.user_id "
        f"WHERE c.user_id = %s AND c.question_id = %s{lock}"
    )
