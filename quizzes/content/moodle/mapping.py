"""One Moodle ``<question>`` → one of our questions, as a lesson file's entry (quizzes.content.reader's schema),
or the reason it cannot be one. The table (also in fixtures/lessons/README.md):

=====================================  ===========================================================================
Moodle                                 here
=====================================  ===========================================================================
multichoice, ``<single>true``, one     ``kind: choice``: ``<questiontext>`` → prompt, ``<generalfeedback>`` →
answer at fraction 100, the others 0   explanation, each ``<answer>`` → an option (its ``<feedback>`` → the option's
                                       feedback, fraction 100 → correct), in the file's order
numerical, one answer at fraction 100  ``kind: number``: the answer → ``answer``, ``<tolerance>`` → ``tolerance``
with its tolerance, no unit or one     (± absolute, as Moodle's), the unit → ``unit`` (shown, not graded)
unit at multiplier 1, not graded
essay                                  ``kind: prompt``: ``<graderinfo>`` → the reference answer, and its last
                                       list → the rubric points (quizzes.content.moodle.html.split_rubric)
category                               nothing: the questions go into the lesson named on import (a note says so)
``<hidden>1``                          ``published: false``
=====================================  ===========================================================================

Refused, with the reason (``--skip-unsupported`` imports the rest and lists these): multichoice with several
answers or partial/negative credit, numerical with several answers, ``*`` or per-answer feedback, several units
or a graded unit, truefalse (a two-way guess: write it as a choice question with real alternatives), shortanswer
(typed text, wildcards), calculated*, matching, cloze, description, drag-and-drop and any other type, and any
question with images or files (``<file>``, ``<img>``, ``@@PLUGINFILE@@``), or an essay answered by attachments.

Dropped with a note (they do not change what is asked or how it is graded here): combined feedback (the page
says right or wrong itself), hints (Moodle's interactive mode), tags, ``<shuffleanswers>`` (we always shuffle),
answer numbering, default grade and penalty, an essay's response template, word limits and optional attachments.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any
from xml.etree.ElementTree import Element

from quizzes.content.moodle import html
from quizzes.content.moodle.keys import option_key
from quizzes.content.moodle.xmlfile import QuestionElement

#: Why each Moodle type we do not map is refused.
REFUSED_TYPES = {
    "truefalse": (
        "true/false is answered right half the time by guessing; write it as a multichoice question with real "
        "alternatives (fixtures/lessons/README.md, How to write a question)"
    ),
    "shortanswer": "typed text answers (shortanswer, with * wildcards) have no kind here",
    "calculated": "calculated questions draw numbers from wildcard datasets; numbers here come from engine templates",
    "calculatedsimple": "calculated questions draw numbers from wildcard datasets; numbers here come from templates",
    "calculatedmulti": "calculated questions draw numbers from wildcard datasets; numbers here come from templates",
    "matching": "matching (pairs of items) has no kind here",
    "match": "matching (pairs of items) has no kind here",
    "cloze": "embedded answers (cloze) have no kind here",
    "multianswer": "embedded answers (cloze) have no kind here",
    "description": "a description is not a question: there is nothing to answer",
    "randomsamatch": "random short-answer matching has no kind here",
}


@dataclass
class Mapped:
    """A question of the file as we read it: the lesson file entry (without its key), or why not."""

    source: QuestionElement
    data: dict[str, Any] | None = None
    key_source: str = ""  # what its key is derived from: <idnumber>, else <name>
    refused: str = ""  # why we cannot represent it (skippable with --skip-unsupported)
    problems: list[str] = field(default_factory=list)  # what is wrong with it (never skipped)
    notes: list[str] = field(default_factory=list)  # what was dropped
    category: str = ""  # a category "question": its path


def _child(element: Element, tag: str) -> Element | None:
    return element.find(tag)


def _plain(element: Element | None, tag: str, default: str = "") -> str:
    found = element.find(tag) if element is not None else None
    return (found.text or "").strip() if found is not None and found.text else default


def _text_of(element: Element | None, default_format: str) -> tuple[str, str]:
    """A text field's (text, format): ``<tag format="…"><text>…</text></tag>``."""
    if element is None:
        return "", default_format
    found = element.find("text")
    return (found.text or "") if found is not None else "", (element.get("format") or default_format).strip()


def _markdown(element: Element | None, default_format: str) -> str:
    text, text_format = _text_of(element, default_format)
    return html.to_markdown(text, text_format)


def _media(question: Element) -> list[str]:
    """Files and media the question uses: we keep no files and show no embeds."""
    found = []
    if question.find(".//file") is not None or question.find("image") is not None:
        found.append("<file>")
    for text in question.iter("text"):
        for medium in html.media_in(text.text or ""):
            if medium not in found:
                found.append(medium)
    return found


def _fraction(answer: Element) -> float | None:
    try:
        value = float(answer.get("fraction", "0"))
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def _non_empty(question: Element, tag: str) -> bool:
    return any((text.text or "").strip() for found in question.findall(tag) for text in found.iter("text"))


def _common_notes(question: Element) -> list[str]:
    notes = []
    if question.findall("hint"):
        notes.append(f"{len(question.findall('hint'))} hint(s) not kept (hints belong to Moodle's interactive mode)")
    if question.find("tags") is not None and question.find("tags/tag") is not None:
        notes.append("tags not kept")
    return notes


def map_question(source: QuestionElement) -> Mapped:
    """The question of the file (see the module docstring for the table)."""
    question, kind = source.element, source.type
    if kind == "category":
        return Mapped(source=source, category=_plain(question, "category/text"))
    mapped = Mapped(source=source, key_source=_plain(question, "idnumber") or source.name)
    if not source.name:
        mapped.problems.append("has no <name>: every Moodle question has one")
        return mapped
    if kind in REFUSED_TYPES:
        mapped.refused = f"{kind}: {REFUSED_TYPES[kind]}"
        return mapped
    if kind not in ("multichoice", "numerical", "essay"):
        mapped.refused = f"{kind or '(no type)'}: this Moodle question type has no kind here"
        return mapped
    media = _media(question)
    if media:
        mapped.refused = f"{kind}: uses images or files ({', '.join(media)}); questions here keep no files"
        return mapped
    _prompt, text_format = _text_of(_child(question, "questiontext"), "html")  # the other texts' default format
    common = {
        "prompt": _markdown(_child(question, "questiontext"), "html"),
        "explanation": _markdown(_child(question, "generalfeedback"), text_format),
        "published": _plain(question, "hidden", "0") in ("0", ""),
    }
    mapped.notes.extend(_common_notes(question))
    if kind == "multichoice":
        _multichoice(mapped, question, text_format, common)
    elif kind == "numerical":
        _numerical(mapped, question, text_format, common)
    else:
        _essay(mapped, question, text_format, common)
    return mapped


def _multichoice(mapped: Mapped, question: Element, text_format: str, common: dict[str, Any]) -> None:
    single = _plain(question, "single", "true").lower()
    if single in ("false", "0"):
        mapped.refused = (
            "multichoice: several answers may be chosen (<single>false</single>); "
            "a choice question here has exactly one correct option"
        )
        return
    answers = question.findall("answer")
    read = [_fraction(answer) for answer in answers]
    fractions = [f for f in read if f is not None]
    if len(fractions) != len(read):
        mapped.problems.append("an answer's fraction is not a number")
        return
    odd = sorted({f for f in fractions if f not in (0.0, 100.0)})
    if odd:
        listed = ", ".join(f"{f:g}" for f in odd)
        mapped.refused = (
            f"multichoice: partial or negative credit (fraction {listed}); here an option is right or wrong"
        )
        return
    right = fractions.count(100.0)
    if right != 1:
        mapped.refused = f"multichoice: {right} answers at 100 %; a choice question here has exactly one correct option"
        return
    options: list[dict[str, Any]] = []
    texts: list[str] = []
    for answer, fraction in zip(answers, fractions, strict=True):
        text = html.to_markdown(*_text_of(answer, text_format))
        texts.append(text)
        options.append(
            {
                "key": option_key(text),
                "text": text,
                "correct": fraction == 100.0,
                "feedback": _markdown(_child(answer, "feedback"), text_format),
            }
        )
    for index, text in enumerate(texts):
        if text in texts[:index]:
            mapped.problems.append(f"answers #{texts.index(text) + 1} and #{index + 1} say the same; keep one")
            return
    if any(_non_empty(question, tag) for tag in ("correctfeedback", "partiallycorrectfeedback", "incorrectfeedback")):
        mapped.notes.append("combined feedback not kept (the page says right or wrong itself)")
    if _plain(question, "shuffleanswers", "true").lower() in ("false", "0"):
        mapped.notes.append("answers are shuffled here on every attempt (<shuffleanswers> off in Moodle)")
    mapped.data = {"kind": "choice", **common, "options": options}


def _number(text: str) -> float | None:
    try:
        value = float(text.strip())
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def _numerical(mapped: Mapped, question: Element, text_format: str, common: dict[str, Any]) -> None:
    answers = question.findall("answer")
    if len(answers) != 1:
        mapped.refused = (
            f"numerical: {len(answers)} answers (other values with their own credit or feedback); "
            "a number question here has one answer"
        )
        return
    answer = answers[0]
    if _fraction(answer) != 100.0:
        mapped.refused = f"numerical: its answer is worth fraction {answer.get('fraction')}, not 100"
        return
    value_text = _plain(answer, "text") or (answer.text or "").strip()
    if value_text == "*":
        mapped.refused = "numerical: the answer '*' accepts anything; a number question here has one answer"
        return
    value = _number(value_text)
    tolerance = _number(_plain(answer, "tolerance", "0"))
    if value is None:
        mapped.problems.append(f"the answer {value_text!r} is not a number")
        return
    if tolerance is None or tolerance < 0:
        mapped.problems.append(f"the tolerance {_plain(answer, 'tolerance')!r} is not a number ≥ 0")
        return
    if _markdown(_child(answer, "feedback"), text_format):
        mapped.refused = (
            "numerical: its answer has feedback of its own (shown only when right); here the explanation is "
            "shown to everyone: move it into the general feedback"
        )
        return
    units = [
        (_plain(unit, "unit_name"), _number(_plain(unit, "multiplier", "1"))) for unit in question.findall("units/unit")
    ]
    if len(units) > 1 or any(multiplier != 1.0 for _name, multiplier in units):
        mapped.refused = (
            "numerical: several units or a unit multiplier other than 1; a number question here has one unit"
        )
        return
    if units and _plain(question, "unitgradingtype", "0") not in ("0", ""):
        mapped.refused = "numerical: the unit is graded (unitgradingtype); here the unit is shown and never graded"
        return
    if _non_empty(question, "instructions"):
        mapped.notes.append("unit instructions not kept")
    mapped.data = {
        "kind": "number",
        **common,
        "answer": value,
        "tolerance": tolerance,
        "unit": units[0][0] if units else "",
    }


def _essay(mapped: Mapped, question: Element, text_format: str, common: dict[str, Any]) -> None:
    response_format = _plain(question, "responseformat", "editor")
    if response_format == "noinline" or _plain(question, "attachmentsrequired", "0") not in ("0", ""):
        mapped.refused = "essay: answered by file attachments; interview prompts here are answered in writing"
        return
    if _plain(question, "attachments", "0") not in ("0", ""):
        mapped.notes.append("optional attachments not kept")
    if _non_empty(question, "responsetemplate"):
        mapped.notes.append("response template not kept")
    if _plain(question, "minwordlimit") or _plain(question, "maxwordlimit"):
        mapped.notes.append("word limits not kept")
    grader = _child(question, "graderinfo")
    reference, rubric = html.split_rubric(*_text_of(grader, text_format))
    if not rubric:
        mapped.problems.append(
            "an interview prompt needs rubric points: end the grader information with a list, one point per item "
            "(a paragraph 'Rubric' may introduce it)"
        )
        return
    mapped.data = {"kind": "prompt", **common, "reference_answer": reference, "rubric": rubric}
