"""dump_lessons: the database's lessons written back as lesson files, loadable by load_lessons."""

from __future__ import annotations

import difflib
from io import StringIO
from pathlib import Path

import pytest
import yaml
from django.core.management import call_command
from django.core.management.base import CommandError

from quizzes.content.models import Lesson, Option, Question
from quizzes.content.reader import DEFAULT_LESSONS_DIR
from quizzes.content.writer import content_load

pytestmark = pytest.mark.django_db
FIXTURES = sorted(DEFAULT_LESSONS_DIR.glob("*.yaml"))


def _dump(output: Path, *args: str) -> str:
    out = StringIO()
    call_command("dump_lessons", "--output", str(output), *args, stdout=out)
    return out.getvalue()


def _load(directory: Path) -> str:
    out = StringIO()
    call_command("load_lessons", "--dir", str(directory), stdout=out)
    return out.getvalue()


def test_load_then_dump_gives_every_fixture_back_byte_for_byte_and_loading_the_dump_changes_nothing(tmp_path):
    content_load()
    _dump(tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == [p.name for p in FIXTURES]
    for fixture in FIXTURES:
        assert (tmp_path / fixture.name).read_bytes() == fixture.read_bytes(), fixture.name
    assert _load(tmp_path).strip().endswith("no changes")


def test_an_edit_changes_only_that_questions_lines(tmp_path):
    content_load()
    question = Question.objects.filter(lesson__key="sdpa", kind="choice").order_by("order")[1]
    question.prompt = "改过的题干：第一行\n第二行"
    question.save()
    _dump(tmp_path, "--lesson", "sdpa")
    before = (DEFAULT_LESSONS_DIR / "01-sdpa.yaml").read_text(encoding="utf-8").splitlines()
    after = (tmp_path / "01-sdpa.yaml").read_text(encoding="utf-8").splitlines()
    changed = [line for line in difflib.unified_diff(before, after, lineterm="", n=0) if line[:1] in "+-"]
    old_prompt = yaml.safe_load("\n".join(before))["questions"][1]["prompt"].strip().splitlines()
    assert changed[2:] == [f"-      {line}" for line in old_prompt] + ["+      改过的题干：第一行", "+      第二行"]
    assert _load(tmp_path).strip().endswith("done")  # the edit goes back in (an admin edit the file now agrees with)
    assert Question.objects.get(pk=question.pk).prompt == "改过的题干：第一行\n第二行"


def _rows() -> list[dict]:
    """The content as plain data, without ids, dates, provenance and the order's numbering (only its sequence)."""
    skip = {
        "id",
        "lesson",
        "question",
        "created_at",
        "updated_at",
        "source",
        "import_hashes",
        "order",
        "generated_from",
    }
    rows = []
    for lesson in Lesson.objects.order_by("order", "key"):
        row = {f.name: getattr(lesson, f.name) for f in Lesson._meta.concrete_fields if f.name not in skip}
        questions = []
        for question in Question.objects.filter(lesson=lesson).order_by("order", "key"):
            q = {f.name: getattr(question, f.name) for f in Question._meta.concrete_fields if f.name not in skip}
            q["options"] = [
                {f.name: getattr(o, f.name) for f in Option._meta.concrete_fields if f.name not in skip}
                for o in question.options.order_by("order", "key")
            ]
            questions.append(q)
        rows.append({**row, "questions": questions})
    return rows


def test_an_admin_made_lesson_dumped_and_loaded_into_an_empty_database_gives_the_same_rows(tmp_path):
    lesson = Lesson.objects.create(
        key="admin-made", title="管理员写的课", order=9, summary="两行\n摘要", published=False
    )
    choice = Question.objects.create(
        lesson=lesson, key="am-choice", kind="choice", prompt="哪一维做 softmax？", explanation="最后一维。", order=5
    )
    for order, (key, text, correct, feedback) in enumerate(
        [("a", "最后一维 key", True, ""), ("b", "第一维 batch", False, "那是批次。"), ("c", "yes", False, "")]
    ):
        Option.objects.create(question=choice, key=key, text=text, is_correct=correct, feedback=feedback, order=order)
    Option.objects.create(question=choice, key="d", text="no", order=7, retired=True)
    Question.objects.create(
        lesson=lesson,
        key="am-number",
        kind="number",
        prompt="多少？",
        number_answer=0.125,
        number_tolerance=1e-05,
        number_unit="MiB",
        order=8,
        published=False,
    )
    Question.objects.create(
        lesson=lesson,
        key="am-numeric",
        kind="numeric",
        template="attention_row_weights",
        template_version=1,
        params={"is_causal": True},
        answer_form="input",
        fixed_seed=3,
        prompt="算一行权重。",
        order=9,
    )
    expected = _rows()
    assert "wrote" in _dump(tmp_path)
    assert [p.name for p in tmp_path.iterdir()] == ["09-admin-made.yaml"]
    Question.objects.all().delete()
    Lesson.objects.all().delete()
    _load(tmp_path)
    assert _rows() == expected


def test_an_unknown_lesson_key_is_a_clear_error(tmp_path):
    content_load()
    with pytest.raises(CommandError, match=r"no lesson with key 'nope' \(lessons: sdpa, six-questions"):
        _dump(tmp_path, "--lesson", "nope")
    assert not list(tmp_path.iterdir())
