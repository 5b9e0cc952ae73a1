"""What the grader reads of an item, as plain frozen data (issue 26).

The one grader (``quizzes.practice.services.answers.answer_grade``) grades a :class:`Gradable`: the question's
fields it needs, the options the item could show and their order, the numeric variant. An attempt item gives
one from its rows (:func:`gradable_item`); an offline review pack item gives one from the pack's copy
(``quizzes.packs.items.pack_gradable``), so a pack answer is graded without a model instance standing in for
an attempt item, and the same inputs always give the same grade.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from quizzes.practice.models import AttemptItem


@dataclasses.dataclass(frozen=True)
class GradableOption:
    pk: int
    is_correct: bool
    feedback: str


@dataclasses.dataclass(frozen=True)
class Gradable:
    """An item as the grader sees it. ``options``: every option it may name (by id); ``option_order``: the ones it
    showed, in order (only those can be chosen, and the correct one among them is the key)."""

    kind: str
    key: str
    explanation: str
    answer_form: str = ""
    option_order: tuple[int, ...] = ()
    options: tuple[GradableOption, ...] = ()
    variant: Mapping[str, Any] | None = None
    code_spec: Any = None
    number_answer: float | None = None
    number_tolerance: float | None = None
    number_unit: str = ""


def gradable_item(item: AttemptItem) -> Gradable:
    """An attempt item as the grader sees it (its question's options as loaded with it)."""
    question = item.question
    return Gradable(
        kind=question.kind,
        key=question.key,
        explanation=question.explanation,
        answer_form=question.answer_form,
        option_order=tuple(item.option_order or ()),
        options=tuple(
            GradableOption(pk=o.pk, is_correct=o.is_correct, feedback=o.feedback) for o in question.loaded_options()
        )
        if question.kind == question.Kind.CHOICE
        else (),
        variant=item.variant,
        code_spec=question.code_spec,
        number_answer=question.number_answer,
        number_tolerance=question.number_tolerance,
        number_unit=question.number_unit,
    )
