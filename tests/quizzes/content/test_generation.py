"""Bulk generation (service + admin, in-process): N fixed-seed questions, no duplicates, visible progress.

The same service runs in the Celery task; test_worker.py runs it through a real worker and kills one mid-way.
"""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError
from django.db import transaction
from django.urls import reverse

from attention_engine import generators
from quizzes.content.generation import generation_job_create, generation_job_run
from quizzes.models import AttemptItem, GenerationJob, Question
from quizzes.practice.services.attempts import attempt_start
from tests import factories

pytestmark = pytest.mark.django_db


@pytest.fixture
def source(lesson):
    return factories.NumericQuestionFactory(lesson=lesson, key="row-weights", params={}, order=7)


def run(source, total, first_seed=0) -> GenerationJob:
    job = GenerationJob.objects.create(source=source, total=total, first_seed=first_seed)
    return generation_job_run(job_id=job.pk)


def test_creates_n_standalone_questions_with_fixed_seeds(source):
    job = run(source, 5, first_seed=10)
    assert (job.status, job.done, job.total, job.created, job.errors) == ("succeeded", 5, 5, 5, [])
    made = Question.objects.filter(generated_from=source).order_by("fixed_seed")
    assert [q.fixed_seed for q in made] == [10, 11, 12, 13, 14]
    assert [q.key for q in made] == [f"row-weights-s{seed}" for seed in range(10, 15)]
    for question in made:
        assert (question.lesson_id, question.template, question.params, question.answer_form) == (
            source.lesson_id,
            source.template,
            source.params,
            source.answer_form,
        )
        assert question.kind == "numeric" and question.published is False


def test_rerunning_the_same_seeds_creates_nothing(source):
    run(source, 4)
    again = run(source, 6)  # seeds 0..5: 0..3 exist
    assert (again.status, again.done, again.created) == ("succeeded", 6, 2)
    assert Question.objects.filter(generated_from=source).count() == 6


def test_a_finished_job_run_twice_does_nothing_more(source):
    job = run(source, 3)
    again = generation_job_run(job_id=job.pk)
    assert (again.done, again.created) == (3, 3)
    assert Question.objects.filter(generated_from=source).count() == 3


def test_a_seed_whose_key_is_taken_is_recorded_as_an_error(source):
    factories.NumericQuestionFactory(lesson=source.lesson, key="row-weights-s1")
    job = run(source, 3)
    assert (job.status, job.done, job.created) == ("failed", 3, 2)
    assert [e["seed"] for e in job.errors] == [1]
    assert "row-weights-s1" in job.errors[0]["error"]


def test_invalid_source_params_fail_the_job_without_creating_anything(source):
    Question.objects.filter(pk=source.pk).update(params={"no_such_param": 1})
    job = run(Question.objects.get(pk=source.pk), 3)
    assert job.status == "failed" and job.created == 0 and job.errors
    assert not Question.objects.filter(generated_from=source).exists()


def test_only_numeric_non_generated_sources_and_1_to_1000(source, choice_question):
    with pytest.raises(ValidationError):
        generation_job_create(source=choice_question, total=3)
    with pytest.raises(ValidationError):
        generation_job_create(source=source, total=0)
    with pytest.raises(ValidationError):
        generation_job_create(source=source, total=1001)
    run(source, 1)
    generated = Question.objects.get(generated_from=source)
    with pytest.raises(ValidationError):
        generation_job_create(source=generated, total=3)


def test_a_rolled_back_transaction_enqueues_nothing(source, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks() as callbacks, pytest.raises(RuntimeError), transaction.atomic():
        generation_job_create(source=source, total=3)
        raise RuntimeError("the admin request failed after creating the job")
    assert callbacks == []
    assert not GenerationJob.objects.exists()
    with django_capture_on_commit_callbacks() as callbacks:
        generation_job_create(source=source, total=3)
    assert len(callbacks) == 1  # enqueued once, after the commit


def test_a_fixed_seed_question_always_shows_its_seed_variant(lesson, user, source):
    run(source, 1, first_seed=1234)
    generated = Question.objects.get(generated_from=source)
    Question.objects.filter(pk=generated.pk).update(published=True)
    Question.objects.filter(pk=source.pk).update(published=False)
    expected = generators.generate(source.template, 1234, **source.params).to_dict()
    for _ in range(3):  # retakes normally get new numbers; a fixed seed never does
        attempt = attempt_start(user=user, lesson=lesson)
        item = AttemptItem.objects.get(attempt=attempt, question=generated)
        assert item.variant_seed == 1234
        assert item.variant == expected


# --------------------------------------------------------------------------- admin


def test_admin_action_asks_for_n_then_starts_a_job(admin_client, source, django_capture_on_commit_callbacks):
    changelist = reverse("admin:quizzes_question_changelist")
    ask = admin_client.post(changelist, {"action": "generate_standalone_questions", "_selected_action": [source.pk]})
    assert ask.status_code == 200
    assert b'name="total"' in ask.content and b'name="first_seed"' in ask.content
    bad = admin_client.post(
        changelist,
        {"action": "generate_standalone_questions", "_selected_action": [source.pk], "apply": "1", "total": "1001"},
    )
    assert bad.status_code == 200 and not GenerationJob.objects.exists()
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        done = admin_client.post(
            changelist,
            {
                "action": "generate_standalone_questions",
                "_selected_action": [source.pk],
                "apply": "1",
                "total": "4",
                "first_seed": "100",
            },
        )
    assert done.status_code == 302
    job = GenerationJob.objects.get()
    assert (job.source_id, job.total, job.first_seed, job.status) == (source.pk, 4, 100, "pending")
    assert len(callbacks) == 1
    generation_job_run(job_id=job.pk)  # what the task does
    page = admin_client.get(reverse("admin:quizzes_generationjob_change", args=[job.pk]))
    assert page.status_code == 200
    assert "4/4" in page.content.decode()
    assert "4/4" in admin_client.get(reverse("admin:quizzes_generationjob_changelist")).content.decode()


def test_admin_action_refuses_non_numeric_questions(admin_client, choice_question):
    response = admin_client.post(
        reverse("admin:quizzes_question_changelist"),
        {"action": "generate_standalone_questions", "_selected_action": [choice_question.pk]},
        follow=True,
    )
    assert response.status_code == 200
    assert "Only numeric questions" in response.content.decode()
    assert not GenerationJob.objects.exists()


def test_job_errors_are_listed_in_the_admin(admin_client, source):
    factories.NumericQuestionFactory(lesson=source.lesson, key="row-weights-s0")
    job = run(source, 2)
    page = admin_client.get(reverse("admin:quizzes_generationjob_change", args=[job.pk])).content.decode()
    assert "row-weights-s0" in page and "Failed" in page


def test_admin_action_refuses_a_question_generated_from_another(admin_client, source):
    """The admin's eligibility is the service's: a question with generated_from is refused up front too."""
    copy = factories.NumericQuestionFactory(lesson=source.lesson, key="row-weights-copy", generated_from=source)
    response = admin_client.post(
        reverse("admin:quizzes_question_changelist"),
        {"action": "generate_standalone_questions", "_selected_action": [copy.pk]},
        follow=True,
    )
    body = response.content.decode()
    assert "Only numeric questions that are not generated themselves" in body and "row-weights-copy" in body
    assert 'name="total"' not in body  # no form asking for N: nothing can be generated from it
    assert not GenerationJob.objects.exists()
