"""The lesson list and the lesson page (summary, quiz start/retake, attempts, practice links)."""

from __future__ import annotations

import pytest
from django.urls import reverse

from quizzes.practice.services.answers import item_answer
from quizzes.practice.services.attempts import attempt_start
from tests import factories

pytestmark = pytest.mark.django_db


def test_lesson_list_in_order_without_drafts(client):
    first = factories.LessonFactory(title="缩放点积注意力", order=1)
    factories.ChoiceQuestionFactory(lesson=first)
    factories.PromptQuestionFactory(lesson=first)
    factories.ChoiceQuestionFactory(lesson=first, published=False)
    second = factories.LessonFactory(title="六个问题", order=2)
    factories.ChoiceQuestionFactory(lesson=second)
    factories.LessonFactory(title="草稿课程", published=False)

    body = client.get(reverse("web:lesson_list")).content.decode()
    assert body.index("缩放点积注意力") < body.index("六个问题")
    assert "草稿课程" not in body
    assert "(2 questions)" in body
    assert "(1 question)" in body
    assert reverse("web:lesson_detail", args=[first.key]) in body


def test_lesson_list_speaks_chinese_when_asked(client):
    factories.LessonFactory()
    response = client.get(reverse("web:lesson_list"), headers={"accept-language": "zh-hans"})
    assert response.status_code == 200
    assert "课程" in response.content.decode()
    assert '<html lang="zh-hans">' in response.content.decode()


def test_empty_lesson_list(client):
    response = client.get(reverse("web:lesson_list"))
    assert "No lessons are published yet." in response.content.decode()


def test_lesson_list_shows_a_learners_progress(learner_client, sdpa_lesson):
    body = learner_client.get(reverse("web:lesson_list")).content.decode()
    assert "Studied 0 of 4" in body


def test_lesson_page_for_a_visitor(client, sdpa_lesson):
    response = client.get(reverse("web:lesson_detail", args=["sdpa"]))
    assert response.status_code == 200
    body = response.content.decode()
    assert "<math" in body  # the summary's $\sqrt{d_k}$ became MathML
    assert "Log in to start the quiz" in body
    assert reverse("web:attempt_start", args=["sdpa"]) not in body


def test_lesson_page_start_then_retake(learner_client, learner, sdpa_lesson):
    url = reverse("web:lesson_detail", args=["sdpa"])
    body = learner_client.get(url).content.decode()
    assert f'action="{reverse("web:attempt_start", args=["sdpa"])}"' in body
    assert "Start quiz" in body
    assert "Retake" not in body

    attempt = attempt_start(user=learner, lesson=sdpa_lesson)
    first = attempt.items.order_by("position").first()
    correct = first.question.options.get(is_correct=True)
    item_answer(user=learner, item=first, option_id=correct.pk)

    body = learner_client.get(url).content.decode()
    assert "Retake" in body
    assert "Start quiz" not in body
    assert "1 / 2 (50%)" in body  # one of two answered correctly
    assert reverse("web:attempt_resume", args=[attempt.pk]) in body


def test_lesson_page_shows_only_my_attempts(learner_client, other_user, sdpa_lesson):
    theirs = attempt_start(user=other_user, lesson=sdpa_lesson)
    body = learner_client.get(reverse("web:lesson_detail", args=["sdpa"])).content.decode()
    assert "Your attempts" not in body
    assert reverse("web:attempt_resume", args=[theirs.pk]) not in body


def test_lesson_page_links_the_interview_prompts_and_recall_card(learner_client, sdpa_lesson):
    body = learner_client.get(reverse("web:lesson_detail", args=["sdpa"])).content.decode()
    assert reverse("web:interview_prompt", args=["l1-interview-why-scale"]) in body
    assert reverse("web:recall_card", args=["l1-recall-three-lines"]) in body
    assert "为什么要除以根号 d_k？" in body


def test_the_demo_is_on_lesson_one_only(client, sdpa_lesson):
    other = factories.LessonFactory(key="six-questions")
    assert 'id="demo-matrix"' in client.get(reverse("web:lesson_detail", args=["sdpa"])).content.decode()
    assert 'id="demo-matrix"' not in client.get(reverse("web:lesson_detail", args=[other.key])).content.decode()


@pytest.mark.parametrize("key", ["no-such-lesson", "draft"])
def test_unknown_or_draft_lesson_is_404(client, key):
    factories.LessonFactory(key="draft", published=False)
    response = client.get(reverse("web:lesson_detail", args=[key]))
    assert response.status_code == 404
    assert "Page not found" in response.content.decode()


def test_an_attempt_without_answers_shows_no_score(learner_client, learner, sdpa_lesson):
    attempt_start(user=learner, lesson=sdpa_lesson)
    body = learner_client.get(reverse("web:lesson_detail", args=["sdpa"])).content.decode()
    assert "0 / 2 (–)" in body and "(0%)" not in body
