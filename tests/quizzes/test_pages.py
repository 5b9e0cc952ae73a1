"""The public lesson list at /lessons/ (the learner pages themselves are tested in tests/web_core)."""

import pytest
from django.urls import reverse

from tests import factories

pytestmark = pytest.mark.django_db


def test_lesson_list_shows_published_lessons_with_question_counts(client):
    first = factories.LessonFactory(title="缩放点积注意力", order=1)
    factories.ChoiceQuestionFactory(lesson=first)
    factories.PromptQuestionFactory(lesson=first)
    factories.ChoiceQuestionFactory(lesson=first, published=False)
    second = factories.LessonFactory(title="六个问题", order=2)
    factories.ChoiceQuestionFactory(lesson=second)
    factories.LessonFactory(title="草稿课程", published=False)

    response = client.get(reverse("web:lesson_list"))

    assert response.status_code == 200
    body = response.content.decode()
    assert body.index("缩放点积注意力") < body.index("六个问题")
    assert "草稿课程" not in body
    assert "2 questions" in body
    assert "1 question)" in body


def test_lesson_list_speaks_chinese_when_asked(client):
    factories.LessonFactory()
    response = client.get(reverse("web:lesson_list"), headers={"accept-language": "zh-hans"})
    assert response.status_code == 200
    assert "课程" in response.content.decode()
    assert '<html lang="zh-hans">' in response.content.decode()


def test_empty_lesson_list(client):
    response = client.get(reverse("web:lesson_list"))
    assert "No lessons are published yet." in response.content.decode()
