"""The offline upload judges every entry first, as a pure step, then locks and writes only what it accepted
(quizzes.packs.upload, issue 26)."""

from __future__ import annotations

import datetime as dt
import uuid

import pytest
from django.utils import timezone

from quizzes.models import PackItem, ReviewCard, ReviewLog
from quizzes.packs.upload import PackAnswer, UploadEntry, _context, upload_judge
from quizzes.practice.grading_budget import GradingBudget
from quizzes.reviews.offline import EntryStatus, OfflineEntry
from tests.quizzes.packs.test_pack_upload import entry, item_of, upload, wrong_handle

pytestmark = pytest.mark.django_db
PACKS = "/api/v1/packs/"


@pytest.fixture
def pack(api, world):
    response = api.post(PACKS, {}, format="json")
    assert response.status_code == 201
    return response.json()


def _stored(user) -> tuple:
    """Everything an upload could write for this learner: the pack items' answers, the logs, the cards."""
    locks = sorted(PackItem.objects.owned_by(user).values_list("pk", "answered_at", "client_uuid", "result"), key=str)
    logs = sorted(ReviewLog.objects.filter(user=user).values_list("pk", "rating", "reviewed_at"))
    cards = sorted(ReviewCard.objects.filter(user=user).values_list("pk", "due", "reps"))
    return locks, logs, cards


def test_a_rejected_entry_locks_nothing_writes_nothing_and_does_not_take_the_item(api, learner, pack):
    typed = item_of(pack, "numeric", "input")
    now = timezone.now()
    before = _stored(learner)
    unreadable = entry(typed, now - dt.timedelta(minutes=1), value="")
    (alone,) = upload(api, unreadable)
    assert (alone["status"], alone["reason"]) == ("rejected", "unreadable_answer")
    assert _stored(learner) == before  # no lock taken (and none undone), no log, no card moved

    # the earlier entry is rejected: the later one, in the same batch, is the item's first answer
    later = entry(typed, now, value=typed["key"]["correct_value"])
    first, second = upload(api, {**unreadable, "client_uuid": str(uuid.uuid4())}, later)
    assert (first["status"], first["reason"]) == ("rejected", "unreadable_answer")
    assert second["status"] == "applied" and second["graded"]["correct"] is True
    locked = PackItem.objects.get(pk=typed["id"])
    assert str(locked.client_uuid) == later["client_uuid"] and locked.is_correct is True


def test_judging_is_pure_same_inputs_same_verdicts_and_no_query(api, learner, pack, django_assert_num_queries):
    now = timezone.now()
    choice, typed, prompt = item_of(pack, "choice"), item_of(pack, "numeric", "input"), item_of(pack, "prompt")

    def answer(item, at, **what):
        return UploadEntry(
            entry=OfflineEntry(client_uuid=uuid.uuid4(), reviewed_at=at, rating=what.pop("rating", None)),
            answer=PackAnswer(pack_item_id=item["id"], **what),
        )

    entries = [
        answer(choice, now, option_id=wrong_handle(choice), shown_correct=True),
        answer(choice, now + dt.timedelta(seconds=1), option_id=choice["key"]["correct_option_id"]),  # second answer
        answer(typed, now, value=typed["key"]["correct_value"]),
        answer(prompt, now, rating=3),
        answer(prompt, now - dt.timedelta(days=1), rating=3),  # before the pack was issued
    ]
    context = _context(user=learner, entries=entries)
    before = _stored(learner)
    with django_assert_num_queries(0):
        runs = [
            upload_judge(
                user=learner, entries=entries, context=context, now=now, budget=GradingBudget.for_request(user_id=None)
            )
            for _ in range(2)
        ]
    assert runs[0] == runs[1]
    assert _stored(learner) == before
    verdicts = [(j.verdict.status, j.verdict.reason) for j in runs[0]]
    assert verdicts == [
        (EntryStatus.APPLIED, None),
        (EntryStatus.REJECTED, "answered_twice"),
        (EntryStatus.APPLIED, None),
        (EntryStatus.APPLIED, None),
        (EntryStatus.REJECTED, "before_pack_issued"),
    ]
    wrong, right = runs[0][0], runs[0][2]
    assert wrong.lock is not None and wrong.lock["is_correct"] is False and wrong.overrides_client is True
    assert right.lock is not None and right.lock["is_correct"] is True
    assert [j.verdict.rating for j in runs[0]][:4] == [ReviewLog.Rating.AGAIN, None, ReviewLog.Rating.GOOD, 3]
