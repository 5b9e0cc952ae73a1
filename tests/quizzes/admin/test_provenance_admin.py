"""Provenance in the admin: a row's source and what the next import does with an edit; generated questions
listed with their source and seed, and removed by retiring those learners saw (issue 27, items 1 and 7)."""

from __future__ import annotations

import html

import pytest
from django.urls import reverse

from quizzes.content.generation import generation_job_run
from quizzes.models import GenerationJob, Lesson, Question
from quizzes.practice.services.attempts import attempt_start
from tests.quizzes.content.test_provenance import ADMIN_PROMPT, admin_add_choice_question, admin_edit

pytestmark = pytest.mark.django_db


def page(client, name: str, *args) -> str:
    response = client.get(reverse(name, args=args))
    assert response.status_code == 200
    return html.unescape(response.content.decode())


def generate(source: Question, total: int) -> list[Question]:
    job = GenerationJob.objects.create(source=source, total=total, first_seed=40)
    generation_job_run(job_id=job.pk)
    return list(Question.objects.filter(generated_from=source).order_by("fixed_seed"))


def test_a_file_question_says_it_comes_from_the_files_and_what_an_edit_leads_to(admin_client, lesson_dir):
    question = Question.objects.get(key="demo-mask")
    text = page(admin_client, "admin:quizzes_question_change", question.pk)
    assert "From the lesson files" in text and "--keep-admin" in text and "--take-files" in text
    assert "Edited here since the last import" not in text

    admin_edit(admin_client, question, prompt=ADMIN_PROMPT)
    text = page(admin_client, "admin:quizzes_question_change", question.pk)
    assert "Edited here since the last import: prompt." in text

    lesson_text = page(admin_client, "admin:quizzes_lesson_change", Lesson.objects.get(key="demo").pk)
    assert "From the lesson files" in lesson_text


def test_an_admin_question_says_imports_leave_it_alone(admin_client, lesson_dir):
    made = admin_add_choice_question(admin_client, Lesson.objects.get(key="demo"))
    text = page(admin_client, "admin:quizzes_question_change", made.pk)
    assert "Made in the admin: load_lessons never changes, unpublishes or deletes it." in text


def test_generated_questions_are_listed_with_their_source_and_seed(admin_client, lesson_dir):
    source = Question.objects.get(key="demo-row")
    made = generate(source, 3)
    response = admin_client.get(reverse("admin:quizzes_question_changelist"), {"source__exact": "job"})
    listed = list(response.context["cl"].result_list)
    assert [q.key for q in listed] == ["demo-row-s40", "demo-row-s41", "demo-row-s42"]
    text = html.unescape(response.content.decode())
    assert "Generation job" in text and ">41<" in text
    detail = page(admin_client, "admin:quizzes_question_change", made[1].pk)
    assert "Made by a generation job from demo-row (seed 41)" in detail


def test_removing_generated_questions_retires_those_a_learner_saw(admin_client, lesson_dir, user):
    source = Question.objects.get(key="demo-row")
    seen, unseen = generate(source, 2)
    Question.objects.filter(pk=seen.pk).update(published=True)
    attempt = attempt_start(user=user, lesson=source.lesson)
    assert attempt.items.filter(question=seen).exists()
    file_question = Question.objects.get(key="demo-mask")

    response = admin_client.post(
        reverse("admin:quizzes_question_changelist"),
        {"action": "remove_generated_questions", "_selected_action": [seen.pk, unseen.pk, file_question.pk]},
        follow=True,
    )
    assert "1 deleted, 1 retired" in html.unescape(response.content.decode())
    seen.refresh_from_db()
    assert seen.published is False and attempt.items.filter(question=seen).exists()
    assert not Question.objects.filter(pk=unseen.pk).exists()
    assert Question.objects.filter(pk=file_question.pk, published=True).exists()  # not a generated question
