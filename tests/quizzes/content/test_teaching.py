"""A lesson's teaching text (issue 14): authored in the YAML (``teaching:``), validated with every problem
located by file, lesson and section, stored on the lesson, re-imported without churn."""

from __future__ import annotations

from pathlib import Path

import pytest

from quizzes.content.report import ContentError
from quizzes.content.teaching import parse_teaching
from quizzes.content.writer import content_load
from quizzes.models import Lesson

pytestmark = pytest.mark.django_db

LESSON = """\
key: demo
title: 演示课
order: 1
teaching:
  - key: idea
    title: 一句话
    body: |
      注意力就是加权平均：
      权重来自 $QK^\\top$。
    figure: five_steps
  - key: mask
    title: 因果掩码
    body: 未来位置填 $-\\infty$。
    checkpoint:
      prompt: $T=3$ 时有几个格子被挡住？
      explanation: $2+1=3$ 个。
      options:
        - key: a
          text: "3"
          correct: true
          feedback: 对。
        - key: b
          text: "6"
          feedback: 那是留下的格子数。
questions:
  - key: demo-q
    kind: choice
    prompt: 掩码填什么？
    options:
      - {key: a, text: 负无穷, correct: true}
      - {key: b, text: 填上零}
"""


def _write(directory: Path, text: str) -> None:
    (directory / "demo.yaml").write_text(text, encoding="utf-8")


@pytest.fixture
def lesson_dir(tmp_path: Path) -> Path:
    directory = tmp_path / "lessons"
    directory.mkdir()
    _write(directory, LESSON)
    return directory


def test_teaching_round_trip(lesson_dir):
    content_load(directory=lesson_dir)
    lesson = Lesson.objects.get(key="demo")
    assert [s["key"] for s in lesson.teaching] == ["idea", "mask"]
    idea, mask = lesson.teaching
    assert idea["title"] == "一句话" and "$QK^\\top$" in idea["body"] and idea["figure"] == "five_steps"
    assert idea["checkpoint"] is None
    assert mask["checkpoint"]["prompt"] == "$T=3$ 时有几个格子被挡住？"
    assert [(o["key"], o["correct"]) for o in mask["checkpoint"]["options"]] == [("a", True), ("b", False)]

    updated_at = lesson.updated_at
    again = content_load(directory=lesson_dir)
    assert again.lessons.unchanged == 1 and again.lessons.updated == 0
    lesson.refresh_from_db()
    assert lesson.updated_at == updated_at  # same file twice: nothing written

    _write(lesson_dir, LESSON.replace("未来位置填", "把未来位置填成"))
    edited = content_load(directory=lesson_dir)
    assert edited.lessons.updated == 1
    lesson.refresh_from_db()
    assert lesson.teaching[1]["body"] == "把未来位置填成 $-\\infty$。"


def test_a_lesson_without_teaching_stores_an_empty_list(lesson_dir):
    start, end = LESSON.index("teaching:"), LESSON.index("questions:")
    _write(lesson_dir, LESSON[:start] + LESSON[end:])
    content_load(directory=lesson_dir)
    assert Lesson.objects.get(key="demo").teaching == []


@pytest.mark.parametrize(
    ("old", "new", "where", "message"),
    [
        ("figure: five_steps", "figure: pie_chart", "section 'idea'", "'figure' must be one of"),
        ("  - key: mask\n", "  - key: idea\n", "section 'idea'", "duplicate section key"),
        ("    title: 一句话\n", "", "section 'idea'", "'title' is required"),
        (
            "          feedback: 那是留下的格子数。\n",
            "          feedback: 那是留下的格子数。\n          correct: true\n",
            "section 'mask'",
            "exactly one correct option (found 2)",
        ),
        (
            '          text: "6"',
            "          text: 对角线以及它左下方留下来的全部格子的数目",
            "section 'mask', option 'b'",
            "option lengths give the answer away",
        ),
        ('          text: "6"', "          text: 以上都不对", "section 'mask', option 'b'", "catch-all"),
        ("    body: 未来位置填", "    colour: red\n    body: 未来位置填", "section 'mask'", "unknown field(s) colour"),
        ("  - key: mask\n", "  - key: Mask!\n", "lesson 'demo'", "needs a 'key' of lowercase letters"),
    ],
)
def test_teaching_problems_name_the_file_lesson_and_section(lesson_dir, old, new, where, message):
    assert old in LESSON
    _write(lesson_dir, LESSON.replace(old, new, 1))
    with pytest.raises(ContentError) as caught:
        content_load(directory=lesson_dir)
    lines = str(caught.value).splitlines()
    located = [line for line in lines if line.startswith("demo.yaml, lesson 'demo'") and where in line]
    assert any(message in line for line in located), lines
    assert not Lesson.objects.exists()  # nothing written


def test_the_correct_checkpoint_option_may_not_be_the_single_widest():
    _, problems = parse_teaching(
        [
            {
                "key": "s",
                "title": "t",
                "body": "b",
                "checkpoint": {
                    "prompt": "p",
                    "explanation": "e",
                    "options": [
                        {"key": "a", "text": "除以根号 d_k", "correct": True},
                        {"key": "b", "text": "除以 d_k"},
                    ],
                },
            }
        ]
    )
    assert [(p.section, p.option) for p in problems] == [("s", "a")]
    assert "single widest" in problems[0].message


def test_teaching_must_be_a_list():
    _, problems = parse_teaching({"key": "x"})
    assert problems and "must be a list" in problems[0].message


def test_folded_yaml_text_keeps_no_stray_space_between_chinese_lines(lesson_dir):
    """``summary: >-`` folds a line break into a space ("……的形状。 学完能……"); the loader keeps the break and
    the renderer joins it without a space next to CJK, with one between English words."""
    from quizzes.core.rendering import render_markdown

    folded = "summary: >-\n  每个张量的形状。\n  学完能推导公式，\n  and explain the shapes.\nteaching:"
    _write(lesson_dir, LESSON.replace("teaching:", folded, 1))
    content_load(directory=lesson_dir)
    summary = Lesson.objects.get(key="demo").summary
    shown = str(render_markdown(summary)).replace("\n", " ")
    assert "每个张量的形状。学完能推导公式，and explain the shapes." in shown
