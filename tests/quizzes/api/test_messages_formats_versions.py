"""API: grading messages in the request's language, answer_format for typed answers only, retired options,
template versions in the staff preview."""

from __future__ import annotations

import pytest

from quizzes.models import AttemptItem
from tests import factories
from tests.quizzes.api.helpers import answer_leaks, assert_error
from tests.quizzes.versioned import NAME, V2_ANSWER_FORMAT, v1_answer, v2_answer

pytestmark = pytest.mark.django_db


def start(api, lesson) -> dict:
    response = api.post("/api/v1/attempts/", {"lesson_id": lesson.pk}, format="json")
    assert response.status_code == 201, response.content
    return response.json()


@pytest.fixture
def vector_lesson(lesson):
    factories.NumericQuestionFactory(
        lesson=lesson, template="attention_row_weights", params={"T": 3}, template_version=1, order=1
    )
    return lesson


def test_answer_result_carries_code_params_and_the_message_in_the_requests_language(api, vector_lesson):
    (item,) = start(api, vector_lesson)["items"]
    url = f"/api/v1/items/{item['id']}/answer/"
    result = api.post(url, {"value": "0.1, 0.2"}, format="json", HTTP_ACCEPT_LANGUAGE="zh-hans").json()["item"][
        "result"
    ]
    assert result["message_code"] == "wrong_shape"
    assert result["message_params"] == {"expected": [3], "got": [2]}
    assert result["message"] == "expected 3 values, got 2 values"  # stored, English
    assert result["message_display"] == "应为 3 个数，你写了 2 个数"
    english = api.get(f"/api/v1/items/{item['id']}/", HTTP_ACCEPT_LANGUAGE="en").json()["result"]
    assert english["message_display"] == "expected 3 values, got 2 values"
    chinese = api.get(f"/api/v1/attempts/{item['attempt_id']}/", HTTP_ACCEPT_LANGUAGE="zh-hans").json()
    assert chinese["items"][0]["result"]["message_display"] == "应为 3 个数，你写了 2 个数"


def test_partly_correct_in_both_languages(api, vector_lesson):
    (item,) = start(api, vector_lesson)["items"]
    answer = AttemptItem.objects.get(pk=item["id"]).variant["answer"]
    api.post(f"/api/v1/items/{item['id']}/answer/", {"value": [answer[0], answer[1] + 1, answer[2]]}, format="json")
    en = api.get(f"/api/v1/items/{item['id']}/").json()["result"]
    zh = api.get(f"/api/v1/items/{item['id']}/", HTTP_ACCEPT_LANGUAGE="zh-hans").json()["result"]
    assert en["message_params"] == {"correct": 2, "total": 3, "unit": "values"}
    assert (en["message_display"], zh["message_display"]) == ("2 of 3 values correct", "3 个数中有 2 个正确")


def test_a_result_stored_before_codes_shows_its_stored_message(api, vector_lesson):
    (item,) = start(api, vector_lesson)["items"]
    api.post(f"/api/v1/items/{item['id']}/answer/", {"value": "0.5"}, format="json")
    stored = AttemptItem.objects.get(pk=item["id"]).result
    legacy = {k: v for k, v in stored.items() if k not in ("message_code", "message_params")}
    AttemptItem.objects.filter(pk=item["id"]).update(result={**legacy, "message": "old words"})
    result = api.get(f"/api/v1/items/{item['id']}/", HTTP_ACCEPT_LANGUAGE="zh-hans").json()["result"]
    assert "message_code" not in result and "message_params" not in result
    assert (result["message"], result["message_display"]) == ("old words", "old words")


def test_choice_results_have_no_grading_message(api, choice_question):
    (item,) = start(api, choice_question.lesson)["items"]
    result = api.post(
        f"/api/v1/items/{item['id']}/answer/", {"option_id": item["options"][0]["id"]}, format="json"
    ).json()["item"]["result"]
    assert not {"message", "message_code", "message_params", "message_display"} & set(result)


# --------------------------------------------------------------------------- answer_format


@pytest.mark.parametrize(("answer_form", "shown"), [("input", V2_ANSWER_FORMAT), ("choice", "")])
def test_answer_format_only_for_typed_answers(api, lesson, versioned_template, answer_form, shown):
    factories.NumericQuestionFactory(lesson=lesson, template=NAME, answer_form=answer_form)
    (item,) = start(api, lesson)["items"]
    assert item["numeric"]["answer_format"] == shown
    assert answer_leaks(item) == []


def test_answer_format_is_empty_for_variants_whose_prompt_says_it(api, vector_lesson):
    (item,) = start(api, vector_lesson)["items"]
    assert item["numeric"]["answer_format"] == ""


# --------------------------------------------------------------------------- retired options


def test_retired_options_leave_lesson_content_but_stay_in_old_attempts(api, choice_question):
    (old,) = start(api, choice_question.lesson)["items"]
    retired = choice_question.options.get(key=f"{choice_question.key}-c")
    retired.retired = True
    retired.save()

    detail = api.get(f"/api/v1/lessons/{choice_question.lesson_id}/").json()
    assert retired.text not in {o["text"] for o in detail["questions"][0]["options"]}
    assert len(detail["questions"][0]["options"]) == 3
    old_item = api.get(f"/api/v1/items/{old['id']}/").json()
    assert retired.text in {o["text"] for o in old_item["options"]} and len(old_item["options"]) == 4
    (new,) = start(api, choice_question.lesson)["items"]
    assert retired.text not in {o["text"] for o in new["options"]} and len(new["options"]) == 3


# --------------------------------------------------------------------------- the staff preview


def given(preview: dict) -> dict:
    """The preview's given numbers in the shape of a stored variant (what v1_answer and v2_answer read)."""
    return {"given": {g["name"]: g["value"] for g in preview["given"]}}


def test_variant_preview_takes_a_version(staff_api, versioned_template):
    url = "/api/v1/engine/preview/"
    v1 = staff_api.post(url, {"template": NAME, "seed": 2, "version": 1}, format="json").json()
    v2 = staff_api.post(url, {"template": NAME, "seed": 2}, format="json").json()
    assert (v1["version"], v2["version"]) == (1, 2)
    assert v1["answer"] == v1_answer(given(v1)) and v2["answer"] == v2_answer(given(v2))
    assert (v1["answer_format"], v2["answer_format"]) == ("", V2_ANSWER_FORMAT)
    body = assert_error(staff_api.post(url, {"template": NAME, "version": 3}, format="json"), 400, "validation_error")
    assert body["error"]["fields"] == {"version": ["Known versions of test_versioned: 1, 2."]}
    assert_error(staff_api.post(url, {"template": NAME, "version": "1"}, format="json"), 400)
