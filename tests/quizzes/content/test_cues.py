"""Answer cues (quizzes.content.cues): the measurement, each rule, and the rules as load_lessons applies them."""

from __future__ import annotations

import io
import textwrap
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from quizzes.content import cues
from quizzes.content.report import ContentError
from quizzes.content.writer import content_load
from quizzes.models import Lesson

# --------------------------------------------------------------------------- measuring


@pytest.mark.parametrize(
    ("text", "plain", "width"),
    [
        ("abc", "abc", 3),
        ("注意力", "注意力", 6),  # CJK: W, two columns each
        ("softmax 归一化", "softmax 归一化", 14),
        ("（全角）", "（全角）", 8),  # full-width brackets: F
        ("$(4, 4)$", "(4,4)", 5),  # math counts as the text the learner reads, not the LaTeX source
        ("$\\sqrt{d_k}$", "dk", 2),  # the radical is drawn, not text
        ("**加粗** 与 `code`", "加粗 与 code", 12),  # markup stripped
        ("a < b & c", "a < b & c", 9),  # entities unescaped
        ("多个   空格\n换行", "多个 空格换行", 13),  # spaces collapsed; a line break between CJK adds none
        ("", "", 0),
    ],
)
def test_plain_text_and_width(text, plain, width):
    assert cues.plain_text(text) == plain
    assert cues.option_width(text) == width


def test_display_width_counts_wide_and_full_width_characters_twice():
    assert cues.display_width("ａＢ") == 4  # full-width Latin letters: F
    assert cues.display_width("−∞") == 2  # ambiguous (A) counts 1
    assert cues.display_width("ｶ") == 1  # half-width katakana: H


# --------------------------------------------------------------------------- rules over one question


def options(*texts: str, correct: int = 0, retired: tuple[int, ...] = ()) -> list[dict]:
    return [
        {"key": "abcdefgh"[i], "text": text, "is_correct": i == correct, "retired": i in retired}
        for i, text in enumerate(texts)
    ]


def test_length_spread_within_the_limit_passes():
    # shortest 4 wide ("两个"), limit 2 × 4 + 6 = 14: a 14-wide option is fine
    assert cues.question_cue_problems(options("两个", "恰好七个汉字啊")) == []


def test_length_spread_beyond_the_limit_names_the_options_and_widths():
    (problem,) = cues.question_cue_problems(options("两个", "恰好七个汉字啊x"))
    assert problem.code == "length_spread"
    assert problem.option == "b"
    assert problem.message == (
        "option lengths give the answer away: 'b' is 15 wide, 'a' only 4 (the longest may be at most 2 × 4 + 6 = 14)"
    )


def test_length_spread_counts_math_as_rendered():
    # "$\\begin{bmatrix}…$" is long LaTeX but short on screen
    matrix = "$\\begin{bmatrix}1 & 2\\\\3 & 4\\end{bmatrix}$"
    assert cues.option_width(matrix) <= 10
    assert cues.question_cue_problems(options("$(4, 4)$", matrix, "$(2, 2)$")) == []


def test_retired_options_are_not_measured():
    long = "这是一个非常非常非常非常非常长的选项"
    assert cues.question_cue_problems(options("短", "也短", long, retired=(2,))) == []
    assert [p.code for p in cues.question_cue_problems(options("短", "也短", long))] == ["length_spread"]


@pytest.mark.parametrize(
    "text", ["以上都对", "以上皆非", "以上均不正确", "都不对", "All of the above", "none of the above.", "**以上都**对"]
)
def test_catch_all_options_are_refused(text):
    problems = cues.question_cue_problems(options("甲方案", "乙方案", text))
    assert [(p.code, p.option) for p in problems] == [("catch_all", "c")]
    assert "catch-all" in problems[0].message


def test_catch_all_is_about_the_phrase_not_similar_words():
    assert cues.question_cue_problems(options("以上的 softmax", "都对齐到行", "一部分不对")) == []


# --------------------------------------------------------------------------- rule b over a bank


def test_single_longest_means_strictly_longer_than_every_other_option():
    assert cues.correct_is_single_longest(options("长一些的", "短", "短"))
    assert not cues.correct_is_single_longest(options("一样长", "一样长", "短"))  # a tie is no cue
    assert not cues.correct_is_single_longest(options("短", "长一些的"))
    assert not cues.correct_is_single_longest(options("长一些的", "短", retired=(1,)))  # one live option


def test_bank_limit_is_one_question_in_three():
    longest = options("正确的最长选项", "短", "短")
    other = options("短", "不正确的长选项", "短")
    bank = {f"q{i}": (longest if i < 3 else other) for i in range(9)}
    summary = cues.bank_longest_correct(bank)
    assert (summary.count, summary.total, summary.limit, summary.ok) == (3, 9, 3, True)
    assert summary.line() == "answer cues: correct option single longest in 3 of 9 choice questions (limit 3)"
    assert summary.problem() is None

    bank["q3"] = longest
    summary = cues.bank_longest_correct(bank)
    assert (summary.count, summary.limit, summary.ok) == (4, 3, False)
    problem = summary.problem()
    assert problem.code == "longest_correct" and problem.questions == ("q0", "q1", "q2", "q3")
    assert problem.message == (
        "the correct option is the single longest in 4 of 9 choice questions; at most 3 (one in three) may be: "
        "q0, q1, q2, q3"
    )


def test_rule_messages_are_translated():
    from django.utils import translation

    with translation.override("zh-hans"):
        (problem,) = cues.question_cue_problems(options("两个", "恰好七个汉字啊x"))
    assert problem.message == "选项长短泄露了答案：“b”宽 15，“a”只有 4（最长的选项最多 2 × 4 + 6 = 14）"


# --------------------------------------------------------------------------- the loader applies them


def lesson_file(questions: str) -> str:
    return "key: cues\ntitle: 线索\norder: 1\nquestions:\n" + textwrap.indent(textwrap.dedent(questions), "  ")


def choice(key: str, *texts: str, correct: int = 0) -> str:
    lines = [f"- key: {key}", "  kind: choice", "  prompt: 选一个。", "  options:"]
    for index, text in enumerate(texts):
        lines.append(f"    - key: {'abcd'[index]}")
        lines.append(f'      text: "{text}"')
        if index == correct:
            lines.append("      correct: true")
    return "\n".join(lines) + "\n"


@pytest.fixture
def cue_dir(tmp_path: Path) -> Path:
    directory = tmp_path / "lessons"
    directory.mkdir()
    return directory


def write(directory: Path, *questions: str) -> None:
    (directory / "cues.yaml").write_text(lesson_file("".join(questions)), encoding="utf-8")


FAIR = ("查询与键", "查询与值", "键与值")  # the correct one ties for longest: no cue


@pytest.mark.django_db
@pytest.mark.parametrize("validate_only", [False, True])
def test_load_refuses_a_length_cue_naming_file_question_option_and_widths(cue_dir, validate_only):
    write(cue_dir, choice("c-fair", *FAIR), choice("c-long", "点积", "经过 softmax 归一化后的加权平均值", "求和"))
    with pytest.raises(ContentError) as excinfo:
        content_load(directory=cue_dir, validate_only=validate_only)
    (problem,) = excinfo.value.problems
    assert str(problem) == (
        "cues.yaml, lesson 'cues', question 'c-long', option 'b': option lengths give the answer away: "
        "'b' is 33 wide, 'a' only 4 (the longest may be at most 2 × 4 + 6 = 14)"
    )
    assert Lesson.objects.count() == 0


@pytest.mark.django_db
def test_load_refuses_catch_all_options(cue_dir):
    write(cue_dir, choice("c-all", "查询与键", "查询与值", "以上都对", correct=1))
    with pytest.raises(ContentError, match=r"question 'c-all', option 'c': 'c' is a catch-all option \(\"以上都\"\)"):
        content_load(directory=cue_dir)


@pytest.mark.django_db
def test_load_refuses_a_bank_where_the_longest_option_is_usually_the_key(cue_dir):
    cued = ("查询与键点积", "查询与键", "查询与值")
    write(cue_dir, choice("c1", *FAIR), choice("c2", *FAIR), choice("c3", *cued), choice("c4", *cued))
    with pytest.raises(ContentError) as excinfo:
        content_load(directory=cue_dir)
    assert [str(p) for p in excinfo.value.problems] == [
        "cues.yaml: the correct option is the single longest in 2 of 4 choice questions; "
        "at most 1 (one in three) may be: c3, c4"
    ]
    # unpublishing one of them takes it out of the bank
    text = (cue_dir / "cues.yaml").read_text(encoding="utf-8")
    (cue_dir / "cues.yaml").write_text(text.replace("- key: c4\n", "- key: c4\n    published: false\n"), "utf-8")
    report = content_load(directory=cue_dir)
    assert (report.cues.count, report.cues.total) == (1, 3)


@pytest.mark.django_db
def test_retired_options_do_not_count_for_the_cue_rules(cue_dir):
    write(cue_dir, choice("c-fair", *FAIR))
    path = cue_dir / "cues.yaml"
    path.write_text(
        path.read_text(encoding="utf-8")
        + '      - key: d\n        text: "以上都对，而且这是一个长得离谱的选项"\n        retired: true\n',
        encoding="utf-8",
    )
    report = content_load(directory=cue_dir)
    assert report.options.created == 4 and report.cues.ok


@pytest.mark.django_db
def test_check_prints_the_cue_summary(cue_dir):
    cued = choice("c-cued", "查询与键点积", "查询与键", "查询与值")
    write(cue_dir, *(choice(f"c{i}", *FAIR) for i in range(5)), cued)
    out = io.StringIO()
    call_command("load_lessons", "--dir", str(cue_dir), "--check", stdout=out)
    assert "  answer cues: correct option single longest in 1 of 6 choice questions (limit 2)\n" in out.getvalue()
    assert Lesson.objects.count() == 0


@pytest.mark.django_db
def test_check_fails_with_the_cue_problems(cue_dir):
    write(cue_dir, choice("c-long", "点积", "经过 softmax 归一化后的加权平均值", "求和"))
    with pytest.raises(CommandError, match=r"question 'c-long', option 'b': option lengths give the answer away"):
        call_command("load_lessons", "--dir", str(cue_dir), "--check", stdout=io.StringIO())
