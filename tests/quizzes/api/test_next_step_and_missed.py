"""The same guidance for mobile clients: GET /next-step/, POST /attempts/{id}/missed/ and /show-skipped/."""

from __future__ import annotations

import datetime as dt

import pytest

from quizzes.models import Attempt, ReviewCard, ReviewLog
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


def test_skipped_answers_stay_hidden_until_asked_for_and_then_count_as_not_known(api, quiz_lesson, user):
    """The mobile end screen: a finished attempt's skipped items carry no answer; POST show-skipped records Again on
    their cards for today (so today's next answers do not count) and returns each one's key. Idempotent."""
    attempt = start(api, quiz_lesson).json()
    first = attempt["items"][0]
    api.post(f"/api/v1/items/{first['id']}/answer/", {"option_id": correct_handle(first)}, format="json")
    finished = api.post(f"/api/v1/attempts/{attempt['id']}/finish/", format="json").json()
    assert (finished["skipped_count"], finished["skipped_shown_at"]) == (3, None)
    skipped = finished["items"][1:]
    assert all(i["skipped_key"] is None and i["result"] is None for i in skipped)
    assert answer_leaks(skipped) == []
    assert start(api, quiz_lesson).json()["skipped_count"] == 0  # an open attempt has nothing skipped yet

    url = f"/api/v1/attempts/{attempt['id']}/show-skipped/"
    shown = api.post(url, format="json")
    assert shown.status_code == 200
    body = shown.json()
    assert body["skipped_shown_at"] is not None and body["skipped_count"] == 3
    assert body["items"][0]["skipped_key"] is None  # answered: its result carries the answer
    for item in body["items"][1:]:
        key = item["skipped_key"]
        assert key["explanation"] is not None and key["explanation_html"] is not None
        if item["question"]["kind"] == "choice":
            assert key["correct_option_id"] == correct_handle(item)
        else:
            assert key["correct_value"] is not None and key["answer_shape"] is not None and key["solution"]
    logs = ReviewLog.objects.filter(user=user, attempt_item_id__in=[i["id"] for i in skipped])
    assert sorted(logs.values_list("rating", "source")) == [(1, "api")] * 3
    # the same again: nothing more is recorded, the same attempt comes back
    again = api.post(url, format="json").json()
    assert again["skipped_shown_at"] == body["skipped_shown_at"] and logs.count() == 3
    # a retake's right answer today to a shown question does not move its card
    retake = start(api, quiz_lesson).json()
    item = next(i for i in retake["items"] if i["question"]["id"] == skipped[0]["question"]["id"])
    due = ReviewCard.objects.get(user=user, question_id=item["question"]["id"]).due
    api.post(f"/api/v1/items/{item['id']}/answer/", {"option_id": correct_handle(item)}, format="json")
    assert ReviewLog.objects.get(attempt_item_id=item["id"]).role == "repeat"
    assert ReviewCard.objects.get(user=user, question_id=item["question"]["id"]).due == due


def test_show_skipped_refusals(api, other_api, choice_lesson):
    open_attempt = start(api, choice_lesson).json()
    url = f"/api/v1/attempts/{open_attempt['id']}/show-skipped/"
    assert_error(api.post(url, format="json"), 400, "attempt_unfinished")
    assert not ReviewLog.objects.exists()
    finished = api.post(f"/api/v1/attempts/{open_attempt['id']}/finish/", format="json").json()
    assert_error(other_api.post(f"/api/v1/attempts/{finished['id']}/show-skipped/", format="json"), 404)
    assert_error(api.get(url), 405)
    done = start(api, choice_lesson).json()
    for item in done["items"]:
        api.post(f"/api/v1/items/{item['id']}/answer/", {"option_id": correct_handle(item)}, format="json")
    api.post(f"/api/v1/attempts/{done['id']}/finish/", format="json")
    assert_error(api.post(f"/api/v1/attempts/{done['id']}/show-skipped/", format="json"), 400, "nothing_skipped")
