"""One versioning mechanism (issue 27, item 2): every content change is a numbered version, written by the
services that save content (the admin's form, load_lessons, generation jobs), and attempt items keep the version
they showed, so the end screen, the missed items and the learner's history show what the learner saw."""

from __future__ import annotations

import html
from pathlib import Path

import pytest
from django.urls import reverse

from quizzes.content.generation import generation_job_run
from quizzes.content.writer import content_load
from quizzes.models import GenerationJob, ProblemReport, Question, QuestionVersion
from quizzes.practice.services import attempt_finish, attempt_start, item_answer
from tests.quizzes.api.conftest import token_client
from tests.quizzes.content.test_loader import LESSON
from tests.quizzes.content.test_provenance import NUMERIC, admin_edit

pytestmark = pytest.mark.django_db

OLD_PROMPT, NEW_PROMPT = "掩码填什么？", "未来位置的分数填什么值？"
OLD_WRONG, NEW_WRONG = "-1", "负一"


@pytest.fixture
def lesson_dir(tmp_path: Path) -> Path:
    directory = tmp_path / "lessons"
    directory.mkdir()
    (directory / "demo.yaml").write_text(LESSON + NUMERIC, encoding="utf-8")
    content_load(directory=directory)
    return directory


def numbers(question: Question) -> list[tuple[int, str]]:
    return list(QuestionVersion.objects.filter(question=question).order_by("number").values_list("number", "source"))


def test_an_import_versions_each_question_once_and_an_unchanged_import_writes_none(lesson_dir):
    questions = list(Question.objects.all())
    assert questions and all(numbers(q) == [(1, "file")] for q in questions)
    content_load(directory=lesson_dir)
    assert QuestionVersion.objects.count() == len(questions)

    path = lesson_dir / "demo.yaml"
    path.write_text(path.read_text(encoding="utf-8").replace(OLD_PROMPT, NEW_PROMPT), encoding="utf-8")
    content_load(directory=lesson_dir)
    mask = Question.objects.get(key="demo-mask")
    assert numbers(mask) == [(1, "file"), (2, "file")]
    assert QuestionVersion.objects.get(question=mask, number=2).snapshot["question"]["prompt"] == NEW_PROMPT
    assert QuestionVersion.objects.count() == len(questions) + 1


def test_an_admin_edit_through_the_change_form_is_a_new_version_by_that_admin(admin_client, admin_user, lesson_dir):
    mask = Question.objects.get(key="demo-mask")
    admin_edit(admin_client, mask, prompt=NEW_PROMPT)
    newest = QuestionVersion.objects.get(question=mask, number=2)
    assert (newest.source, newest.created_by) == ("admin", admin_user)
    assert newest.snapshot["question"]["prompt"] == NEW_PROMPT
    admin_edit(admin_client, Question.objects.get(pk=mask.pk), order="5")  # no content changed: no version
    assert numbers(mask) == [(1, "file"), (2, "admin")]


def test_a_generation_job_versions_what_it_makes(lesson_dir, admin_user):
    job = GenerationJob.objects.create(source=Question.objects.get(key="demo-row"), total=2, requested_by=admin_user)
    generation_job_run(job_id=job.pk)
    made = list(Question.objects.filter(generated_from=job.source))
    assert len(made) == 2
    for question in made:
        (version,) = QuestionVersion.objects.filter(question=question)
        assert (version.number, version.source, version.created_by) == (1, "job", admin_user)
        assert version.snapshot["question"]["fixed_seed"] == question.fixed_seed


def test_the_end_screen_missed_items_and_history_show_what_the_attempt_showed(client, admin_client, user, lesson_dir):
    mask = Question.objects.get(key="demo-mask")
    attempt = attempt_start(user=user, lesson=mask.lesson)
    item = attempt.items.get(question=mask)
    wrong = mask.options.get(key="b")
    item_answer(user=user, item=item, option_id=wrong.pk)
    attempt_finish(user=user, attempt=attempt)

    admin_edit(admin_client, mask, prompt=NEW_PROMPT, **{"options-1-text": NEW_WRONG})
    assert Question.objects.get(pk=mask.pk).prompt == NEW_PROMPT
    assert mask.options.get(key="b").text == NEW_WRONG

    client.force_login(user)
    summary = html.unescape(client.get(reverse("web:attempt_summary", args=[attempt.pk])).content.decode())
    assert OLD_PROMPT in summary and NEW_PROMPT not in summary  # the missed item as it was shown
    assert NEW_WRONG not in summary
    page = client.get(reverse("web:attempt_item", args=[attempt.pk, item.position + 1]))
    text = html.unescape(page.content.decode())
    assert OLD_PROMPT in text and NEW_PROMPT not in text and NEW_WRONG not in text
    body = token_client(user).get(f"/api/v1/attempts/{attempt.pk}/").json()
    shown = next(i for i in body["items"] if i["question"]["key"] == "demo-mask")
    assert shown["question"]["prompt"] == OLD_PROMPT
    assert OLD_WRONG in [o["text"] for o in shown["options"]] and NEW_WRONG not in [o["text"] for o in shown["options"]]

    later = attempt_start(user=user, lesson=mask.lesson)  # a new attempt shows, and pins, the edited version
    assert later.items.get(question=mask).version.snapshot["question"]["prompt"] == NEW_PROMPT


def test_a_problem_report_quotes_the_text_the_item_showed(client, admin_client, user, lesson_dir):
    mask = Question.objects.get(key="demo-mask")
    attempt = attempt_start(user=user, lesson=mask.lesson)
    item = attempt.items.get(question=mask)
    item_answer(user=user, item=item, option_id=mask.options.get(key="b").pk)
    admin_edit(admin_client, mask, prompt=NEW_PROMPT)
    client.force_login(user)
    response = client.post(reverse("web:report_item", args=[item.pk]), {"category": "unclear", "text": "看不懂"})
    assert response.status_code in (200, 302)
    assert ProblemReport.objects.get(attempt_item=item).prompt == OLD_PROMPT
