"""Number questions (kind=number: one literal answer, a tolerance, a unit) over the API: shown without the
answer, graded on the server by the numeric grader's number grammar, the unit optional after the number."""

from __future__ import annotations

import pytest

from quizzes.models import AttemptItem, ReviewLog
from tests import factories
from tests.quizzes.api.helpers import answer_leaks, strings_in

pytestmark = pytest.mark.django_db


@pytest.fixture
def number_lesson(lesson):
    factories.NumberQuestionFactory(
        lesson=lesson, order=1, number_answer=0.55, number_tolerance=0.01, number_unit="MiB", explanation="因为 1−0.45"
    )
    return lesson


def _start(api, lesson) -> dict:
    response = api.post("/api/v1/attempts/", {"lesson_id": lesson.pk}, format="json")
    assert response.status_code == 201, response.content
    return response.json()["items"][0]


def _answer(api, item: dict, value) -> dict:
    response = api.post(f"/api/v1/items/{item['id']}/answer/", {"value": value}, format="json")
    assert response.status_code == 200, response.content
    return response.json()["item"]


def test_a_number_item_shows_its_prompt_and_unit_but_no_answer(api, number_lesson):
    item = _start(api, number_lesson)
    assert item["question"]["kind"] == "number"
    assert item["numeric"]["unit"] == "MiB" and item["numeric"]["expected_shape"] == []
    assert item["numeric"]["prompt"] == "" and item["numeric"]["given"] == [] and item["numeric"]["choices"] == []
    assert answer_leaks(item) == []
    assert not [s for s in strings_in(item) if "0.55" in s or "1−0.45" in s]
    assert AttemptItem.objects.get(pk=item["id"]).variant is None  # nothing generated: the answer is the question's


@pytest.mark.parametrize(("typed", "stored"), [(0.55, 0.55), (0.56, 0.56), ("0.545", "0.545"), ("0.55 MiB", "0.55")])
def test_within_the_tolerance_in_the_numeric_grammar_is_right(api, number_lesson, typed, stored):
    item = _answer(api, _start(api, number_lesson), typed)
    result = item["result"]
    assert result["kind"] == "number" and result["correct"] is True and result["score"] == 1.0
    assert result["correct_value"] == 0.55 and result["tolerance"] == 0.01 and result["unit"] == "MiB"
    assert result["explanation"] == "因为 1−0.45" and result["message_code"] == "correct"
    assert item["response"]["value"] == stored  # the unit typed after the number is not kept


@pytest.mark.parametrize(
    ("typed", "code"),
    [
        ("0.55 0.45", "wrong_shape"),  # not one number: read as a list, two values where one is expected
        ([0.55, 0.45], "wrong_shape"),  # a list of two where one is expected
        ("0.55 ms", "unreadable"),  # another unit is not this question's
        ("zero point five", "unreadable"),
        ("1e400", "not_finite"),
    ],
)
def test_other_input_is_a_wrong_answer_that_says_why(api, number_lesson, typed, code):
    result = _answer(api, _start(api, number_lesson), typed)["result"]
    assert result["correct"] is False and result["message_code"] == code
    assert result["message_display"]


def test_outside_the_tolerance_is_wrong_and_locks(api, number_lesson):
    item = _start(api, number_lesson)
    result = _answer(api, item, 0.57)["result"]
    assert result["correct"] is False and result["message_code"] == "incorrect"
    again = api.post(f"/api/v1/items/{item['id']}/answer/", {"value": 0.55}, format="json")
    assert again.status_code == 409  # the first answer locked the item
    assert ReviewLog.objects.filter(attempt_item_id=item["id"]).count() == 1


@pytest.mark.parametrize("typed", ["0,55", "55%", "0,55 MiB"])
def test_an_ambiguous_number_is_refused_with_its_reason_and_locks_nothing(api, number_lesson, typed):
    item = _start(api, number_lesson)
    response = api.post(f"/api/v1/items/{item['id']}/answer/", {"value": typed}, format="json")
    assert response.status_code == 400
    assert "ambiguous" in str(response.json()["error"]["fields"]["value"])
    assert not AttemptItem.objects.get(pk=item["id"]).is_answered


def test_a_missing_value_is_refused_and_locks_nothing(api, number_lesson):
    item = _start(api, number_lesson)
    response = api.post(f"/api/v1/items/{item['id']}/answer/", {}, format="json")
    assert response.status_code == 400
    assert not AttemptItem.objects.get(pk=item["id"]).is_answered
