"""Number questions (``kind: number``): the model's rules, the YAML schema and the database's constraint."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction

from quizzes.content.number import without_unit
from quizzes.content.report import ContentError
from quizzes.content.writer import content_load
from quizzes.models import Question
from tests import factories

pytestmark = pytest.mark.django_db

LESSON = """\
key: numbers
title: 数字题
order: 1
questions:
  - key: n1-head-dim
    kind: number
    prompt: $d_{{model}} = 512$、8 个头，每个头的 $d_k$ 是多少？
    explanation: $512 / 8 = 64$。
{fields}
"""


def _load(tmp_path: Path, fields: str):
    (tmp_path / "numbers.yaml").write_text(LESSON.format(fields=textwrap.indent(fields, "    ")), encoding="utf-8")
    return content_load(directory=tmp_path)


def test_yaml_number_question_loads_with_its_answer_tolerance_and_unit(tmp_path):
    report = _load(tmp_path, "answer: 64\ntolerance: 0.5\nunit: 维\n")
    assert report.questions.created == 1
    question = Question.objects.get(key="n1-head-dim")
    assert (question.kind, question.number_answer, question.number_tolerance, question.number_unit) == (
        "number",
        64.0,
        0.5,
        "维",
    )
    assert question.is_quiz_kind
    assert _load(tmp_path, "answer: 64\ntolerance: 0.5\nunit: 维\n").changed is False  # the same file again


def test_tolerance_and_unit_are_optional(tmp_path):
    _load(tmp_path, "answer: 64\n")
    question = Question.objects.get(key="n1-head-dim")
    assert (question.number_tolerance, question.number_unit) == (0.0, "")


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ("tolerance: 1\n", "'answer' is required"),
        ('answer: "64"\n', "'answer' must be a number"),
        ("answer: true\n", "'answer' must be a number"),
        ("answer: .nan\n", "A number question needs its answer: a finite number."),
        ("answer: 64\ntolerance: -1\n", "The tolerance must be a finite number ≥ 0"),
        ("answer: 64\nunit: $d$\n", "The unit is plain text on one line"),
        ("answer: 64\ntemplate: head_dimension\n", "do not apply to a number question"),
    ],
)
def test_bad_number_fields_are_located_and_nothing_is_written(tmp_path, fields, message):
    with pytest.raises(ContentError) as caught:
        _load(tmp_path, fields)
    assert any(message in str(p) and p.question == "n1-head-dim" for p in caught.value.problems), caught.value
    assert not Question.objects.exists()


def test_only_number_questions_have_number_fields():
    question = factories.ChoiceQuestionFactory.build(number_answer=1.0)
    with pytest.raises(ValidationError) as caught:
        question.full_clean(exclude=["lesson"])
    assert "number_answer" in caught.value.message_dict


def test_the_database_refuses_a_number_question_without_its_answer(lesson):
    with pytest.raises(IntegrityError), transaction.atomic():
        Question.objects.create(lesson=lesson, key="raw", kind="number", prompt="?", number_tolerance=0.0)
    with pytest.raises(IntegrityError), transaction.atomic():
        Question.objects.create(lesson=lesson, key="raw2", kind="choice", prompt="?", number_unit="ms")


@pytest.mark.parametrize(
    ("typed", "unit", "read"),
    [("512 MiB", "MiB", "512"), ("512MiB", "MiB", "512"), ("MiB", "MiB", "MiB"), ("512", "", "512"), (512, "MiB", 512)],
)
def test_a_unit_typed_after_the_number_is_read_as_the_number(typed, unit, read):
    assert without_unit(typed, unit) == read
