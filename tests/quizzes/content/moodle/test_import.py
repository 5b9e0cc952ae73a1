"""Moodle XML import (quizzes.content.moodle): each sample file of Moodle's documented format becomes our questions
with the mapping of fixtures/lessons/README.md; everything we cannot represent is refused with its name and the
reason, and nothing is written unless --skip-unsupported."""

from __future__ import annotations

import pytest

from quizzes.content.moodle.importer import lesson_moodle_import
from quizzes.content.moodle.xmlfile import MoodleError
from quizzes.models import Option, Question
from tests.quizzes.content.moodle.conftest import sample

pytestmark = pytest.mark.django_db


def _import(lesson, name: str, **kwargs):
    return lesson_moodle_import(lesson=lesson, data=sample(name), file=name, **kwargs)


def test_multichoice_becomes_choice_questions_with_option_feedback_and_explanation(target):
    report = _import(target, "multichoice.xml")
    assert report.created == ["moodle-demo-moodle-why-scale-by-sqrt-d-k", "moodle-demo-moodle-head-dimension"]
    why = Question.objects.get(key="moodle-demo-moodle-why-scale-by-sqrt-d-k")
    assert (why.kind, why.lesson, why.published) == ("choice", target, True)
    assert why.prompt == "Why are the scores divided by $\\sqrt{d_k}$ before the softmax?"
    assert why.explanation == (
        "For independent components with mean 0 and variance 1, $\\operatorname{Var}(q \\cdot k) = d_k$: dividing "
        "by $\\sqrt{d_k}$ brings it back to 1, so the softmax does not **saturate**."
    )
    options = list(why.options.order_by("order"))
    assert [(o.text, o.is_correct) for o in options] == [
        ("To bring the variance of the scores back to about 1", True),
        ("To make every row of the weights sum to 1", False),
        ("To make the softmax sharper, so that one key wins sooner", False),
    ]
    assert options[2].feedback == "Dividing by $\\sqrt{d_k}$ *flattens* the softmax; it does not sharpen it."
    assert all(o.key.startswith("o-") and len(o.key) == 10 for o in options)


def test_html_entities_sub_and_sup_and_hidden(target):
    _import(target, "multichoice.xml")
    head = Question.objects.get(key="moodle-demo-moodle-head-dimension")
    assert head.published is False  # <hidden>1</hidden>
    assert head.prompt == (
        "A model has d$_{\\text{model}}$ = 512 and 8 heads of equal size. What is d$_{\\text{k}}$ – the size of "
        "**one** head?"
    )
    assert head.explanation == "The heads split d$_{\\text{model}}$: `512 // 8 == 64`."
    assert [o.text for o in head.options.order_by("order")] == ["8", "64", "512", "4096"]
    assert head.options.get(is_correct=True).text == "64"
    assert head.options.get(text="4096").feedback == "512 × 8 multiplies where the heads divide."


def test_the_category_and_dropped_parts_are_reported_as_notes(target):
    report = _import(target, "multichoice.xml")
    notes = "\n".join(report.notes)
    assert "category '$course$/top/Attention/Scaled dot-product' (question #1): not kept" in notes
    assert "question #2 'Why scale by sqrt(d_k)?': combined feedback not kept" in notes
    assert "1 hint(s) not kept" in notes and "tags not kept" in notes
    assert "question #3 'Head dimension': answers are shuffled here" in notes


def test_numerical_becomes_a_number_question_with_tolerance_and_unit(target):
    report = _import(target, "numerical.xml")
    assert report.created == [
        "moodle-demo-moodle-kv-cache-mib",
        "moodle-demo-moodle-the-other-weight",
    ]  # idnumber first
    kv = Question.objects.get(key="moodle-demo-moodle-kv-cache-mib")
    assert (kv.kind, kv.number_answer, kv.number_tolerance, kv.number_unit) == ("number", 36.0, 0.5, "MiB")
    assert kv.prompt.startswith("A decoder caches K and V for 12 layers, $T = 1024$ tokens")
    other = Question.objects.get(key="moodle-demo-moodle-the-other-weight")
    assert (other.number_answer, other.number_tolerance, other.number_unit) == (0.55, 0.01, "")
    assert other.explanation == "A row of softmax weights sums to 1: $1 - 0.45 = 0.55$."


def test_essay_becomes_an_interview_prompt_with_reference_answer_and_rubric(target):
    report = _import(target, "essay.xml")
    (key,) = report.created
    assert key.startswith("moodle-demo-moodle-q-")  # a Chinese name: its digest
    prompt = Question.objects.get(key=key)
    assert prompt.kind == "prompt" and prompt.prompt == "解码器里的因果掩码做什么？它加在哪一步？"
    assert prompt.reference_answer == (
        "第 $i$ 个位置只能看第 $1..i$ 个位置：在 softmax *之前*，把对角线以上的分数填成 $-\\infty$，"
        "这些位置的权重就恰好是 0。"
    )
    assert prompt.rubric == ["只看自己和之前的位置", "填 $-\\infty$，不是填 0", "在 softmax 之前，不是之后"]
    assert prompt.explanation == "掩码让第 $i$ 个 token 只看到第 $1..i$ 个。"


def test_unsupported_questions_are_refused_with_name_and_reason_and_nothing_is_written(target):
    with pytest.raises(MoodleError) as caught:
        _import(target, "unsupported.xml")
    messages = [str(p) for p in caught.value.problems]
    expected = {
        "question #1 'Softmax rows': refused: truefalse: true/false is answered right half the time by guessing",
        "question #2 'Name the function': refused: shortanswer: typed text answers",
        "question #3 'Which are matrices': refused: multichoice: several answers may be chosen",
        "question #4 'Read the heatmap': refused: multichoice: uses images or files (<file>, <img>)",
        "question #5 'Match the shapes': refused: matching: matching (pairs of items) has no kind here",
        "question #6 'Scaled score': refused: calculated: calculated questions draw numbers",
    }
    for part in expected:
        assert any(part in message for message in messages), (part, messages)
    assert len(messages) == 6 and all(m.startswith("unsupported.xml, line ") for m in messages)
    assert not Question.objects.exists() and not Option.objects.exists()


def test_skip_unsupported_imports_the_rest_and_lists_what_it_skipped(target):
    report = _import(target, "unsupported.xml", skip_unsupported=True)
    assert report.created == ["moodle-demo-moodle-mask-value"]
    assert [(s.index, s.name) for s in report.skipped] == [
        (1, "Softmax rows"),
        (2, "Name the function"),
        (3, "Which are matrices"),
        (4, "Read the heatmap"),
        (5, "Match the shapes"),
        (6, "Scaled score"),
    ]
    assert all(s.reason and s.line for s in report.skipped)
    mask = Question.objects.get(key="moodle-demo-moodle-mask-value")
    assert mask.options.get(is_correct=True).text == "$-\\infty$"


def test_reimporting_the_same_file_updates_in_place_and_writes_nothing_new(target):
    first = _import(target, "multichoice.xml")
    rows = {q.key: (q.pk, q.updated_at) for q in Question.objects.all()}
    again = _import(target, "multichoice.xml")
    assert again.created == [] and again.updated == [] and sorted(again.unchanged) == sorted(first.created)
    assert {q.key: (q.pk, q.updated_at) for q in Question.objects.all()} == rows
    assert Question.objects.count() == 2
