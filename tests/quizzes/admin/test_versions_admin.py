"""Question versions in the admin (issue 27, item 2): the list, one version, a comparison, a revert that keeps
learners' history, and a stale save refused instead of lost."""

from __future__ import annotations

import html

import pytest
from django.urls import reverse

from quizzes.models import AttemptItem, Question, QuestionVersion
from quizzes.practice.services import attempt_start
from tests.quizzes.content.test_provenance import admin_edit, form_data
from tests.quizzes.content.test_versions import NEW_PROMPT, OLD_PROMPT, lesson_dir  # noqa: F401  (a fixture)

pytestmark = pytest.mark.django_db


def text_of(response) -> str:
    assert response.status_code == 200, response.status_code
    return html.unescape(response.content.decode())


@pytest.fixture
def edited(admin_client, lesson_dir) -> Question:  # noqa: F811
    """demo-mask with version 1 from the file and version 2 from the admin (a new prompt)."""
    mask = Question.objects.get(key="demo-mask")
    admin_edit(admin_client, mask, prompt=NEW_PROMPT)
    return Question.objects.get(pk=mask.pk)


def test_the_list_and_one_version(admin_client, admin_user, edited):
    listing = text_of(admin_client.get(reverse("admin:quizzes_question_versions", args=[edited.pk])))
    assert "Lesson files" in listing and admin_user.username in listing and "(current)" in listing
    first = text_of(admin_client.get(reverse("admin:quizzes_question_version", args=[edited.pk, 1])))
    assert f"prompt:\n    {OLD_PROMPT}" in first and NEW_PROMPT not in first
    assert "option a [correct]" in first
    change = text_of(admin_client.get(reverse("admin:quizzes_question_change", args=[edited.pk])))
    assert reverse("admin:quizzes_question_versions", args=[edited.pk]) in change


def test_compare_shows_the_changed_lines(admin_client, edited):
    url = reverse("admin:quizzes_question_compare", args=[edited.pk])
    diff = text_of(admin_client.get(url, {"a": 1, "b": 2}))
    assert f"-    {OLD_PROMPT}" in diff and f"+    {NEW_PROMPT}" in diff
    assert "+option" not in diff and "-option" not in diff  # the options did not change
    assert admin_client.get(url, {"a": "one", "b": 2}).status_code == 400
    assert admin_client.get(url, {"a": 1, "b": 9}).status_code == 404
    assert admin_client.get(reverse("admin:quizzes_question_version", args=[edited.pk, 9])).status_code == 404


def test_revert_is_a_new_version_and_learners_keep_what_they_saw(admin_client, user, edited):
    attempt = attempt_start(user=user, lesson=edited.lesson)  # pinned to version 2
    pinned = attempt.items.get(question=edited).version
    assert pinned.number == 2
    response = admin_client.post(reverse("admin:quizzes_question_revert", args=[edited.pk, 1]))
    assert response.status_code == 302
    question = Question.objects.get(pk=edited.pk)
    assert question.prompt == OLD_PROMPT
    third = QuestionVersion.objects.get(question=question, number=3)
    first = QuestionVersion.objects.get(question=question, number=1)
    assert third.snapshot == first.snapshot and third.source == "admin"
    assert AttemptItem.objects.get(attempt=attempt, question=question).version_id == pinned.pk
    assert admin_client.get(reverse("admin:quizzes_question_revert", args=[edited.pk, 1])).status_code == 405


def test_a_save_on_an_older_version_is_refused_and_nothing_is_lost(admin_client, edited):
    url = reverse("admin:quizzes_question_change", args=[edited.pk])
    first, second = form_data(admin_client.get(url)), form_data(admin_client.get(url))  # two authors open it
    assert first["loaded_version"] == second["loaded_version"] == 2
    assert admin_client.post(url, {**first, "explanation": "第一位作者的解释。"}).status_code == 302
    response = admin_client.post(url, {**second, "explanation": "第二位作者的解释。"})
    text = text_of(response)
    assert "Someone saved this question at" in text and "version 3" in text and "Reload the page" in text
    question = Question.objects.get(pk=edited.pk)
    assert question.explanation == "第一位作者的解释。"
    assert QuestionVersion.objects.filter(question=question).count() == 3
