"""Exporting questions as Moodle XML: ``lesson_moodle_export`` and ``questions_moodle_export`` (read-only), behind
``manage.py export_moodle`` and the admin's export actions.

The file is what Moodle's own exporter writes (question/format/xml/format.php, ``writequestion``), element for
element, so Moodle imports it as it imports its own: one ``category`` per lesson (``$course$/top/<lesson title>``,
the summary as its info), then the lesson's questions in lesson order:

* choice → ``multichoice``, ``<single>true</single>``: the live options in order, the correct one at fraction
  100, each with its feedback; the explanation as general feedback;
* number → ``numerical``: the answer with its tolerance, the unit as Moodle's one unit at multiplier 1, not
  graded (``unitgradingtype`` 0, shown as an input's label: ``showunits`` 0);
* numeric (generated) → ``numerical`` **for one fixed seed** (the question's own ``fixed_seed``, else seed 0)
  when its answer is a single number: the question's text, then the variant's numbers and how to type the answer;
  the tolerance is the variant's ``atol + rtol·|answer|``; the worked solution follows the explanation. A
  numeric question whose answer is a vector or a matrix is refused: Moodle's numerical type takes one number;
* prompt → ``essay``: the reference answer and the rubric points as the grader information
  (quizzes.content.moodle.html.join_rubric);
* recall and code questions are refused: Moodle has no counterpart for writing lines from memory, self-rated,
  or for code run and checked in our sandbox.

Texts are our Markdown rendered to HTML with the TeX kept for Moodle's MathJax filter; an unpublished question
is ``<hidden>1</hidden>``. The output depends on the questions only (no ids, no dates), so exporting what an
import of this file wrote gives this file back byte for byte.
"""

from __future__ import annotations

import html as html_lib
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from quizzes.content.models import Lesson, Question
from quizzes.content.moodle.html import join_rubric, to_html
from quizzes.content.moodle.keys import moodle_name
from quizzes.content.moodle.xmlfile import MoodleError, MoodleProblem
from quizzes.content.selectors import (
    lesson_questions_with_options,
    lessons_questions_with_options,
    live_options,
    questions_with_options,
)
from quizzes.core.rendering import value_to_latex

#: The seed a generated numeric question is exported with when it has no fixed seed of its own.
EXPORT_SEED = 0
_INVALID_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


@dataclass
class MoodleExport:
    xml: str
    exported: list[str] = field(default_factory=list)  # question keys
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (key, why), with skip_unsupported


class Refused(Exception):
    """A question Moodle XML cannot carry; the message says why."""


def _escape(text: str) -> str:
    """Moodle's xml_escape: the text in a CDATA section when it holds markup characters."""
    text = _INVALID_XML.sub("", text)
    if text and (html_lib.escape(text, quote=False) != text or '"' in text):
        return "<![CDATA[" + text.replace("]]>", "]]]]><![CDATA[>") + "]]>"
    return text


def _text(tag: str, content: str, *, indent: int = 4, fmt: str | None = "html") -> str:
    pad = " " * indent
    attribute = f' format="{fmt}"' if fmt else ""
    return f"{pad}<{tag}{attribute}>\n{pad}  <text>{_escape(content)}</text>\n{pad}</{tag}>\n"


def number_text(value: float) -> str:
    """A number as the file writes it: an integer without ".0", anything else as Python's shortest repr."""
    value = float(value)
    return str(int(value)) if value.is_integer() and abs(value) < 1e15 else repr(value)


def _head(question: Question, kind: str, *, prompt: str, explanation: str, penalty: str) -> str:
    return (
        f'  <question type="{kind}">\n'
        f"    <name>\n      <text>{_escape(moodle_name(question))}</text>\n    </name>\n"
        + _text("questiontext", to_html(prompt))
        + _text("generalfeedback", to_html(explanation))
        + "    <defaultgrade>1</defaultgrade>\n"
        + f"    <penalty>{penalty}</penalty>\n"
        + f"    <hidden>{0 if question.published else 1}</hidden>\n"
        + "    <idnumber></idnumber>\n"
    )


def _choice(question: Question) -> str:
    out = _head(question, "multichoice", prompt=question.prompt, explanation=question.explanation, penalty="0.3333333")
    out += (
        "    <single>true</single>\n    <shuffleanswers>true</shuffleanswers>\n"
        "    <answernumbering>abc</answernumbering>\n    <showstandardinstruction>0</showstandardinstruction>\n"
    )
    for tag in ("correctfeedback", "partiallycorrectfeedback", "incorrectfeedback"):
        out += _text(tag, "")
    for option in live_options(question=question):
        out += f'    <answer fraction="{100 if option.is_correct else 0}" format="html">\n'
        out += f"      <text>{_escape(to_html(option.text))}</text>\n"
        out += _text("feedback", to_html(option.feedback), indent=6)
        out += "    </answer>\n"
    return out + "  </question>\n"


def _numerical(question: Question, *, prompt: str, explanation: str, answer: float, tolerance: float, unit: str) -> str:
    out = _head(question, "numerical", prompt=prompt, explanation=explanation, penalty="0.3333333")
    out += '    <answer fraction="100" format="moodle_auto_format">\n'
    out += f"      <text>{number_text(answer)}</text>\n"
    out += _text("feedback", "", indent=6)
    out += f"      <tolerance>{number_text(tolerance)}</tolerance>\n    </answer>\n"
    if unit:
        out += "    <units>\n      <unit>\n        <multiplier>1</multiplier>\n"
        out += f"        <unit_name>{_escape(unit)}</unit_name>\n      </unit>\n    </units>\n"
    out += "    <unitgradingtype>0</unitgradingtype>\n    <unitpenalty>0.1000000</unitpenalty>\n"
    out += f"    <showunits>{0 if unit else 3}</showunits>\n    <unitsleft>0</unitsleft>\n"
    return out + "  </question>\n"


def _worked_solution(solution: list[Any]) -> str:
    lines = []
    for number, step in enumerate(solution, start=1):
        line = f"{number}. **{step.name}**"
        if step.formula:
            line += f"：${step.formula}$"
        if step.value is not None:
            line += f" → ${value_to_latex(step.value)}$"
        lines.append(line)
    return "\n".join(lines)


def _generated(question: Question) -> str:
    from attention_engine import generators

    seed = question.fixed_seed if question.fixed_seed is not None else EXPORT_SEED
    variant = generators.generate(question.template, seed, version=question.template_version, **(question.params or {}))
    if tuple(variant.answer_shape) != ():
        shape = "×".join(str(n) for n in variant.answer_shape)
        raise Refused(f"its answer is a {shape} array; Moodle's numerical questions take a single number")
    prompt = "\n\n".join(part for part in (question.prompt, variant.prompt, variant.answer_format) if part)
    explanation = "\n\n".join(part for part in (question.explanation, _worked_solution(variant.solution)) if part)
    answer = float(variant.answer)  # type: ignore[arg-type]  # a scalar: checked above
    return _numerical(
        question,
        prompt=prompt,
        explanation=explanation,
        answer=answer,
        tolerance=variant.atol + variant.rtol * abs(answer),
        unit="",
    )


def _essay(question: Question) -> str:
    out = _head(question, "essay", prompt=question.prompt, explanation=question.explanation, penalty="0")
    out += (
        "    <responseformat>editor</responseformat>\n    <responserequired>1</responserequired>\n"
        "    <responsefieldlines>10</responsefieldlines>\n    <minwordlimit></minwordlimit>\n"
        "    <maxwordlimit></maxwordlimit>\n    <attachments>0</attachments>\n"
        "    <attachmentsrequired>0</attachmentsrequired>\n    <maxbytes>0</maxbytes>\n"
        "    <filetypeslist></filetypeslist>\n"
    )
    out += _text("graderinfo", join_rubric(question.reference_answer, list(question.rubric or [])))
    out += _text("responsetemplate", "")
    return out + "  </question>\n"


def question_xml(question: Question) -> str:
    """One question as Moodle XML; Refused when Moodle has no counterpart (module docstring)."""
    kind = question.kind
    if kind == Question.Kind.CHOICE:
        return _choice(question)
    if kind == Question.Kind.NUMBER:
        return _numerical(
            question,
            prompt=question.prompt,
            explanation=question.explanation,
            answer=float(question.number_answer or 0.0),
            tolerance=float(question.number_tolerance or 0.0),
            unit=question.number_unit,
        )
    if kind == Question.Kind.NUMERIC:
        return _generated(question)
    if kind == Question.Kind.PROMPT:
        return _essay(question)
    if kind == Question.Kind.RECALL:
        raise Refused("a recall card (lines written from memory, then self-rated) has no Moodle counterpart")
    raise Refused("a code question runs and is checked in our sandbox; Moodle has no such question type")


def _category(lesson: Lesson) -> str:
    path = "$course$/top/" + lesson.title.replace("/", "//")
    return (
        '  <question type="category">\n'
        f"    <category>\n      <text>{_escape(path)}</text>\n    </category>\n"
        + _text("info", to_html(lesson.summary))
        + "    <idnumber></idnumber>\n  </question>\n"
    )


def questions_moodle_export(*, questions: Iterable[Question], skip_unsupported: bool = False) -> MoodleExport:
    """The questions as one Moodle XML file, a category before each lesson's; MoodleError names every question
    Moodle cannot carry (unless ``skip_unsupported``: then they are left out and listed)."""
    export = MoodleExport(xml="")
    parts = ['<?xml version="1.0" encoding="UTF-8"?>\n<quiz>\n']
    problems: list[MoodleProblem] = []
    lesson_id = None
    for question in questions:
        try:
            body = question_xml(question)
        except Refused as exc:
            if skip_unsupported:
                export.skipped.append((question.key, str(exc)))
            else:
                problems.append(MoodleProblem("export", f"refused: {exc}", key=question.key))
            continue
        if question.lesson_id != lesson_id:
            parts.append(_category(question.lesson))
            lesson_id = question.lesson_id
        parts.append(body)
        export.exported.append(question.key)
    if problems:
        raise MoodleError(problems)
    export.xml = "".join(parts) + "</quiz>\n"
    return export


def lesson_moodle_export(*, lesson: Lesson, skip_unsupported: bool = False) -> MoodleExport:
    """Every question of the lesson, published or not (unpublished ones hidden), as a Moodle XML file."""
    return questions_moodle_export(
        questions=lesson_questions_with_options(lesson=lesson), skip_unsupported=skip_unsupported
    )


def selected_questions_moodle_export(*, ids: Iterable[int], skip_unsupported: bool = False) -> MoodleExport:
    """The questions with these ids (the admin's selection), lesson by lesson, as a Moodle XML file."""
    return questions_moodle_export(questions=questions_with_options(ids=ids), skip_unsupported=skip_unsupported)


def lessons_moodle_export(*, lesson_ids: Iterable[int], skip_unsupported: bool = False) -> MoodleExport:
    """Every question of these lessons (the admin's selection), lesson by lesson, as a Moodle XML file."""
    questions = lessons_questions_with_options(lesson_ids=lesson_ids)
    return questions_moodle_export(questions=questions, skip_unsupported=skip_unsupported)
