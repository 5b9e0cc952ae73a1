"""Authoring the teaching text in the admin (issue 14): the same YAML as the lesson file, the same rules as
load_lessons, and a rendered preview on the lesson's change form."""

from __future__ import annotations

import html

import pytest
import yaml
from django.urls import reverse

from quizzes.content.teaching import parse_teaching
from quizzes.models import Lesson
from tests import factories

pytestmark = pytest.mark.django_db

SECTIONS = [
    {"key": "idea", "title": "一句话模型", "body": "注意力是**加权平均**：\n$QK^\\top$ 打分。", "figure": "five_steps"},
    {
        "key": "mask",
        "title": "因果掩码",
        "body": "填 $-\\infty$。",
        "checkpoint": {
            "prompt": "挡住几个格子？",
            "explanation": "对角线右上方三个。",
            "options": [
                {"key": "a", "text": "3", "correct": True, "feedback": "对。"},
                {"key": "b", "text": "6", "feedback": "那是留下的。"},
            ],
        },
    },
]


@pytest.fixture
def lesson():
    sections, problems = parse_teaching(SECTIONS)
    assert not problems
    return factories.LessonFactory(key="teach", teaching=sections)


def _post_data(lesson, teaching_text: str) -> dict:
    return {
        "key": lesson.key,
        "title": lesson.title,
        "order": lesson.order,
        "published": "on",
        "summary": "",
        "teaching": teaching_text,
        "questions-TOTAL_FORMS": "0",
        "questions-INITIAL_FORMS": "0",
        "questions-MIN_NUM_FORMS": "0",
        "questions-MAX_NUM_FORMS": "1000",
        "_continue": "Save and continue editing",
    }


def _url(lesson) -> str:
    return reverse("admin:quizzes_lesson_change", args=[lesson.pk])


def test_change_form_shows_the_yaml_and_a_rendered_preview(admin_client, lesson):
    page = admin_client.get(_url(lesson))
    assert page.status_code == 200
    text = page.content.decode()
    textarea = html.unescape(text.split('name="teaching"')[1].split(">", 1)[1].split("</textarea>")[0])
    assert yaml.safe_load(textarea)[0] == {k: v for k, v in SECTIONS[0].items()}  # the author's YAML
    preview = text.split("data-teaching-preview")[1]
    assert "<strong>加权平均</strong>" in preview and "<math" in preview  # Markdown and math rendered
    assert 'role="img"' in preview  # the five-steps picture
    assert "qz-correct" in preview and "对角线右上方三个。" in preview  # the checkpoint's key for the author


def test_editing_the_yaml_saves_the_teaching_text(admin_client, lesson):
    authored = yaml.safe_load(
        html.unescape(admin_client.get(_url(lesson)).content.decode().split('name="teaching"')[1])
        .split(">", 1)[1]
        .split("</textarea>")[0]
    )
    authored[0]["body"] = "注意力是**加权平均**，权重来自 softmax。"
    response = admin_client.post(_url(lesson), _post_data(lesson, yaml.safe_dump(authored, allow_unicode=True)))
    assert response.status_code == 302
    lesson.refresh_from_db()
    assert lesson.teaching[0]["body"] == "注意力是**加权平均**，权重来自 softmax。"
    assert lesson.teaching[1]["checkpoint"]["options"][0]["correct"] is True
    assert "权重来自 softmax" in admin_client.get(_url(lesson)).content.decode().split("data-teaching-preview")[1]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("- key: idea\n  title: [unclosed\n", "Not valid YAML: line"),
        ("- key: idea\n  title: 标题\n  body: 正文\n  figure: pie\n", "section 'idea': 'figure' must be one of"),
        (
            "- key: m\n  title: t\n  body: b\n  checkpoint:\n    prompt: p\n    explanation: e\n    options:\n"
            "      - {key: a, text: x, correct: true}\n      - {key: b, text: y, correct: true}\n",
            "exactly one correct option (found 2)",
        ),
    ],
)
def test_bad_teaching_is_refused_with_a_located_message(admin_client, lesson, text, message):
    before = Lesson.objects.get(pk=lesson.pk).teaching
    response = admin_client.post(_url(lesson), _post_data(lesson, text))
    assert response.status_code == 200
    assert message in html.unescape(response.content.decode())
    assert Lesson.objects.get(pk=lesson.pk).teaching == before
