"""Answering an attempt item: server-side grading, the first-response lock, the reveal."""

from __future__ import annotations

import dataclasses
import datetime as dt
import logging
import math
from typing import Any

import numpy as np
from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from attention_engine import misconceptions
from quizzes.content.code import MAX_CODE_CHARS
from quizzes.content.models import Question
from quizzes.content.number import number_variant, without_unit
from quizzes.core.errors import DomainError, ErrorCode
from quizzes.practice import fast_paths
from quizzes.practice.gradable import Gradable, gradable_item
from quizzes.practice.grade_messages import why_ambiguous
from quizzes.practice.grading_budget import GradingBudget
from quizzes.practice.models import AttemptItem
from quizzes.practice.services.locking import first_answer_lock
from quizzes.reviews.models import ReviewCard, ReviewLog
from quizzes.reviews.services import card_rate_answer, card_record_answer

log = logging.getLogger(__name__)

MAX_NUMERIC_RESPONSE_CHARS = 2000


class CodeNotRunnable(DomainError):
    """A code answer the checker refused before running it (a syntax error, a disallowed construct, a
    missing name …): nothing is locked, the learner fixes it and submits again. ``check`` is the
    checker's result (``CheckResult.to_dict()``: every message with its line and column)."""

    def __init__(self, message: str, *, check: dict[str, Any]) -> None:
        super().__init__(ErrorCode.CODE_NOT_RUNNABLE, message, field="code")
        self.check = check


@dataclasses.dataclass(frozen=True)
class AnswerOutcome:
    """What ``item_answer`` returns.

    ``result`` is the reveal stored on the item when it locked (identical on every replay).
    ``replayed``: the item was already answered and nothing was stored now.
    ``conflicting``: a replay whose response differs from the locked one (the API answers 409).
    """

    item: AttemptItem
    result: dict[str, Any]
    replayed: bool
    conflicting: bool

    @property
    def correct(self) -> bool:
        return bool(self.result["correct"])


def jsonable(value: Any) -> Any:
    """Numbers, tuples and numpy arrays → plain JSON (lists, floats, ints, bools)."""
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [jsonable(v) for v in value]
    if isinstance(value, np.ndarray | np.generic):
        return value.tolist()
    return value


def _solution(variant: Any) -> list[dict[str, Any]]:
    return [
        {"name": step.name, "formula": step.formula, "value": jsonable(step.value), "shape": list(step.shape)}
        for step in variant.solution
    ]


def _grade_choice(item: Gradable, option_id: Any) -> tuple[dict[str, Any], Any, int]:
    if option_id is None or isinstance(option_id, bool):
        raise DomainError(ErrorCode.UNREADABLE_ANSWER, _("Choose an option."), field="option_id")
    try:
        option_id = int(option_id)
    except (TypeError, ValueError) as exc:
        raise DomainError(ErrorCode.UNREADABLE_ANSWER, _("An option id is a whole number."), field="option_id") from exc
    options = {option.pk: option for option in item.options}
    option = options.get(option_id)
    if option is None or option_id not in item.option_order:
        raise DomainError(
            ErrorCode.FOREIGN_OPTION,
            _("Option %(option)s is not one of the options of question %(question)s.")
            % {"option": option_id, "question": item.key},
            field="option_id",
        )
    # The correct option among those this item showed: after a retirement the question may hold two
    # correct options (the retired one this attempt shows, and the live one new attempts show).
    shown = [options[pk] for pk in item.option_order if pk in options]
    correct_option = next((o for o in shown if o.is_correct), None)
    result = {
        "kind": Question.Kind.CHOICE,
        "correct": option.is_correct,
        "score": 1.0 if option.is_correct else 0.0,
        "chosen_option_id": option.pk,
        "correct_option_id": correct_option.pk if correct_option else None,
        "feedback": option.feedback,
        "explanation": item.explanation,
    }
    return result, option_id, option.pk


def _grade_numeric_choice(variant: Any, choice_index: Any) -> tuple[dict[str, Any], Any]:
    if not isinstance(choice_index, int) or isinstance(choice_index, bool):
        raise DomainError(
            ErrorCode.UNREADABLE_ANSWER, _("Choose one of the values (a whole-number index)."), field="choice_index"
        )
    if not 0 <= choice_index < len(variant.choices):
        raise DomainError(
            ErrorCode.UNREADABLE_ANSWER,
            _("Choice %(index)d does not exist: this item has %(count)d choices.")
            % {"index": choice_index, "count": len(variant.choices)},
            field="choice_index",
        )
    chosen = variant.choices[choice_index]
    correct = choice_index == variant.correct_choice_index
    return {
        "correct": correct,
        "score": 1.0 if correct else 0.0,
        "elements": None,
        "message": "",
        "chosen_choice_index": choice_index,
        "correct_choice_index": variant.correct_choice_index,
        "misconception": misconceptions.describe(chosen.misconception),
    }, choice_index


def _matching_distractor(variant: Any, value: Any) -> str | None:
    """A wrong typed answer that equals a distractor reveals the misconception behind it."""
    from attention_engine import generators

    for choice in variant.choices:
        if choice.misconception is None:
            continue
        try:
            if generators.grade(dataclasses.replace(variant, answer=choice.value), value).correct:
                return choice.misconception
        except (ValueError, TypeError):
            continue
    return None


def _unstorable(value: Any) -> str | None:
    """Why ``value`` can't be kept in the JSON column (NUL, an unpaired surrogate, NaN/inf), or None. Iterative."""
    stack = [value]
    while stack:
        current = stack.pop()
        if isinstance(current, list | tuple):
            stack.extend(current)
        elif isinstance(current, str) and ("\x00" in current or any("\ud800" <= c <= "\udfff" for c in current)):
            return _("The answer contains a character that cannot be stored (NUL or an unpaired surrogate).")
        elif isinstance(current, float) and not math.isfinite(current):
            return _("The answer contains a value that is not a finite number.")
    return None


def _grade_numeric_input(variant: Any, value: Any) -> tuple[dict[str, Any], Any]:
    from attention_engine import generators

    if value is None or isinstance(value, bool) or (isinstance(value, str) and not value.strip()):
        raise DomainError(ErrorCode.UNREADABLE_ANSWER, _("Type a number, a vector or a matrix."), field="value")
    if isinstance(value, str) and len(value) > MAX_NUMERIC_RESPONSE_CHARS:
        raise DomainError(ErrorCode.UNREADABLE_ANSWER, _("That answer is too long."), field="value")
    if not isinstance(value, str | int | float | list):
        raise DomainError(ErrorCode.UNREADABLE_ANSWER, _("Type a number, a vector or a matrix."), field="value")
    problem = _unstorable(value)  # rejected before the grader or the database sees it (no DataError)
    if problem:
        raise DomainError(ErrorCode.UNREADABLE_ANSWER, problem, field="value")
    try:
        graded = generators.grade(variant, value)
    except (ValueError, TypeError, OverflowError) as exc:
        raise DomainError(
            ErrorCode.UNREADABLE_ANSWER, _("Could not read that answer: %(error)s") % {"error": exc}, field="value"
        ) from exc
    if graded.code == "ambiguous":  # a number whose notation is in doubt ("1,5", "50%"): refused, nothing locks
        raise DomainError(
            ErrorCode.UNREADABLE_ANSWER,
            why_ambiguous(str(graded.params["token"]), str(graded.params["reason"])),
            field="value",
        )
    misconception = None if graded.correct else _matching_distractor(variant, value)
    return {
        "correct": bool(graded.correct),
        "score": float(graded.score),
        "elements": jsonable(graded.elements),
        # English, as before; pages and the API word message_code + message_params in the learner's
        # language at display time (quizzes.practice.grade_messages).
        "message": graded.message,
        "message_code": graded.code,
        "message_params": jsonable(graded.params),
        "misconception": misconceptions.describe(misconception),
    }, value


def _grade_code(item: Gradable, code: Any, budget: GradingBudget) -> tuple[dict[str, Any], Any]:
    """Run the learner's code in the sandbox (attention_engine.codecheck) on the spec's seeded inputs.

    Refused before running → CodeNotRunnable (nothing locks). Runnable → the reveal: the check result
    whole (verdict, misconception, per-line marks, worked example, suggested rating), the reference
    solution and the explanation. ``correct`` is the checker's ``passed`` (correct, or accepted: right on
    every required input). The sandbox call is charged to ``budget``; a spent one raises
    GradingBudgetExceeded before anything runs (quizzes.practice.grading_budget).
    """
    from attention_engine.codecheck import sandbox
    from quizzes.content.code import GRADING_SEED, spec_from_field
    from quizzes.practice.code_messages import word_verdict

    if not isinstance(code, str) or not code.strip():
        raise DomainError(ErrorCode.UNREADABLE_ANSWER, _("Write your code first."), field="code")
    if len(code) > MAX_CODE_CHARS:  # refused before it reaches the checker (whose spec limit may be lower)
        raise DomainError(ErrorCode.UNREADABLE_ANSWER, _("That answer is too long."), field="code")
    problem = _unstorable(code)
    if problem:
        raise DomainError(ErrorCode.UNREADABLE_ANSWER, problem, field="code")
    code = code.replace("\r\n", "\n").replace("\r", "\n")
    spec = spec_from_field(item.code_spec)
    try:
        box = sandbox()  # started outside the budget: a process's first worker start is not the learner's doing
        with budget.grading():  # a restart after a dead worker is on the clock, so is counted
            check = box.grade_code(spec, code, seed=GRADING_SEED).to_dict()
    except (RuntimeError, OSError) as exc:  # the worker process could not start: our problem, not the learner's
        log.exception("codecheck: the sandbox worker could not start")
        raise DomainError(
            ErrorCode.CODE_NOT_RUNNABLE,
            _("The code could not be checked just now; nothing was locked. Try again."),
            field="code",
        ) from exc
    if not check["runnable"]:
        raise CodeNotRunnable(word_verdict(check), check=check)
    return {
        "kind": Question.Kind.CODE,
        "correct": bool(check["passed"]),
        "score": 1.0 if check["passed"] else 0.0,
        "suggested_rating": check["suggested_rating"],
        "check": check,
        "misconception": misconceptions.describe(check["misconception"]),
        "reference": spec.reference,
        "display_code": spec.display_code(),
        "explanation": item.explanation,
    }, code


def _grade_number(question: Gradable, value: Any) -> dict[str, Any]:
    """A number question (quizzes.content.number): its one number graded as a typed numeric answer, by the same
    grader and number grammar; a unit typed after the number is read as the number."""
    graded, _response = _grade_numeric_input(number_variant(question), without_unit(value, question.number_unit))
    return {
        "kind": Question.Kind.NUMBER,
        **graded,
        "correct_value": question.number_answer,
        "answer_shape": [],
        "tolerance": question.number_tolerance,
        "unit": question.number_unit,
        "solution": [],
        "explanation": question.explanation,
    }


def _grade(
    item: Gradable,
    *,
    option_id: Any,
    value: Any,
    choice_index: Any,
    code: Any = None,
    budget: GradingBudget | None = None,
) -> tuple[dict, Any, int | None]:
    """Grade on the server; returns (the reveal, the normalised response, the chosen option's id)."""
    question = item
    if question.kind == Question.Kind.CHOICE:
        return _grade_choice(item, option_id)
    if question.kind == Question.Kind.CODE:
        graded, response = _grade_code(item, code, budget or GradingBudget.for_request(user_id=None))
        return graded, response, None
    if question.kind == Question.Kind.NUMBER:
        return _grade_number(item, value), without_unit(value, question.number_unit), None
    if question.kind != Question.Kind.NUMERIC or not item.variant:
        raise DomainError(ErrorCode.NOT_ANSWERABLE, _("This item cannot be answered in an attempt."))
    from attention_engine.generators import Variant

    variant = Variant.from_dict(item.variant)
    if question.answer_form == Question.AnswerForm.CHOICE:
        graded, response = _grade_numeric_choice(variant, choice_index)
    else:
        graded, response = _grade_numeric_input(variant, value)
    result = {
        "kind": Question.Kind.NUMERIC,
        "answer_form": question.answer_form,
        **graded,
        "correct_value": jsonable(variant.answer),
        "answer_shape": list(variant.answer_shape),
        "solution": _solution(variant),
        "explanation": question.explanation,
    }
    return result, response, None


def answer_grade(
    *,
    item: Gradable,
    option_id: Any = None,
    value: Any = None,
    choice_index: Any = None,
    code: Any = None,
    budget: GradingBudget | None = None,
) -> tuple[dict[str, Any], Any]:
    """Grade a response to ``item`` and store nothing: (the reveal as plain JSON, the normalised response).

    The one grader, over plain data (quizzes.practice.gradable): ``item_answer`` grades an attempt item with it,
    the offline review packs (quizzes.packs) an uploaded answer against the pack's copy of the item. Invalid
    input raises DomainError as in ``item_answer``. A code answer is charged to ``budget`` (the request's; a
    fresh one without a learner when None) and raises GradingBudgetExceeded once it is spent.
    """
    result, response, _chosen = _grade(
        item, option_id=option_id, value=value, choice_index=choice_index, code=code, budget=budget
    )
    return jsonable(result), response


def item_answer(
    *,
    user: User,
    item: AttemptItem,
    option_id: int | None = None,
    value: str | float | list | None = None,
    choice_index: int | None = None,
    code: str | None = None,
    duration_ms: int | None = None,
    source: str = ReviewLog.Source.WEB,
    now: dt.datetime | None = None,
) -> AnswerOutcome:
    """Answer one item; the first response locks it.

    Pass ``option_id`` for a choice question, ``value`` (number, list, nested list or text
    like "0.54, 0.46") for a typed numeric answer, ``choice_index`` for a numeric question
    answered by choosing, ``code`` for a code question (run in the sandbox; code the checker refuses
    before running raises CodeNotRunnable and locks nothing, so the learner can fix a typo). Invalid
    input raises DomainError (UNREADABLE_ANSWER, FOREIGN_OPTION, CODE_NOT_RUNNABLE) naming the field;
    a code answer past the learner's grading budget for the minute raises GradingBudgetExceeded
    (GRADING_BUDGET_EXCEEDED, nothing locked; quizzes.practice.grading_budget).

    The lock is a conditional UPDATE … WHERE answered_at IS NULL on the item (one row per
    (attempt, question), see AttemptItem): of concurrent submits exactly one matches, and
    only that one records the review. The others — and any later submit — get the stored
    result back unchanged, marked ``replayed``.
    """
    now = now or timezone.now()
    if item.attempt.user_id != user.pk:
        raise PermissionDenied(_("This attempt belongs to another learner."))
    if item.question.kind == Question.Kind.CODE and item.is_answered and item.result is not None:
        # Locked already: no need to run the code again to answer with the stored result.
        same = isinstance(code, str) and code.replace("\r\n", "\n").replace("\r", "\n") == item.response
        return AnswerOutcome(item=item, result=item.result, replayed=True, conflicting=not same)
    budget = GradingBudget.for_request(user_id=user.pk)  # this request's, and the learner's per minute
    result, response, chosen = _grade(
        gradable_item(item), option_id=option_id, value=value, choice_index=choice_index, code=code, budget=budget
    )
    result = jsonable(result)
    if item.is_answered and item.result is not None:  # read locked: a locked item never changes, no query needed
        return AnswerOutcome(item=item, result=item.result, replayed=True, conflicting=item.response != response)
    if item.attempt.finished_at is not None:  # read finished and unanswered: nothing can lock it any more
        raise DomainError(ErrorCode.ATTEMPT_FINISHED, _("This attempt is finished."))
    with transaction.atomic():
        answer = {
            "response": response,
            "chosen_option_id": chosen,
            "is_correct": result["correct"],
            "score": result["score"],
            "result": result,
            "answered_at": now,
        }
        # The unfinished-attempt check rides in the lock (one statement): EXISTS is a subquery, not a join,
        # so PostgreSQL still re-checks ``answered_at IS NULL`` on the row after waiting for its lock.
        won = first_answer_lock(AttemptItem, pk=item.pk, values=answer, also=fast_paths.attempt_unfinished_guard())
        if won:
            for field, stored in answer.items():  # what the row now holds; no reload needed
                setattr(item, field, stored)
            card_record_answer(
                user=user,
                item=item,
                correct=result["correct"],
                reviewed_at=now,
                duration_ms=duration_ms,
                source=source,
                suggested_rating=result.get("suggested_rating"),
            )
            return AnswerOutcome(item=item, result=result, replayed=False, conflicting=False)
    item.refresh_from_db(fields=list(answer))  # the first answer's; the item keeps its question and attempt
    if not item.is_answered:  # no answer won: the attempt was finished meanwhile
        raise DomainError(ErrorCode.ATTEMPT_FINISHED, _("This attempt is finished."))
    stored = item.result
    assert isinstance(stored, dict)  # a locked item holds its result (attempt_item_answer_all_or_nothing)
    return AnswerOutcome(item=item, result=stored, replayed=True, conflicting=item.response != response)


def item_rate(*, user: User, item: AttemptItem, rating: int) -> ReviewCard:
    """The learner accepts or changes the rating a code answer suggested (Good / Hard / Again): it replaces
    the rating recorded when the item locked (reviews.services.card_rate_answer). Returns the card."""
    return card_rate_answer(user=user, item=item, rating=rating)
