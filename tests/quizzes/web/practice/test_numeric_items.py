"""Numeric items: MathML prompts, answer grids shaped like the answer, validation, per-cell marks, worked solutions."""

from __future__ import annotations

import pytest
from django.utils.html import escape

from quizzes.core.rendering import value_to_latex
from quizzes.models import Question
from tests import factories
from tests.quizzes.web.practice.conftest import item_url, start

pytestmark = pytest.mark.django_db


@pytest.fixture
def matrix_lesson(lesson):
    factories.NumericQuestionFactory(lesson=lesson, template="causal_masked_weights", order=1)
    return lesson


@pytest.fixture
def numeric_choice_lesson(lesson):
    factories.NumericQuestionFactory(
        lesson=lesson, template="attention_row_weights", params={"is_causal": True}, answer_form="choice", order=1
    )
    return lesson


def _cells(answer):
    if isinstance(answer[0], list):
        return {f"cell_{r}_{c}": str(round(v, 2)) for r, row in enumerate(answer) for c, v in enumerate(row)}
    return {f"cell_{i}": str(round(v, 2)) for i, v in enumerate(answer)}


def test_matrix_question_shows_mathml_and_a_grid_without_the_answer(learner_client, matrix_lesson):
    attempt = start(learner_client, matrix_lesson)
    item = attempt.items.get()
    body = learner_client.get(item_url(attempt, 1)).content.decode()
    assert "<math" in body and "<mtable" in body  # the scores matrix as MathML, no CDN script
    assert "cdn" not in body.lower() and "mathjax" not in body.lower()
    rows, cols = item.variant["answer_shape"]
    for r in range(rows):
        for c in range(cols):
            assert f'name="cell_{r}_{c}"' in body
    # the answer key is nowhere: no answer values, no distractor misconceptions, no solution, no explanation
    answer = item.variant["answer"]
    assert value_to_latex(answer) not in body
    for row in answer:
        for value in row:
            if value not in (0.0, 1.0):
                assert f"{value:.4f}".rstrip("0") not in body
                assert repr(value) not in body
    for choice in item.variant["choices"]:
        if choice["misconception"]:
            assert choice["misconception"] not in body
    assert "Worked solution" not in body
    for step in item.variant["solution"]:
        if step["name"] not in item.variant["prompt"]:
            assert step["name"] not in body
    assert item.question.explanation not in body


def test_empty_and_non_numeric_cells_redisplay_and_keep_the_item_open(learner_client, matrix_lesson):
    attempt = start(learner_client, matrix_lesson)
    item = attempt.items.get()
    data = _cells(item.variant["answer"])
    data["cell_0_0"] = ""
    data["cell_1_1"] = "abc"
    response = learner_client.post(item_url(attempt, 1, "answer"), data)
    body = response.content.decode()
    assert response.status_code == 400
    assert "Fill in every cell" in body and "1 left empty" in body
    assert "“abc” is not a number" in body
    assert f'value="{data["cell_1_0"]}"' in body  # what was typed is kept
    item.refresh_from_db()
    assert not item.is_answered


def test_right_matrix_locks_with_per_cell_marks_and_the_worked_solution(learner_client, matrix_lesson):
    attempt = start(learner_client, matrix_lesson)
    item = attempt.items.get()
    rows, cols = item.variant["answer_shape"]
    data = _cells(item.variant["answer"])
    data[f"cell_{rows - 1}_{cols - 1}"] = "−9"  # one wrong cell, typed with a unicode minus
    response = learner_client.post(item_url(attempt, 1, "answer"), data)
    assert response.status_code == 302
    item.refresh_from_db()
    assert item.is_answered and item.is_correct is False
    body = learner_client.get(item_url(attempt, 1)).content.decode()
    assert body.count("cell--wrong") == 1
    assert body.count("cell--correct") == rows * cols - 1
    assert "Worked solution" in body
    for step in item.variant["solution"]:
        assert step["name"] in body
    assert f"shape ({rows}, {cols})" in body
    assert "Correct value" in body and "<mtable" in body
    # a later submit changes nothing
    again = learner_client.post(item_url(attempt, 1, "answer"), _cells(item.variant["answer"]))
    assert again.status_code == 302
    item.refresh_from_db()
    assert item.is_correct is False


def test_vector_question_has_one_cell_per_element(learner_client, lesson):
    factories.NumericQuestionFactory(lesson=lesson, template="attention_row_weights", order=1)
    attempt = start(learner_client, lesson)
    item = attempt.items.get()
    (length,) = item.variant["answer_shape"]
    body = learner_client.get(item_url(attempt, 1)).content.decode()
    assert body.count('class="cell') == length
    response = learner_client.post(item_url(attempt, 1, "answer"), _cells(item.variant["answer"]))
    assert response.status_code == 302
    item.refresh_from_db()
    assert item.is_correct is True
    body = learner_client.get(item_url(attempt, 1)).content.decode()
    assert f"shape ({length},)" in body and "✓ Correct" in body


def test_numeric_choice_hides_misconceptions_until_a_wrong_pick_reveals_one(learner_client, numeric_choice_lesson):
    attempt = start(learner_client, numeric_choice_lesson)
    item = attempt.items.get()
    assert item.question.answer_form == Question.AnswerForm.CHOICE
    body = learner_client.get(item_url(attempt, 1)).content.decode()
    choices = item.variant["choices"]
    for index, choice in enumerate(choices):
        assert f'name="choice_index" value="{index}"' in body
        assert choice["label_en"] in body
        if choice["misconception"]:
            assert choice["misconception"] not in body
    from attention_engine import misconceptions

    wrong = next(i for i, c in enumerate(choices) if c["misconception"])
    found = misconceptions.get(choices[wrong]["misconception"])
    assert escape(found.title_en) not in body and found.title_en not in body
    response = learner_client.post(item_url(attempt, 1, "answer"), {"choice_index": wrong})
    assert response.status_code == 302
    body = learner_client.get(item_url(attempt, 1)).content.decode()
    assert escape(found.title_en) in body and escape(found.explanation_en) in body  # e.g. "query's" is escaped
    zh = learner_client.get(item_url(attempt, 1), headers={"accept-language": "zh-hans"}).content.decode()
    assert escape(found.title_zh) in zh


def test_numeric_choice_rejects_a_missing_index(learner_client, numeric_choice_lesson):
    attempt = start(learner_client, numeric_choice_lesson)
    assert learner_client.post(item_url(attempt, 1, "answer"), {"choice_index": "x"}).status_code == 400
    assert learner_client.post(item_url(attempt, 1, "answer"), {"choice_index": "99"}).status_code == 400
    assert not attempt.items.get().is_answered
