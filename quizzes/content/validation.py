"""Content validation shared by Question.clean(), the admin and the content loader.

The numeric check generates the first VALIDATION_SEEDS variants of a template **at the question's
template version** with the question's params: every answer and choice must be finite and the
choices must be pairwise distinguishable under the variant's own grading tolerance (otherwise a
distractor would be graded as correct). The error names the first bad seed so an author can
preview it. The version is part of a question's identity: a template's newer version may draw
other numbers, so a question names the version it was written (and reviewed) for.

The option rule counts **live** options only: retired options stay in the database for the
attempts that showed them, but no new attempt shows them.

The models call this module (``Question.clean``); this module never imports the models: it reads a
question through the :class:`QuestionFields` protocol and options as objects or dicts. So
``quizzes.content.models`` → ``quizzes.content.validation`` is one-way (no import cycle).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _

from quizzes.content import cues
from quizzes.core.errors import ErrorCode

VALIDATION_SEEDS = 50
#: The largest variant seed a numeric item or a generated question may use.
MAX_VARIANT_SEED = 2**31 - 1


class QuestionFields(Protocol):
    """What the per-kind rules read of a question (a ``Question`` row has all of it)."""

    kind: str
    template: str
    template_version: int | None
    answer_form: str
    params: Any
    reference_answer: str
    rubric: Any
    expected_lines: Any
    code_spec: Any
    number_answer: float | None
    number_tolerance: float | None
    number_unit: str


def _is_finite(value: Any) -> bool:
    try:
        array = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        return False
    return bool(np.all(np.isfinite(array)))


def _close(a: Any, b: Any, *, atol: float, rtol: float) -> bool:
    array_a, array_b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return array_a.shape == array_b.shape and bool(np.allclose(array_a, array_b, atol=atol, rtol=rtol))


def check_numeric_variant(variant: Any) -> str | None:
    """Return why one generated variant is unusable, or None if it is fine."""
    if not _is_finite(variant.answer):
        return _("the answer is not finite")
    values = [choice.value for choice in variant.choices]
    for index, value in enumerate(values):
        if not _is_finite(value):
            return _("choice %(index)d is not finite") % {"index": index}
    for i in range(len(values)):
        for j in range(i + 1, len(values)):
            if _close(values[i], values[j], atol=variant.atol, rtol=variant.rtol):
                return _("choices %(i)d and %(j)d are not distinct") % {"i": i, "j": j}
    correct = [choice for choice in variant.choices if choice.misconception is None]
    if variant.choices and len(correct) != 1:
        return _("expected exactly one correct choice, got %(count)d") % {"count": len(correct)}
    return None


def _template_error(template: str) -> str | None:
    """Why ``template`` cannot generate (empty or unknown name), or None."""
    from attention_engine import generators

    if not template:
        return _("A numeric question needs a generator template.")
    known = generators.names()
    if template not in known:
        return _("Unknown template %(name)s. Known: %(known)s.") % {"name": template, "known": ", ".join(known)}
    return None


def newest_template_version(template: str) -> int | None:
    """The newest version of ``template`` (the default for a new question), None for an unknown template."""
    from attention_engine import generators

    if _template_error(template):
        return None
    return generators.get(template).version


def validate_template_version(*, template: str, version: Any) -> int:
    """``version`` if ``template`` has it; ValidationError on ``template_version`` listing the known ones."""
    from attention_engine import generators

    known = generators.versions(template)
    if isinstance(version, bool) or not isinstance(version, int) or version not in known:
        raise ValidationError(
            {
                "template_version": _("Template %(name)s has no version %(version)s. Known versions: %(known)s.")
                % {"name": template, "version": version, "known": ", ".join(str(v) for v in known)}
            },
            code=ErrorCode.UNKNOWN_VERSION,
        )
    return version


def validate_numeric_question(
    *, template: str, params: dict[str, Any] | None, version: int | None = None, seeds: int = VALIDATION_SEEDS
) -> dict:
    """Validate a generator-backed question at ``version`` (None: the newest); return the resolved params.

    Raises ValidationError keyed by field: ``template`` (unknown name), ``template_version`` (a
    version the template does not have, listing those it has), ``params`` (the template's own
    ValueError message, e.g. a value out of its declared range), or ``params`` naming the first
    seed in 0..seeds-1 whose variant is unusable.
    """
    from attention_engine import generators

    problem = _template_error(template)
    if problem:
        raise ValidationError({"template": problem})
    if version is not None:
        validate_template_version(template=template, version=version)
    if params is None:
        params = {}
    if not isinstance(params, dict):
        raise ValidationError({"params": _("Parameters must be a JSON object.")})
    try:
        resolved = generators.get(template, version).resolve_params(params)
    except ValueError as exc:
        raise ValidationError({"params": str(exc)}) from exc
    for seed in range(seeds):
        try:
            variant = generators.generate(template, seed, version=version, **params)
        except (ValueError, ArithmeticError, FloatingPointError) as exc:
            problem = str(exc) or type(exc).__name__
        else:
            problem = check_numeric_variant(variant)
        if problem:
            raise ValidationError(
                {"params": _("Seed %(seed)d: %(problem)s.") % {"seed": seed, "problem": problem}},
                code=ErrorCode.BAD_SEED,
            )
    return resolved


def _flag(option: Any, name: str) -> bool:
    return bool(option.get(name, False) if isinstance(option, dict) else getattr(option, name, False))


def validate_choice_options(options: Iterable[Any]) -> None:
    """A choice question needs at least two live options and exactly one live correct (admin formsets, loader).

    Retired options (``retired``: hidden from new attempts) do not count.
    """
    flags = [_flag(o, "is_correct") for o in options if not _flag(o, "retired")]
    if len(flags) < 2:
        raise ValidationError(_("A choice question needs at least two options."), code=ErrorCode.TOO_FEW_OPTIONS)
    if sum(flags) != 1:
        raise ValidationError(
            _("A choice question needs exactly one correct option (found %(count)d).") % {"count": sum(flags)},
            code=ErrorCode.CORRECT_COUNT,
        )


@dataclass(frozen=True)
class OptionProblem:
    """One rule a choice question's options break; ``option`` is the key of the option it is about, if one."""

    message: str
    option: str | None = None


def choice_options_problems(options: Iterable[Any]) -> list[OptionProblem]:
    """Every rule a choice question's live options keep, for the admin's option formset and ``load_lessons``
    alike (over the options the question will have: the file's and those an admin added): at least two, exactly
    one correct (:func:`validate_choice_options`), and the answer-cue rules a and c (quizzes.content.cues)."""
    options = list(options)
    problems: list[OptionProblem] = []
    try:
        validate_choice_options(options)
    except ValidationError as exc:
        problems += [OptionProblem(message) for message in exc.messages]
    problems += [OptionProblem(p.message, p.option) for p in cues.question_cue_problems(options)]
    return problems


def _is_list_of_text(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(item, str) and item.strip() for item in value)


def _numeric_field_errors(question: QuestionFields) -> dict[str, str]:
    """The numeric fields: only numeric questions have them, and a numeric question needs them."""
    errors: dict[str, str] = {}
    if question.kind != "numeric":
        if question.template:
            errors["template"] = _("Only numeric questions have a generator template.")
        if question.template_version is not None:
            errors["template_version"] = _("Only numeric questions have a template version.")
        if question.answer_form:
            errors["answer_form"] = _("Only numeric questions have an answer form.")
        if question.params:
            errors["params"] = _("Only numeric questions have template parameters.")
        return errors
    if question.answer_form not in ("input", "choice"):
        errors["answer_form"] = _("Choose how the learner answers: type the value or choose among distractors.")
    if question.template_version is None:
        # Question.clean fills in the newest version of a known template: an unknown template is the real problem.
        problem = _template_error(question.template)
        if problem:
            errors["template"] = problem
        else:
            errors["template_version"] = _("A numeric question needs a template version.")
    return errors


def _prompt_field_errors(question: QuestionFields) -> dict[str, str]:
    """An interview prompt's reference answer and rubric (and no other kind has them)."""
    if question.kind != "prompt":
        if question.rubric or question.reference_answer:
            return {"rubric": _("Only interview prompts have a reference answer and rubric points.")}
        return {}
    errors: dict[str, str] = {}
    if not question.reference_answer.strip():
        errors["reference_answer"] = _("An interview prompt needs a reference answer.")
    if not _is_list_of_text(question.rubric) or not question.rubric:
        errors["rubric"] = _("Rubric points must be a non-empty list of texts.")
    return errors


def _recall_field_errors(question: QuestionFields) -> dict[str, str]:
    """A recall card's expected lines (and no other kind has them)."""
    if question.kind != "recall":
        return {"expected_lines": _("Only recall cards have expected lines.")} if question.expected_lines else {}
    if not _is_list_of_text(question.expected_lines) or not question.expected_lines:
        return {"expected_lines": _("A recall card needs a non-empty list of expected lines.")}
    return {}


#: The longest unit a number question may show after its answer box (the column's length).
MAX_UNIT_CHARS = 32


def _finite_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _number_field_errors(question: QuestionFields) -> dict[str, str]:
    """A number question's answer, tolerance and unit (quizzes.content.number); no other kind has them."""
    if question.kind != "number":
        if question.number_answer is not None or question.number_tolerance is not None or question.number_unit:
            return {"number_answer": _("Only number questions have an answer, a tolerance and a unit.")}
        return {}
    errors: dict[str, str] = {}
    if not _finite_number(question.number_answer):
        errors["number_answer"] = _("A number question needs its answer: a finite number.")
    tolerance = question.number_tolerance
    if not _finite_number(tolerance) or tolerance is None or tolerance < 0:
        errors["number_tolerance"] = _("The tolerance must be a finite number ≥ 0 (0: exactly the answer).")
    unit = question.number_unit or ""
    if unit != unit.strip() or "\n" in unit or "$" in unit or len(unit) > MAX_UNIT_CHARS:
        errors["number_unit"] = _(
            "The unit is plain text on one line, without surrounding spaces or $, at most %(n)d characters."
        ) % {"n": MAX_UNIT_CHARS}
    return errors


def _code_field_errors(question: QuestionFields) -> dict[str, str]:
    """A code question's spec (quizzes.content.code): readable, and its reference, equivalent spellings and
    misconceptions check out; no other kind has one."""
    from quizzes.content.code import code_spec_problems

    if question.kind != "code":
        return {"code_spec": _("Only code questions have a code spec.")} if question.code_spec is not None else {}
    if question.code_spec is None or question.code_spec == "":
        return {"code_spec": _("A code question needs a code spec: a built-in key or a whole spec.")}
    problems = code_spec_problems(question.code_spec)
    if problems:
        return {"code_spec": _("The code spec does not check out: %(problems)s") % {"problems": "; ".join(problems)}}
    return {}


def validate_question_fields(question: QuestionFields) -> None:
    """Per-kind field rules (Question.clean). Options are checked separately: they are inlines."""
    errors = {
        **_numeric_field_errors(question),
        **_prompt_field_errors(question),
        **_recall_field_errors(question),
        **_code_field_errors(question),
        **_number_field_errors(question),
    }
    if errors:
        raise ValidationError(errors)
    if question.kind == "numeric":
        validate_numeric_question(template=question.template, params=question.params, version=question.template_version)
