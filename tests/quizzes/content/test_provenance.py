"""Provenance (issue 27, items 1 and 7): load_lessons manages only what the files own.

The three losses of the issue, each made through the admin's real forms (a staff user on Django's test
client) or the real generation job, then ``load_lessons``: nothing the admin or the job made is lost, an
admin's edit of a file row is a conflict named with both texts, and the two flags decide it.
"""

from __future__ import annotations

import importlib
import io
from pathlib import Path
from typing import Any

import pytest
from django.apps import apps
from django.core.management import CommandError, call_command
from django.urls import reverse

from quizzes.content.generation import generation_job_run
from quizzes.content.report import ContentConflictError
from quizzes.content.writer import content_load
from quizzes.management.commands.load_lessons import load_lessons_for_serving
from quizzes.models import AttemptItem, GenerationJob, Lesson, Option, Question
from quizzes.practice.services.attempts import attempt_start
from tests.quizzes.content.test_loader import LESSON, history_rows, rewrite

pytestmark = pytest.mark.django_db

NUMERIC = """\
  - key: demo-row
    kind: numeric
    template: attention_row_weights
    params: {}
    answer_form: input
    prompt: 算一行注意力权重。
"""
FILE_PROMPT = "掩码填什么？"
ADMIN_PROMPT = "因果掩码在未来位置填什么值？"


@pytest.fixture
def lesson_dir(tmp_path: Path) -> Path:
    directory = tmp_path / "lessons"
    directory.mkdir()
    (directory / "demo.yaml").write_text(LESSON + NUMERIC, encoding="utf-8")
    content_load(directory=directory)
    return directory


def form_data(response: Any) -> dict[str, Any]:
    """What the browser would post back from an admin change page as shown (every field, every inline)."""
    data: dict[str, Any] = {}

    def add(form: Any) -> None:
        for name in form.fields:
            bound = form[name]
            value = bound.value()
            if isinstance(value, bool):
                if value:
                    data[bound.html_name] = "on"
            elif value is not None:
                data[bound.html_name] = value

    add(response.context["adminform"].form)
    for inline in response.context["inline_admin_formsets"]:
        formset = inline.formset
        add(formset.management_form)
        for form in formset.forms:
            add(form)
    return data


def admin_edit(client: Any, question: Question, **changes: Any) -> Any:
    url = reverse("admin:quizzes_question_change", args=[question.pk])
    data = form_data(client.get(url))
    data.update(changes)
    response = client.post(url, data)
    assert response.status_code == 302, [m for m in response.content.decode().splitlines() if "error" in m]
    return response


def admin_add_choice_question(client: Any, lesson: Lesson, key: str = "admin-made") -> Question:
    data: dict[str, Any] = {
        "lesson": lesson.pk,
        "key": key,
        "kind": "choice",
        "order": 9,
        "published": "on",
        "prompt": "softmax 沿哪一维归一化？",
        "explanation": "每一行是一个查询。",
        "params": "{}",
        "options-TOTAL_FORMS": "3",
        "options-INITIAL_FORMS": "0",
        "options-MIN_NUM_FORMS": "0",
        "options-MAX_NUM_FORMS": "1000",
    }
    for index, (option_key, text, correct) in enumerate(
        [("a", "沿键的那一维（每行）", True), ("b", "沿查询的那一维（每列）", False), ("c", "对整个矩阵", False)]
    ):
        data |= {
            f"options-{index}-order": str(index + 1),
            f"options-{index}-key": option_key,
            f"options-{index}-text": text,
            f"options-{index}-feedback": "" if correct else "那样每行的和不为 1。",
        }
        if correct:
            data[f"options-{index}-is_correct"] = "on"
    response = client.post(reverse("admin:quizzes_question_add"), data)
    assert response.status_code == 302, response.content.decode()[:2000]
    return Question.objects.get(key=key)


# --------------------------------------------------------------------------- the three losses


def test_a_choice_question_made_in_the_admin_survives_load_lessons_even_after_a_learner_saw_it(
    admin_client, lesson_dir, user
):
    lesson = Lesson.objects.get(key="demo")
    made = admin_add_choice_question(admin_client, lesson)
    assert made.source == "admin" and set(made.options.values_list("source", flat=True)) == {"admin"}

    report = content_load(directory=lesson_dir)
    assert (report.questions.deleted, report.questions.unpublished, report.options.deleted) == (0, 0, 0)
    made.refresh_from_db()
    assert made.published and made.options.count() == 3

    attempt_start(user=user, lesson=lesson)  # the learner's attempt shows the admin's question
    assert AttemptItem.objects.filter(question=made).exists()
    before = history_rows()
    call_command("load_lessons", directory=str(lesson_dir), stdout=io.StringIO())
    made.refresh_from_db()
    assert made.published and made.prompt == "softmax 沿哪一维归一化？"
    assert history_rows() == before


def test_an_admin_edit_of_a_file_question_stops_the_import_with_both_texts(admin_client, lesson_dir):
    question = Question.objects.get(key="demo-mask")
    admin_edit(admin_client, question, prompt=ADMIN_PROMPT)

    with pytest.raises(ContentConflictError) as raised:
        content_load(directory=lesson_dir)
    [conflict] = raised.value.conflicts
    assert (conflict.file, conflict.row, conflict.field) == ("demo.yaml", "question 'demo-mask'", "prompt")
    assert (conflict.file_text, conflict.admin_text) == (FILE_PROMPT, ADMIN_PROMPT)
    question.refresh_from_db()
    assert question.prompt == ADMIN_PROMPT  # nothing written

    out = io.StringIO()
    with pytest.raises(CommandError) as failed:
        call_command("load_lessons", directory=str(lesson_dir), stdout=out)
    message = str(failed.value)
    assert "question 'demo-mask'" in message and "'prompt'" in message
    assert FILE_PROMPT in message and ADMIN_PROMPT in message and "--take-files" in message


def test_keep_admin_keeps_the_admins_text_until_the_file_changes_that_field(admin_client, lesson_dir):
    question = Question.objects.get(key="demo-mask")
    admin_edit(admin_client, question, prompt=ADMIN_PROMPT)
    call_command("load_lessons", "--keep-admin", directory=str(lesson_dir), stdout=io.StringIO())
    question.refresh_from_db()
    assert question.prompt == ADMIN_PROMPT

    assert not content_load(directory=lesson_dir).changed  # decided: the next import leaves it alone
    question.refresh_from_db()
    assert question.prompt == ADMIN_PROMPT

    rewrite(lesson_dir, f"prompt: {FILE_PROMPT}", "prompt: 因果掩码把未来位置的分数换成什么？")
    content_load(directory=lesson_dir)  # a correction shipped in the file is not dropped
    question.refresh_from_db()
    assert question.prompt == "因果掩码把未来位置的分数换成什么？"


def test_take_files_writes_the_files_text(admin_client, lesson_dir):
    question = Question.objects.get(key="demo-mask")
    admin_edit(admin_client, question, prompt=ADMIN_PROMPT)
    option = question.options.get(key="b")
    option.feedback = "管理员改过的反馈。"  # an option's text counts as an edit too
    option.save()
    with pytest.raises(ContentConflictError) as raised:
        content_load(directory=lesson_dir)
    assert {(c.row, c.field) for c in raised.value.conflicts} == {
        ("question 'demo-mask'", "prompt"),
        ("option 'demo-mask/b'", "feedback"),
    }

    call_command("load_lessons", "--take-files", directory=str(lesson_dir), stdout=io.StringIO())
    question.refresh_from_db()
    option.refresh_from_db()
    assert (question.prompt, option.feedback) == (FILE_PROMPT, "填 -1 的误区。")
    assert not content_load(directory=lesson_dir).changed


def test_an_admin_edit_the_file_agrees_with_is_no_conflict(admin_client, lesson_dir):
    question = Question.objects.get(key="demo-mask")
    admin_edit(admin_client, question, prompt=ADMIN_PROMPT)
    rewrite(lesson_dir, f"prompt: {FILE_PROMPT}", f"prompt: {ADMIN_PROMPT}")
    content_load(directory=lesson_dir)
    question.refresh_from_db()
    assert question.prompt == ADMIN_PROMPT


def test_questions_a_generation_job_made_are_kept_across_imports(admin_client, lesson_dir, user):
    source = Question.objects.get(key="demo-row")
    response = admin_client.post(
        reverse("admin:quizzes_question_changelist"),
        {
            "action": "generate_standalone_questions",
            "_selected_action": [source.pk],
            "apply": "1",
            "total": "5",
            "first_seed": "0",
        },
    )
    assert response.status_code == 302
    job = GenerationJob.objects.get()
    generation_job_run(job_id=job.pk)  # what the task runs
    made = Question.objects.filter(generated_from=source)
    assert made.count() == 5 and set(made.values_list("source", flat=True)) == {"job"}
    made.update(published=True)  # the admin reviewed and published them

    out = io.StringIO()
    call_command("load_lessons", directory=str(lesson_dir), stdout=out)
    assert "deleted 0" in out.getvalue()
    assert Question.objects.filter(generated_from=source, published=True).count() == 5

    # once a learner saw one, it stays, even when its source question leaves the files
    attempt = attempt_start(user=user, lesson=source.lesson)
    seen = {item.question_id for item in attempt.items.all()}
    assert seen & set(made.values_list("pk", flat=True))
    text = (lesson_dir / "demo.yaml").read_text(encoding="utf-8")
    (lesson_dir / "demo.yaml").write_text(text.replace(NUMERIC, ""), encoding="utf-8")
    report = content_load(directory=lesson_dir)
    assert report.questions.deleted == 0 and report.questions.unpublished == 1  # the source, kept for its copies
    assert Question.objects.filter(generated_from=source, published=True).count() == 5


# --------------------------------------------------------------------------- key collisions


def test_a_file_key_that_names_an_admin_question_is_a_conflict(admin_client, lesson_dir):
    lesson = Lesson.objects.get(key="demo")
    made = admin_add_choice_question(admin_client, lesson, key="demo-new")
    rewrite(lesson_dir, "  - key: demo-interview\n", NEW_CHOICE + "  - key: demo-interview\n")

    with pytest.raises(ContentConflictError) as raised:
        content_load(directory=lesson_dir)
    rows = {(c.row, c.field) for c in raised.value.conflicts}
    assert ("question 'demo-new'", "prompt") in rows
    conflict = next(c for c in raised.value.conflicts if c.field == "prompt")
    assert "admin" in conflict.reason
    assert (conflict.file_text, conflict.admin_text) == ("哪一步让每行的和为 1？", "softmax 沿哪一维归一化？")

    content_load(directory=lesson_dir, resolve="keep-admin")
    made.refresh_from_db()
    assert (made.source, made.prompt) == ("admin", "softmax 沿哪一维归一化？")

    content_load(directory=lesson_dir, resolve="take-files")
    made.refresh_from_db()
    assert (made.pk, made.source, made.prompt) == (made.pk, "file", "哪一步让每行的和为 1？")
    assert set(made.options.values_list("key", "source")) == {("a", "file"), ("b", "file"), ("c", "admin")}


NEW_CHOICE = """\
  - key: demo-new
    kind: choice
    prompt: 哪一步让每行的和为 1？
    options:
      - key: a
        text: 按行做 softmax
        correct: true
      - key: b
        text: 除以 $\\sqrt{d_k}$
        feedback: 缩放不改变行和。
"""


# --------------------------------------------------------------------------- make run, the migration


def test_make_runs_load_reports_a_conflict_and_carries_on(admin_client, lesson_dir):
    question = Question.objects.get(key="demo-mask")
    admin_edit(admin_client, question, prompt=ADMIN_PROMPT)
    stdout, stderr = io.StringIO(), io.StringIO()
    assert load_lessons_for_serving(stdout=stdout, stderr=stderr, directory=str(lesson_dir)) is False
    assert "question 'demo-mask'" in stderr.getvalue() and ADMIN_PROMPT in stderr.getvalue()
    assert "Serving" in stderr.getvalue()
    question.refresh_from_db()
    assert question.prompt == ADMIN_PROMPT
    # a loadable state loads as before
    call_command("load_lessons", "--keep-admin", directory=str(lesson_dir), stdout=io.StringIO())
    assert load_lessons_for_serving(stdout=io.StringIO(), stderr=io.StringIO(), directory=str(lesson_dir))


def test_make_runs_load_still_stops_on_a_broken_file(lesson_dir):
    rewrite(lesson_dir, "kind: recall", "kind: riddle")
    with pytest.raises(CommandError):
        load_lessons_for_serving(stdout=io.StringIO(), stderr=io.StringIO(), directory=str(lesson_dir))


def test_the_data_migration_sets_file_job_and_admin(lesson_dir):
    """Keys in the repository's fixtures: file; generated: job; the rest: admin."""
    migration = importlib.import_module("quizzes.migrations.0021_prov_provenance")
    lessons, questions, options = migration._fixture_keys()
    fixture_lesson = sorted(lessons)[0]
    lesson = Lesson.objects.create(key=fixture_lesson, title="t", source="admin")
    file_question = next(q for q in sorted(questions) if (q, "a") in options)
    q = Question.objects.create(lesson=lesson, key=file_question, kind="recall", prompt="p", source="admin")
    Option.objects.create(question=q, key="a", text="x", source="admin")
    Option.objects.create(question=q, key="zz-admin", text="y", source="admin")
    source = Question.objects.get(key="demo-row")
    generated = Question.objects.create(
        lesson=source.lesson, key="demo-row-s1", kind="numeric", prompt="p", template=source.template,
        answer_form="input", generated_from=source, fixed_seed=1, source="admin",
    )  # fmt: skip
    Question.objects.filter(key="demo-mask").update(source="admin")

    migration.set_provenance(apps, None)

    assert Lesson.objects.get(pk=lesson.pk).source == "file"
    assert Question.objects.get(pk=q.pk).source == "file"
    assert dict(Option.objects.filter(question=q).values_list("key", "source")) == {"a": "file", "zz-admin": "admin"}
    assert Question.objects.get(pk=generated.pk).source == "job"
    assert Question.objects.get(key="demo-mask").source == "admin"  # not in the repository's fixtures
