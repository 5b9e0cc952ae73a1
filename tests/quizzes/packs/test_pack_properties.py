"""Properties: a pack answer is graded exactly as the same answer online; pack entries merge order-independently.

1. For any variant seed and any response, the result the server stores for a pack answer equals the one it
   stores for the same response in an attempt (the question's ``fixed_seed`` makes both draw that seed).
2. The offline merge property (tests/quizzes/api/test_offline_properties.py) with pack answers mixed in:
   however a batch is split, duplicated or reordered, the cards, the logs and the pack items' locks are the same.

Every example runs inside a savepoint that is rolled back (one database, no per-example setup).
"""

from __future__ import annotations

import datetime as dt
import uuid

import pytest
import time_machine
from django.db import transaction
from django.utils import timezone
from hypothesis import event, given, settings
from hypothesis import strategies as st

from quizzes.models import AttemptItem, PackItem, Question
from quizzes.packs.items import pack_item_view
from quizzes.packs.selectors import pack_items
from quizzes.packs.services import pack_issue
from quizzes.packs.upload import PackAnswer, UploadEntry, offline_upload
from quizzes.practice.services import attempt_start, item_answer
from quizzes.reviews.offline import EntryStatus, OfflineEntry
from tests import factories
from tests.quizzes.merge_snapshot import (
    DB_PROPERTY,
    assert_stored_once_or_rejected_alike,
    cards_snapshot,
    draw_deliveries,
    logs_snapshot,
    merged_in_savepoint,
)
from tests.quizzes.packs.conftest import study_everything

pytestmark = pytest.mark.django_db


# --- 1. offline grading == online grading -----------------------------------------------------------

multipliers = st.lists(st.floats(-4, 4, allow_nan=False), min_size=1, max_size=6)


def _typed(answer, noise: list[float], unit: float):
    """The answer moved element by element by ``noise`` tolerance units (some within, some beyond)."""
    flat_index = iter(range(10**6))

    def move(value):
        if isinstance(value, list):
            return [move(v) for v in value]
        return value + noise[next(flat_index) % len(noise)] * unit

    return move(answer)


def _grade_both(world, kind: str, seed: int, respond) -> tuple[dict, dict]:
    """(the attempt item's stored result, the pack item's stored result) for the same response."""
    user, lesson, questions = world
    question = questions[kind]
    with transaction.atomic():
        if question.kind == Question.Kind.NUMERIC:
            Question.objects.filter(pk=question.pk).update(fixed_seed=seed)
        now = timezone.now()
        attempt = attempt_start(user=user, lesson=lesson, now=now)
        online = AttemptItem.objects.select_related("question").get(attempt=attempt, question=question)
        pack = pack_issue(user=user, now=now)
        packed = next(i for i in pack_items(pack=pack) if i.question_id == question.pk)
        view = pack_item_view(packed)
        online_args, pack_args = respond(online, view)
        item_answer(user=user, item=online, now=now, **online_args)
        entry = OfflineEntry(client_uuid=uuid.uuid4(), reviewed_at=now)
        (outcome,) = offline_upload(
            user=user, entries=[UploadEntry(entry=entry, answer=PackAnswer(pack_item_id=packed.pk, **pack_args))]
        ).entries
        assert outcome.outcome.status == EntryStatus.APPLIED, outcome
        results = AttemptItem.objects.get(pk=online.pk).result, PackItem.objects.get(pk=packed.pk).result
        transaction.set_rollback(True)
    return results


@settings(DB_PROPERTY, max_examples=40)
@given(seed=st.integers(0, 2**31 - 1), noise=multipliers, as_text=st.booleans())
def test_a_typed_numeric_answer_is_graded_offline_as_online(world, seed, noise, as_text):
    def respond(online, view):
        variant = online.variant
        value = _typed(variant["answer"], noise, variant["atol"] + 1e-3)
        if as_text and not isinstance(value, list):
            value = f"{value:.4f}"
        return {"value": value}, {"value": value}

    online, offline = _grade_both(world, "numeric", seed, respond)
    assert offline == online


@settings(DB_PROPERTY, max_examples=40)
@given(seed=st.integers(0, 2**31 - 1), pick=st.integers(0, 10))
def test_a_numeric_choice_is_graded_offline_as_online(world, seed, pick):
    def respond(online, view):
        index = pick % len(online.variant["choices"])
        return {"choice_index": index}, {"choice_index": index}

    online, offline = _grade_both(world, "numeric_choice", seed, respond)
    assert offline == online


@settings(DB_PROPERTY, max_examples=20)
@given(pick=st.integers(0, 3))
def test_a_choice_is_graded_offline_as_online(world, pick):
    """The same option (by identity): the attempt and the pack each show their own order and handles."""

    def respond(online, view):
        option = sorted(online.option_order)[pick]
        text = online.question.options.get(pk=option).text
        handle = next(o["handle"] for o in view["options"] if o["text"] == text)
        return {"option_id": option}, {"option_id": handle}

    online, offline = _grade_both(world, "choice", 0, respond)
    assert offline == online


# --- 2. the merge, with pack answers ---------------------------------------------------------------

DAY = 86400
HISTORY_DAYS = 20


@pytest.fixture
def merge_world(db):
    """A learner with two cards of each kind, packed HISTORY_DAYS ago; the pack expired 6 days ago."""
    now = timezone.now().replace(microsecond=0)
    start = now - dt.timedelta(days=HISTORY_DAYS)
    with time_machine.travel(start - dt.timedelta(days=5), tick=False):
        user = factories.UserFactory()
        lesson = factories.LessonFactory()
        factories.ChoiceQuestionFactory(lesson=lesson, order=1, options=3)
        factories.NumericQuestionFactory(lesson=lesson, order=2)
        factories.NumericQuestionFactory(lesson=lesson, order=3, answer_form=Question.AnswerForm.CHOICE)
        factories.PromptQuestionFactory(lesson=lesson, order=4)
        plain = factories.RecallQuestionFactory(lesson=lesson, order=5)
        study_everything(user, lesson)
    pack = pack_issue(user=user, now=start, days=14)
    items = [pack_item_view(item) for item in pack_items(pack=pack)]
    assert len(items) == 5
    return user, items, plain, start, now


def _answer(item: dict, outcome: int) -> dict:
    """What the learner did with a pack item: right or wrong by ``outcome``, in the item's own terms."""
    key, right = item["key"], outcome % 2 == 0
    if item["question"]["kind"] == "choice":
        wrong = next(o["handle"] for o in item["options"] if o["handle"] != key["correct_option_id"])
        return {"option_id": key["correct_option_id"] if right else wrong}
    if item["numeric"] is not None and item["numeric"]["choices"]:
        count = len(item["numeric"]["choices"])
        return {"choice_index": key["correct_choice_index"] if right else (key["correct_choice_index"] + 1) % count}
    if key is not None:
        return {"value": key["correct_value"] if right else "0"}
    return {}


# An entry: (pack item index or 5 for a plain recall rating, seconds after the pack's issue, outcome, duration).
# At most one answer per pack item (a second one is answered_twice, which depends on arrival by design);
# offsets are unique so no two reviews share a time; some fall before the issue, after the expiry or in the future.
merge_entries = st.lists(
    st.tuples(
        st.integers(0, 5),
        st.integers(-2 * DAY, (HISTORY_DAYS + 1) * DAY),
        st.integers(0, 4),
        st.none() | st.integers(0, 600_000),
    ),
    min_size=1,
    max_size=10,
    unique_by=(lambda e: e[1], lambda e: e[0] if e[0] < 5 else -e[1]),
)


def _build(merge_world, raw) -> list[UploadEntry]:
    _user, items, plain, start, _now = merge_world
    built = []
    for index, offset, outcome, duration in raw:
        at = start + dt.timedelta(seconds=offset)
        if index == 5:
            rated = {"question_id": plain.pk, "rating": max(1, outcome), "duration_ms": duration}
            entry = OfflineEntry(client_uuid=uuid.uuid4(), reviewed_at=at, **rated)
            built.append(UploadEntry(entry=entry))
            continue
        item = items[index]
        rating = max(1, outcome) if item["key"] is None else None
        entry = OfflineEntry(client_uuid=uuid.uuid4(), reviewed_at=at, rating=rating, duration_ms=duration)
        built.append(UploadEntry(entry=entry, answer=PackAnswer(pack_item_id=item["id"], **_answer(item, outcome))))
    return built


def _state(user) -> tuple:
    locks = sorted(
        PackItem.objects.owned_by(user).values_list("pk", "answered_at", "client_uuid", "is_correct", "result"), key=str
    )
    return cards_snapshot(user), logs_snapshot(user), locks


def _run(merge_world, batches: list[list[UploadEntry]]) -> tuple[tuple, dict]:
    user, _items, _plain, _start, now = merge_world

    def merge(batch):
        done = offline_upload(user=user, entries=batch, now=now).entries
        return [(d.outcome.client_uuid, d.outcome.status, d.outcome.reason) for d in done]

    return merged_in_savepoint(batches, merge, lambda: _state(user))


@settings(DB_PROPERTY, max_examples=500)
@given(raw=merge_entries, data=st.data())
def test_split_duplicated_reordered_pack_uploads_give_identical_cards_logs_and_locks(merge_world, raw, data):
    entries = _build(merge_world, raw)
    expected_state, expected = _run(merge_world, [entries])
    for upload in entries:  # --hypothesis-show-statistics: which outcomes the examples reached
        status, reason = expected[upload.entry.client_uuid][0]
        event(f"{'pack' if upload.answer else 'plain'} {status} {reason or ''}".strip())

    state, outcomes = _run(merge_world, draw_deliveries(data, entries))

    assert state == expected_state
    for upload in entries:
        uuid_ = upload.entry.client_uuid
        assert_stored_once_or_rejected_alike(expected[uuid_], outcomes[uuid_])
