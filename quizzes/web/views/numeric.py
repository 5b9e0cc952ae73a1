"""Numeric items on the quiz pages: reading the learner's answer (a value grid, or one of the choices).

Reading only: an empty cell or a non-number is the form's to report, and the item stays unanswered
with what the learner typed; grading is the service's (quizzes.practice.services.answers).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.http import HttpRequest
from django.utils.translation import gettext as _

from quizzes.content.models import Question
from quizzes.practice.models import AttemptItem
from quizzes.web.practice_forms import NumericAnswerForm


@dataclass
class NumericAnswer:
    """What the request said: ``kwargs`` for ``item_answer``, or an ``error`` (and the bound form to redisplay)."""

    kwargs: dict[str, Any] = field(default_factory=dict)
    form: NumericAnswerForm | None = None
    error: str = ""


def numeric_answer(request: HttpRequest, item: AttemptItem) -> NumericAnswer:
    """A numeric item's answer from the POST: ``choice_index`` (answer_form=choice) or the typed grid's ``value``."""
    if item.question.answer_form == Question.AnswerForm.CHOICE:
        try:
            return NumericAnswer(kwargs={"choice_index": int(request.POST.get("choice_index", ""))})
        except ValueError:
            return NumericAnswer(error=_("Choose one of the values."))
    form = NumericAnswerForm(request.POST, shape=(item.variant or {}).get("answer_shape", []))
    if not form.is_valid():
        return NumericAnswer(form=form, error=" ".join(str(error) for error in form.non_field_errors()))
    return NumericAnswer(kwargs={"value": form.cleaned_data["value"]}, form=form)


def answer_grid(item: AttemptItem, form: NumericAnswerForm | None) -> NumericAnswerForm | None:
    """The empty grid of an unanswered typed item (or the learner's bound form to show again)."""
    if item.is_answered or item.question.kind != Question.Kind.NUMERIC:
        return None
    if item.question.answer_form != Question.AnswerForm.INPUT:
        return None
    return form or NumericAnswerForm(shape=(item.variant or {}).get("answer_shape", []))
