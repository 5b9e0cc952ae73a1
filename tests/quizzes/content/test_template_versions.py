"""Template versions are part of a numeric question's identity (issue 11).

A throw-away template ``test_versioned`` with versions 1 (a + b) and 2 (10·a + b) shows which version
generated a variant from its numbers alone (tests/quizzes/versioned.py).
"""

from __future__ import annotations

import io
import textwrap
from pathlib import Path

import pytest
from django.core.exceptions import ValidationError
from django.core.management import call_command
from django.db import IntegrityError, transaction
from django.urls import reverse

from attention_engine import generators
from quizzes.content.generation import generation_job_run
from quizzes.content.report import ContentError
from quizzes.content.validation import validate_numeric_question
from quizzes.content.writer import content_load
from quizzes.models import GenerationJob, Question
from quizzes.practice.services.attempts import attempt_start
from tests import factories
from tests.quizzes.versioned import NAME, VersionOne, VersionTwo, v1_answer, v2_answer

# --------------------------------------------------------------------------- the model and its validation


@pytest.mark.django_db
def test_a_numeric_question_without_a_version_gets_the_newest(lesson, versioned_template):
    question = factories.NumericQuestionFactory(lesson=lesson, template=NAME)
    assert question.template_version == 2
    pinned = factories.NumericQuestionFactory(lesson=lesson, template=NAME, template_version=1, params={"scale": 2})
    pinned.full_clean()
    assert Question.objects.get(pk=pinned.pk).template_version == 1
    assert factories.ChoiceQuestionFactory(lesson=lesson).template_version is None


@pytest.mark.django_db
def test_the_database_requires_a_version_on_numeric_questions_only(lesson):
    numeric = factories.NumericQuestionFactory(lesson=lesson)
    choice = factories.ChoiceQuestionFactory(lesson=lesson)
    with pytest.raises(IntegrityError), transaction.atomic():
        Question.objects.filter(pk=numeric.pk).update(template_version=None)
    with pytest.raises(IntegrityError), transaction.atomic():
        Question.objects.filter(pk=choice.pk).update(template_version=1)


@pytest.mark.django_db
def test_an_unknown_version_is_an_error_on_template_version_listing_the_known_ones(lesson, versioned_template):
    question = factories.NumericQuestionFactory.build(lesson=lesson, template=NAME, template_version=7)
    with pytest.raises(ValidationError) as excinfo:
        question.full_clean()
    assert excinfo.value.message_dict == {
        "template_version": ["Template test_versioned has no version 7. Known versions: 1, 2."]
    }


@pytest.mark.django_db
def test_only_numeric_questions_have_a_version(lesson):
    question = factories.PromptQuestionFactory.build(lesson=lesson, template_version=1)
    with pytest.raises(ValidationError) as excinfo:
        question.full_clean()
    assert excinfo.value.message_dict["template_version"] == ["Only numeric questions have a template version."]


def test_validation_checks_the_given_version(versioned_template):
    assert validate_numeric_question(template=NAME, params={"scale": 2}, version=1) == {"scale": 2}
    assert validate_numeric_question(template=NAME, params={"factor": 3}, version=2) == {"factor": 3}
    for version in (2, None):  # None: the newest, whose param is called "factor"
        with pytest.raises(ValidationError, match="unknown param 'scale'") as excinfo:
            validate_numeric_question(template=NAME, params={"scale": 2}, version=version)
        assert set(excinfo.value.message_dict) == {"params"}
    with pytest.raises(ValidationError) as excinfo:
        validate_numeric_question(template=NAME, params={}, version=3)
    assert excinfo.value.message_dict == {
        "template_version": ["Template test_versioned has no version 3. Known versions: 1, 2."]
    }


# --------------------------------------------------------------------------- attempts and generation


@pytest.mark.django_db
def test_attempts_generate_with_the_questions_own_version(user, lesson, versioned_template):
    newest = factories.NumericQuestionFactory(lesson=lesson, template=NAME, order=1)
    pinned = factories.NumericQuestionFactory(lesson=lesson, template=NAME, template_version=1, order=2)
    attempt = attempt_start(user=user, lesson=lesson)
    items = {item.question_id: item for item in attempt.items.all()}
    assert (items[newest.pk].template_version, items[newest.pk].variant["version"]) == (2, 2)
    assert items[newest.pk].variant["answer"] == v2_answer(items[newest.pk].variant)
    assert (items[pinned.pk].template_version, items[pinned.pk].variant["version"]) == (1, 1)
    assert items[pinned.pk].variant["answer"] == v1_answer(items[pinned.pk].variant)


@pytest.mark.django_db
def test_a_generated_question_keeps_its_version_while_new_lesson_attempts_use_the_new_one(user, lesson, monkeypatch):
    # before version 2 exists: a lesson question and three questions generated from it, all on version 1
    monkeypatch.setitem(generators._TEMPLATES, NAME, {1: VersionOne()})
    source = factories.NumericQuestionFactory(lesson=lesson, template=NAME, key="sum", order=1)
    assert source.template_version == 1
    job = generation_job_run(job_id=GenerationJob.objects.create(source=source, total=3, first_seed=5).pk)
    assert (job.status, job.created) == ("succeeded", 3)
    generated = list(Question.objects.filter(generated_from=source).order_by("fixed_seed"))
    assert [q.template_version for q in generated] == [1, 1, 1]
    numbers = {q.pk: VersionOne().generate(q.fixed_seed).to_dict() for q in generated}

    # version 2 arrives; the lesson question moves to it (a re-import without template_version does that)
    monkeypatch.setitem(generators._TEMPLATES, NAME, {1: VersionOne(), 2: VersionTwo()})
    source.template_version = 2
    source.full_clean()
    source.save()
    Question.objects.filter(generated_from=source).update(published=True)
    generation_job_run(job_id=GenerationJob.objects.create(source=source, total=4, first_seed=5).pk)  # re-run

    attempt = attempt_start(user=user, lesson=lesson)
    items = {item.question_id: item for item in attempt.items.all()}
    assert items[source.pk].template_version == 2
    assert items[source.pk].variant["answer"] == v2_answer(items[source.pk].variant)
    for question in generated:
        question.refresh_from_db()
        item = items[question.pk]
        assert question.template_version == item.template_version == 1  # the re-run left it alone
        assert item.variant == numbers[question.pk]  # the very numbers it was generated (and reviewed) with
    assert Question.objects.get(generated_from=source, fixed_seed=8).template_version == 2  # new seed, new version


# --------------------------------------------------------------------------- the loader


def numeric_lesson(extra: str = "") -> str:
    return textwrap.dedent(
        f"""\
        key: versions
        title: 版本
        order: 1
        questions:
          - key: v-sum
            kind: numeric
            template: {NAME}
            answer_form: input
            prompt: 算一算。
        """
    ) + textwrap.indent(textwrap.dedent(extra), "    ")


@pytest.fixture
def version_dir(tmp_path: Path) -> Path:
    directory = tmp_path / "lessons"
    directory.mkdir()
    return directory


def write(directory: Path, extra: str = "") -> None:
    (directory / "versions.yaml").write_text(numeric_lesson(extra), encoding="utf-8")


@pytest.mark.django_db
def test_loader_defaults_to_the_newest_version(version_dir, versioned_template):
    write(version_dir)
    content_load(directory=version_dir)
    assert Question.objects.get(key="v-sum").template_version == 2


@pytest.mark.django_db
def test_loader_takes_an_explicit_version_and_updates_it_in_place(version_dir, versioned_template):
    write(version_dir, "template_version: 1\nparams: {scale: 2}\n")
    content_load(directory=version_dir)
    question = Question.objects.get(key="v-sum")
    assert (question.template_version, question.params) == (1, {"scale": 2})

    write(version_dir, "template_version: 2\nparams: {factor: 2}\n")
    report = content_load(directory=version_dir)
    assert report.questions.updated == 1
    assert Question.objects.get(key="v-sum", pk=question.pk).template_version == 2
    assert not content_load(directory=version_dir).changed


@pytest.mark.django_db
def test_loader_reports_unknown_and_malformed_versions(version_dir, versioned_template):
    write(version_dir, "template_version: 9\n")
    with pytest.raises(ContentError) as excinfo:
        content_load(directory=version_dir)
    assert [str(p) for p in excinfo.value.problems] == [
        "versions.yaml, lesson 'versions', question 'v-sum': "
        "template_version: Template test_versioned has no version 9. Known versions: 1, 2."
    ]
    write(version_dir, "template_version: two\n")
    with pytest.raises(ContentError, match="'template_version' must be a positive whole number, got 'two'"):
        content_load(directory=version_dir)
    write(version_dir, "template_version: 1\nparams: {factor: 2}\n")  # version 2's param name on version 1
    with pytest.raises(ContentError, match=r"question 'v-sum': params: .*unknown param 'factor'"):
        content_load(directory=version_dir)


@pytest.mark.django_db
def test_template_version_applies_to_numeric_questions_only(tmp_path):
    directory = tmp_path / "lessons"
    directory.mkdir()
    (directory / "x.yaml").write_text(
        "key: x\ntitle: x\norder: 1\nquestions:\n"
        "  - key: x-p\n    kind: prompt\n    prompt: 说说。\n    reference_answer: 答。\n    rubric: [a]\n"
        "    template_version: 1\n",
        encoding="utf-8",
    )
    with pytest.raises(ContentError, match=r"field\(s\) template_version do not apply to a prompt question"):
        content_load(directory=directory)


# --------------------------------------------------------------------------- the admin


def numeric_post(lesson, **fields) -> dict:
    data = {
        "lesson": lesson.pk,
        "key": "admin-numeric",
        "kind": "numeric",
        "order": 1,
        "published": "on",
        "prompt": "算一算。",
        "explanation": "",
        "template": NAME,
        "template_version": "",
        "params": "{}",
        "answer_form": "input",
        "reference_answer": "",
        "rubric": "",
        "expected_lines": "",
        "options-TOTAL_FORMS": "0",
        "options-INITIAL_FORMS": "0",
        "options-MIN_NUM_FORMS": "0",
        "options-MAX_NUM_FORMS": "1000",
    }
    data.update(fields)
    return data


@pytest.mark.django_db
def test_admin_saves_the_newest_version_by_default_and_an_explicit_one(admin_client, lesson, versioned_template):
    response = admin_client.post(reverse("admin:quizzes_question_add"), numeric_post(lesson))
    assert response.status_code == 302, response.content.decode()[-2000:]
    assert Question.objects.get(key="admin-numeric").template_version == 2
    data = numeric_post(lesson, key="admin-pinned", template_version="1", params='{"scale": 3}')
    assert admin_client.post(reverse("admin:quizzes_question_add"), data).status_code == 302
    assert Question.objects.get(key="admin-pinned").template_version == 1


@pytest.mark.django_db
def test_admin_refuses_an_unknown_version(admin_client, lesson, versioned_template):
    response = admin_client.post(reverse("admin:quizzes_question_add"), numeric_post(lesson, template_version="5"))
    assert response.status_code == 200
    assert "Template test_versioned has no version 5. Known versions: 1, 2." in response.content.decode()
    assert not Question.objects.filter(key="admin-numeric").exists()


@pytest.mark.django_db
def test_admin_preview_uses_the_questions_version(admin_client, lesson, versioned_template):
    pinned = factories.NumericQuestionFactory(lesson=lesson, template=NAME, template_version=1)
    newest = factories.NumericQuestionFactory(lesson=lesson, template=NAME)
    for question, version, answer in ((pinned, 1, v1_answer), (newest, 2, v2_answer)):
        body = admin_client.get(reverse("admin:quizzes_question_preview", args=[question.pk]) + "?seed=4")
        body = body.content.decode()
        variant = generators.generate(NAME, 4, version=version).to_dict()
        assert f"{NAME} v{version}" in body
        assert f"<mn>{int(answer(variant))}</mn>" in body


@pytest.mark.django_db
def test_a_generated_questions_version_is_read_only_in_the_admin(admin_client, lesson):
    source = factories.NumericQuestionFactory(lesson=lesson, key="src")
    generated = factories.NumericQuestionFactory(lesson=lesson, generated_from=source, fixed_seed=3, published=False)
    page = admin_client.get(reverse("admin:quizzes_question_change", args=[generated.pk])).content.decode()
    assert 'name="template_version"' not in page
    page = admin_client.get(reverse("admin:quizzes_question_change", args=[source.pk])).content.decode()
    assert 'name="template_version"' in page


# --------------------------------------------------------------------------- the migration


@pytest.mark.django_db(transaction=True)
def test_migration_sets_existing_numeric_questions_and_items_to_version_one():
    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor

    before = [("quizzes", "0004_reviewcard_user_no_single_index")]
    executor = MigrationExecutor(connection)
    latest = executor.loader.graph.leaf_nodes("quizzes")
    executor.migrate(before)
    try:
        old = executor.loader.project_state(before).apps
        user = old.get_model("auth", "User").objects.create(username="old-learner")
        lesson = old.get_model("quizzes", "Lesson").objects.create(key="old", title="旧课", order=1)
        Question = old.get_model("quizzes", "Question")
        numeric = Question.objects.create(
            lesson=lesson, key="old-num", kind="numeric", prompt="?", template="attention_row_weights",
            answer_form="input",
        )  # fmt: skip
        choice = Question.objects.create(lesson=lesson, key="old-choice", kind="choice", prompt="?")
        attempt = old.get_model("quizzes", "Attempt").objects.create(user=user, lesson=lesson, number=1, seed=1)
        AttemptItem = old.get_model("quizzes", "AttemptItem")
        variant = generators.generate("attention_row_weights", 3, version=1).to_dict()
        numeric_item = AttemptItem.objects.create(
            attempt=attempt, question=numeric, position=0, variant=variant, variant_seed=3
        )
        choice_item = AttemptItem.objects.create(attempt=attempt, question=choice, position=1, option_order=[])

        executor = MigrationExecutor(connection)
        executor.migrate(latest)

        new = executor.loader.project_state(latest).apps
        versions = dict(new.get_model("quizzes", "Question").objects.values_list("key", "template_version"))
        assert versions == {"old-num": 1, "old-choice": None}
        items = dict(new.get_model("quizzes", "AttemptItem").objects.values_list("pk", "template_version"))
        assert items == {numeric_item.pk: 1, choice_item.pk: None}
        assert not new.get_model("quizzes", "Option").objects.filter(retired=True).exists()
    finally:
        MigrationExecutor(connection).migrate(latest)


@pytest.mark.django_db
def test_migrations_are_complete():
    call_command("makemigrations", "quizzes", "--check", "--dry-run", stdout=io.StringIO())
