"""Property: however an offline batch is split, duplicated or reordered, the final cards and logs are the same.

Every example runs the merge service twice inside savepoints that are rolled back (one database, no
per-example setup): once with the batch as recorded, once as a random mix of chunks, repeats and
shuffles. The states must be identical field by field (card ids aside), and each entry must end up
stored exactly once or rejected for the same reason in both runs.
"""

from __future__ import annotations

import datetime as dt
import uuid

import pytest
import time_machine
from django.utils import timezone
from hypothesis import given, settings
from hypothesis import strategies as st

from quizzes.practice.services import attempt_start, item_answer
from quizzes.reviews.offline import OfflineEntry, offline_reviews_merge
from tests import factories
from tests.quizzes.merge_snapshot import (
    DB_PROPERTY,
    assert_stored_once_or_rejected_alike,
    cards_snapshot,
    draw_deliveries,
    logs_snapshot,
    merged_in_savepoint,
)
from tests.quizzes.reviews.fitting_helpers import perturbed

pytestmark = pytest.mark.django_db

DAY = 86400
HISTORY_DAYS = 60


@pytest.fixture(params=["default parameters", "personal parameters"])
def world(db, request):
    """A learner and three questions (two self-rated, one quiz) created HISTORY_DAYS ago; the quiz question answered
    online then (a client-graded entry may update a card, never create one); the learner is scheduled with FSRS-6's
    defaults or with parameters fitted to them (issue 30)."""
    now = timezone.now().replace(microsecond=0)
    start = now - dt.timedelta(days=HISTORY_DAYS)
    with time_machine.travel(start, tick=False):
        user = factories.UserFactory()
        if request.param == "personal parameters":
            factories.LearnerProfileFactory(user=user, fsrs_parameters=list(perturbed(11)))
        lesson = factories.LessonFactory()
        questions = [
            factories.PromptQuestionFactory(lesson=lesson),
            factories.RecallQuestionFactory(lesson=lesson),
            factories.ChoiceQuestionFactory(lesson=lesson, options=2),
        ]
        (item,) = attempt_start(user=user, lesson=lesson).items.all()
        item_answer(user=user, item=item, option_id=item.question.options.get(is_correct=True).pk)
    return user, questions, start, now


# An entry: (question index, seconds after the start, outcome, duration). Offsets are unique so no
# two reviews share a timestamp; some land before the start or in the future and must be rejected.
entries_strategy = st.lists(
    st.tuples(
        st.integers(0, 2),
        st.integers(-2 * DAY, (HISTORY_DAYS + 1) * DAY),
        st.integers(0, 4),
        st.none() | st.integers(0, 600_000),
    ),
    min_size=1,
    max_size=10,
    unique_by=lambda e: e[1],
)


def _build(world, raw) -> list[OfflineEntry]:
    _user, questions, start, _now = world
    built = []
    for index, offset, outcome, duration in raw:
        question = questions[index]
        quiz = question.is_quiz_kind
        built.append(
            OfflineEntry(
                client_uuid=uuid.uuid4(),
                reviewed_at=start + dt.timedelta(seconds=offset),
                question_id=question.pk if offset % 2 else None,
                question_key=None if offset % 2 else question.key,
                correct=bool(outcome % 2) if quiz else None,
                rating=None if quiz else max(1, outcome),
                duration_ms=duration,
            )
        )
    return built


def _state(user) -> tuple:
    return cards_snapshot(user), logs_snapshot(user)


def _run(world, batches: list[list[OfflineEntry]]) -> tuple[tuple, dict]:
    user, _questions, _start, now = world

    def merge(batch):
        merged = offline_reviews_merge(user=user, entries=batch, now=now).entries
        return [(o.client_uuid, o.status, o.reason) for o in merged]

    return merged_in_savepoint(batches, merge, lambda: _state(user))


@settings(DB_PROPERTY, max_examples=500)
@given(raw=entries_strategy, data=st.data())
def test_split_duplicated_reordered_batches_give_identical_cards_and_logs(world, raw, data):
    entries = _build(world, raw)
    expected_state, expected = _run(world, [entries])
    state, outcomes = _run(world, draw_deliveries(data, entries))

    assert state == expected_state
    for entry in entries:
        assert_stored_once_or_rejected_alike(expected[entry.client_uuid], outcomes[entry.client_uuid])
