"""The same guidance for mobile clients: GET /next-step/ and POST /attempts/{id}/missed/."""

from __future__ import annotations

import datetime as dt

import pytest

from quizzes.models import Attempt
from tests.factories import utc
from tests.quizzes.api.helpers import answer_leaks, assert_error
from tests.quizzes.api.test_attempts import correct_handle, start, wrong_handle

pytestmark = pytest.mark.django_db
T0 = utc(2026, 3, 2, 10)


def _finish_with_one_wrong(api, lesson) -> dict:
    attempt = start(api, lesson).json()
    first, second = attempt["items"]
    api.post(f"/api/v1/items/{first['id']}/answer/", {"option_id": wrong_handle(first)}, format="json")
    api.post(f"/api/v1/items/{second['id']}/answer/", {"option_id": correct_handle(second)}, format="json")
    return api.post(f"/api/v1/attempts/{attempt['id']}/finish/", format="json").json()


def test_next_step_walks_a_new_learner_through_the_lesson(api, choice_lesson, time_machine):
    time_machine.move_to(T0, tick=False)
    step = api.get("/api/v1/next-step/").json()
    assert step["kind"] == "lesson"
    assert (step["lesson_id"], step["lesson_key"]) == (choice_lesson.pk, choice_lesson.key)
    assert step["attempt_id"] is None and step["due_count"] == 0
    attempt = start(api, choice_lesson).json()
    step = api.get("/api/v1/next-step/").json()
    assert (step["kind"], step["attempt_id"]) == ("attempt", attempt["id"])
    for item in attempt["items"]:
        api.post(f"/api/v1/items/{item['id']}/answer/", {"option_id": correct_handle(item)}, format="json")
    api.post(f"/api/v1/attempts/{attempt['id']}/finish/", format="json")
    step = api.get("/api/v1/next-step/").json()
    prompt = choice_lesson.questions.get(kind="prompt")
    assert (step["kind"], step["question_id"], step["question_key"]) == ("prompt", prompt.pk, prompt.key)
    api.post("/api/v1/reviews/rate/", {"question_id": prompt.pk, "rating": 3}, format="json")
    step = api.get("/api/v1/next-step/").json()
    assert step["kind"] == "wait"
    assert dt.datetime.fromisoformat(step["next_review_at"]) == T0 + dt.timedelta(days=2)
    time_machine.move_to(T0 + dt.timedelta(days=2, hours=1), tick=False)
    step = api.get("/api/v1/next-step/").json()
    assert (step["kind"], step["due_count"]) == ("review", 3)


def test_next_step_needs_a_login(anon):
    assert_error(anon.get("/api/v1/next-step/"), 401)


def test_practise_the_missed_ones_over_the_api(api, choice_lesson, user):
    finished = _finish_with_one_wrong(api, choice_lesson)
    response = api.post(f"/api/v1/attempts/{finished['id']}/missed/", format="json")
    assert response.status_code == 201
    practice = response.json()
    assert practice["mode"] == "missed" and practice["id"] != finished["id"]
    assert [i["question"]["id"] for i in practice["items"]] == [finished["items"][0]["question"]["id"]]
    assert answer_leaks(practice) == []  # nothing about correctness before the lock, as in any attempt
    assert Attempt.objects.get(pk=practice["id"]).user == user


def test_practise_the_missed_ones_refusals(api, other_api, choice_lesson):
    open_attempt = start(api, choice_lesson).json()
    assert_error(api.post(f"/api/v1/attempts/{open_attempt['id']}/missed/", format="json"), 400, "attempt_unfinished")
    finished = _finish_with_one_wrong(api, choice_lesson)
    assert_error(other_api.post(f"/api/v1/attempts/{finished['id']}/missed/", format="json"), 404)
    practice = api.post(f"/api/v1/attempts/{finished['id']}/missed/", format="json").json()
    item = practice["items"][0]
    api.post(f"/api/v1/items/{item['id']}/answer/", {"option_id": correct_handle(item)}, format="json")
    api.post(f"/api/v1/attempts/{practice['id']}/finish/", format="json")
    assert_error(api.post(f"/api/v1/attempts/{practice['id']}/missed/", format="json"), 400, "nothing_missed")


def test_a_client_cannot_start_a_missed_attempt_directly(api, choice_lesson):
    assert_error(start(api, choice_lesson, mode="missed"), 400, "validation_error")
