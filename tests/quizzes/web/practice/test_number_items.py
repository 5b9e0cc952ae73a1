"""Number questions (kind=number) on the quiz pages: one answer box with the unit after it, graded on the
server, the reveal with the correct value and its unit; the end screen teaches a missed one."""

from __future__ import annotations

import pytest
from django.urls import reverse

from tests import factories
from tests.quizzes.web.practice.conftest import item_url, start

pytestmark = pytest.mark.django_db


@pytest.fixture
def number_lesson(lesson):
    factories.NumberQuestionFactory(
        lesson=lesson, order=1, number_answer=3.25, number_tolerance=0.05, number_unit="ms", explanation="一步一步算。"
    )
    return lesson


def test_the_page_shows_one_box_with_the_unit_and_no_answer(learner_client, number_lesson):
    attempt = start(learner_client, number_lesson)
    body = learner_client.get(item_url(attempt, 1)).content.decode()
    assert 'name="value"' in body and 'name="cell_0"' not in body
    assert '<span class="answer-unit">ms</span>' in body
    assert "3.25" not in body and "一步一步算" not in body


def test_a_right_answer_locks_and_reveals_the_value_with_its_unit(learner_client, number_lesson):
    attempt = start(learner_client, number_lesson)
    response = learner_client.post(item_url(attempt, 1, "answer"), {"value": "3.29"}, HTTP_HX_REQUEST="true")
    body = response.content.decode()
    assert response.status_code == 200
    assert "verdict--correct" in body and "一步一步算" in body
    assert "<mn>3.25</mn>" in body and '<span class="answer-unit">ms</span>' in body
    item = attempt.items.get()
    assert item.is_correct is True and item.response == 3.29


def test_a_wrong_answer_is_taught_on_the_end_screen(learner_client, number_lesson):
    attempt = start(learner_client, number_lesson)
    learner_client.post(item_url(attempt, 1, "answer"), {"value": "3.4"})
    learner_client.post(reverse("web:attempt_finish", args=[attempt.pk]))
    body = learner_client.get(reverse("web:attempt_summary", args=[attempt.pk])).content.decode()
    assert "每个头的维度" in body  # the question's own prompt (a number question has no generated one)
    assert "<mn>3.25</mn>" in body and "<mn>3.4</mn>" in body and "一步一步算" in body


def test_a_non_number_is_the_forms_to_report_and_locks_nothing(learner_client, number_lesson):
    attempt = start(learner_client, number_lesson)
    response = learner_client.post(item_url(attempt, 1, "answer"), {"value": "three"})
    assert response.status_code == 400 and "is not a number" in response.content.decode()
    assert not attempt.items.get().is_answered
