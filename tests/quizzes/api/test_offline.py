"""Offline review upload: idempotent merge, per-entry rejections, batch and body limits."""

from __future__ import annotations

import datetime as dt
import json
import uuid

import pytest
import time_machine
from django.utils import timezone

from quizzes.models import ReviewCard, ReviewLog
from quizzes.practice.services import attempt_start, item_answer
from tests import factories
from tests.quizzes.api.conftest import token_client
from tests.quizzes.api.helpers import assert_error

pytestmark = pytest.mark.django_db
URL = "/api/v1/reviews/offline/"


@pytest.fixture
def setup(db):
    """A learner, a lesson and its questions created 30 days ago; the tests run now."""
    start = timezone.now() - dt.timedelta(days=30)
    with time_machine.travel(start, tick=False):
        user = factories.UserFactory()
        lesson = factories.LessonFactory()
        content = {
            "prompt": factories.PromptQuestionFactory(lesson=lesson),
            "choice": factories.ChoiceQuestionFactory(lesson=lesson),
        }
    return start, content, user


@pytest.fixture
def api(setup):
    return token_client(setup[2])


@pytest.fixture
def user(setup):
    return setup[2]


def entry(question, at, **outcome):
    return {"client_uuid": str(uuid.uuid4()), "question_id": question.pk, "reviewed_at": at.isoformat(), **outcome}


def upload(api, entries, **extra):
    return api.post(URL, {"entries": entries}, format="json", **extra)


def _answered_online(user, question, at) -> None:
    """The learner's first answer to a quiz question, graded by the server: the card a client's grade may update."""
    with time_machine.travel(at, tick=False):
        item = attempt_start(user=user, lesson=question.lesson).items.get(question=question)
        item_answer(user=user, item=item, option_id=question.options.get(is_correct=True).pk)


def test_upload_twice_gives_the_same_cards(api, user, setup):
    _start, content, _user = setup
    now = timezone.now()
    _answered_online(user, content["choice"], now - dt.timedelta(days=12))
    entries = [
        entry(content["prompt"], now - dt.timedelta(days=10), rating=3, duration_ms=9000),
        entry(content["prompt"], now - dt.timedelta(days=7), rating=4),
        {**entry(content["choice"], now - dt.timedelta(days=9), correct=False), "question_id": None}
        | {"question_key": content["choice"].key},
        entry(content["choice"], now - dt.timedelta(days=6), correct=True),
    ]
    entries[2].pop("question_id")
    first = upload(api, entries)
    assert first.status_code == 200
    body = first.json()
    assert [e["status"] for e in body["entries"]] == ["applied"] * 4
    assert len(body["cards"]) == 2 and all(e["card_id"] for e in body["entries"])
    second = upload(api, entries).json()
    assert [e["status"] for e in second["entries"]] == ["already_stored"] * 4
    assert second["cards"] == body["cards"]
    assert ReviewLog.objects.filter(user=user, source="offline").count() == 4
    choice_logs = ReviewLog.objects.filter(card__question=content["choice"]).order_by("reviewed_at")
    assert [(log.rating, log.client_graded) for log in choice_logs] == [(3, False), (1, True), (3, True)]


def test_entries_merge_with_online_history_in_time_order(api, user, setup):
    _start, content, _user = setup
    now = timezone.now()
    online = api.post("/api/v1/reviews/rate/", {"question_id": content["prompt"].pk, "rating": 3}, format="json").json()
    assert online["reps"] == 1
    earlier = upload(api, [entry(content["prompt"], now - dt.timedelta(days=5), rating=3)]).json()
    card = earlier["cards"][0]
    assert card["reps"] == 2
    roles = list(ReviewLog.objects.filter(user=user).order_by("reviewed_at").values_list("role", flat=True))
    assert roles == ["first", "review"]  # the offline review, made earlier, became the first study


def test_bad_entries_are_rejected_with_reasons_and_the_rest_applied(api, user, setup):
    start, content, _user = setup
    now = timezone.now()
    entries = [
        entry(content["prompt"], now + dt.timedelta(minutes=30), rating=3),
        entry(content["prompt"], now + dt.timedelta(minutes=4), rating=3),  # within the clock skew
        entry(content["prompt"], start - dt.timedelta(days=1), rating=3),
        {**entry(content["prompt"], now, rating=3), "question_id": 999999},
        entry(content["prompt"], now - dt.timedelta(days=1), correct=True),
        entry(content["choice"], now - dt.timedelta(days=1), rating=3),
    ]
    result = upload(api, entries).json()["entries"]
    assert [(e["status"], e["reason"]) for e in result] == [
        ("rejected", "in_future"),
        ("applied", None),
        ("rejected", "before_card_existed"),
        ("rejected", "unknown_question"),
        ("rejected", "wrong_outcome"),
        ("rejected", "wrong_outcome"),
    ]
    assert all(e["message"] for e in result if e["status"] == "rejected")
    assert ReviewLog.objects.filter(user=user).count() == 1


def test_a_clients_grade_updates_a_card_but_never_creates_one(api, user, setup):
    """The deprecated `correct` form for a quiz question never answered: rejected (`not_studied`), no card made,
    so no review pack carries its key; once the learner answered it online, the same form updates the card."""
    _start, content, _user = setup
    now = timezone.now()
    choice = content["choice"]
    for correct in (False, True):
        body = upload(api, [entry(choice, now - dt.timedelta(days=3), correct=correct)]).json()
        (outcome,) = body["entries"]
        assert (outcome["status"], outcome["reason"], outcome["card_id"]) == ("rejected", "not_studied", None)
        assert "graded by the server" in outcome["message"] and body["cards"] == []
    assert not ReviewCard.objects.filter(user=user).exists()
    # a batch of several, and one beside a self-rating that is applied
    body = upload(
        api,
        [
            entry(choice, now - dt.timedelta(days=2), correct=True),
            entry(choice, now - dt.timedelta(days=1), correct=False),
            entry(content["prompt"], now - dt.timedelta(days=1), rating=3),
        ],
    ).json()
    assert [(e["status"], e["reason"]) for e in body["entries"]] == [
        ("rejected", "not_studied"),
        ("rejected", "not_studied"),
        ("applied", None),
    ]
    assert list(ReviewCard.objects.filter(user=user).values_list("question_id", flat=True)) == [content["prompt"].pk]
    _answered_online(user, choice, now - dt.timedelta(days=1))
    (updated,) = upload(api, [entry(choice, now - dt.timedelta(hours=1), correct=False)]).json()["entries"]
    assert updated["status"] == "applied" and updated["card_id"]


def test_duplicates_in_one_batch(api, user, setup):
    _start, content, _user = setup
    one = entry(content["prompt"], timezone.now() - dt.timedelta(days=1), rating=2)
    result = upload(api, [one, one]).json()
    assert [e["status"] for e in result["entries"]] == ["applied", "duplicate"]
    assert ReviewLog.objects.filter(user=user).count() == 1


def test_before_the_learner_existed(db, lesson):
    question = factories.PromptQuestionFactory(lesson=lesson)
    result = upload(
        token_client(factories.UserFactory()), [entry(question, timezone.now() - dt.timedelta(days=1), rating=3)]
    ).json()
    assert result["entries"][0]["reason"] == "before_card_existed"


def test_uuids_are_per_learner(api, user, setup):
    start, content, _user = setup
    with time_machine.travel(start, tick=False):
        other_user = factories.UserFactory()
    other_api = token_client(other_user)
    shared = entry(content["prompt"], timezone.now() - dt.timedelta(days=1), rating=3)
    assert upload(api, [shared]).json()["entries"][0]["status"] == "applied"
    assert upload(other_api, [shared]).json()["entries"][0]["status"] == "applied"
    assert ReviewCard.objects.get(user=user).pk != ReviewCard.objects.get(user=other_user).pk


def test_batch_limits(api, setup, settings):
    _start, content, _user = setup
    at = timezone.now() - dt.timedelta(days=1)
    too_many = [entry(content["prompt"], at, rating=3) for _ in range(settings.API_OFFLINE_MAX_ENTRIES + 1)]
    assert "entries" in assert_error(upload(api, too_many), 400)["error"]["fields"]
    assert_error(upload(api, []), 400)
    assert not ReviewLog.objects.exists()


def test_oversized_body_is_413(api, settings):
    settings.API_MAX_BODY_BYTES = 1000
    body = json.dumps({"entries": [{"client_uuid": "x" * 2000}]})
    response = api.post(URL, body, content_type="application/json")
    assert_error(response, 413, "payload_too_large")


def test_entry_type_errors_name_the_entry(api, setup):
    _start, content, _user = setup
    good = entry(content["prompt"], timezone.now() - dt.timedelta(days=1), rating=3)
    bad = {**good, "client_uuid": "not-a-uuid", "reviewed_at": "yesterday"}
    fields = assert_error(upload(api, [good, bad]), 400)["error"]["fields"]
    assert set(fields) == {"entries.1.client_uuid", "entries.1.reviewed_at"}
    naive = {**good, "reviewed_at": "2025-01-01T10:00:00"}
    assert "entries.0.reviewed_at" in assert_error(upload(api, [naive]), 400)["error"]["fields"]
    both = {**good, "correct": True}
    assert "entries.0.rating" in assert_error(upload(api, [both]), 400)["error"]["fields"]


def test_idempotency_key_on_upload(api, user, setup):
    _start, content, _user = setup
    entries = [entry(content["prompt"], timezone.now() - dt.timedelta(days=1), rating=3)]
    key = {"HTTP_IDEMPOTENCY_KEY": "batch-1"}
    first = upload(api, entries, **key).json()
    assert upload(api, entries, **key).json() == first  # the original response, "applied"
    assert_error(upload(api, [{**entries[0], "rating": 4}], **key), 422)
