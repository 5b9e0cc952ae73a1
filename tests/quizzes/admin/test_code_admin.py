"""Authoring code questions in the admin (issue 15): a built-in key or a whole spec, checked on save with
messages that say why; the preview shows the editor's parts and the answer key."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse

from attention_engine import codecheck
from quizzes.models import Question
from tests import factories
from tests.quizzes.admin.test_content_admin import ADD, page_text, question_post

pytestmark = pytest.mark.django_db


def test_a_code_question_on_a_built_in_spec_is_saved(admin_client, lesson):
    data = question_post(lesson, kind="code", code_spec="stable_softmax", replaces_key="old-recall-card")
    response = admin_client.post(reverse(ADD), data)
    assert response.status_code == 302, page_text(response)[:3000]
    saved = Question.objects.get(key="admin-q")
    assert (saved.kind, saved.code_spec, saved.replaces_key) == ("code", "stable_softmax", "old-recall-card")


def test_an_unknown_key_is_refused_naming_the_known_ones(admin_client, lesson):
    response = admin_client.post(reverse(ADD), question_post(lesson, kind="code", code_spec="no_such_spec"))
    text = page_text(response)
    assert response.status_code == 200
    assert "no_such_spec" in text and "sdpa_three_lines" in text
    assert not Question.objects.filter(key="admin-q").exists()


def test_a_code_question_needs_a_spec_and_other_kinds_may_not_have_one(admin_client, lesson):
    response = admin_client.post(reverse(ADD), question_post(lesson, kind="code"))
    assert "A code question needs a code spec" in page_text(response)
    choice = question_post(lesson, code_spec="stable_softmax", options=[("a", True), ("b", False)])
    assert "Only code questions have a code spec." in page_text(admin_client.post(reverse(ADD), choice))
    assert not Question.objects.filter(key="admin-q").exists()


def test_a_whole_spec_is_checked_and_a_misconception_that_is_not_a_bug_is_refused(admin_client, lesson):
    spec = codecheck.get("stable_softmax").to_dict()
    spec["key"] = "my_softmax"
    spec["misconceptions"] = [{"id": "missing_keepdims", "code": spec["reference"], "note": ""}]  # not a bug at all
    response = admin_client.post(reverse(ADD), question_post(lesson, kind="code", code_spec=json.dumps(spec)))
    text = page_text(response)
    assert response.status_code == 200
    assert "The code spec does not check out" in text and "missing_keepdims gives the reference's values" in text

    spec["misconceptions"] = codecheck.get("stable_softmax").to_dict()["misconceptions"]
    response = admin_client.post(reverse(ADD), question_post(lesson, kind="code", code_spec=json.dumps(spec)))
    assert response.status_code == 302, page_text(response)[:3000]
    assert Question.objects.get(key="admin-q").code_spec["key"] == "my_softmax"


def test_the_preview_shows_the_given_code_and_the_answer_key(admin_client, lesson):
    question = factories.CodeQuestionFactory(lesson=lesson)
    response = admin_client.get(reverse("admin:quizzes_question_preview", args=[question.pk]))
    text = page_text(response)
    spec = codecheck.get("sdpa_three_lines")
    assert response.status_code == 200
    assert "TODO: scores" in text and spec.reference.strip().split("\n")[0] in text
    for m in spec.misconceptions:
        assert m.id in text
