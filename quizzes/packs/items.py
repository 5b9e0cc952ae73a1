"""A pack item: the pack's copy of a question, how a client sees it, its answer key, and its grading.

One copy, three uses: the pack pins each question's version when it is issued (``packed``, a QuestionVersion:
quizzes.content.versions, whose ``snapshot_of`` takes the copy); :func:`pack_gradable`
reads it as the plain data the **same** grader as online answers grades
(``quizzes.practice.services.answers.answer_grade``), and :func:`as_attempt_item` turns it back into an
(unsaved, in-memory) attempt item that the **same** presenter the pages and the API use
(``quizzes.practice.presenter.present_item``) draws; neither reads the question as it is now.
:func:`pack_item_view` is the item with its key — the one place an answer reaches a client before a lock,
because the learner downloads the key for their own items on purpose (issue 17).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from django.utils.translation import gettext as _

from attention_engine import misconceptions
from quizzes.content.models import LOADED_OPTIONS, Option, Question
from quizzes.content.versions import snapshot_digest
from quizzes.core.rendering import prime_markdown, render_markdown
from quizzes.packs.models import PackItem
from quizzes.practice.gradable import Gradable, GradableOption
from quizzes.practice.grading_budget import GradingBudget
from quizzes.practice.models import AttemptItem
from quizzes.practice.presenter import option_from_handle, present_item
from quizzes.practice.services.answers import answer_grade

#: How a typed numeric answer is graded (attention_engine.generators.grading: numpy.isclose per element).
NUMERIC_RULE = (
    "Same shape as answer_shape; element x is right when |x - a| <= atol + 1e-9 + rtol * |a| for the answer's "
    "element a; the answer is correct when every element is right; score = the share of right elements "
    "(a vector) or of entirely right rows (a matrix)."
)

#: The kind name of code questions (issue 15): graded by the server at upload, never on the phone.
CODE_KIND = Question.Kind.CODE

#: Kinds a pack carries. A kind not listed (a newer one) stays online-only until it is added here.
PACKED_KINDS = (Question.Kind.CHOICE, Question.Kind.NUMERIC, Question.Kind.PROMPT, Question.Kind.RECALL, CODE_KIND)


# --- the copy ----------------------------------------------------------------------------------------


def variant_digest(*, template: str, version: int | None, seed: int, params: Any) -> str:
    """A numeric variant's identity: SHA-256 of what generates it (template, version, seed, params), canonical JSON."""
    return snapshot_digest({"template": template, "version": version, "seed": seed, "params": params or {}})


def pack_gradable(item: PackItem) -> Gradable:
    """The pack item as the grader sees it, from the pack's copy only (no query): the version's fields and options,
    the item's option order and variant, the copied checker spec (never the current one)."""
    fields = item.snapshot["question"]
    return Gradable(
        kind=fields["kind"],
        key=fields["key"],
        explanation=fields["explanation"],
        answer_form=fields["answer_form"],
        option_order=tuple(item.option_order or ()),
        options=tuple(
            GradableOption(pk=o["id"], is_correct=o["is_correct"], feedback=o["feedback"])
            for o in item.snapshot["options"]
        ),
        variant=item.variant,
        code_spec=(item.snapshot.get("code") or {}).get("spec"),
    )


def as_attempt_item(item: PackItem) -> AttemptItem:
    """The pack item as an unsaved attempt item built only from the pack's copy (no query), for the presenter.

    Its question is an unsaved Question whose options are the packed ones, where
    ``Prefetch(to_attr=LOADED_OPTIONS)`` would put them (``Question.loaded_options``): never the current rows.
    Built afresh for each call, so nothing a caller sets on it reaches another.
    """
    fields = item.snapshot["question"]
    question = Question(
        pk=fields["id"],
        key=fields["key"],
        kind=fields["kind"],
        lesson_id=fields["lesson_id"],
        prompt=fields["prompt"],
        explanation=fields["explanation"],
        answer_form=fields["answer_form"],
        template=fields["template"],
        template_version=item.template_version,
        code_spec=(item.snapshot.get("code") or {}).get("spec"),  # the pack's copy of the spec, never the current one
    )
    options = [
        Option(
            pk=o["id"],
            question_id=fields["id"],
            key=o["key"],
            text=o["text"],
            is_correct=o["is_correct"],
            feedback=o["feedback"],
        )
        for o in item.snapshot["options"]
    ]
    setattr(question, LOADED_OPTIONS, options)
    return AttemptItem(
        pk=item.pk,
        question=question,
        position=item.position,
        option_order=list(item.option_order or []),
        variant=item.variant,
        variant_seed=item.variant_seed,
        template_version=item.template_version,
    )


# --- grading -----------------------------------------------------------------------------------------


def grade_pack_answer(
    *,
    item: PackItem,
    option_id: str | None = None,
    choice_index: Any = None,
    value: Any = None,
    code: Any = None,
    budget: GradingBudget | None = None,
) -> tuple[dict[str, Any], Any]:
    """Grade an uploaded answer against the pack's copy with the online grader: (the reveal, the response).

    Plain data in, plain data out (:func:`pack_gradable`): nothing is read from the database or written.
    ``option_id`` is the option's handle as the pack showed it. A handle that is not one of this item's,
    or an answer the grader cannot read, raises DomainError (FOREIGN_OPTION, UNREADABLE_ANSWER). Code is
    charged to the upload's grading ``budget`` (GradingBudgetExceeded once it is spent).
    """
    from quizzes.core.errors import DomainError, ErrorCode

    gradable = pack_gradable(item)
    if gradable.kind == Question.Kind.CHOICE:
        chosen = option_from_handle(item=item, handle=option_id) if isinstance(option_id, str) else None
        if chosen is None:
            raise DomainError(
                ErrorCode.FOREIGN_OPTION, _("That is not one of this pack item's option ids."), field="option_id"
            )
        return answer_grade(item=gradable, option_id=chosen)
    if gradable.kind == CODE_KIND:
        return grade_pack_code(item=item, code=code, budget=budget)
    if gradable.kind == Question.Kind.NUMERIC and gradable.answer_form == Question.AnswerForm.CHOICE:
        return answer_grade(item=gradable, choice_index=choice_index)
    return answer_grade(item=gradable, value=value)


def answered_view(item: PackItem, *, answer: Mapping[str, Any] | None = None) -> dict[str, Any] | None:
    """The server's grade of the answer that locked ``item``, as the presenter shows a locked attempt item's
    result (option handles, explanation and feedback rendered, the grading message in the request's language);
    None for a self-rated item or an unanswered one. ``answer``: the lock's values (``answered_at``, ``response``,
    ``result``) when they are newer than ``item`` as it was read."""
    held: Mapping[str, Any] = (
        answer
        if answer is not None
        else {"answered_at": item.answered_at, "response": item.response, "result": item.result}
    )
    if held["result"] is None or held["answered_at"] is None:
        return None
    attempt_item = as_attempt_item(item)
    attempt_item.result, attempt_item.response = held["result"], held["response"]
    attempt_item.answered_at = held["answered_at"]
    if attempt_item.question.kind == Question.Kind.CHOICE:
        attempt_item.chosen_option_id = held["response"]
    return present_item(item=attempt_item)["result"]


# --- code items (issue 15's "code" kind) ---------------------------------------------------------------


def grade_pack_code(*, item: PackItem, code: Any, budget: GradingBudget | None = None) -> tuple[dict[str, Any], Any]:
    """Grade uploaded code against the pack's copy of the spec with the online grader: (the reveal, the code).

    Graded only here, at upload: a phone cannot run the checker, so the client shows "graded when you are
    back online" and the reference solution. Code the checker refuses before running raises CodeNotRunnable
    (a DomainError with the checker's message), as online: nothing locks.
    """
    from quizzes.core.errors import DomainError, ErrorCode

    if item.snapshot.get("code") is None:
        raise DomainError(ErrorCode.NOT_ANSWERABLE, _("This code item cannot be graded."), field="code")
    return answer_grade(item=pack_gradable(item), code=code, budget=budget)


# --- what the client gets ----------------------------------------------------------------------------


def _correct_response(item: AttemptItem) -> dict[str, Any]:
    """The answer the key stands for, as a response the grader accepts."""
    if item.question.kind == Question.Kind.CHOICE:
        packed = {o.pk: o for o in item.question.loaded_options()}
        correct = next((pk for pk in item.option_order if pk in packed and packed[pk].is_correct), None)
        return {"option_id": correct}
    variant = item.variant or {}
    if item.question.answer_form == Question.AnswerForm.CHOICE:
        index = next(i for i, c in enumerate(variant["choices"]) if c["misconception"] is None)
        return {"choice_index": index}
    return {"value": variant["answer"]}


def _nudged(answer: Any, by: float) -> Any:
    """``answer`` with its first element moved by ``by`` times its tolerance unit (a test vector)."""
    if isinstance(answer, list):
        return [_nudged(answer[0], by), *answer[1:]] if answer else answer
    if answer is None or not math.isfinite(answer):
        return answer
    return answer + by


def _test_vectors(item: AttemptItem) -> list[dict[str, Any]]:
    """A few typed answers and the engine's grade of each (the one the server applies), so a client can check
    its own grader against them."""
    from attention_engine import generators

    assert item.variant is not None  # a numeric item
    variant = generators.Variant.from_dict(item.variant)
    answer = item.variant["answer"]
    unit = variant.atol + variant.rtol * max((abs(x) for x in _flat(answer) if x is not None), default=0.0)
    vectors = []
    for value in (answer, _nudged(answer, 0.5 * unit), _nudged(answer, 3 * unit + 0.01)):
        graded = generators.grade(variant, value)
        vectors.append({"value": value, "correct": graded.correct, "score": graded.score, "elements": graded.elements})
    return vectors


def _flat(value: Any) -> list[Any]:
    return [x for v in value for x in _flat(v)] if isinstance(value, list) else [value]


def _key(item: AttemptItem, after: dict[str, Any]) -> dict[str, Any]:
    """The answer key of a quiz item, from the presenter's after-lock view of its correct answer."""
    result = after["result"]
    question = item.question
    key: dict[str, Any] = {
        "correct_option_id": result.get("correct_option_id"),
        "correct_choice_index": result.get("correct_choice_index"),
        "correct_value": result.get("correct_value"),
        "correct_value_latex": result.get("correct_value_latex"),
        "answer_shape": result.get("answer_shape"),
        "solution": result.get("solution", []),
        "explanation": result["explanation"],
        "explanation_html": result["explanation_html"],
        "option_feedback": [],
        "choice_feedback": [],
        "tolerance": None,
        "test_vectors": [],
        "graded_at_upload": False,
        "reference_solution": None,
    }
    if question.kind == Question.Kind.CHOICE:
        packed = {o.pk: o for o in question.loaded_options()}
        key["option_feedback"] = [
            {
                "id": entry["handle"],
                "correct": entry["correct"],
                "feedback": packed[pk].feedback,
                "feedback_html": render_markdown(packed[pk].feedback),
            }
            for entry, pk in zip(after["options"], [pk for pk in item.option_order if pk in packed], strict=True)
        ]
        return key
    variant = item.variant or {}
    key["tolerance"] = {"atol": variant["atol"], "rtol": variant["rtol"], "rule": NUMERIC_RULE}
    if question.answer_form == Question.AnswerForm.CHOICE:
        key["choice_feedback"] = [
            {
                "index": index,
                "correct": choice["misconception"] is None,
                "misconception": misconceptions.describe(choice["misconception"]),
            }
            for index, choice in enumerate(variant["choices"])
        ]
    else:
        key["test_vectors"] = _test_vectors(item)
    return key


def _code_key(item: PackItem) -> dict[str, Any]:
    """A code item's key: the reference solution and the explanation, shown after the learner's answer. The
    grade itself comes from the server at upload ("graded when you are back online")."""
    explanation = item.snapshot["question"]["explanation"]
    code = item.snapshot.get("code") or {}
    return {
        "correct_option_id": None,
        "correct_choice_index": None,
        "correct_value": None,
        "correct_value_latex": None,
        "answer_shape": None,
        "solution": [],
        "explanation": explanation,
        "explanation_html": render_markdown(explanation),
        "option_feedback": [],
        "choice_feedback": [],
        "tolerance": None,
        "test_vectors": [],
        "graded_at_upload": True,
        "reference_solution": code.get("reference_solution"),
    }


def pack_item_views(items: list[PackItem]) -> list[dict[str, Any]]:
    """Every item of a pack as the client gets it (:func:`pack_item_view`).

    The texts the presenter will render (prompts, options, feedback, explanations, references, variant
    prompts) are rendered or fetched from the shared render cache in one go first: a fresh process's first
    pack otherwise renders every one of ≈ 400 texts (bench/README.md, packs).
    """
    texts: list[str | None] = []
    for item in items:
        fields, variant = item.snapshot["question"], item.variant or {}
        texts += [fields["prompt"], fields["explanation"], fields["reference_answer"]]
        texts += [text for o in item.snapshot["options"] for text in (o["text"], o["feedback"])]
        texts += [variant.get("prompt"), str(variant.get("answer_format") or "")]
    prime_markdown(texts)
    return [pack_item_view(item) for item in items]


def pack_item_view(item: PackItem) -> dict[str, Any]:
    """One pack item as the client gets it: what the web quiz shows before the lock, plus the key.

    Built by the same presenter as an attempt item, from the pack's copy only.
    """
    attempt_item = as_attempt_item(item)
    question = attempt_item.question
    self_rated = None
    key = None
    if question.kind == CODE_KIND:  # no key to check on the phone: the reference to show after an answer
        view = present_item(item=attempt_item)
        key = _code_key(item)
    elif question.kind in Question.QUIZ_KINDS:
        result, response = answer_grade(item=pack_gradable(item), **_correct_response(attempt_item))
        attempt_item.result, attempt_item.response = result, response
        attempt_item.answered_at = item.pack.issued_at
        view = present_item(item=attempt_item)
        key = _key(attempt_item, view)
    else:
        view = present_item(item=attempt_item)
        fields = item.snapshot["question"]
        self_rated = {
            "reference_answer": fields["reference_answer"],
            "reference_answer_html": render_markdown(fields["reference_answer"]),
            "rubric": fields["rubric"],
            "expected_lines": fields["expected_lines"],
            "explanation": fields["explanation"],
            "explanation_html": render_markdown(fields["explanation"]),
        }
    return {
        "id": item.pk,
        "position": item.position,
        "due": item.due,
        "question": view["question"],
        "options": [{k: v for k, v in o.items() if k not in ("chosen", "correct")} for o in view["options"]],
        "numeric": _numeric(view["numeric"]),
        "code": view.get("code"),
        "variant_seed": item.variant_seed,
        "template_version": item.template_version,
        "key": key,
        "self_rated": self_rated,
        "answered": item.is_answered,
    }


def _numeric(numeric: dict[str, Any] | None) -> dict[str, Any] | None:
    if numeric is None:
        return None
    choices = [{k: v for k, v in c.items() if k not in ("chosen", "correct")} for c in numeric["choices"]]
    return {**numeric, "choices": choices}
