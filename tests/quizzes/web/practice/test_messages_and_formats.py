"""What the item and summary pages say about a numeric answer, in the learner's language; retired options.

Grading messages are stored as a code + params and worded at display time (quizzes.grade_messages);
how to type an answer (``answer_format``) is shown only when the learner types it.
"""

from __future__ import annotations

import html

import pytest
from django.urls import reverse

from quizzes.models import AttemptItem
from quizzes.practice.services import attempt_finish, item_answer
from tests import factories
from tests.quizzes.versioned import NAME, V2_ANSWER_FORMAT
from tests.quizzes.web.practice.conftest import item_url, start

pytestmark = pytest.mark.django_db


def page(client, url: str, language: str = "en") -> str:
    return html.unescape(client.get(url, headers={"accept-language": language}).content.decode())


def answered(client, user, lesson, value) -> tuple:
    attempt = start(client, lesson)
    item = attempt.items.get()
    item_answer(user=user, item=item, value=value)
    return attempt, AttemptItem.objects.get(pk=item.pk)


@pytest.fixture
def vector_lesson(lesson):
    factories.NumericQuestionFactory(
        lesson=lesson, template="attention_row_weights", params={"T": 3}, template_version=1, order=1
    )
    return lesson


@pytest.fixture
def matrix_lesson(lesson):
    factories.NumericQuestionFactory(
        lesson=lesson, template="causal_masked_weights", params={"T": 3}, template_version=1, order=1
    )
    return lesson


def test_partly_correct_values_in_english_and_chinese(learner_client, user, vector_lesson):
    attempt = start(learner_client, vector_lesson)
    item = attempt.items.get()
    answer = item.variant["answer"]
    item_answer(user=user, item=item, value=[answer[0], answer[1], answer[2] + 0.5])
    item.refresh_from_db()
    assert (item.result["message_code"], item.result["message_params"]) == (
        "partly_correct",
        {"correct": 2, "total": 3, "unit": "values"},
    )
    assert item.result["message"] == "2 of 3 values correct"  # the engine's English, stored as before
    assert "— 2 of 3 values correct" in page(learner_client, item_url(attempt, 1))
    assert "— 3 个数中有 2 个正确" in page(learner_client, item_url(attempt, 1), "zh-hans")


def test_partly_correct_rows(learner_client, user, matrix_lesson):
    attempt = start(learner_client, matrix_lesson)
    item = attempt.items.get()
    rows = [list(row) for row in item.variant["answer"]]
    rows[0][0] += 0.5
    item_answer(user=user, item=item, value=rows)
    assert "2 of 3 rows correct" in page(learner_client, item_url(attempt, 1))
    assert "3 行中有 2 行正确" in page(learner_client, item_url(attempt, 1), "zh-hans")


@pytest.mark.parametrize(
    ("value", "english", "chinese"),
    [
        ("0.5", "expected 3 values, got 1 value", "应为 3 个数，你写了 1 个数"),
        ("0.1, 0.2; 0.3, 0.4", "expected 3 values, got a 2×2 matrix", "应为 3 个数，你写了 2×2 的矩阵"),
        ("x, 0.2, 0.3", "could not read 'x' as a number; expected 3 values", "无法把“x”读成数字；应为 3 个数"),
        ("1e999, 0, 0", "'1e999' is not a number that can be graded", "“1e999”不是可以评分的数"),
    ],
)
def test_wrong_answers_are_explained_in_both_languages(learner_client, user, vector_lesson, value, english, chinese):
    attempt, item = answered(learner_client, user, vector_lesson, value)
    assert item.result["message_code"] in {"wrong_shape", "unreadable", "not_finite"}
    assert english in page(learner_client, item_url(attempt, 1))
    assert chinese in page(learner_client, item_url(attempt, 1), "zh-hans")


def test_a_result_stored_before_message_codes_shows_its_stored_message(learner_client, user, vector_lesson):
    attempt, item = answered(learner_client, user, vector_lesson, "0.5")
    legacy = {k: v for k, v in item.result.items() if k not in ("message_code", "message_params")}
    legacy["message"] = "expected 3 values, got 1 value (stored)"
    AttemptItem.objects.filter(pk=item.pk).update(result=legacy)
    assert "expected 3 values, got 1 value (stored)" in page(learner_client, item_url(attempt, 1), "zh-hans")


def test_the_summary_explains_what_was_missed_in_the_learners_language(learner_client, user, vector_lesson):
    attempt, _item = answered(learner_client, user, vector_lesson, "0.5")
    attempt_finish(user=user, attempt=attempt)
    url = reverse("web:attempt_summary", args=[attempt.pk])
    assert "expected 3 values, got 1 value" in page(learner_client, url)
    assert "应为 3 个数，你写了 1 个数" in page(learner_client, url, "zh-hans")


# --------------------------------------------------------------------------- how to type the answer


def test_answer_format_is_shown_under_the_prompt_when_the_learner_types(learner_client, lesson, versioned_template):
    factories.NumericQuestionFactory(lesson=lesson, template=NAME, answer_form="input")
    attempt = start(learner_client, lesson)
    assert attempt.items.get().variant["answer_format"] == V2_ANSWER_FORMAT
    body = page(learner_client, item_url(attempt, 1))
    assert 'class="answer-format' in body and V2_ANSWER_FORMAT in body


def test_answer_format_is_not_shown_beside_choices(learner_client, lesson, versioned_template):
    factories.NumericQuestionFactory(lesson=lesson, template=NAME, answer_form="choice")
    attempt = start(learner_client, lesson)
    assert attempt.items.get().variant["answer_format"] == V2_ANSWER_FORMAT  # stored with the variant …
    body = page(learner_client, item_url(attempt, 1))
    assert V2_ANSWER_FORMAT not in body and 'class="answer-format' not in body  # … but never shown with choices


def test_variants_without_answer_format_show_none(learner_client, vector_lesson):
    attempt = start(learner_client, vector_lesson)
    assert "answer_format" not in attempt.items.get().variant  # a v1 variant: its prompt says it
    assert 'class="answer-format' not in page(learner_client, item_url(attempt, 1))


# --------------------------------------------------------------------------- retired options


def test_an_old_attempt_still_shows_an_option_retired_since(learner_client, user, lesson):
    question = factories.ChoiceQuestionFactory(lesson=lesson, options=3)
    old = start(learner_client, lesson)
    retired = question.options.order_by("order").last()
    retired.retired = True
    retired.save()
    assert retired.text in page(learner_client, item_url(old, 1))
    new = start(learner_client, lesson)
    assert retired.text not in page(learner_client, item_url(new, 1))
