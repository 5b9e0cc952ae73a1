"""`manage.py import_moodle` and `export_moodle`: thin commands over the service and the export."""

from __future__ import annotations

import io

import pytest
from django.core.management import CommandError, call_command

from quizzes.models import Question
from tests import factories
from tests.quizzes.content.moodle.conftest import SAMPLES

pytestmark = pytest.mark.django_db


def test_import_then_export_through_the_commands(target, tmp_path):
    out = io.StringIO()
    call_command("import_moodle", str(SAMPLES / "numerical.xml"), "--lesson", target.key, stdout=out)
    assert "imported numerical.xml into lesson moodle-demo" in out.getvalue()
    assert "questions: created 2, updated 0, unchanged 0, skipped 0" in out.getvalue()
    exported = tmp_path / "bank.xml"
    call_command("export_moodle", "--lesson", target.key, "--output", str(exported), stdout=io.StringIO())
    again = io.StringIO()
    call_command("import_moodle", str(exported), "--lesson", target.key, stdout=again)
    assert "created 0, updated 0, unchanged 2" in again.getvalue() and "no changes" in again.getvalue()
    stdout = io.StringIO()
    call_command("export_moodle", "--lesson", target.key, stdout=stdout)
    assert stdout.getvalue() == exported.read_text(encoding="utf-8")


def test_import_refuses_with_every_problem_and_writes_nothing(target):
    with pytest.raises(CommandError) as caught:
        call_command("import_moodle", str(SAMPLES / "unsupported.xml"), "--lesson", target.key, stdout=io.StringIO())
    assert "unsupported.xml not imported (6 problem(s)), nothing written" in str(caught.value)
    assert "question #1 'Softmax rows': refused: truefalse" in str(caught.value)
    assert not Question.objects.exists()


def test_skip_unsupported_lists_the_skipped_questions(target):
    out = io.StringIO()
    call_command(
        "import_moodle", str(SAMPLES / "unsupported.xml"), "--lesson", target.key, "--skip-unsupported", stdout=out
    )
    assert "skipped 6" in out.getvalue() and out.getvalue().count("  skipped: ") == 6
    assert list(Question.objects.values_list("key", flat=True)) == ["moodle-demo-moodle-mask-value"]


def test_unknown_lesson_and_unreadable_file(target, tmp_path):
    with pytest.raises(CommandError, match="no lesson with the key 'nope'"):
        call_command("import_moodle", str(SAMPLES / "essay.xml"), "--lesson", "nope")
    with pytest.raises(CommandError, match="cannot read"):
        call_command("import_moodle", str(tmp_path / "missing.xml"), "--lesson", target.key)
    with pytest.raises(CommandError, match="no lesson with the key 'nope'"):
        call_command("export_moodle", "--lesson", "nope")


def test_export_refuses_what_moodle_cannot_carry_unless_skipped(lesson):
    factories.CodeQuestionFactory(lesson=lesson, key="l-code", order=1)
    factories.RecallQuestionFactory(lesson=lesson, key="l-recall", order=2)
    with pytest.raises(CommandError) as caught:
        call_command("export_moodle", "--lesson", lesson.key, stdout=io.StringIO())
    assert "key l-code: refused: a code question runs and is checked in our sandbox" in str(caught.value)
    assert "key l-recall: refused: a recall card" in str(caught.value)
    err = io.StringIO()
    call_command("export_moodle", "--lesson", lesson.key, "--skip-unsupported", stdout=io.StringIO(), stderr=err)
    assert "skipped l-code: a code question" in err.getvalue() and "skipped l-recall: a recall card" in err.getvalue()
