"""Moodle XML export (quizzes.content.moodle.exporter), and the round trips: export → import → export gives the
same file byte for byte, for questions imported from Moodle and for a lesson of the real fixtures."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from django.conf import settings

from quizzes.content.moodle.exporter import lesson_moodle_export, number_text
from quizzes.content.moodle.importer import lesson_moodle_import
from quizzes.content.moodle.xmlfile import MoodleError, read_questions
from quizzes.content.writer import content_load
from quizzes.models import Lesson, Question
from tests import factories
from tests.quizzes.content.moodle.conftest import sample

pytestmark = pytest.mark.django_db

SAMPLES = ("multichoice.xml", "numerical.xml", "essay.xml")


def _import_samples(lesson) -> None:
    for name in SAMPLES:
        lesson_moodle_import(lesson=lesson, data=sample(name), file=name)


def test_the_export_is_moodle_xml_of_every_mapped_kind(target):
    _import_samples(target)
    xml = lesson_moodle_export(lesson=target).xml
    assert xml.startswith('<?xml version="1.0" encoding="UTF-8"?>\n<quiz>\n  <question type="category">')
    assert "<text>$course$/top/从 Moodle 导入</text>" in xml
    questions = read_questions(xml.encode(), file="export.xml")  # our own reader, safe parser: well-formed
    assert [q.type for q in questions] == ["category", "multichoice", "multichoice", "numerical", "numerical", "essay"]
    assert [q.name for q in questions[1:5]] == [
        "why-scale-by-sqrt-d-k",
        "head-dimension",
        "kv-cache-mib",
        "the-other-weight",
    ]
    assert "<text><![CDATA[<p>Why are the scores divided by \\(\\sqrt{d_k}\\) before the softmax?</p>]]></text>" in xml
    assert "<hidden>1</hidden>" in xml  # the unpublished (hidden) one stays hidden
    assert '<answer fraction="100" format="html">\n      <text><![CDATA[<p>64</p>]]></text>' in xml
    assert "<text>36</text>" in xml and "<tolerance>0.5</tolerance>" in xml and "<unit_name>MiB</unit_name>" in xml
    assert "<p>Rubric</p>\n<ul>\n<li>只看自己和之前的位置</li>" in xml


def test_round_trip_of_imported_questions_is_byte_identical_and_writes_nothing(target):
    _import_samples(target)
    first = lesson_moodle_export(lesson=target).xml
    rows = {q.key: (q.pk, q.updated_at) for q in Question.objects.all()}
    report = lesson_moodle_import(lesson=target, data=first.encode(), file="export.xml")
    assert report.created == [] and report.updated == [] and len(report.unchanged) == 5
    assert {q.key: (q.pk, q.updated_at) for q in Question.objects.all()} == rows
    assert lesson_moodle_export(lesson=target).xml == first


def test_round_trip_of_a_real_lesson_through_moodle_is_byte_identical(tmp_path):
    """Lesson 2 of the fixtures (Chinese, math, lists, code; choice, generated numeric, prompt) → Moodle XML →
    imported into a lesson of the same title → Moodle XML again: the same bytes."""
    source = Path(settings.BASE_DIR) / "fixtures" / "lessons" / "02-six-questions.yaml"
    shutil.copy(source, tmp_path / source.name)
    content_load(directory=tmp_path)
    lesson = Lesson.objects.get(key="six-questions")
    first = lesson_moodle_export(lesson=lesson, skip_unsupported=True)
    skipped = dict(first.skipped)
    assert skipped and all("Moodle's numerical questions take a single number" in why for why in skipped.values())
    kinds = dict(Question.objects.filter(key__in=first.exported).values_list("key", "kind"))
    assert {"choice", "numeric", "prompt"} <= set(kinds.values())  # the scalar generated ones export
    copy = factories.LessonFactory(key="six-copy", title=lesson.title, summary=lesson.summary, order=50)
    report = lesson_moodle_import(lesson=copy, data=first.xml.encode(), file="six.xml")
    assert len(report.created) == len(first.exported)
    second = lesson_moodle_export(lesson=copy)
    assert second.xml == first.xml
    numbers = Question.objects.filter(lesson=copy, kind="number")
    assert numbers.count() == list(kinds.values()).count("numeric")  # a generated one came back as a number


def test_refused_kinds_are_named_with_the_reason_and_skip_lists_them(lesson):
    factories.RecallQuestionFactory(lesson=lesson, key="l-recall")
    factories.NumericQuestionFactory(lesson=lesson, key="l-weights")  # attention_row_weights: a vector
    factories.ChoiceQuestionFactory(lesson=lesson, key="l-choice", options=3)
    with pytest.raises(MoodleError) as caught:
        lesson_moodle_export(lesson=lesson)
    messages = sorted(str(p) for p in caught.value.problems)
    assert messages == [
        "export, key l-recall: refused: a recall card (lines written from memory, then self-rated) has no Moodle "
        "counterpart",
        "export, key l-weights: refused: its answer is a 4 array; Moodle's numerical questions take a single number",
    ]
    export = lesson_moodle_export(lesson=lesson, skip_unsupported=True)
    assert export.exported == ["l-choice"] and [key for key, _why in export.skipped] == ["l-recall", "l-weights"]


@pytest.mark.parametrize(
    ("value", "text"), [(64.0, "64"), (0.55, "0.55"), (1e-7, "1e-07"), (0.1 + 0.2, "0.30000000000000004")]
)
def test_numbers_are_written_so_they_read_back_exactly(value, text):
    assert number_text(value) == text and float(text) == value
