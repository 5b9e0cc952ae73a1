"""The offline upload with review packs: the server grades pack answers, then the one merge applies them.

An entry that names a pack item carries what the learner did (``option_id``, ``choice_index``, ``value``, ``code``;
``rating`` for a prompt or recall card), never ``correct``. Before the merge each such entry is
judged and turned into an ordinary offline entry (:func:`_pack_entry`):

1. the pack item must be one of this learner's (another learner's is simply unknown);
2. its review time must fall in the pack's life (quizzes.packs.rules: not before the issue, not at or
   after a revocation, not later than the grace after the expiry) and pass every rating's time checks;
3. a quiz item is graded against the pack's own copy by the online grader (quizzes.packs.items), whatever
   the question looks like now (edited or unpublished: the pack's version counts); code is graded within
   the upload's grading budget (quizzes.practice.grading_budget: 2 s of sandbox time per request, and the
   learner's per minute), past which its entries are rejected ``grading_budget_exceeded`` (nothing locked:
   send them again later);
4. the first answer locks the pack item, as the first click locks an attempt item: the same conditional
   ``UPDATE … WHERE answered_at IS NULL``. A second, different answer is rejected ``answered_twice``;
   the same entry again (its client UUID) is ``already_stored``.

Then ``offline_reviews_merge`` (quizzes.reviews.offline) appends and replays exactly as for any offline
entry, so duplicates, reordering and split uploads give the same cards. Where the phone showed another
grade than the server's (``shown_correct``), the server's stands and the outcome says so.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import uuid
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from quizzes.accounts.models import LearnerProfile
from quizzes.content.models import Question
from quizzes.core.errors import DomainError, ErrorCode
from quizzes.packs.items import answered_view, grade_pack_answer
from quizzes.packs.models import PackItem
from quizzes.packs.rules import pack_answer_refusal
from quizzes.packs.selectors import pack_items_by_id
from quizzes.practice.grading_budget import GradingBudget
from quizzes.practice.services.locking import first_answer_lock
from quizzes.reviews.models import ReviewCard, ReviewLog
from quizzes.reviews.offline import EntryOutcome, EntryStatus, OfflineEntry, offline_reviews_merge, repeat_status
from quizzes.reviews.rules import Refusal, stored_client_uuids
from quizzes.reviews.scheduling import rating_for_result


@dataclasses.dataclass(frozen=True)
class PackAnswer:
    """What the learner did with a pack item offline; never whether it was right."""

    pack_item_id: int
    option_id: str | None = None
    choice_index: Any = None
    value: Any = None
    code: str | None = None
    shown_correct: bool | None = None  # what the phone showed (only to report a disagreement)


@dataclasses.dataclass(frozen=True)
class UploadEntry:
    entry: OfflineEntry
    answer: PackAnswer | None = None


@dataclasses.dataclass
class UploadOutcome:
    outcome: EntryOutcome
    pack_item_id: int | None = None
    graded: dict[str, Any] | None = None  # the server's grade of a quiz pack answer, as a locked item shows it
    overrides_client: bool | None = None  # the server's grade differs from ``shown_correct``


@dataclasses.dataclass
class UploadResult:
    entries: list[UploadOutcome]
    cards: list[ReviewCard]
    profile: LearnerProfile | None = None  # as the merge read it, for the response's card forms (None: not read)


def _rejected(upload: UploadEntry, refusal: Refusal) -> UploadOutcome:
    outcome = EntryOutcome(
        client_uuid=upload.entry.client_uuid,
        status=EntryStatus.REJECTED,
        reason=refusal.code,
        message=refusal.message,
    )
    return UploadOutcome(outcome=outcome, pack_item_id=upload.answer.pack_item_id if upload.answer else None)


def _grade(
    item: PackItem, upload: UploadEntry, budget: GradingBudget
) -> Refusal | tuple[dict[str, Any] | None, Any, int]:
    """(the server's reveal or None, the response to store, the rating) or why the answer cannot be graded
    (code past the upload's grading budget: ``grading_budget_exceeded``, nothing locked, send it again)."""
    answer, entry = upload.answer, upload.entry
    assert answer is not None
    if entry.correct is not None:
        return Refusal(ErrorCode.WRONG_OUTCOME, _("A pack answer says what you did, never whether it was correct."))
    kind = item.snapshot["question"]["kind"]
    if kind not in Question.QUIZ_KINDS:
        if entry.rating is None or entry.rating not in ReviewLog.Rating.values:
            return Refusal(ErrorCode.WRONG_OUTCOME, _("A prompt or recall card is recorded as a rating from 1 to 4."))
        return None, {"rating": entry.rating}, entry.rating
    if entry.rating is not None:
        return Refusal(ErrorCode.WRONG_OUTCOME, _("A quiz item is graded by the server: send your answer, no rating."))
    try:
        result, response = grade_pack_answer(
            item=item,
            option_id=answer.option_id,
            choice_index=answer.choice_index,
            value=answer.value,
            code=answer.code,
            budget=budget,
        )
    except DomainError as exc:  # unreadable, a foreign option, code the checker refused (its message): nothing locks
        return Refusal(exc.error_code, str(exc.messages[0]))
    return result, response, int(rating_for_result(bool(result["correct"]), suggested=result.get("suggested_rating")))


def _lock(item: PackItem, upload: UploadEntry, result: dict[str, Any] | None, response: Any) -> EntryStatus | None:
    """Store the first answer on the pack item; None when this entry won, else what it is instead."""
    entry = upload.entry
    won = first_answer_lock(
        PackItem,
        pk=item.pk,
        values={
            "answered_at": entry.reviewed_at,
            "client_uuid": entry.client_uuid,
            "response": response,
            "is_correct": None if result is None else bool(result["correct"]),
            "result": result,
        },
    )
    item.refresh_from_db(fields=["answered_at", "client_uuid", "response", "is_correct", "result"])
    if won:
        return None
    return EntryStatus.ALREADY_STORED if item.client_uuid == entry.client_uuid else EntryStatus.REJECTED


def _instant(moment: dt.datetime) -> dt.datetime:
    """An order for review times in any zone (a naive one, rejected later, sorts as if it were UTC)."""
    return moment.replace(tzinfo=dt.UTC) if timezone.is_naive(moment) else moment


def offline_upload(*, user: User, entries: list[UploadEntry], now: dt.datetime | None = None) -> UploadResult:
    """Grade the pack answers of an offline batch, then merge the whole batch; see the module docstring."""
    now = now or timezone.now()
    budget = GradingBudget.for_request(user_id=user.pk)  # the judging's, whatever the writes do
    answers = [(u.entry, u.answer) for u in entries if u.answer is not None]  # none from old clients: no queries
    items = pack_items_by_id(user=user, ids=[answer.pack_item_id for _e, answer in answers]) if answers else {}
    stored = stored_client_uuids(user=user, uuids=[entry.client_uuid for entry, _a in answers]) if answers else set()
    results: list[UploadOutcome | None] = [None] * len(entries)
    merged: dict[int, OfflineEntry] = {}  # upload index → the entry the merge gets
    seen: set[uuid.UUID] = set()
    with transaction.atomic():
        # Pack answers in review-time order: within one batch, the earliest answer to an item is the first.
        pack_order = sorted(
            (i for i, u in enumerate(entries) if u.answer is not None),
            key=lambda i: (_instant(entries[i].entry.reviewed_at), str(entries[i].entry.client_uuid)),
        )
        for index in pack_order:
            results[index] = _pack_entry(
                entries[index], items, stored, seen, merged, index, user=user, now=now, budget=budget
            )
        for index, upload in enumerate(entries):
            if upload.answer is None:
                merged[index] = upload.entry
        order = sorted(merged)
        merge = offline_reviews_merge(user=user, entries=[merged[i] for i in order], now=now)
        for index, outcome in zip(order, merge.entries, strict=True):
            upload = entries[index]
            if upload.answer is None:
                results[index] = UploadOutcome(outcome=outcome)
                continue
            done = results[index]
            assert done is not None
            done.outcome = outcome
            if outcome.status in (EntryStatus.REJECTED, EntryStatus.DUPLICATE):  # not stored: the lock must not stand
                PackItem.objects.filter(pk=upload.answer.pack_item_id, client_uuid=upload.entry.client_uuid).update(
                    answered_at=None, client_uuid=None, response=None, is_correct=None, result=None
                )
                done.graded = done.overrides_client = None
    final = [r for r in results if r is not None]
    assert len(final) == len(entries)
    return UploadResult(entries=final, cards=merge.cards, profile=merge.profile)


def _judge(
    item: PackItem | None, upload: UploadEntry, *, user: User, now: dt.datetime, budget: GradingBudget
) -> Refusal | tuple[dict[str, Any] | None, Any, int]:
    """Whose item, when reviewed, then the server's grade: (reveal or None, response, rating) or the refusal.
    Code grading is charged to ``budget``, which belongs to this judging step (quizzes.practice.grading_budget)."""
    if item is None:
        return Refusal(ErrorCode.UNKNOWN_PACK_ITEM, _("None of your packs has that item."))
    refused = pack_answer_refusal(item=item, reviewed_at=upload.entry.reviewed_at, now=now, user=user)
    return refused if refused is not None else _grade(item, upload, budget)


def _pack_entry(
    upload: UploadEntry,
    items: dict[int, PackItem],
    stored: set[uuid.UUID],
    seen: set[uuid.UUID],
    merged: dict[int, OfflineEntry],
    index: int,
    *,
    user: User,
    now: dt.datetime,
    budget: GradingBudget,
) -> UploadOutcome:
    """Judge, grade and lock one pack answer; queue it for the merge when it counts."""
    entry, answer = upload.entry, upload.answer
    assert answer is not None
    item = items.get(answer.pack_item_id)
    done = UploadOutcome(
        outcome=EntryOutcome(client_uuid=entry.client_uuid, status=EntryStatus.APPLIED),
        pack_item_id=answer.pack_item_id,
    )
    done.outcome.question_id = item.question_id if item is not None else None
    repeated = repeat_status(entry.client_uuid, seen=seen, stored=stored)
    if repeated is not None:  # sent before: nothing is graded or stored again
        done.outcome.status = repeated
        if item is not None and repeated == EntryStatus.ALREADY_STORED:
            done.graded = answered_view(item) if item.client_uuid == entry.client_uuid else None
        return done
    judged = _judge(item, upload, user=user, now=now, budget=budget)
    if isinstance(judged, Refusal):
        return _rejected(upload, judged)
    assert item is not None
    result, response, rating = judged
    lost = _lock(item, upload, result, response)
    if lost == EntryStatus.REJECTED:
        twice = _("This pack item was already answered: the first answer counts.")
        return _rejected(upload, Refusal(ErrorCode.ANSWERED_TWICE, twice))
    done.graded = answered_view(item)
    if lost == EntryStatus.ALREADY_STORED:
        done.outcome.status = EntryStatus.ALREADY_STORED
        return done
    if result is not None and answer.shown_correct is not None:
        done.overrides_client = bool(result["correct"]) != answer.shown_correct
    merged[index] = dataclasses.replace(
        entry,
        question=item.question,
        question_id=item.question_id,
        question_key=None,
        correct=None if result is None else bool(result["correct"]),
        rating=rating if result is None else None,
        suggested_rating=None if result is None else result.get("suggested_rating"),  # a code check's, as online
        server_graded=True,
    )
    return done
