"""Forms of the practice pages: numeric answer grids, self-ratings, free-text answers, mock interview size.

Validation here is about *reading* the input (an empty cell, a non-number); grading is the
service's job. A form that does not validate never reaches the service, so the item stays
unanswered and the learner keeps what they typed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from attention_engine.generators import Unreadable, parse_cell
from quizzes.content.code import MAX_CODE_CHARS
from quizzes.content.number import without_unit
from quizzes.content.selectors import MOCK_INTERVIEW_MAX
from quizzes.practice.grade_messages import why_unreadable
from quizzes.reviews.models import ReviewLog

MAX_SELF_ANSWER_CHARS = 5000
MAX_CELLS = 400  # a 20×20 grid; the engine's answers are far smaller


def cell_names(shape: Sequence[int]) -> list[list[str]]:
    """Input names laid out like the answer: rows of cells (a scalar is one row of one cell)."""
    if len(shape) == 0:
        return [["value"]]
    if len(shape) == 1:
        return [[f"cell_{i}" for i in range(shape[0])]]
    if len(shape) == 2:
        return [[f"cell_{r}_{c}" for c in range(shape[1])] for r in range(shape[0])]
    raise ValueError(f"answers of shape {tuple(shape)} cannot be typed in a grid")


class NumericAnswerForm(forms.Form):
    """One input per element of the answer; ``cleaned_data["value"]`` has the answer's shape.

    Each cell is read by the engine's one number grammar (``attention_engine.generators.parse_cell``, the
    grader's own, so the API and the packs read the same text the same way); a number question's ``unit``
    typed after the number is taken off first, as the service does.
    """

    def __init__(self, *args: Any, shape: Sequence[int], unit: str = "", percent: bool = False, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.shape = tuple(shape)
        self.unit = unit
        self.percent = percent  # the template asks for a percentage: "67%" is 67 (generators.percent_answer)
        self.rows = cell_names(self.shape)
        if sum(len(row) for row in self.rows) > MAX_CELLS:
            raise ValueError("answer grid too large")
        for r, row in enumerate(self.rows):
            for c, name in enumerate(row):
                self.fields[name] = forms.CharField(
                    required=False,
                    max_length=40,
                    label=_("Row %(row)d, column %(column)d") % {"row": r + 1, "column": c + 1}
                    if len(self.shape) == 2
                    else _("Value %(index)d") % {"index": c + 1},
                )

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        empty, unreadable, reasons, values = [], [], [], []
        for row in self.rows:
            row_values = []
            for name in row:
                text = (cleaned.get(name) or "").strip()
                if not text:
                    empty.append(name)
                    continue
                try:
                    row_values.append(parse_cell(without_unit(text, self.unit), percent=self.percent))
                except Unreadable as exc:
                    unreadable.append(name)
                    reasons.append(why_unreadable(exc.code, text, exc.reason))
                    self.add_error(name, reasons[-1])
            values.append(row_values)
        for name in empty:
            self.add_error(name, _("Fill in this cell."))
        if empty:
            raise forms.ValidationError(
                _("Fill in every cell before you submit: %(count)d left empty.") % {"count": len(empty)},
                code="empty_cells",
            )
        if unreadable:
            raise forms.ValidationError(  # the first cell's reason, then the rule
                f"{reasons[0]} {_('Type plain numbers such as 0.25 or -1.5 (no letters or fractions).')}",
                code="not_a_number",
            )
        if len(self.shape) == 0:
            cleaned["value"] = values[0][0]
        elif len(self.shape) == 1:
            cleaned["value"] = values[0]
        else:
            cleaned["value"] = values
        return cleaned

    def grid(self) -> list[list[forms.BoundField]]:
        """The bound fields in rows, for the template."""
        return [[self[name] for name in row] for row in self.rows]


class CodeAnswerForm(forms.Form):
    """A code answer: the learner's lines (the sandbox checks them; the service refuses bad ones)."""

    code = forms.CharField(
        strip=False,
        max_length=MAX_CODE_CHARS,
        widget=forms.Textarea(
            attrs={
                "rows": 6,
                "spellcheck": "false",
                "autocapitalize": "off",
                "autocomplete": "off",
                "class": "code-input",
                "data-code-editor": "",
            }
        ),
        error_messages={"required": _("Write your code first.")},
    )


class ItemRatingForm(forms.Form):
    rating = forms.TypedChoiceField(
        choices=ReviewLog.Rating.choices,
        coerce=int,
        error_messages={"invalid_choice": _("Rate with Again, Hard, Good or Easy.")},
    )


class RatingForm(forms.Form):
    rating = forms.TypedChoiceField(
        choices=ReviewLog.Rating.choices,
        coerce=int,
        error_messages={"invalid_choice": _("Rate with Again, Hard, Good or Easy.")},
    )
    mock_index = forms.IntegerField(
        required=False, min_value=0, max_value=MOCK_INTERVIEW_MAX - 1, widget=forms.HiddenInput
    )
    next = forms.CharField(required=False, max_length=500, widget=forms.HiddenInput)


class SelfAnswerForm(forms.Form):
    """What the learner wrote from memory before revealing the reference (may be left empty)."""

    answer = forms.CharField(
        required=False,
        max_length=MAX_SELF_ANSWER_CHARS,
        strip=False,
        label=_("Your answer"),
        widget=forms.Textarea(attrs={"rows": 8, "spellcheck": "false"}),
    )
    next = forms.CharField(required=False, max_length=500, widget=forms.HiddenInput)


class MockSizeForm(forms.Form):
    n = forms.IntegerField(
        min_value=1,
        max_value=MOCK_INTERVIEW_MAX,
        initial=5,
        label=_("Number of prompts"),
        error_messages={
            "invalid": _("The number of prompts is a whole number from 1 to 10."),
            "min_value": _("The number of prompts is a whole number from 1 to 10."),
            "max_value": _("The number of prompts is a whole number from 1 to 10."),
        },
    )
