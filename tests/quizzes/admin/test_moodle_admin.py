"""Moodle XML in the admin, through its real forms: import into a lesson, export a lesson, selected lessons or
selected questions; staff with the permissions only. And number questions authored in the admin."""

from __future__ import annotations

import html

import pytest
from django.contrib.auth.models import Permission
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from quizzes.content.moodle.exporter import lesson_moodle_export
from quizzes.models import Question
from tests import factories
from tests.quizzes.content.moodle.conftest import SAMPLES

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_client(client):
    client.force_login(factories.UserFactory(is_staff=True, is_superuser=True))
    return client


def _upload(name: str) -> SimpleUploadedFile:
    return SimpleUploadedFile(name, (SAMPLES / name).read_bytes(), content_type="text/xml")


def _import_url(lesson) -> str:
    return reverse("admin:quizzes_lesson_moodle_import", args=[lesson.pk])


def _export_url(lesson) -> str:
    return reverse("admin:quizzes_lesson_moodle_export", args=[lesson.pk])


def _text(response) -> str:
    return html.unescape(response.content.decode())


def test_the_lesson_page_links_to_import_and_export(admin_client, lesson):
    body = admin_client.get(reverse("admin:quizzes_lesson_change", args=[lesson.pk])).content.decode()
    assert _import_url(lesson) in body and _export_url(lesson) in body


def test_import_through_the_form_creates_the_questions_and_says_what_it_did(admin_client, lesson):
    assert admin_client.get(_import_url(lesson)).status_code == 200
    response = admin_client.post(_import_url(lesson), {"file": _upload("multichoice.xml")}, follow=True)
    assert response.redirect_chain[-1][0] == reverse("admin:quizzes_lesson_change", args=[lesson.pk])
    text = _text(response)
    assert "Imported multichoice.xml: 2 created, 0 updated, 0 unchanged." in text
    assert "Note: category '$course$/top/Attention/Scaled dot-product' (question #1): not kept" in text
    assert Question.objects.filter(lesson=lesson, kind="choice").count() == 2


def test_a_refused_file_lists_every_problem_and_writes_nothing(admin_client, lesson):
    response = admin_client.post(_import_url(lesson), {"file": _upload("unsupported.xml")})
    assert response.status_code == 400
    text = _text(response)
    assert "The file was not imported: 6 problems. Nothing was written." in text
    assert "question #4 'Read the heatmap': refused: multichoice: uses images or files" in text
    assert not Question.objects.exists()


def test_an_entity_bomb_is_refused_in_the_admin_too(admin_client, lesson):
    response = admin_client.post(_import_url(lesson), {"file": _upload("billion_laughs.xml")})
    assert response.status_code == 400 and "billion laughs" in _text(response)


def test_skip_unsupported_imports_the_rest_and_lists_what_it_skipped(admin_client, lesson):
    response = admin_client.post(
        _import_url(lesson), {"file": _upload("unsupported.xml"), "skip_unsupported": "on"}, follow=True
    )
    text = _text(response)
    assert "1 created" in text and text.count("Skipped: ") == 6
    assert Question.objects.filter(lesson=lesson).count() == 1


def test_export_downloads_the_lessons_file(admin_client, lesson):
    admin_client.post(_import_url(lesson), {"file": _upload("numerical.xml")})
    response = admin_client.get(_export_url(lesson))
    assert response["Content-Type"] == "application/xml; charset=utf-8"
    assert response["Content-Disposition"] == f'attachment; filename="{lesson.key}-moodle.xml"'
    assert response.content.decode() == lesson_moodle_export(lesson=lesson).xml


def test_what_cannot_be_exported_is_named_and_the_rest_offered(admin_client, lesson):
    factories.RecallQuestionFactory(lesson=lesson, key="l-recall", order=1)
    factories.ChoiceQuestionFactory(lesson=lesson, key="l-choice", order=2, options=3)
    page = admin_client.get(_export_url(lesson))
    assert page.status_code == 200 and "key l-recall: refused: a recall card" in _text(page)
    rest = admin_client.get(_export_url(lesson), {"skip_unsupported": "1"})
    assert rest["Content-Disposition"].startswith("attachment") and b"<text>l-choice</text>" in rest.content
    assert b"l-recall" not in rest.content


def test_the_lesson_action_exports_the_selected_lessons(admin_client, lesson):
    other = factories.LessonFactory(title="另一课")
    factories.ChoiceQuestionFactory(lesson=lesson, key="a-choice", options=3)
    factories.PromptQuestionFactory(lesson=other, key="b-prompt")
    response = admin_client.post(
        reverse("admin:quizzes_lesson_changelist"),
        {"action": "export_lessons_as_moodle", "_selected_action": [lesson.pk, other.pk]},
    )
    xml = response.content.decode()
    assert response["Content-Disposition"] == 'attachment; filename="lessons-moodle.xml"'
    assert xml.count('<question type="category">') == 2
    assert '<question type="multichoice">' in xml and '<question type="essay">' in xml


def test_the_question_action_exports_the_selection_and_offers_the_rest(admin_client, lesson):
    choice = factories.ChoiceQuestionFactory(lesson=lesson, key="q-choice", options=3)
    recall = factories.RecallQuestionFactory(lesson=lesson, key="q-recall")
    changelist = reverse("admin:quizzes_question_changelist")
    selected = {"action": "export_questions_as_moodle", "_selected_action": [choice.pk, recall.pk]}
    page = admin_client.post(changelist, selected)
    assert page.status_code == 200 and "key q-recall: refused" in _text(page)
    rest = admin_client.post(changelist, {**selected, "skip_unsupported": "1"})
    assert rest["Content-Disposition"] == 'attachment; filename="questions-moodle.xml"'
    assert b"<text>q-choice</text>" in rest.content and b"q-recall" not in rest.content


@pytest.mark.parametrize("view", ["import", "export"])
def test_anyone_but_staff_is_sent_to_log_in(client, user, lesson, view):
    url = _import_url(lesson) if view == "import" else _export_url(lesson)
    assert client.get(url).status_code == 302  # anonymous
    client.force_login(user)  # a learner
    response = client.post(url, {"file": _upload("essay.xml")}) if view == "import" else client.get(url)
    assert response.status_code == 302 and reverse("admin:login") in response["Location"]
    assert not Question.objects.exists()


def test_staff_without_the_permissions_get_403(client, lesson):
    viewer = factories.UserFactory(is_staff=True)
    viewer.user_permissions.add(*Permission.objects.filter(codename__in=["view_lesson", "change_lesson"]))
    client.force_login(viewer)
    assert client.post(_import_url(lesson), {"file": _upload("essay.xml")}).status_code == 403
    assert client.get(_export_url(lesson)).status_code == 403  # cannot view questions
    assert not Question.objects.exists()


def test_a_number_question_is_authored_and_previewed_in_the_admin(admin_client, lesson):
    from tests.quizzes.admin.test_content_admin import question_post

    data = question_post(
        lesson, kind="number", key="admin-number", number_answer="0.55", number_tolerance="0.01", number_unit="MiB"
    )
    response = admin_client.post(reverse("admin:quizzes_question_add"), data)
    assert response.status_code == 302, _text(response)
    question = Question.objects.get(key="admin-number")
    assert (question.number_answer, question.number_tolerance, question.number_unit) == (0.55, 0.01, "MiB")
    preview = _text(admin_client.get(reverse("admin:quizzes_question_preview", args=[question.pk])))
    assert "<mn>0.55</mn></mrow></math> MiB" in preview and "Right within ± 0.01." in preview
    bad = question_post(lesson, kind="number", key="admin-number-2", number_answer="", number_tolerance="-1")
    refused = admin_client.post(reverse("admin:quizzes_question_add"), bad)
    assert refused.status_code == 200 and "The tolerance must be a finite number ≥ 0" in _text(refused)
