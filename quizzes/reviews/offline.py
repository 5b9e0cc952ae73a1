"""Merging reviews recorded offline (mobile clients) into the learner's schedule.

The merge is idempotent and order-independent: the final cards and logs are always what replaying
each card's *whole* log list through FSRS in reviewed-at order gives (``card_replay``). So a batch
uploaded twice, split in two, or with its entries shuffled or duplicated ends in the same cards and
logs. It costs O(new entries), not O(history): entries that come after a card's stored logs (the
normal case: a phone uploads what happened since its last sync) advance the stored state one FSRS
step each (``card_advance``, exact because the replay is that same stepping from the empty state);
only a card with an entry older than one of its stored logs is replayed whole. A batch's reads and
writes are batched (one query for the cards, one for stored UUIDs, one insert for the logs).
A client UUID already stored for this learner is skipped (the database's unique
(user, client_uuid) constraint settles concurrent uploads).

Judge, then write: the context is read once (``offline_context``), every entry is judged as a pure step
(``offline_judge``: plain ``Verdict``s; the rules are quizzes.reviews.rules, shared with ``card_rate``), and only
the accepted entries are written, in one transaction (``offline_write``). A bad entry is rejected with a reason
(an ErrorCode) and the rest are applied:

* ``unknown_question`` — no published question with that id/key;
* ``wrong_outcome`` — a quiz question needs ``correct`` (true/false), a prompt/recall card ``rating`` 1–4;
* ``naive_time`` — a review time without a time zone;
* ``in_future`` — reviewed more than ``MAX_CLOCK_SKEW`` after the server's now;
* ``before_card_existed`` — reviewed before the question existed or before the learner signed up;
* ``not_studied`` — a quiz entry sent as ``correct`` (the client's grade) for a question the learner has no
  card for: it may update a card, never create one (``client_grade_refusal``; judged under the card locks).

A quiz entry sent as ``correct`` is the client's own grade (deprecated): its log is marked
``client_graded``, and a card whose logs are all client-graded is not packed with its key
(quizzes.packs.selectors). An offline review pack's answers are graded by the server before they get here
(quizzes.packs.upload) and arrive with their question resolved and ``server_graded`` set.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import uuid
from collections import defaultdict
from collections.abc import Set
from enum import StrEnum
from typing import Any

from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from quizzes.accounts.models import LearnerProfile
from quizzes.accounts.selectors import profile_for
from quizzes.content.models import Question
from quizzes.core.errors import ErrorCode
from quizzes.reviews import scheduling
from quizzes.reviews.models import ReviewCard, ReviewLog
from quizzes.reviews.reminder_clock import reminder_clock_card_due
from quizzes.reviews.rules import Refusal, client_grade_refusal, review_time_refusal, stored_client_uuids
from quizzes.reviews.services import ADVANCED_FIELDS, card_advance, card_replay
from quizzes.reviews.signals import learner_rows_written


@dataclasses.dataclass(frozen=True)
class OfflineEntry:
    """One review as the client recorded it. Exactly one of ``correct`` (quiz kinds) and ``rating`` applies."""

    client_uuid: uuid.UUID
    reviewed_at: dt.datetime
    question_id: int | None = None
    question_key: str | None = None
    correct: bool | None = None
    rating: int | None = None
    duration_ms: int | None = None
    # --- an entry the caller already resolved and graded (an offline review pack's answer, quizzes.packs):
    # its question whether published or not (the pack's copy was graded), and ``correct`` is the server's grade.
    question: Question | None = None
    server_graded: bool = False
    suggested_rating: int | None = None  # a server-graded code answer: the checker's rating, as online


class EntryStatus(StrEnum):
    APPLIED = "applied"
    ALREADY_STORED = "already_stored"  # uploaded before (this or an earlier batch): skipped
    DUPLICATE = "duplicate"  # the same UUID earlier in this batch: skipped
    REJECTED = "rejected"


def repeat_status(client_uuid: uuid.UUID, *, seen: set[uuid.UUID], stored: Set[uuid.UUID]) -> EntryStatus | None:
    """THE rule for a client UUID sent before (offline reviews and pack answers alike): DUPLICATE when this batch
    already had it, else ALREADY_STORED when a stored rating has it (``stored_client_uuids``), else None — a new
    entry. Either way the UUID is now in ``seen``; a repeated one is skipped, nothing judged or stored again."""
    if client_uuid in seen:
        return EntryStatus.DUPLICATE
    seen.add(client_uuid)
    return EntryStatus.ALREADY_STORED if client_uuid in stored else None


@dataclasses.dataclass
class EntryOutcome:
    client_uuid: uuid.UUID
    status: EntryStatus
    reason: ErrorCode | None = None
    message: str = ""
    question_id: int | None = None
    card_id: int | None = None


@dataclasses.dataclass
class OfflineMergeResult:
    entries: list[EntryOutcome]
    cards: list[ReviewCard]
    profile: LearnerProfile | None = None  # the learner's, as the merge read it (None: nothing to apply, not read)


#: An entry that passed the checks: the entry, the rating to log, and its outcome (updated as it is stored).
Accepted = tuple[OfflineEntry, int, EntryOutcome]


def _resolve_questions(entries: list[OfflineEntry]) -> tuple[dict[int, Question], dict[str, Question]]:
    ids = {e.question_id for e in entries if e.question is None and e.question_id is not None}
    keys = {e.question_key for e in entries if e.question is None and e.question_id is None and e.question_key}
    found = Question.objects.published()
    by_id = {q.pk: q for q in found.filter(pk__in=ids)} if ids else {}
    by_key = {q.key: q for q in found.filter(key__in=keys)} if keys else {}
    return by_id, by_key


def _rating(entry: OfflineEntry, question: Question) -> int | None:
    if question.kind in Question.QUIZ_KINDS:
        if entry.correct is None or entry.rating is not None:
            return None
        suggested = entry.suggested_rating if entry.server_graded else None
        return int(scheduling.rating_for_result(entry.correct, suggested=suggested))
    if entry.rating is None or entry.correct is not None or entry.rating not in ReviewLog.Rating.values:
        return None
    return entry.rating


def _judge(entry: OfflineEntry, question: Question | None, *, user: User, now: dt.datetime) -> Refusal | int:
    """The rating to log, or the Refusal when the entry is rejected."""
    if question is None:
        return Refusal(ErrorCode.UNKNOWN_QUESTION, _("There is no published question with that id or key."))
    rating = _rating(entry, question)
    if rating is None:
        if question.kind in Question.QUIZ_KINDS:
            return Refusal(
                ErrorCode.WRONG_OUTCOME, _("A quiz question is recorded as correct: true or false (no rating).")
            )
        return Refusal(
            ErrorCode.WRONG_OUTCOME, _("A prompt or recall card is recorded as a rating from 1 to 4 (no correct).")
        )
    refused = review_time_refusal(reviewed_at=entry.reviewed_at, now=now, question=question, user=user)
    return refused if refused is not None else rating


@dataclasses.dataclass(frozen=True)
class OfflineContext:
    """What judging a batch reads, fetched once: the published questions its entries name, the UUIDs stored."""

    by_id: dict[int, Question]
    by_key: dict[str, Question]
    stored: frozenset[uuid.UUID]

    def question(self, entry: OfflineEntry) -> Question | None:
        if entry.question is not None:  # resolved by the caller (a pack answer)
            return entry.question
        if entry.question_id is not None:
            return self.by_id.get(entry.question_id)
        return self.by_key.get(entry.question_key or "")


@dataclasses.dataclass(frozen=True)
class Verdict:
    """What judging decided for one entry, as plain data: APPLIED (to be written, with the rating to log) or why
    not. The write may still find an accepted entry stored meanwhile (ALREADY_STORED) or, for the client's own
    grade, no card under the lock (``not_studied``): the two facts only the locks can settle."""

    status: EntryStatus
    question_id: int | None = None
    rating: int | None = None
    reason: ErrorCode | None = None
    message: str = ""

    @classmethod
    def refused(cls, refusal: Refusal, *, question_id: int | None = None) -> Verdict:
        return cls(EntryStatus.REJECTED, question_id=question_id, reason=refusal.code, message=refusal.message)


def offline_context(*, user: User, entries: list[OfflineEntry]) -> OfflineContext:
    """Read what judging ``entries`` needs: two queries at most (none for the questions of resolved entries)."""
    by_id, by_key = _resolve_questions(entries)
    stored = stored_client_uuids(user=user, uuids=[e.client_uuid for e in entries]) if entries else set()
    return OfflineContext(by_id=by_id, by_key=by_key, stored=frozenset(stored))


def entry_verdict(
    entry: OfflineEntry, *, repeated: EntryStatus | None, context: OfflineContext, user: User, now: dt.datetime
) -> Verdict:
    """One entry judged (pure: no query, nothing written). ``repeated``: its ``repeat_status`` in the batch."""
    question = context.question(entry)
    question_id = question.pk if question is not None else None
    if repeated is not None:
        return Verdict(repeated, question_id=question_id)
    judged = _judge(entry, question, user=user, now=now)
    if isinstance(judged, Refusal):
        return Verdict.refused(judged, question_id=question_id)
    return Verdict(EntryStatus.APPLIED, question_id=question_id, rating=judged)


def offline_judge(
    *, user: User, entries: list[OfflineEntry], context: OfflineContext, now: dt.datetime
) -> list[Verdict]:
    """Every entry judged in batch order (pure): inputs in, verdicts out."""
    seen: set[uuid.UUID] = set()
    return [
        entry_verdict(
            e,
            repeated=repeat_status(e.client_uuid, seen=seen, stored=context.stored),
            context=context,
            user=user,
            now=now,
        )
        for e in entries
    ]


def offline_reviews_merge(
    *, user: User, entries: list[OfflineEntry], now: dt.datetime | None = None
) -> OfflineMergeResult:
    """Merge a batch of offline reviews: fetch the context, judge every entry, write the accepted ones."""
    now = now or timezone.now()
    context = offline_context(user=user, entries=entries)
    verdicts = offline_judge(user=user, entries=entries, context=context, now=now)
    return offline_write(user=user, judged=list(zip(entries, verdicts, strict=True)))


def offline_write(*, user: User, judged: list[tuple[OfflineEntry, Verdict]]) -> OfflineMergeResult:
    """Write the accepted entries of a judged batch in one transaction; the outcomes in batch order, the cards."""
    outcomes: list[EntryOutcome] = []
    to_apply: dict[int, list[Accepted]] = defaultdict(list)
    for entry, verdict in judged:
        outcome = EntryOutcome(
            client_uuid=entry.client_uuid,
            status=verdict.status,
            reason=verdict.reason,
            message=verdict.message,
            question_id=verdict.question_id,
        )
        outcomes.append(outcome)
        if verdict.status == EntryStatus.APPLIED:
            assert verdict.question_id is not None and verdict.rating is not None
            to_apply[verdict.question_id].append((entry, verdict.rating, outcome))

    profile = profile_for(user=user) if to_apply else None
    if profile is not None:
        _apply(user=user, to_apply=to_apply, profile=profile)

    touched = {o.question_id for o in outcomes if o.status != EntryStatus.REJECTED and o.question_id is not None}
    cards = list(
        ReviewCard.objects.filter(user=user, question_id__in=touched)
        .select_related("question", "question__lesson")
        .defer("question__lesson__teaching")  # the lesson's whole teaching text, unread here
        .order_by("question_id")
    )
    card_ids = {card.question_id: card.pk for card in cards}
    for outcome in outcomes:
        if outcome.status != EntryStatus.REJECTED and outcome.question_id in card_ids:
            outcome.card_id = card_ids[outcome.question_id]
    return OfflineMergeResult(entries=outcomes, cards=cards, profile=profile)


def _apply(*, user: User, to_apply: dict[int, list[Accepted]], profile: LearnerProfile) -> None:
    """Store the accepted entries and reschedule their cards, under the cards' row locks.

    A fixed number of queries for the batch: create the missing cards, lock them all, re-check the
    UUIDs and read each card's newest log time, insert the logs, update the advanced cards. A card whose
    new entries all come after its stored logs is advanced one FSRS step per entry (``card_advance``);
    one with an entry before a stored log (out of order) is replayed whole (``card_replay``).
    """
    question_ids = sorted(to_apply)  # one order for inserting and locking: concurrent uploads cannot deadlock
    with transaction.atomic():
        ReviewCard.objects.bulk_create(
            [
                ReviewCard(user=user, question_id=qid, due=min(e.reviewed_at for e, _r, _o in to_apply[qid]))
                for qid in question_ids
            ],
            ignore_conflicts=True,
        )
        cards = list(ReviewCard.objects.select_for_update().filter(user=user, question_id__in=question_ids))
        # Read under the locks: a concurrent upload of the same entries may have committed meanwhile.
        stored = stored_client_uuids(user=user, uuids=[e.client_uuid for g in to_apply.values() for e, _r, _o in g])
        last_log_at = ReviewLog.objects.newest_per_card(cards=cards)

        new_logs: list[tuple[ReviewLog, EntryOutcome]] = []
        advanced: list[ReviewCard] = []
        to_replay: list[ReviewCard] = []
        empty: list[ReviewCard] = []
        for card in cards:
            found = _card_logs(user=user, card=card, group=to_apply[card.question_id], stored=stored, known=last_log_at)
            new_logs += found
            logs = [log for log, _outcome in found]
            if not logs:
                if card.pk not in last_log_at:  # created above for entries stored meanwhile: new again
                    empty.append(card)
            elif card_advance(card=card, profile=profile, logs=logs, last_log_at=last_log_at.get(card.pk)):
                advanced.append(card)
            else:
                to_replay.append(card)

        lost = _insert(new_logs)
        if lost:  # an advanced card's state counted a log that is not stored: replay it from what is
            to_replay += [card for card in advanced if card.pk in lost]
            advanced = [card for card in advanced if card.pk not in lost]
        _save_advanced(advanced)
        replayed = [card for card in to_replay if card_replay(card=card, profile=profile) is not None]
        if empty:
            ReviewCard.objects.filter(pk__in=[card.pk for card in empty]).delete()
        if advanced or replayed:
            reminder_clock_card_due(profile=profile, due=min(card.due for card in [*advanced, *replayed]))
        learner_rows_written.send(sender=ReviewCard, user_id=user.pk)  # bulk writes send no model signals


def _card_logs(
    *,
    user: User,
    card: ReviewCard,
    group: list[Accepted],
    stored: set[uuid.UUID],
    known: dict[int, dt.datetime],
) -> list[tuple[ReviewLog, EntryOutcome]]:
    """One locked card's new logs, in replay order; an entry stored meanwhile is marked so, and a client-graded
    one for a card that had no log before this batch (``known``: the stored cards' newest log) is rejected."""
    logs = []
    # Replay order is (reviewed_at, id): insert in time order, ties in batch order (a stable sort).
    for entry, rating, outcome in sorted(group, key=lambda a: a[0].reviewed_at):
        if entry.client_uuid in stored:
            outcome.status = EntryStatus.ALREADY_STORED
            continue
        # the deprecated `correct` form: the client's word, which the server could not check
        client_graded = entry.correct is not None and not entry.server_graded
        # under the lock: a card has logs (or it is deleted), so "no stored log" is "created by this batch"
        refused = client_grade_refusal(card_exists=card.pk in known) if client_graded else None
        if refused is not None:
            outcome.status, outcome.reason, outcome.message = EntryStatus.REJECTED, refused.code, refused.message
            continue
        log = ReviewLog(
            user=user,
            card=card,
            rating=rating,
            reviewed_at=entry.reviewed_at,
            duration_ms=entry.duration_ms,
            source=ReviewLog.Source.OFFLINE,
            client_uuid=entry.client_uuid,
            client_graded=client_graded,
        )
        log.full_clean(exclude=["user", "card"], validate_constraints=False)  # FKs: the database checks them
        logs.append((log, outcome))
    return logs


def _save_advanced(cards: list[ReviewCard]) -> None:
    """Write the advanced cards' schedules in one statement, as an upsert on the primary key of rows that exist
    (and are locked by us): ``bulk_update`` builds a CASE per field per card, ≈ 25 ms of CPU for 20 cards on
    PostgreSQL against ≈ 2 ms for this (bench/README.md, issue 16)."""
    if cards:
        ReviewCard.objects.bulk_create(
            cards, update_conflicts=True, unique_fields=["id"], update_fields=ADVANCED_FIELDS
        )


def _insert(new_logs: list[tuple[ReviewLog, EntryOutcome]]) -> set[int]:
    """Insert the logs in one statement; the ids of cards that lost a log to a concurrent upload.

    Should another upload have stored one of these UUIDs for another card meanwhile (the unique
    (user, client_uuid) constraint), the logs go in one by one and that entry is already stored.
    """
    try:
        with transaction.atomic():
            ReviewLog.objects.bulk_create([log for log, _outcome in new_logs])
        return set()
    except IntegrityError:
        pass
    lost: set[int] = set()
    for log, outcome in new_logs:
        log.pk = None
        try:
            with transaction.atomic():
                log.save()
        except IntegrityError:
            outcome.status = EntryStatus.ALREADY_STORED
            lost.add(log.card_id)
    return lost


def offline_entry_from_dict(*, data: dict[str, Any]) -> OfflineEntry:
    """An entry from the API's validated data (the fields it does not give are None)."""
    return OfflineEntry(
        client_uuid=data["client_uuid"],
        reviewed_at=data["reviewed_at"],
        question_id=data.get("question_id"),
        question_key=data.get("question_key"),
        correct=data.get("correct"),
        rating=data.get("rating"),
        duration_ms=data.get("duration_ms"),
    )
