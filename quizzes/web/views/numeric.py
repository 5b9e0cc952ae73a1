"""Numeric items on the quiz pages: reading the learner's answer (a value grid, or one of the choices).

Reading only: an empty cell or a non-number is the form's to report, and the item stays unanswered
with what the learner typed; grading is the service's (quizzes.practice.services.answers).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from django.http import HttpRequest
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _

from attention_engine.generators import percent_answer
from quizzes.content.models import Question
from quizzes.core.rendering import render_markdown
from quizzes.practice.models import AttemptItem
from quizzes.web.practice_forms import NumericAnswerForm


@dataclass
class NumericAnswer:
    """What the request said: ``kwargs`` for ``item_answer``, or an ``error`` (and the bound form to redisplay)."""

    kwargs: dict[str, Any] = field(default_factory=dict)
    form: NumericAnswerForm | None = None
    error: str = ""


def numeric_answer(request: HttpRequest, item: AttemptItem) -> NumericAnswer:
    """A numeric item's answer from the POST: ``choice_index`` (answer_form=choice) or the typed grid's ``value``
    (a number question: one cell, its variant has no stored copy and its answer is a scalar)."""
    if item.question.answer_form == Question.AnswerForm.CHOICE:
        try:
            return NumericAnswer(kwargs={"choice_index": int(request.POST.get("choice_index", ""))})
        except ValueError:
            return NumericAnswer(error=_("Choose one of the values."))
    form = NumericAnswerForm(
        request.POST,
        shape=(item.variant or {}).get("answer_shape", []),
        unit=item.question.number_unit or "",
        percent=bool(item.variant) and percent_answer(item.variant or {}),
    )
    if not form.is_valid():
        return NumericAnswer(form=form, error=" ".join(str(error) for error in form.non_field_errors()))
    return NumericAnswer(kwargs={"value": form.cleaned_data["value"]}, form=form)


def answer_grid(item: AttemptItem, form: NumericAnswerForm | None) -> NumericAnswerForm | None:
    """The empty grid of an unanswered typed item (or the learner's bound form to show again)."""
    if item.is_answered or item.question.kind not in (Question.Kind.NUMERIC, Question.Kind.NUMBER):
        return None
    if item.question.kind == Question.Kind.NUMERIC and item.question.answer_form != Question.AnswerForm.INPUT:
        return None
    return form or NumericAnswerForm(shape=(item.variant or {}).get("answer_shape", []))


_DISPLAY_MATH = re.compile(r"\$\$(.+?)\$\$", re.S)
_BLOCK_MATH = re.compile(r'(<math display="block".*?</math>)', re.S)


def _split_top_level(latex: str) -> list[str]:
    """``Q = …,\\qquad K = …`` → ``["Q = …", "K = …"]``: split at ``,\\qquad`` outside braces and environments."""
    parts, depth, start, i = [], 0, 0, 0
    while i < len(latex):
        if latex.startswith("\\begin", i):
            depth += 1
        elif latex.startswith("\\end", i):
            depth -= 1
        elif latex[i] == "{":
            depth += 1
        elif latex[i] == "}":
            depth -= 1
        elif depth == 0 and re.match(r",\s*\\qquad", latex[i:]):
            parts.append(latex[start:i].strip())
            i += re.match(r",\s*\\qquad", latex[i:]).end()  # type: ignore[union-attr]
            start = i
            continue
        i += 1
    parts.append(latex[start:].strip())
    return [part for part in parts if part]


def stacked_matrices(source: str) -> SafeString:
    """A numeric prompt rendered with each given matrix in its own formula, each in a box that scrolls sideways
    with a visible cue when it is still too wide (site.css ``.math-scroll``).

    The generators write the given matrices side by side in one display formula (``Q = …,\\qquad K = …``),
    which a phone could only show cut off. Split, the formulas sit side by side where they fit and one under
    another where they do not.
    """

    def split(match: re.Match[str]) -> str:
        return "\n\n".join(f"$${part}$$" for part in _split_top_level(match.group(1)))

    rendered = render_markdown(_DISPLAY_MATH.sub(split, source))
    label = escape(_("Formula; scroll sideways if it is cut off"))
    wrapped = _BLOCK_MATH.sub(
        lambda m: f'<div class="math-scroll" tabindex="0" role="group" aria-label="{label}">{m.group(1)}</div>',
        rendered,
    )
    return mark_safe(wrapped)  # rendered (sanitised) markup, wrapped in our own element
