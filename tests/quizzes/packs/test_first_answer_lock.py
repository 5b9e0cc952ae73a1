"""One first-answer lock (issue 26): ``first_answer_lock`` stores the first answer of an attempt item or a pack
item and refuses every later one; the attempt's own guard (not finished) rides in the same statement."""

from __future__ import annotations

import uuid

import pytest
from django.utils import timezone

from quizzes.core.errors import DomainError, ErrorCode
from quizzes.models import Attempt, AttemptItem, PackItem
from quizzes.packs.services import pack_issue
from quizzes.practice.services import attempt_start, item_answer
from quizzes.practice.services.locking import first_answer_lock

pytestmark = pytest.mark.django_db


def _answer(value):
    return {"answered_at": timezone.now(), "response": value, "is_correct": False, "result": {"correct": False}}


def test_the_first_write_wins_on_an_attempt_item(user, lesson, choice_question):
    item = attempt_start(user=user, lesson=lesson).items.get()
    values = {**_answer(1), "score": 0.0}
    assert first_answer_lock(AttemptItem, pk=item.pk, values=values) is True
    assert first_answer_lock(AttemptItem, pk=item.pk, values={**values, "response": 2}) is False
    item.refresh_from_db()
    assert item.response == 1


def test_the_callers_own_guard_rides_in_the_lock(user, lesson, choice_question):
    """item_answer's own guard in the same statement: an attempt finished after the item was read locks nothing."""
    attempt = attempt_start(user=user, lesson=lesson)
    item = AttemptItem.objects.select_related("attempt", "question").get(attempt=attempt)  # read unfinished
    Attempt.objects.filter(pk=attempt.pk).update(finished_at=timezone.now())
    with pytest.raises(DomainError) as caught:
        item_answer(user=user, item=item, option_id=item.option_order[0])
    assert caught.value.error_code == ErrorCode.ATTEMPT_FINISHED
    assert not AttemptItem.objects.get(pk=item.pk).is_answered


def test_the_first_write_wins_on_a_pack_item(world):
    learner = world[0]
    pack_issue(user=learner)
    item = PackItem.objects.filter(pack__user=learner).first()
    first, second = ({**_answer(v), "client_uuid": uuid.uuid4()} for v in "ab")
    assert first_answer_lock(PackItem, pk=item.pk, values=first) is True
    assert first_answer_lock(PackItem, pk=item.pk, values=second) is False
    item.refresh_from_db()
    assert item.response == "a"
