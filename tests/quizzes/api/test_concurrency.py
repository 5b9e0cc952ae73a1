"""Concurrency on PostgreSQL through the API: parallel submits, idempotent retries and offline uploads."""

from __future__ import annotations

import datetime as dt
import uuid

import pytest
import time_machine
from django.db import connection
from django.utils import timezone

from quizzes.models import Attempt, AttemptItem, IdempotencyKey, ReviewLog
from quizzes.practice.presenter import option_handle
from quizzes.practice.services import attempt_start
from tests import factories
from tests.quizzes.api.conftest import token_client
from tests.quizzes.practice.test_concurrency import run_together

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def test_concurrent_submits_of_one_item_store_one_response():
    assert connection.vendor == "postgresql"
    user = factories.UserFactory()
    question = factories.ChoiceQuestionFactory(options=4)
    item = attempt_start(user=user, lesson=question.lesson).items.get()
    handles = [option_handle(item_id=item.pk, option_id=pk) for pk in item.option_order]

    def submit(index: int):
        sent = handles[index % 4]
        response = token_client(user).post(f"/api/v1/items/{item.pk}/answer/", {"option_id": sent}, format="json")
        return sent, response.status_code, response.json()

    results = run_together(12, submit)

    assert ReviewLog.objects.filter(attempt_item=item).count() == 1
    winners = [body for _sent, status, body in results if status == 200 and not body["replayed"]]
    assert len(winners) == 1
    locked = winners[0]["item"]
    for sent, status, body in results:
        assert body["item"]["result"] == locked["result"] and body["item"]["response"] == locked["response"]
        assert status == (200 if sent == locked["response"]["option_id"] else 409)
    stored = AttemptItem.objects.get(pk=item.pk)
    assert stored.chosen_option_id == item.option_order[handles.index(locked["response"]["option_id"])]


def test_concurrent_retries_with_one_idempotency_key_start_one_attempt():
    user = factories.UserFactory()
    lesson = factories.ChoiceQuestionFactory().lesson

    def start(index: int):
        response = token_client(user).post(
            "/api/v1/attempts/", {"lesson_id": lesson.pk}, format="json", HTTP_IDEMPOTENCY_KEY="retry-me"
        )
        return response.status_code, response.json()

    results = run_together(8, start)
    assert {status for status, _ in results} == {201}
    assert len({body["id"] for _, body in results}) == 1
    assert Attempt.objects.filter(user=user).count() == 1 and IdempotencyKey.objects.count() == 1


def test_concurrent_uploads_of_one_batch_store_each_review_once():
    start = timezone.now() - dt.timedelta(days=20)
    with time_machine.travel(start, tick=False):
        user = factories.UserFactory()
        questions = [factories.PromptQuestionFactory() for _ in range(3)]
    entries = [
        {
            "client_uuid": str(uuid.uuid4()),
            "question_id": questions[i % 3].pk,
            "rating": 1 + i % 4,
            "reviewed_at": (start + dt.timedelta(days=1 + i)).isoformat(),
        }
        for i in range(9)
    ]

    def upload(index: int):
        return token_client(user).post("/api/v1/reviews/offline/", {"entries": entries}, format="json").json()

    results = run_together(6, upload)
    assert ReviewLog.objects.filter(user=user).count() == 9
    for position in range(9):
        statuses = [result["entries"][position]["status"] for result in results]
        assert statuses.count("applied") == 1 and set(statuses) <= {"applied", "already_stored"}
    final = token_client(user).post("/api/v1/reviews/offline/", {"entries": entries}, format="json").json()
    assert {e["status"] for e in final["entries"]} == {"already_stored"} and len(final["cards"]) == 3
