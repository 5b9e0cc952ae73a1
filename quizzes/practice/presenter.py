"""What a learner sees of an attempt item, before and after the lock: one presenter for the item page,
the API's serializers and the admin's preview.

**Before the lock** (:func:`present_item` of an unanswered item, :func:`numeric_view`) the view is
built from a whitelist (:data:`BEFORE_LOCK`): whatever the question, its options or the stored
variant hold, only the listed keys can reach a page or a client. The variant's answer, its choices'
values and misconceptions, the options' correctness and feedback, the explanation: none is listed,
so none can leak by accident (tests/quizzes/practice/test_presenter.py checks every key).

**After the lock** the view adds the response, the result stored when the item locked (with option
ids as this item's opaque handles, the explanation and feedback rendered, the grading message worded
in the request's language: quizzes.practice.grade_messages) and, for pages (``reveal=True``), the
rendered reveal: the learner's answer cell by cell, the correct value and the worked solution as
MathML, the misconception in the active language.

Rules that live here and nowhere else:

* **Option handles.** Content files author the correct option first, so raw ids (and authoring order)
  would give the answer away: a client sees ``HMAC(item, option)`` handles in the item's shuffled order.
* **answer_format** (how to type the answer) is shown only when the learner types it.
* **Shapes print like Python/numpy**: ``(3,)`` for a vector, ``(2, 3)`` for a matrix (:func:`shape_text`).
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from django.utils import translation
from django.utils.crypto import salted_hmac
from django.utils.translation import gettext as _

from quizzes.content.models import Question
from quizzes.content.number import number_variant
from quizzes.core.figures import solution_heatmap
from quizzes.core.rendering import math_to_mathml, render_markdown, render_value, value_to_latex
from quizzes.practice.code_messages import misconception_title, word_message, word_verdict
from quizzes.practice.grade_messages import grade_message
from quizzes.practice.models import AttemptItem

OPTION_HANDLE_SALT = "quizzes.api.option-handle"  # unchanged since the API's first version: handles stay valid

#: Everything a before-lock view may hold: nested dicts list their keys, lists of dicts their items' keys.
BEFORE_LOCK: dict[str, Any] = {
    "id": None,
    "attempt_id": None,
    "position": None,  # 0-based
    "number": None,  # 1-based, as the page shows it ("3 / 10")
    "answered": None,
    "answered_at": None,
    "question": {"id": None, "key": None, "kind": None, "prompt": None, "prompt_html": None, "answer_form": None},
    "options": [{"number": None, "handle": None, "text": None, "text_html": None}],
    "numeric": {
        "template": None,
        "prompt": None,
        "prompt_html": None,
        "given": [{"name": None, "value": None, "latex": None}],
        "expected_shape": None,
        "shape_text": None,
        "answer_format": None,
        "answer_format_html": None,
        "unit": None,  # a number question's unit, shown after the answer box ("" otherwise)
        "choices": [{"index": None, "number": None, "label": None, "label_zh": None, "label_en": None}],
    },
    # a code question: the given code and the names, never the spec's reference or misconception code
    "code": {
        "spec": None,
        "spec_version": None,
        "display_code": None,
        "inputs": [{"name": None, "kind": None, "shape": None, "shape_text": None, "dtype": None}],
        "required": None,
        "outputs": None,
        "helpers": None,
        "cases": [{"name": None, "note": None, "adversarial": None, "required": None}],
    },
}


def whitelisted(data: Any, allowed: Any) -> Any:
    """``data`` reduced to the keys ``allowed`` lists (recursively); a leaf (None) passes its value through."""
    if allowed is None:
        return data
    if isinstance(allowed, list):
        return None if data is None else [whitelisted(item, allowed[0]) for item in data]
    if data is None:
        return None
    return {key: whitelisted(data[key], spec) for key, spec in allowed.items() if key in data}


# --- small pieces ----------------------------------------------------------------------------------


def option_handle(*, item_id: int, option_id: int) -> str:
    """The id a client sees for an option of one attempt item (stable, unguessable, 16 hex digits)."""
    return salted_hmac(OPTION_HANDLE_SALT, f"{item_id}:{option_id}", algorithm="sha256").hexdigest()[:16]


class ShowsOptions(Protocol):
    """An item that shows options in its own order, under its own handles: an attempt item or a pack item."""

    @property
    def pk(self) -> Any: ...

    @property
    def option_order(self) -> Any: ...


def option_from_handle(*, item: ShowsOptions, handle: str) -> int | None:
    """The option id behind a handle of this item, or None if it is not one of the item's options."""
    for option_id in item.option_order or []:
        if option_handle(item_id=item.pk, option_id=option_id) == handle:
            return option_id
    return None


def option_at_position(*, item: AttemptItem, position: str) -> int | None:
    """The option shown at 1-based ``position`` in this item's shuffled order (pages send positions, never ids)."""
    if not position.isdigit() or not 1 <= int(position) <= len(item.option_order):
        return None
    return item.option_order[int(position) - 1]


def shape_text(shape: Sequence[int]) -> str:
    """A shape as Python and numpy print it: ``(3,)``, ``(2, 3)``; "scalar" for a single number."""
    if not shape:
        return _("scalar")
    if len(shape) == 1:
        return f"({shape[0]},)"
    return "(" + ", ".join(str(n) for n in shape) + ")"


def answer_format(*, question: Question, variant: Mapping[str, Any] | None) -> str:
    """How to type a numeric answer ("写出 3 个数，保留两位小数"), shown only when the learner types it.

    "" for choice questions, for numeric questions answered by choosing (a prompt shown with choices
    says nothing about typing) and for variants of template versions that keep the sentence in the prompt.
    """
    if question.kind != Question.Kind.NUMERIC or question.answer_form != Question.AnswerForm.INPUT:
        return ""
    return str((variant or {}).get("answer_format") or "")


def solution_steps(solution: Sequence[Mapping[str, Any]], *, display: bool = False) -> list[dict[str, Any]]:
    """A worked solution's steps with the formula and value as MathML and the shape as text."""
    return [
        {
            "name": step["name"],
            "formula_html": math_to_mathml(step["formula"], display=display) if step["formula"] else "",
            "value_html": render_value(step["value"], display=display) if step["value"] is not None else "",
            "shape": list(step["shape"]),
            "shape_text": shape_text(step["shape"]),
        }
        for step in solution
    ]


#: Kinds whose answer is a number typed (or chosen) against a variant: generated numeric and literal number.
NUMERIC_KINDS = (Question.Kind.NUMERIC, Question.Kind.NUMBER)


def item_variant(*, question: Question, variant: Mapping[str, Any] | None) -> Mapping[str, Any] | None:
    """The variant an item shows: the stored one (numeric), a number question's own (quizzes.content.number)."""
    if question.kind == Question.Kind.NUMBER:
        return number_variant(question).to_dict()
    return variant


def _chinese() -> bool:
    return (translation.get_language() or "").lower().startswith("zh")


# --- before the lock -------------------------------------------------------------------------------


def question_view(question: Question) -> dict[str, Any]:
    return {
        "id": question.pk,
        "key": question.key,
        "kind": question.kind,
        "numeric": question.kind in NUMERIC_KINDS,
        "prompt": question.prompt,
        "prompt_html": render_markdown(question.prompt),
        "answer_form": question.answer_form or None,
    }


def numeric_view(*, question: Question, variant: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """A numeric item's prompt before the lock: the variant's prompt and given numbers, the expected shape,
    how to type the answer (typed answers only) and, for ``answer_form=choice``, the choice labels. A number
    question shows only its unit: its prompt is the question's own, its answer one number."""
    variant = item_variant(question=question, variant=variant)
    if not variant:
        return None
    choices = []
    if question.answer_form == Question.AnswerForm.CHOICE:
        shown = "label_zh" if _chinese() else "label_en"  # "label": in the request's language
        choices = [
            {
                "index": index,
                "number": index + 1,
                "label": choice[shown],
                "label_zh": choice["label_zh"],
                "label_en": choice["label_en"],
            }
            for index, choice in enumerate(variant.get("choices", []))
        ]
    typed = answer_format(question=question, variant=variant)
    view = {
        "template": variant["template"],
        "prompt": variant["prompt"],
        "prompt_html": render_markdown(variant["prompt"]),
        "given": [
            {"name": name, "value": value, "latex": value_to_latex(value)} for name, value in variant["given"].items()
        ],
        "expected_shape": list(variant["answer_shape"]),
        "shape_text": shape_text(variant["answer_shape"]),
        "answer_format": typed,
        "answer_format_html": render_markdown(typed),
        "unit": question.number_unit,
        "choices": choices,
    }
    return whitelisted(view, BEFORE_LOCK["numeric"])


def _dims_text(shape: Sequence[Any]) -> str:
    """A spec input's shape in its dimensions' names: ``(..., T, d_k)``; "scalar" for a plain value."""
    if not shape:
        return _("scalar")
    dims = [str(d) for d in shape]
    return "(" + ", ".join(dims) + ("," if len(dims) == 1 else "") + ")"


def code_view(*, question: Question) -> dict[str, Any] | None:
    """A code question before the lock: the code shown around the learner's lines (helpers, the scaffold
    with its TODO lines), the names given with their shapes and the names to define. Built from the
    spec's ``describe()`` through the whitelist: the reference solution and the misconceptions' code
    are never in it."""
    if question.kind != Question.Kind.CODE or question.code_spec is None:
        return None
    from quizzes.content.code import CodeSpecError, spec_from_field

    try:
        described = spec_from_field(question.code_spec).describe()
    except CodeSpecError:
        return None
    view = {
        "spec": described["key"],
        "spec_version": described["version"],
        "display_code": described["display_code"],
        "inputs": [
            {
                **i,
                "shape": [str(d) for d in i["shape"]],
                "shape_text": _dims_text(i["shape"]) if i["kind"] in ("normal", "uniform") else _("scalar"),
            }
            for i in described["inputs"]
        ],
        "required": list(described["required"]),
        "outputs": list(described["outputs"]),
        "helpers": list(described["helpers"]),
        "cases": described["cases"],
    }
    return whitelisted(view, BEFORE_LOCK["code"])


def _options(item: AttemptItem) -> list[dict[str, Any]]:
    """The options this item showed, in its order (retired ones too: the attempt showed them)."""
    if item.question.kind != Question.Kind.CHOICE:
        return []
    options = {option.pk: option for option in item.question.loaded_options()}
    return [
        {
            "number": number,
            "handle": option_handle(item_id=item.pk, option_id=option_id),
            "text": options[option_id].text,
            "text_html": render_markdown(options[option_id].text),
            "option_id": option_id,  # not in BEFORE_LOCK: used below, never shown
        }
        for number, option_id in enumerate(item.option_order or [], start=1)
        if option_id in options
    ]


def _before_lock(item: AttemptItem, options: list[dict[str, Any]]) -> dict[str, Any]:
    view = {
        "id": item.pk,
        "attempt_id": item.attempt_id,
        "position": item.position,
        "number": item.position + 1,
        "answered": item.is_answered,
        "answered_at": item.answered_at,
        "question": question_view(item.question),
        "options": options,
        "numeric": numeric_view(question=item.question, variant=item.variant),
        "code": code_view(question=item.question),
    }
    return whitelisted(view, BEFORE_LOCK)


# --- after the lock --------------------------------------------------------------------------------


def _response(item: AttemptItem) -> dict[str, Any]:
    if item.question.kind == Question.Kind.CODE:
        return {"code": item.response}
    if item.question.kind == Question.Kind.CHOICE:
        chosen = item.chosen_option_id
        return {"option_id": option_handle(item_id=item.pk, option_id=chosen) if chosen else None}
    if item.question.answer_form == Question.AnswerForm.CHOICE:
        return {"choice_index": item.response}
    return {"value": item.response}


def _result(item: AttemptItem) -> dict[str, Any]:
    """The reveal stored at the lock, with option ids turned into this item's handles and text rendered."""
    stored = item.result or {}
    result = dict(stored)
    for key in ("chosen_option_id", "correct_option_id"):
        if result.get(key) is not None:
            result[key] = option_handle(item_id=item.pk, option_id=result[key])
    result["explanation_html"] = render_markdown(stored.get("explanation") or "")
    result["feedback_html"] = render_markdown(stored.get("feedback") or "")
    if "correct_value" in stored:
        result["correct_value_latex"] = value_to_latex(stored["correct_value"])
    if "message" in stored or "check" in stored:
        result["message_display"] = grade_message(stored)  # in the request's language
    return result


def _response_cells(response: Any, elements: Any, shape: list[int]) -> list[list[dict[str, Any]]] | None:
    """The learner's typed answer laid out as rows of cells, each marked right or wrong."""
    if response is None:
        return None
    if len(shape) == 0:
        rows, marks = [[response]], [[elements]]
    elif len(shape) == 1:
        rows, marks = [response], [elements if isinstance(elements, list) else [None] * len(response)]
    else:
        rows = response
        marks = elements if isinstance(elements, list) else [[None] * len(row) for row in response]
    try:
        return [
            [{"value": value, "correct": mark} for value, mark in zip(row, mark_row, strict=True)]
            for row, mark_row in zip(rows, marks, strict=True)
        ]
    except (TypeError, ValueError):
        return [
            [{"value": value, "correct": None} for value in (row if isinstance(row, list) else [row])] for row in rows
        ]


def _misconception_text(found: Mapping[str, str] | None) -> dict[str, str] | None:
    if not found or "title_en" not in found:
        return None
    suffix = "zh" if _chinese() else "en"
    return {"title": found[f"title_{suffix}"], "explanation": found[f"explanation_{suffix}"]}


def _reveal(item: AttemptItem) -> dict[str, Any]:
    """What a page shows after the lock, rendered (the API sends the data instead)."""
    stored = item.result or {}
    reveal: dict[str, Any] = {
        "grade_message": grade_message(stored),
        "feedback_html": render_markdown(stored.get("feedback")),
        "explanation_html": render_markdown(stored.get("explanation")),
    }
    if item.question.kind in NUMERIC_KINDS:
        variant = item_variant(question=item.question, variant=item.variant) or {}
        shape = list(variant.get("answer_shape", []))
        typed = item.question.answer_form != Question.AnswerForm.CHOICE
        reveal["cells"] = _response_cells(item.response, stored.get("elements"), shape) if typed else None
        reveal["correct_value_html"] = render_value(stored.get("correct_value"))
        reveal["misconception"] = _misconception_text(stored.get("misconception"))
        reveal["steps"] = solution_steps(stored.get("solution", []))
        reveal["heatmap_svg"] = solution_heatmap(item.variant)  # weight/mask templates: the weights as a picture
    if item.question.kind == Question.Kind.CODE and isinstance(stored.get("check"), dict):
        reveal["code"] = code_reveal(check=stored["check"], code=str(item.response or ""))
        reveal["misconception"] = _misconception_text(stored.get("misconception"))
    return reveal


MARK_SYMBOLS = {"correct": "✓", "incorrect": "✗", "fails_optional": "~", "error": "!", "unchecked": ""}


def _cell(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.3f}".rstrip("0").rstrip(".") if value == value and abs(value) < 1e6 else str(value)
    return str(value)


def value_text(value: Any) -> str:
    """A worked example's value (a number, a vector, a matrix; "nan"/"inf" as text) as aligned text rows."""
    if value is None:
        return ""
    if not isinstance(value, list):
        return _cell(value)
    rows = value if value and isinstance(value[0], list) else [value]
    cells = [[_cell(x) for x in row] for row in rows]
    width = max((len(c) for row in cells for c in row), default=0)
    return "\n".join(" ".join(c.rjust(width) for c in row) for row in cells)


def code_reveal(*, check: Mapping[str, Any], code: str) -> dict[str, Any]:
    """A code answer's reveal for pages: the verdict, the learner's lines each with its mark, every
    message worded in the request's language, the worked example as text, the inputs tried."""
    marks: dict[int, dict[str, Any]] = {}
    for entry in check.get("lines") or []:
        for number in range(int(entry["line"]), int(entry["end_line"]) + 1):
            marks[number] = entry
    labels = {
        "correct": _("correct"),
        "incorrect": _("wrong"),
        "fails_optional": _("fails an optional input"),
        "error": _("error"),
        "unchecked": "",
    }
    lines = []
    for number, text in enumerate(code.rstrip("\n").split("\n"), start=1):
        entry = marks.get(number)
        mark = entry["mark"] if entry and entry["line"] == number else ""
        lines.append(
            {
                "number": number,
                "text": text,
                "mark": mark,
                "symbol": MARK_SYMBOLS.get(mark, ""),
                "label": labels.get(mark, ""),
            }
        )
    example = check.get("example")
    shown = None
    if isinstance(example, dict):
        error = example.get("error")
        shown = {
            "case": example.get("case"),
            "note": example.get("note"),
            "name": example.get("name"),
            "inputs": [
                {"name": k, "text": value_text(v), "shape": shape_text(example.get("input_shapes", {}).get(k, []))}
                for k, v in (example.get("inputs") or {}).items()
            ],
            "got": value_text(example.get("got")),
            "got_shape": shape_text(example["got_shape"]) if example.get("got_shape") is not None else "",
            "expected": value_text(example.get("expected")),
            "expected_shape": shape_text(example.get("expected_shape") or []),
            "error": word_message(error) if isinstance(error, dict) else "",
            "truncated": bool(example.get("truncated")),
        }
    return {
        "verdict": check.get("verdict"),
        "passed": bool(check.get("passed")),
        "text": word_verdict(check),
        "misconception_title": misconception_title(check.get("misconception")),
        "suggested_rating": check.get("suggested_rating"),
        "lines": lines,
        "messages": [word_message(m) for m in check.get("messages") or []],
        "example": shown,
        "cases": check.get("cases") or [],
    }


def _mark_options(options: list[dict[str, Any]], result: Mapping[str, Any]) -> None:
    for entry in options:
        entry["chosen"] = entry["option_id"] == result.get("chosen_option_id")
        entry["correct"] = entry["option_id"] == result.get("correct_option_id")


def _mark_choices(choices: list[dict[str, Any]], result: Mapping[str, Any]) -> None:
    for entry in choices:
        entry["chosen"] = entry["index"] == result.get("chosen_choice_index")
        entry["correct"] = entry["index"] == result.get("correct_choice_index")


def present_item(*, item: AttemptItem, reveal: bool = False) -> dict[str, Any]:
    """One attempt item as the learner sees it.

    Unanswered: the whitelisted before-lock view, with ``response`` and ``result`` None. Answered: the
    same view plus ``response`` and ``result`` (the API's reveal), the options and numeric choices marked
    ``chosen``/``correct``, and with ``reveal=True`` the rendered reveal for pages under ``reveal``.
    """
    options = _options(item)
    view = _before_lock(item, options)
    view["response"] = None
    view["result"] = None
    if not item.is_answered or item.result is None:
        return view
    stored = item.result
    _mark_options(options, stored)
    view["options"] = [{k: v for k, v in entry.items() if k != "option_id"} for entry in options]
    if view["numeric"] is not None:
        _mark_choices(view["numeric"]["choices"], stored)
    view["response"] = _response(item)
    view["result"] = _result(item)
    if reveal:
        view["reveal"] = _reveal(item)
    return view


def key_shown(*, item: AttemptItem) -> bool:
    """Whether the learner may see this item's answer: after its lock, or — left unanswered in a finished
    attempt — once they asked for the skipped answers (recorded as Again: ``attempt_show_skipped``)."""
    return item.is_answered or item.attempt.skipped_shown_at is not None


def present_skipped_key(*, item: AttemptItem) -> dict[str, Any] | None:
    """A skipped item's answer for clients (the API), once the learner asked for the skipped answers; None
    before that and for answered items (whose ``result`` carries it). Option ids are this item's handles."""
    if item.is_answered or not key_shown(item=item):
        return None
    question = item.question
    key: dict[str, Any] = {
        "correct_option_id": None,
        "correct_choice_index": None,
        "correct_value": None,
        "correct_value_latex": None,
        "answer_shape": None,
        "solution": [],
        "reference": None,
        "explanation": question.explanation,
        "explanation_html": render_markdown(question.explanation),
    }
    if question.kind == Question.Kind.CHOICE:
        options = {option.pk: option for option in question.loaded_options()}
        correct = next((pk for pk in item.option_order or [] if pk in options and options[pk].is_correct), None)
        key["correct_option_id"] = option_handle(item_id=item.pk, option_id=correct) if correct else None
    elif question.kind == Question.Kind.NUMERIC and item.variant:
        from attention_engine.generators import Variant

        variant = item.variant
        if question.answer_form == Question.AnswerForm.CHOICE:
            key["correct_choice_index"] = Variant.from_dict(variant).correct_choice_index
        key["correct_value"] = variant.get("answer")
        key["correct_value_latex"] = value_to_latex(variant.get("answer"))
        key["answer_shape"] = list(variant.get("answer_shape", []))
        key["solution"] = list(variant.get("solution", []))
    elif question.kind == Question.Kind.CODE and question.code_spec is not None:
        from quizzes.content.code import CodeSpecError, spec_from_field

        with contextlib.suppress(CodeSpecError):
            key["reference"] = spec_from_field(question.code_spec).reference
    return key


def present_missed(*, item: AttemptItem) -> dict[str, Any]:
    """A missed item as the end screen teaches it: your answer beside the correct one, the misconception your
    answer stands for, the explanation. Unanswered items show the correct answer and the explanation only, and
    only once the learner asked for the skipped answers (:func:`key_shown`); before that, the prompt alone.

    Built from the item's locked result (and, for an unanswered item, from the question and variant: the
    attempt is finished, so nothing can be answered any more).
    """
    question = item.question
    numeric = numeric_view(question=question, variant=item.variant)
    revealed = key_shown(item=item)
    shows_variant = bool(numeric and numeric["prompt"])  # a number question's prompt is its own
    entry: dict[str, Any] = {
        "position": item.position,
        "number": item.position + 1,
        "answered": item.is_answered,
        "key_shown": revealed,
        "kind": question.kind,
        "numeric": question.kind in NUMERIC_KINDS,
        "prompt": numeric["prompt"] if numeric and shows_variant else question.prompt,
        "prompt_html": numeric["prompt_html"] if numeric and shows_variant else render_markdown(question.prompt),
        "yours_html": "",
        "correct_html": "",
        "misconception": None,  # {"title", "explanation"} (numeric) or the chosen option's feedback (choice)
        "feedback_html": "",
        "explanation_html": render_markdown(question.explanation) if revealed else "",
        "message": grade_message(item.result) if item.result else "",
    }
    if not revealed:  # a skipped item before the learner asked: nothing about its answer
        return entry
    stored = item.result or {}
    if question.kind == Question.Kind.CHOICE:
        options = {option.pk: option for option in question.loaded_options()}
        shown = [options[pk] for pk in item.option_order or [] if pk in options]
        correct = next((o for o in shown if o.is_correct), None)
        chosen = options.get(item.chosen_option_id) if item.chosen_option_id else None
        entry["correct_html"] = render_markdown(correct.text) if correct else ""
        entry["yours_html"] = render_markdown(chosen.text) if chosen else ""
        entry["feedback_html"] = render_markdown(stored.get("feedback"))
        return entry
    variant = item_variant(question=question, variant=item.variant) or {}
    if question.answer_form == Question.AnswerForm.CHOICE:
        label = "label_zh" if _chinese() else "label_en"
        choices = variant.get("choices", [])
        index = stored.get("correct_choice_index")
        if index is None and variant:
            from attention_engine.generators import Variant

            index = Variant.from_dict(variant).correct_choice_index
        if index is not None and 0 <= index < len(choices):
            entry["correct_html"] = render_markdown(f"`{choices[index][label]}`")
        chosen_index = stored.get("chosen_choice_index")
        if chosen_index is not None and 0 <= chosen_index < len(choices):
            entry["yours_html"] = render_markdown(f"`{choices[chosen_index][label]}`")
    else:
        entry["correct_html"] = render_value(variant.get("answer"))
        if item.response is not None:
            try:
                entry["yours_html"] = render_value(item.response)
            except (TypeError, ValueError):
                entry["yours_html"] = render_markdown(f"`{item.response}`")
    entry["misconception"] = _misconception_text(stored.get("misconception"))
    return entry
