"""The authoring gaps of issue 27, each made through the admin's real forms (a staff user on Django's test client),
then ``load_lessons``: a deleted or moved file row, options an admin adds to a file question, a stale save of order
or publication, a generated question's source in the files, and a browser's CRLF line ends."""

from __future__ import annotations

import html
import io
from pathlib import Path

import pytest
import yaml
from django.core.management import call_command
from django.urls import reverse

from quizzes.content.generation import generation_job_run
from quizzes.content.report import ContentConflictError, ContentError
from quizzes.content.writer import content_load
from quizzes.models import GenerationJob, Lesson, Question
from quizzes.practice.services.attempts import attempt_start
from tests.quizzes.content.test_loader import rewrite
from tests.quizzes.content.test_provenance import NUMERIC, admin_edit, form_data

pytestmark = pytest.mark.django_db


def load(directory: Path, *flags: str) -> str:
    out = io.StringIO()
    call_command("load_lessons", *flags, directory=str(directory), stdout=out)
    return out.getvalue()


# --------------------------------------------------------------------------- CRLF from a browser


def test_text_typed_in_a_browser_is_stored_with_lf_and_dumped_as_a_block(admin_client, lesson_dir):
    question = Question.objects.get(key="demo-mask")
    admin_edit(
        admin_client,
        question,
        prompt="掩码填什么？\r\n写出数值。",  # what a browser posts for a textarea's line break
        **{"options-1-feedback": "填 -1 的误区：\r\nsoftmax 后仍有权重。"},
    )
    question.refresh_from_db()
    assert question.prompt == "掩码填什么？\n写出数值。"
    assert question.options.get(key="b").feedback == "填 -1 的误区：\nsoftmax 后仍有权重。"

    call_command("dump_lessons", "--output", str(lesson_dir), stdout=io.StringIO())
    text = (lesson_dir / "demo.yaml").read_text(encoding="utf-8")
    assert "\r" not in text and "\\r" not in text
    assert "    prompt: |\n      掩码填什么？\n      写出数值。\n" in text
    assert "        feedback: |\n          填 -1 的误区：\n          softmax 后仍有权重。\n" in text
    load(lesson_dir)  # the file now says what the admin wrote: no conflict
    question.refresh_from_db()
    assert question.prompt == "掩码填什么？\n写出数值。"


# --------------------------------------------------------------------------- deleting and moving a file row


def conflicts_of(directory: Path) -> set[tuple[str, str, str, str]]:
    with pytest.raises(ContentConflictError) as raised:
        content_load(directory=directory)
    return {(c.row, c.field, c.file_text, c.admin_text) for c in raised.value.conflicts}


def test_a_file_question_cannot_be_deleted_in_the_admin_and_unpublishing_it_is_a_conflict(admin_client, lesson_dir):
    question = Question.objects.get(key="demo-mask")
    url = reverse("admin:quizzes_question_delete", args=[question.pk])
    response = admin_client.post(url, {"post": "yes"})
    text = html.unescape(response.content.decode())
    assert response.status_code == 200 and "question 'demo-mask' comes from the lesson files" in text
    assert Question.objects.filter(pk=question.pk).exists()
    bulk = admin_client.post(
        reverse("admin:quizzes_question_changelist"),
        {"action": "delete_selected", "_selected_action": [question.pk], "post": "yes"},
    )
    assert "comes from the lesson files" in html.unescape(bulk.content.decode())
    lesson = Lesson.objects.get(key="demo")
    lesson_page = admin_client.post(reverse("admin:quizzes_lesson_delete", args=[lesson.pk]), {"post": "yes"})
    assert "lesson 'demo' comes from the lesson files" in html.unescape(lesson_page.content.decode())
    assert Question.objects.filter(lesson=lesson).count() == 5

    admin_edit(admin_client, question, published="")  # what the refusal says to do instead
    assert conflicts_of(lesson_dir) == {("question 'demo-mask'", "published", "true", "false")}
    load(lesson_dir, "--keep-admin")
    assert Question.objects.get(pk=question.pk).published is False
    assert "no changes" in load(lesson_dir)


def test_a_file_option_cannot_be_deleted_in_the_admin_and_retiring_it_is_a_conflict(admin_client, lesson_dir):
    question = Question.objects.get(key="demo-why-scale")
    url = reverse("admin:quizzes_question_change", args=[question.pk])
    data = form_data(admin_client.get(url))
    response = admin_client.post(url, {**data, "options-2-DELETE": "on"})
    text = html.unescape(response.content.decode())
    assert response.status_code == 200 and "Option(s) c come from the lesson files" in text
    assert question.options.filter(key="c").exists()

    admin_edit(admin_client, question, **{"options-2-retired": "on"})
    assert conflicts_of(lesson_dir) == {("option 'demo-why-scale/c'", "retired", "false", "true")}
    load(lesson_dir, "--take-files")
    assert question.options.get(key="c").retired is False


def test_moving_a_file_question_to_another_lesson_in_the_admin_is_a_conflict(admin_client, lesson_dir):
    add = reverse("admin:quizzes_lesson_add")
    data = {**form_data(admin_client.get(add)), "key": "extra", "title": "加课", "order": "5"}
    response = admin_client.post(add, data)
    assert response.status_code == 302, response.context["adminform"].form.errors
    extra = Lesson.objects.get(key="extra")
    question = Question.objects.get(key="demo-mask")
    admin_edit(admin_client, question, lesson=extra.pk)
    notice = html.unescape(
        admin_client.get(reverse("admin:quizzes_question_change", args=[question.pk])).content.decode()
    )
    assert "Edited here since the last import: lesson." in notice

    assert conflicts_of(lesson_dir) == {("question 'demo-mask'", "lesson", "demo", "extra")}
    load(lesson_dir, "--keep-admin")
    assert Question.objects.get(pk=question.pk).lesson == extra
    assert "no changes" in load(lesson_dir)  # decided: left where the admin put it
    load(lesson_dir, "--take-files")
    assert Question.objects.get(pk=question.pk).lesson == extra  # keep-admin's decision stands until the file moves it


def test_a_file_question_the_admin_moved_and_a_learner_then_answered_stays_where_the_learner_saw_it(
    admin_client, lesson_dir, user
):
    add = reverse("admin:quizzes_lesson_add")
    data = {**form_data(admin_client.get(add)), "key": "extra", "title": "加课", "order": "5", "published": "on"}
    assert admin_client.post(add, data).status_code == 302
    extra = Lesson.objects.get(key="extra")
    question = Question.objects.get(key="demo-mask")
    admin_edit(admin_client, question, lesson=extra.pk)
    attempt = attempt_start(user=user, lesson=extra)
    assert attempt.items.filter(question=question).exists()  # the learner now has history with it in 'extra'

    assert conflicts_of(lesson_dir) == {("question 'demo-mask'", "lesson", "demo", "extra")}  # a conflict first
    with pytest.raises(ContentError, match="moved from lesson 'extra' to 'demo', but learners have history"):
        content_load(directory=lesson_dir, resolve="take-files")  # the files' lesson would move it: refused
    assert Question.objects.get(pk=question.pk).lesson == extra  # and nothing written

    load(lesson_dir, "--keep-admin")  # the admin's lesson is kept: no move, nothing to refuse
    assert Question.objects.get(pk=question.pk).lesson == extra
    assert "no changes" in load(lesson_dir)
    assert attempt.items.filter(question=question).exists()


def test_reordering_a_file_question_or_option_in_the_admin_is_a_conflict(admin_client, lesson_dir):
    question = Question.objects.get(key="demo-why-scale")
    admin_edit(admin_client, question, order="7", **{"options-0-order": "9"})
    assert conflicts_of(lesson_dir) == {
        ("question 'demo-why-scale'", "order", "1", "7"),
        ("option 'demo-why-scale/a'", "order", "1", "9"),
    }
    load(lesson_dir, "--take-files")
    question.refresh_from_db()
    assert (question.order, question.options.get(key="a").order) == (1, 1)


# --------------------------------------------------------------------------- a stale save of order or publication


@pytest.mark.parametrize(
    ("first_change", "told"),
    [
        ({"order": "7"}, "changed this question's lesson, order, publication or options at"),
        ({"published": ""}, "changed this question's lesson, order, publication or options at"),
        ({"options-1-retired": "on", "options-2-text": "省一半计算"}, "saved this question at"),  # a new version
    ],
)
def test_a_save_on_a_form_opened_before_anothers_change_is_refused(admin_client, lesson_dir, first_change, told):
    question = Question.objects.get(key="demo-why-scale")
    url = reverse("admin:quizzes_question_change", args=[question.pk])
    first, second = form_data(admin_client.get(url)), form_data(admin_client.get(url))  # two authors open it
    assert admin_client.post(url, {**first, **first_change}).status_code == 302
    after_first = Question.objects.get(pk=question.pk)
    response = admin_client.post(url, {**second, "explanation": "第二位作者的解释。"})
    assert response.status_code == 200 and told in html.unescape(response.content.decode())
    now = Question.objects.get(pk=question.pk)
    assert (now.explanation, now.order, now.published) == (
        after_first.explanation,
        after_first.order,
        after_first.published,
    )
    reopened = form_data(admin_client.get(url))  # reloaded, the second author's edit goes in
    assert admin_client.post(url, {**reopened, "explanation": "第二位作者的解释。"}).status_code == 302


def test_a_save_with_nothing_changed_in_between_is_not_stale(admin_client, lesson_dir):
    question = Question.objects.get(key="demo-why-scale")
    url = reverse("admin:quizzes_question_change", args=[question.pk])
    first, second = form_data(admin_client.get(url)), form_data(admin_client.get(url))
    assert admin_client.post(url, first).status_code == 302  # saved as it was: nothing another author must see
    assert admin_client.post(url, {**second, "order": "4"}).status_code == 302
    assert Question.objects.get(pk=question.pk).order == 4


# --------------------------------------------------------------------------- options an admin adds to a file question


def add_option(client, question: Question, key: str, text: str, *, correct: bool = False):
    """Post the change form with one more option row, as the inline's "add another" does."""
    url = reverse("admin:quizzes_question_change", args=[question.pk])
    data = form_data(client.get(url))
    n = int(data["options-TOTAL_FORMS"])
    data |= {"options-TOTAL_FORMS": str(n + 1), f"options-{n}-id": "", f"options-{n}-question": question.pk}
    data |= {f"options-{n}-order": str(n + 1), f"options-{n}-key": key, f"options-{n}-text": text}
    if correct:
        data[f"options-{n}-is_correct"] = "on"
    return client.post(url, data)


def errors_of(response) -> str:
    assert response.status_code == 200
    return html.unescape(response.content.decode())


def test_an_option_added_in_the_admin_meets_the_files_rules_there_and_at_the_next_import(admin_client, lesson_dir):
    question = Question.objects.get(key="demo-mask")  # a: $-\infty$ (2 wide, correct), b: -1 (2 wide)
    assert "exactly one correct option (found 2)" in errors_of(
        add_option(admin_client, question, "c", "0", correct=True)
    )
    assert "catch-all option" in errors_of(add_option(admin_client, question, "c", "以上都不对"))
    too_long = errors_of(add_option(admin_client, question, "c", "一个很大的负数"))  # 14 wide > 2 × 2 + 6
    assert "option lengths give the answer away: 'c' is 14 wide" in too_long
    assert add_option(admin_client, question, "c", "很大的负数").status_code == 302  # 10 wide: at the limit
    assert question.options.get(key="c").source == "admin"

    # the file shortens b: alone the file's options are fine, with the admin's c they give the answer away
    rewrite(lesson_dir, 'text: "-1"', 'text: "0"')
    with pytest.raises(ContentError) as raised:
        content_load(directory=lesson_dir)
    [problem] = raised.value.problems
    assert (problem.question, problem.option) == ("demo-mask", "c")
    assert "'c' is 10 wide, 'b' only 1" in problem.message and "c added in the admin" in problem.message

    # the file drops b: alone it would have one option, with the admin's c the question keeps two
    rewrite(lesson_dir, '      - key: b\n        text: "0"\n        feedback: 填 -1 的误区。\n', "")
    report = content_load(directory=lesson_dir)
    assert report.options.deleted == 1
    assert sorted(question.options.values_list("key", flat=True)) == ["a", "c"]


# --------------------------------------------------------------------------- a generated question's source in the files


def test_a_generated_questions_source_goes_into_the_files_and_comes_back(admin_client, lesson_dir, tmp_path):
    source = Question.objects.get(key="demo-row")
    response = admin_client.post(
        reverse("admin:quizzes_question_changelist"),
        {"action": "generate_standalone_questions", "_selected_action": [source.pk], "apply": "1"}
        | {"total": "2", "first_seed": "40"},
    )
    assert response.status_code == 302
    generation_job_run(job_id=GenerationJob.objects.get().pk)  # what the task runs
    made = {q.key: q.fixed_seed for q in Question.objects.filter(generated_from=source)}
    assert made == {"demo-row-s40": 40, "demo-row-s41": 41}

    first = tmp_path / "first"
    call_command("dump_lessons", "--output", str(first), stdout=io.StringIO())
    [dumped] = first.iterdir()
    questions = {q["key"]: q for q in yaml.safe_load(dumped.read_text(encoding="utf-8"))["questions"]}
    assert {key: (questions[key]["generated_from"], questions[key]["fixed_seed"]) for key in made} == {
        "demo-row-s40": ("demo-row", 40),
        "demo-row-s41": ("demo-row", 41),
    }
    assert "generated_from" not in questions["demo-row"]

    Question.objects.filter(generated_from__isnull=False).delete()  # an empty database: the source's copies first
    Question.objects.all().delete()
    Lesson.objects.all().delete()
    load(first)
    source = Question.objects.get(key="demo-row")
    assert {q.key: q.fixed_seed for q in Question.objects.filter(generated_from=source)} == made
    second = tmp_path / "second"
    call_command("dump_lessons", "--output", str(second), stdout=io.StringIO())
    assert (second / dumped.name).read_bytes() == dumped.read_bytes()
    assert "no changes" in load(second)


def test_a_generated_from_naming_no_usable_source_is_a_located_problem(lesson_dir):
    generated = "  - key: demo-row-s7\n    kind: numeric\n    template: attention_row_weights\n    fixed_seed: 7\n"
    rewrite(lesson_dir, NUMERIC, NUMERIC + generated + "    generated_from: {source}\n" + NUMERIC_TAIL)
    for source, told in [
        ("nowhere", "no question has the key 'nowhere'"),
        ("demo-mask", "Only numeric questions can generate"),
    ]:
        text = (lesson_dir / "demo.yaml").read_text(encoding="utf-8")
        (lesson_dir / "demo.yaml").write_text(text.replace("{source}", source), encoding="utf-8")
        with pytest.raises(ContentError) as raised:
            content_load(directory=lesson_dir)
        assert [(p.question, told in p.message) for p in raised.value.problems] == [("demo-row-s7", True)]
        (lesson_dir / "demo.yaml").write_text(text, encoding="utf-8")


NUMERIC_TAIL = "    params: {}\n    answer_form: input\n    prompt: 算一行注意力权重。\n"
