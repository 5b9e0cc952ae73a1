"""Download as YAML in the admin, through its real changelist actions: staff only."""

from __future__ import annotations

import io
import zipfile

import pytest
import yaml
from django.urls import reverse

from quizzes.content.models import Lesson, Question
from quizzes.content.reader import DEFAULT_LESSONS_DIR
from quizzes.content.writer import content_load
from tests import factories

pytestmark = pytest.mark.django_db


@pytest.fixture
def loaded():
    content_load()


def _post(client, model: str, action: str, ids: list[int]):
    url = reverse(f"admin:quizzes_{model}_changelist")
    return client.post(url, {"action": action, "_selected_action": [str(i) for i in ids]})


def test_staff_download_one_lesson_as_its_file(client, loaded):
    client.force_login(factories.UserFactory(is_staff=True, is_superuser=True))
    lesson = Lesson.objects.get(key="sdpa")
    response = _post(client, "lesson", "download_lessons_as_yaml", [lesson.pk])
    assert response.status_code == 200
    assert response["Content-Disposition"] == 'attachment; filename="01-sdpa.yaml"'
    assert response.content == (DEFAULT_LESSONS_DIR / "01-sdpa.yaml").read_bytes()


def test_several_lessons_come_as_a_zip(client, loaded):
    client.force_login(factories.UserFactory(is_staff=True, is_superuser=True))
    ids = list(Lesson.objects.filter(key__in=["sdpa", "positional"]).values_list("pk", flat=True))
    response = _post(client, "lesson", "download_lessons_as_yaml", ids)
    assert response["Content-Disposition"] == 'attachment; filename="lessons.zip"'
    archive = zipfile.ZipFile(io.BytesIO(response.content))
    assert archive.namelist() == ["01-sdpa.yaml", "04-positional.yaml"]
    assert archive.read("04-positional.yaml") == (DEFAULT_LESSONS_DIR / "04-positional.yaml").read_bytes()


def test_selected_questions_come_in_their_lessons_file_alone(client, loaded):
    client.force_login(factories.UserFactory(is_staff=True, is_superuser=True))
    chosen = list(Question.objects.filter(lesson__key="sdpa").order_by("order")[:2])
    response = _post(client, "question", "download_questions_as_yaml", [q.pk for q in chosen])
    assert response["Content-Disposition"] == 'attachment; filename="01-sdpa-selected.yaml"'
    data = yaml.safe_load(response.content.decode())
    assert data["key"] == "sdpa"
    assert [q["key"] for q in data["questions"]] == [q.key for q in chosen]


def test_someone_not_staff_gets_no_file(client, loaded):
    client.force_login(factories.UserFactory(is_staff=False))
    lesson = Lesson.objects.get(key="sdpa")
    response = _post(client, "lesson", "download_lessons_as_yaml", [lesson.pk])
    assert response.status_code == 302 and "/login/" in response["Location"]
    assert "Content-Disposition" not in response
