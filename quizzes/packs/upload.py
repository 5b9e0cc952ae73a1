"""The offline upload with review packs, in three steps: fetch the context, judge every entry, write.

An entry that names a pack item carries what the learner did (``option_id``, ``choice_index``, ``value``, ``code``;
``rating`` for a prompt or recall card), never ``correct``.

1. **Fetch** (:func:`_context`): the learner's pack items named, the questions the other entries name, and the
   client UUIDs already stored — once, with selectors.
2. **Judge** (:func:`upload_judge`), a pure step: inputs in, verdicts out (plain data; nothing is read from the
   database, written or locked). Every UUID first (``repeat_status``: a repeat is skipped), then the pack answers
   in review-time order (within one batch the earliest answer to an item is the first): the item must be one of
   this learner's; its review time must fall in the pack's life (quizzes.packs.rules); an item answered before
   (stored, or by an earlier entry of the batch) is ``answered_twice``; a quiz item is graded against the pack's
   own copy by the online grader (quizzes.packs.items.grade_pack_answer), code within the request's grading
   budget (quizzes.practice.grading_budget: past it ``grading_budget_exceeded``, nothing locked — send it again
   later); then the rules every offline entry passes (quizzes.reviews.offline.entry_verdict).
3. **Write** (:func:`_write`), one transaction, only what was accepted: each accepted pack answer takes its item's
   first-answer lock (quizzes.practice.services.locking.first_answer_lock, in item order: concurrent uploads cannot
   deadlock) — a concurrent upload that won it makes this entry ``answered_twice``, or ``already_stored`` when it
   was this very entry —, then ``offline_write`` stores the logs and reschedules the cards. A rejected entry never
   locks anything, so nothing has to be unlocked.

Duplicates, reordering and split uploads give the same cards and locks. Where the phone showed another grade than
the server's (``shown_correct``), the server's stands and the outcome says so.
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
from quizzes.reviews.offline import (
    EntryOutcome,
    EntryStatus,
    OfflineContext,
    OfflineEntry,
    OfflineMergeResult,
    Verdict,
    entry_verdict,
    offline_context,
    offline_write,
    repeat_status,
)
from quizzes.reviews.rules import Refusal


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


@dataclasses.dataclass(frozen=True)
class PackVerdict:
    """A pack answer judged: the verdict, the entry as the merge gets it (question resolved, the server's grade)
    and the values its lock stores, when accepted."""

    verdict: Verdict
    entry: OfflineEntry | None = None
    lock: dict[str, Any] | None = None
    overrides_client: bool | None = None


@dataclasses.dataclass(frozen=True)
class UploadContext:
    offline: OfflineContext
    items: dict[int, PackItem]


def _context(*, user: User, entries: list[UploadEntry]) -> UploadContext:
    answers = [u.answer.pack_item_id for u in entries if u.answer is not None]
    items = pack_items_by_id(user=user, ids=answers) if answers else {}  # none from old clients: no query
    return UploadContext(offline=offline_context(user=user, entries=[u.entry for u in entries]), items=items)


def _instant(moment: dt.datetime) -> dt.datetime:
    """An order for review times in any zone (a naive one, rejected later, sorts as if it were UTC)."""
    return moment.replace(tzinfo=dt.UTC) if timezone.is_naive(moment) else moment


def _graded(item: PackItem, upload: UploadEntry, budget: GradingBudget) -> Refusal | tuple[dict[str, Any] | None, Any]:
    """(the server's reveal or None for a self-rated item, the response to store), or why it cannot be graded."""
    answer, entry = upload.answer, upload.entry
    assert answer is not None
    if entry.correct is not None:
        return Refusal(ErrorCode.WRONG_OUTCOME, _("A pack answer says what you did, never whether it was correct."))
    if item.snapshot["question"]["kind"] not in Question.QUIZ_KINDS:
        if entry.rating is None or entry.rating not in ReviewLog.Rating.values:
            return Refusal(ErrorCode.WRONG_OUTCOME, _("A prompt or recall card is recorded as a rating from 1 to 4."))
        return None, {"rating": entry.rating}
    if entry.rating is not None:
        return Refusal(ErrorCode.WRONG_OUTCOME, _("A quiz item is graded by the server: send your answer, no rating."))
    try:
        return grade_pack_answer(
            item=item,
            option_id=answer.option_id,
            choice_index=answer.choice_index,
            value=answer.value,
            code=answer.code,
            budget=budget,
        )
    except DomainError as exc:  # unreadable, a foreign option, code the checker refused (its message): nothing locks
        return Refusal(exc.error_code, str(exc.messages[0]))


def _pack_verdict(
    upload: UploadEntry,
    repeated: EntryStatus | None,
    context: UploadContext,
    claimed: set[int],
    *,
    user: User,
    now: dt.datetime,
    budget: GradingBudget,
) -> PackVerdict:
    entry, answer = upload.entry, upload.answer
    assert answer is not None
    item = context.items.get(answer.pack_item_id)
    question_id = item.question_id if item is not None else None
    if repeated is not None:  # sent before: nothing is graded or stored again
        return PackVerdict(Verdict(repeated, question_id=question_id))
    if item is None:
        return PackVerdict(
            Verdict.refused(Refusal(ErrorCode.UNKNOWN_PACK_ITEM, _("None of your packs has that item.")))
        )
    refused = pack_answer_refusal(item=item, reviewed_at=entry.reviewed_at, now=now, user=user)
    if refused is None and (item.pk in claimed or item.answered_at is not None):
        if item.client_uuid == entry.client_uuid:
            return PackVerdict(Verdict(EntryStatus.ALREADY_STORED, question_id=question_id))
        refused = Refusal(ErrorCode.ANSWERED_TWICE, _("This pack item was already answered: the first answer counts."))
    graded = refused if refused is not None else _graded(item, upload, budget)
    if isinstance(graded, Refusal):
        return PackVerdict(Verdict.refused(graded, question_id=question_id))
    result, response = graded
    correct = None if result is None else bool(result["correct"])
    resolved = dataclasses.replace(
        entry,
        question=item.question,
        question_id=item.question_id,
        question_key=None,
        correct=correct,
        rating=entry.rating if result is None else None,
        suggested_rating=None if result is None else result.get("suggested_rating"),  # a code check's, as online
        server_graded=True,
    )
    verdict = entry_verdict(resolved, repeated=None, context=context.offline, user=user, now=now)
    if verdict.status != EntryStatus.APPLIED:
        return PackVerdict(verdict)
    claimed.add(item.pk)
    lock = {
        "answered_at": entry.reviewed_at,
        "client_uuid": entry.client_uuid,
        "response": response,
        "is_correct": correct,
        "result": result,
    }
    shown = answer.shown_correct
    overrides = None if correct is None or shown is None else correct != shown
    return PackVerdict(verdict, entry=resolved, lock=lock, overrides_client=overrides)


def upload_judge(
    *, user: User, entries: list[UploadEntry], context: UploadContext, now: dt.datetime, budget: GradingBudget
) -> list[PackVerdict]:
    """Every entry judged (pure: no query, nothing written or locked; code grading is charged to ``budget``)."""
    seen: set[uuid.UUID] = set()
    stored = context.offline.stored
    repeats = [repeat_status(u.entry.client_uuid, seen=seen, stored=stored) for u in entries]  # batch order
    judged: list[PackVerdict | None] = [None] * len(entries)
    claimed: set[int] = set()  # pack items an entry judged earlier (in review-time order) answers
    pack_order = sorted(
        (i for i, u in enumerate(entries) if u.answer is not None),
        key=lambda i: (_instant(entries[i].entry.reviewed_at), str(entries[i].entry.client_uuid)),
    )
    for index in pack_order:
        judged[index] = _pack_verdict(
            entries[index], repeats[index], context, claimed, user=user, now=now, budget=budget
        )
    for index, upload in enumerate(entries):
        if upload.answer is None:
            verdict = entry_verdict(upload.entry, repeated=repeats[index], context=context.offline, user=user, now=now)
            judged[index] = PackVerdict(verdict, entry=upload.entry)
    done = [j for j in judged if j is not None]
    assert len(done) == len(entries)
    return done


def _lock_lost(item_id: int, upload: UploadEntry, verdict: Verdict) -> tuple[PackVerdict, dict[str, Any] | None]:
    """A concurrent upload locked the item first: this entry's verdict now, and the stored answer if it is ours."""
    stored = PackItem.objects.filter(pk=item_id).values("client_uuid", "answered_at", "response", "result").first()
    if stored is not None and stored["client_uuid"] == upload.entry.client_uuid:
        return PackVerdict(Verdict(EntryStatus.ALREADY_STORED, question_id=verdict.question_id)), dict(stored)
    twice = Refusal(ErrorCode.ANSWERED_TWICE, _("This pack item was already answered: the first answer counts."))
    return PackVerdict(Verdict.refused(twice, question_id=verdict.question_id)), None


def _write(
    *, user: User, entries: list[UploadEntry], judged: list[PackVerdict]
) -> tuple[list[PackVerdict], dict[int, dict[str, Any]], OfflineMergeResult]:
    """Lock and write the accepted entries in one transaction: (the final verdicts, the answers each pack item
    holds by upload index, the merge's outcomes and cards)."""
    final = list(judged)
    answers: dict[int, dict[str, Any]] = {}
    locking = sorted(
        (i for i, j in enumerate(judged) if j.lock is not None),
        key=lambda i: entries[i].answer.pack_item_id,  # type: ignore[union-attr]
    )
    with transaction.atomic():
        for index in locking:
            upload, lock = entries[index], judged[index].lock
            assert upload.answer is not None and lock is not None
            if first_answer_lock(PackItem, pk=upload.answer.pack_item_id, values=lock):
                answers[index] = lock
                continue
            final[index], stored = _lock_lost(upload.answer.pack_item_id, upload, judged[index].verdict)
            if stored is not None:
                answers[index] = stored
        merge = offline_write(
            user=user, judged=[(j.entry or u.entry, j.verdict) for u, j in zip(entries, final, strict=True)]
        )
    return final, answers, merge


def offline_upload(*, user: User, entries: list[UploadEntry], now: dt.datetime | None = None) -> UploadResult:
    """Fetch, judge, then write an offline batch with pack answers; see the module docstring."""
    now = now or timezone.now()
    budget = GradingBudget.for_request(user_id=user.pk)  # the judging's, whatever the writes do
    context = _context(user=user, entries=entries)
    judged = upload_judge(user=user, entries=entries, context=context, now=now, budget=budget)
    final, answers, merge = _write(user=user, entries=entries, judged=judged)
    results = []
    for index, (upload, verdict, outcome) in enumerate(zip(entries, final, merge.entries, strict=True)):
        if upload.answer is None:
            results.append(UploadOutcome(outcome=outcome))
            continue
        item = context.items.get(upload.answer.pack_item_id)
        graded = None
        if item is not None and outcome.status in (EntryStatus.APPLIED, EntryStatus.ALREADY_STORED):
            held = answers.get(index)
            if held is None and item.client_uuid == upload.entry.client_uuid:
                held = {"answered_at": item.answered_at, "response": item.response, "result": item.result}
            graded = answered_view(item, answer=held) if held is not None else None
        overrides = verdict.overrides_client if outcome.status == EntryStatus.APPLIED else None
        results.append(
            UploadOutcome(
                outcome=outcome, pack_item_id=upload.answer.pack_item_id, graded=graded, overrides_client=overrides
            )
        )
    return UploadResult(entries=results, cards=merge.cards, profile=merge.profile)
