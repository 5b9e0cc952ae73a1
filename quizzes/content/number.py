"""Number questions (``kind: number``): one literal number, its tolerance and an optional unit, no template.

The literal counterpart of the generated numeric questions (and of Moodle's *numerical* type): the learner
types one number and the server grades it with **the same grader and number grammar** as a typed numeric
answer, ``attention_engine.generators.grade`` (one cell, ``parse_cell``) — full-width digits, a unicode minus,
a space grouping thousands, scientific notation; a comma or a "%" refused as ambiguous, anything unreadable or
non-finite a wrong answer saying so. To get there the question is seen as a
variant of no template (:func:`number_variant`): a scalar answer, ``atol`` = the tolerance, ``rtol`` = 0, so
an answer ``x`` is right when ``|x − answer| ≤ tolerance`` (plus the grader's 1e-9 for binary floats), the
closed interval Moodle's numerical type uses.

The unit is shown after the answer box; a learner who types it after the number anyway ("512 MiB") is read
as typing the number (:func:`without_unit`). The unit is never graded.
"""

from __future__ import annotations

from typing import Any, Protocol

from attention_engine.generators import Variant


class NumberFields(Protocol):
    """What a number question's variant is made of (a ``Question`` row has it, and so has what the grader reads)."""

    @property
    def number_answer(self) -> float | None: ...

    @property
    def number_tolerance(self) -> float | None: ...


def number_variant(question: NumberFields) -> Variant:
    """The question as a variant of no template: what the numeric presenter shows and the grader grades."""
    return Variant(
        template="",
        version=0,
        seed=0,
        params={},
        prompt="",
        given={},
        answer=float(question.number_answer if question.number_answer is not None else 0.0),
        answer_shape=(),
        atol=float(question.number_tolerance or 0.0),
        rtol=0.0,
    )


def without_unit(value: Any, unit: str) -> Any:
    """A typed answer with the question's unit, if the learner wrote it after the number, taken off."""
    if isinstance(value, str) and unit:
        text = value.strip()
        if text.endswith(unit) and text != unit:
            return text[: -len(unit)].rstrip()
    return value
