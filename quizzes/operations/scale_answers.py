"""What seed_scale's learners answer in their study attempts, question kind by question kind.

The item statistics (quizzes.item_statistics) read every quiz kind, so the seeded attempts hold every kind: each
question gets a table of **outcomes** — what a learner can end up with, the correct one first — graded by the
real grader (``answer_grade``, the one the pages, the API and the packs use), so each stored result is exactly
what an answer would have stored:

* choice — one outcome per option (the Rasch model picks the option itself, ``rasch_answers``);
* numeric — a few seeded variants per question (``VARIANTS_PER_QUESTION``; a learner's variant is drawn from
  them), each with its correct answer, every distractor that names a misconception (a choice, or that value
  typed), and for typed answers one wrong value that matches none;
* number — the one number, and a wrong one;
* code — the spec's reference solution, and each of its named bugs (``MisconceptionCase``), run by the checker.

The grading happens once per outcome, not per learner: ten code checks and a few hundred numeric gradings for
a run of any size.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from quizzes.content.code import spec_from_field
from quizzes.content.models import Option, Question
from quizzes.core.errors import DomainError
from quizzes.practice.gradable import gradable_item
from quizzes.practice.models import AttemptItem
from quizzes.practice.services.answers import answer_grade, jsonable

#: Variants drawn per numeric question; a learner's item shows one of them (its seed is the variant's).
VARIANTS_PER_QUESTION = 8
#: The first variant seed: above the seeds the content check reserves for its own runs.
FIRST_VARIANT_SEED = 1000


@dataclass(frozen=True)
class Outcome:
    """One way an item can end: the stored response, the reveal the grader returned, the chosen option."""

    response: Any
    result: dict[str, Any]
    chosen_option_id: int | None = None

    @property
    def correct(self) -> bool:
        return bool(self.result["correct"])


@dataclass(frozen=True)
class Shown:
    """What one item showed: a numeric variant (with its seed and template version), or nothing extra."""

    variant: dict[str, Any] | None = None
    seed: int | None = None
    template_version: int | None = None


@dataclass
class QuestionAnswers:
    """A question's outcomes per thing it can show: ``correct[s]`` and ``wrong[s]`` for shown ``s``."""

    question: Question
    options: list[Option] = field(default_factory=list)  # choice: in the order the Rasch model indexes them
    shown: list[Shown] = field(default_factory=list)
    correct: list[Outcome] = field(default_factory=list)
    wrong: list[list[Outcome]] = field(default_factory=list)

    @property
    def key_index(self) -> int:
        """The correct outcome's index for the Rasch model (a choice question's correct option; else 0)."""
        return next((i for i, o in enumerate(self.options) if o.is_correct), 0)

    @property
    def outcome_count(self) -> int:
        """How many outcomes the Rasch model chooses among: the options, or 1 + the most wrong ones of a variant."""
        if self.options:
            return len(self.options)
        return 1 + max((len(w) for w in self.wrong), default=0)

    def outcome(self, shown: int, pick: int) -> Outcome:
        """The outcome of Rasch pick ``pick`` (0: correct; choice: the option index) on shown thing ``shown``."""
        if self.options:
            return self.wrong[0][pick] if pick != self.key_index else self.correct[0]
        wrong = self.wrong[shown]
        return self.correct[shown] if pick == 0 or not wrong else wrong[(pick - 1) % len(wrong)]


def _grade(question: Question, shown: Shown, **response: Any) -> Outcome | None:
    """``response`` graded as an answer to ``question`` showing ``shown``; None when the grader refuses it."""
    item = AttemptItem(question=question, variant=shown.variant, option_order=[o.pk for o in question.loaded_options()])
    try:
        result, stored = answer_grade(item=gradable_item(item), **response)
    except DomainError:  # an unreadable answer, or code the checker refused before running (CodeNotRunnable)
        return None
    return Outcome(stored, result, response.get("option_id"))


def _choice(question: Question) -> QuestionAnswers:
    answers = QuestionAnswers(question, options=list(question.loaded_options()), shown=[Shown()])
    outcomes = [_grade(question, Shown(), option_id=o.pk) for o in answers.options]
    graded = [o for o in outcomes if o is not None]
    assert len(graded) == len(outcomes), f"{question.key}: the grader refused one of its own options"
    answers.correct = [graded[answers.key_index]]
    answers.wrong = [graded]  # indexed by option; the key's entry is never picked as wrong
    return answers


def _wrong_value(answer: Any) -> Any:
    """A typed value that is wrong and names no misconception (half the answer, plus one), the answer's shape."""
    return (np.asarray(answer, dtype=np.float64) * 0.5 + 1.0).round(4).tolist()


def _numeric(question: Question, rng: np.random.Generator) -> QuestionAnswers:
    from attention_engine import generators

    answers = QuestionAnswers(question)
    if question.fixed_seed is not None:
        seeds = [question.fixed_seed]
    else:
        seeds = sorted({int(s) for s in rng.integers(FIRST_VARIANT_SEED, 2**31 - 1, size=VARIANTS_PER_QUESTION)})
    for seed in seeds:
        variant = generators.generate(question.template, seed, version=question.template_version, **question.params)
        shown = Shown(variant.to_dict(), seed, question.template_version)
        if question.answer_form == Question.AnswerForm.CHOICE:
            graded = [_grade(question, shown, choice_index=i) for i in range(len(variant.choices))]
        else:
            values = [variant.answer, *(c.value for c in variant.choices if c.misconception is not None)]
            graded = [_grade(question, shown, value=jsonable(v)) for v in [*values, _wrong_value(variant.answer)]]
        found = [o for o in graded if o is not None]
        right = [o for o in found if o.correct]
        if not right:
            continue  # cannot happen for a template that passed its checks; such a variant is left out
        answers.shown.append(shown)
        answers.correct.append(right[0])
        answers.wrong.append([o for o in found if not o.correct])
    return answers


def _number(question: Question) -> QuestionAnswers:
    right = _grade(question, Shown(), value=question.number_answer)
    wrong = _grade(question, Shown(), value=_wrong_value(question.number_answer))
    assert right is not None and right.correct, f"{question.key}: its own number is not graded correct"
    return QuestionAnswers(question, shown=[Shown()], correct=[right], wrong=[[wrong] if wrong is not None else []])


def _code(question: Question) -> QuestionAnswers:
    spec = spec_from_field(question.code_spec)
    right = _grade(question, Shown(), code=spec.reference)
    assert right is not None and right.correct, f"{question.key}: its reference solution does not pass"
    bugs = [_grade(question, Shown(), code=case.code) for case in spec.misconceptions]
    wrong = [o for o in bugs if o is not None and not o.correct]
    return QuestionAnswers(question, shown=[Shown()], correct=[right], wrong=[wrong])


def question_answers(*, questions: Sequence[Question], seed: Sequence[int]) -> list[QuestionAnswers]:
    """Every question's outcome table (the module docstring), the numeric variants drawn from ``seed``."""
    rng = np.random.default_rng([*seed, 6])
    tables = []
    for question in questions:
        if question.kind == Question.Kind.CHOICE:
            tables.append(_choice(question))
        elif question.kind == Question.Kind.NUMERIC:
            tables.append(_numeric(question, rng))
        elif question.kind == Question.Kind.NUMBER:
            tables.append(_number(question))
        else:
            tables.append(_code(question))
    return tables
