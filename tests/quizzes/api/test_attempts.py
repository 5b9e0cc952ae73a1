"""Attempts over the API: start, read, answer (the first answer locks), finish — and no answers before the lock."""

from __future__ import annotations

import pytest

from quizzes.models import AttemptItem, IdempotencyKey, Option, ReviewLog
from tests import factories
from tests.quizzes.api.helpers import answer_leaks, assert_error, strings_in

pytestmark = pytest.mark.django_db


def start(api, lesson, mode="study", **extra):
    return api.post("/api/v1/attempts/", {"lesson_id": lesson.pk, "mode": mode}, format="json", **extra)


def correct_handle(item_json) -> str:
    item = AttemptItem.objects.get(pk=item_json["id"])
    correct = Option.objects.get(question=item.question, is_correct=True)
    from quizzes.practice.presenter import option_handle

    return option_handle(item_id=item.pk, option_id=correct.pk)


def wrong_handle(item_json) -> str:
    right = correct_handle(item_json)
    return next(o["id"] for o in item_json["options"] if o["id"] != right)


def test_start_returns_items_in_attempt_order_with_opaque_option_ids(api, quiz_lesson):
    response = start(api, quiz_lesson)
    assert response.status_code == 201
    attempt = response.json()
    kinds = [item["question"]["kind"] for item in attempt["items"]]
    assert kinds == ["choice", "choice", "choice", "numeric"]  # quiz kinds only, lesson order in study mode
    first = attempt["items"][0]
    db_item = AttemptItem.objects.get(pk=first["id"])
    texts = {o.pk: o.text for o in Option.objects.filter(question=db_item.question)}
    assert [o["text"] for o in first["options"]] == [texts[pk] for pk in db_item.option_order]
    ids = {o["id"] for o in first["options"]}
    assert len(ids) == 4 and not ids & {str(pk) for pk in texts}  # not the database ids


def test_numeric_item_shows_numbers_latex_and_shape_but_no_answer(api, quiz_lesson):
    numeric = start(api, quiz_lesson).json()["items"][3]
    db_item = AttemptItem.objects.get(pk=numeric["id"])
    prompt = numeric["numeric"]
    assert prompt["prompt"] == db_item.variant["prompt"]
    assert [g["name"] for g in prompt["given"]] == list(db_item.variant["given"])
    assert all(g["latex"] for g in prompt["given"])
    assert prompt["expected_shape"] == db_item.variant["answer_shape"]
    assert prompt["choices"] == []  # answer_form=input
    assert numeric["result"] is None and answer_leaks(numeric) == []


def test_numeric_choice_item_shows_labels_only(api, lesson):
    factories.NumericQuestionFactory(lesson=lesson, answer_form="choice")
    item = start(api, lesson).json()["items"][0]
    db_item = AttemptItem.objects.get(pk=item["id"])
    labels = [c["label_zh"] for c in db_item.variant["choices"]]
    assert [c["label"] for c in item["numeric"]["choices"]] == labels
    assert all(set(c) == {"index", "label", "label_en"} for c in item["numeric"]["choices"])
    assert answer_leaks(item) == []


def test_no_answer_data_anywhere_before_the_lock(api, quiz_lesson):
    """Walk every response a client sees before answering: start, read, list, item, lesson content."""
    started = start(api, quiz_lesson).json()
    responses = [
        started,
        api.get(f"/api/v1/attempts/{started['id']}/").json(),
        api.get("/api/v1/attempts/").json(),
        api.get(f"/api/v1/lessons/{quiz_lesson.pk}/").json(),
        api.get("/api/v1/lessons/").json(),
        *[api.get(f"/api/v1/items/{item['id']}/").json() for item in started["items"]],
    ]
    secrets = set()
    for question in quiz_lesson.questions.all():
        secrets |= {question.explanation, question.reference_answer, *question.expected_lines, *question.rubric}
        secrets |= {o.feedback for o in question.options.all()}
    for item in AttemptItem.objects.filter(attempt_id=started["id"]).exclude(variant=None):
        secrets |= {str(item.variant["answer"])}
        secrets |= {c["misconception"] for c in item.variant["choices"] if c["misconception"]}
    secrets.discard("")
    for body in responses:
        assert answer_leaks(body) == [], answer_leaks(body)
        leaked = [s for s in strings_in(body) if any(secret in s for secret in secrets)]
        assert leaked == []


def test_answer_locks_reveals_and_replays(api, choice_lesson):
    item = start(api, choice_lesson).json()["items"][0]
    right = correct_handle(item)
    first = api.post(f"/api/v1/items/{item['id']}/answer/", {"option_id": right, "duration_ms": 4000}, format="json")
    assert first.status_code == 200
    body = first.json()
    assert body["replayed"] is False
    result = body["item"]["result"]
    assert result["correct"] is True and result["score"] == 1.0
    assert result["chosen_option_id"] == right == result["correct_option_id"]
    assert result["explanation"] and result["feedback"]
    assert body["item"]["response"] == {"option_id": right}

    again = api.post(f"/api/v1/items/{item['id']}/answer/", {"option_id": right}, format="json")
    assert again.status_code == 200
    assert again.json()["replayed"] is True and again.json()["item"]["result"] == result
    assert ReviewLog.objects.filter(attempt_item_id=item["id"]).count() == 1

    changed = api.post(f"/api/v1/items/{item['id']}/answer/", {"option_id": wrong_handle(item)}, format="json")
    body = changed.json()
    assert changed.status_code == 409 and body["error"]["code"] == "answer_locked"
    assert body["item"]["result"] == result  # the locked result comes with the conflict
    assert ReviewLog.objects.filter(attempt_item_id=item["id"]).count() == 1


def test_wrong_answer_reveals_correct_option_and_feedback(api, choice_lesson):
    item = start(api, choice_lesson).json()["items"][0]
    wrong = wrong_handle(item)
    result = api.post(f"/api/v1/items/{item['id']}/answer/", {"option_id": wrong}, format="json").json()["item"][
        "result"
    ]
    chosen = Option.objects.get(pk=AttemptItem.objects.get(pk=item["id"]).chosen_option_id)
    assert result["correct"] is False and result["correct_option_id"] == correct_handle(item)
    assert result["feedback"] == chosen.feedback


def test_numeric_answers(api, quiz_lesson):
    numeric = start(api, quiz_lesson).json()["items"][3]
    answer = AttemptItem.objects.get(pk=numeric["id"]).variant["answer"]
    response = api.post(f"/api/v1/items/{numeric['id']}/answer/", {"value": answer}, format="json")
    assert response.status_code == 200
    result = response.json()["item"]["result"]
    assert result["correct"] is True and result["solution"] and result["correct_value"] == answer


def test_answer_validation(api, quiz_lesson):
    items = start(api, quiz_lesson).json()["items"]
    url = f"/api/v1/items/{items[0]['id']}/answer/"
    assert_error(api.post(url, {}, format="json"), 400, "validation_error")
    body = assert_error(api.post(url, {"option_id": "not-an-option"}, format="json"), 400)
    assert "option_id" in body["error"]["fields"]
    # an option id of another item is not one of this item's
    assert_error(api.post(url, {"option_id": items[1]["options"][0]["id"]}, format="json"), 400)
    assert_error(api.post(url, {"option_id": 5}, format="json"), 400)  # wrong JSON type
    assert_error(api.post(url, {"option_id": items[0]["options"][0]["id"], "duration_ms": -1}, format="json"), 400)
    numeric_url = f"/api/v1/items/{items[3]['id']}/answer/"
    assert "value" in assert_error(api.post(numeric_url, {}, format="json"), 400)["error"]["fields"]
    assert "value" in assert_error(api.post(numeric_url, {"value": {"a": 1}}, format="json"), 400)["error"]["fields"]
    assert "value" in assert_error(api.post(numeric_url, {"value": True}, format="json"), 400)["error"]["fields"]
    assert not AttemptItem.objects.filter(answered_at__isnull=False).exists()


def test_server_owned_fields_in_the_answer_are_ignored(api, choice_lesson):
    item = start(api, choice_lesson).json()["items"][0]
    body = {"option_id": wrong_handle(item), "correct": True, "is_correct": True, "score": 1.0, "user": 999}
    result = api.post(f"/api/v1/items/{item['id']}/answer/", body, format="json").json()["item"]["result"]
    assert result["correct"] is False and result["score"] == 0.0
    stored = AttemptItem.objects.get(pk=item["id"])
    assert stored.is_correct is False and stored.score == 0.0


def test_read_attempt_shows_results_of_locked_items_only(api, choice_lesson):
    started = start(api, choice_lesson).json()
    item = started["items"][0]
    api.post(f"/api/v1/items/{item['id']}/answer/", {"option_id": correct_handle(item)}, format="json")
    read = api.get(f"/api/v1/attempts/{started['id']}/").json()
    assert read["items"][0]["result"]["correct"] is True
    assert read["items"][1]["result"] is None and answer_leaks(read["items"][1]) == []
    assert read["answered_count"] == 1 and read["score"] == 0.5


def test_finish(api, choice_lesson):
    started = start(api, choice_lesson).json()
    finished = api.post(f"/api/v1/attempts/{started['id']}/finish/", format="json")
    assert finished.status_code == 200 and finished.json()["finished_at"]
    again = api.post(f"/api/v1/attempts/{started['id']}/finish/", format="json")
    assert again.json()["finished_at"] == finished.json()["finished_at"]
    item = started["items"][0]
    response = api.post(f"/api/v1/items/{item['id']}/answer/", {"option_id": item["options"][0]["id"]}, format="json")
    assert_error(response, 400, "attempt_finished")


def test_retake_reshuffles(api, choice_lesson):
    """Each attempt draws its own order, uniformly: six retakes all alike would mean no shuffle (p = 24**-5)."""
    order = lambda item: tuple(o["text"] for o in item["options"])  # noqa: E731
    orders = {order(start(api, choice_lesson).json()["items"][0]) for _ in range(6)}
    assert len(orders) >= 2 and len({tuple(sorted(o)) for o in orders}) == 1


def test_review_mode_needs_due_questions(api, choice_lesson):
    assert_error(start(api, choice_lesson, mode="review"), 400, "nothing_due")


def test_start_validation(api, lesson):
    assert_error(api.post("/api/v1/attempts/", {"lesson_id": 999999}, format="json"), 400)
    assert_error(api.post("/api/v1/attempts/", {"lesson_id": "1"}, format="json"), 400)
    assert_error(api.post("/api/v1/attempts/", {"lesson_id": lesson.pk, "mode": "exam"}, format="json"), 400)
    unpublished = factories.LessonFactory(published=False)
    assert_error(api.post("/api/v1/attempts/", {"lesson_id": unpublished.pk}, format="json"), 400)
    assert_error(api.post("/api/v1/attempts/", {"lesson_id": lesson.pk}, format="json"), 400, "no_questions")


def test_another_learners_attempt_and_items_are_not_found(api, other_api, choice_lesson):
    theirs = start(other_api, choice_lesson).json()
    item = theirs["items"][0]
    assert_error(api.get(f"/api/v1/attempts/{theirs['id']}/"), 404, "not_found")
    assert_error(api.post(f"/api/v1/attempts/{theirs['id']}/finish/", format="json"), 404)
    assert_error(api.get(f"/api/v1/items/{item['id']}/"), 404)
    assert_error(
        api.post(f"/api/v1/items/{item['id']}/answer/", {"option_id": item["options"][0]["id"]}, format="json"), 404
    )
    assert AttemptItem.objects.get(pk=item["id"]).answered_at is None
    mine = start(api, choice_lesson).json()
    listed = api.get("/api/v1/attempts/").json()
    assert [a["id"] for a in listed["results"]] == [mine["id"]] and listed["count"] == 1


def test_attempt_list_pages(api, choice_lesson):
    ids = [start(api, choice_lesson).json()["id"] for _ in range(3)]
    page = api.get("/api/v1/attempts/?page=2&page_size=2").json()
    assert page["count"] == 3 and [a["id"] for a in page["results"]] == [ids[0]]
    assert_error(api.get("/api/v1/attempts/?page=0"), 400)
    assert_error(api.get("/api/v1/attempts/?page_size=1000"), 400)


def test_idempotent_start(api, choice_lesson):
    key = {"HTTP_IDEMPOTENCY_KEY": "start-1"}
    first = start(api, choice_lesson, **key)
    again = start(api, choice_lesson, **key)
    assert first.status_code == again.status_code == 201
    assert again.json() == first.json() and again.headers["Idempotent-Replayed"] == "true"
    assert choice_lesson.attempts.count() == 1
    other = start(api, choice_lesson, mode="review", **key)
    assert_error(other, 422, "idempotency_key_reused")
    assert choice_lesson.attempts.count() == 1
    assert IdempotencyKey.objects.count() == 1


def test_idempotent_answer_replays_the_first_response(api, choice_lesson):
    item = start(api, choice_lesson).json()["items"][0]
    key = {"HTTP_IDEMPOTENCY_KEY": "answer-1"}
    url = f"/api/v1/items/{item['id']}/answer/"
    first = api.post(url, {"option_id": correct_handle(item)}, format="json", **key)
    again = api.post(url, {"option_id": correct_handle(item)}, format="json", **key)
    assert again.json() == first.json() and again.json()["replayed"] is False
    assert_error(api.post(url, {"option_id": wrong_handle(item)}, format="json", **key), 422)


def test_failed_requests_do_not_use_up_the_key(api, lesson):
    key = {"HTTP_IDEMPOTENCY_KEY": "k"}
    assert_error(api.post("/api/v1/attempts/", {"lesson_id": lesson.pk}, format="json", **key), 400)
    factories.ChoiceQuestionFactory(lesson=lesson)
    assert api.post("/api/v1/attempts/", {"lesson_id": lesson.pk}, format="json", **key).status_code == 201


def test_idempotency_keys_are_per_learner(api, other_api, choice_lesson):
    key = {"HTTP_IDEMPOTENCY_KEY": "same"}
    assert start(api, choice_lesson, **key).status_code == 201
    assert start(other_api, choice_lesson, **key).status_code == 201
    assert choice_lesson.attempts.count() == 2


def test_overlong_idempotency_key(api, choice_lesson):
    assert_error(start(api, choice_lesson, HTTP_IDEMPOTENCY_KEY="x" * 256), 400, "invalid_idempotency_key")
