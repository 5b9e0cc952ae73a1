"""Code items through the app (issue 15): the sandbox grades, a refusal locks nothing, the first runnable
submission locks, the suggested rating reaches FSRS and the learner may change it.

The expected names come from the engine's specs (every misconception written as code, every equivalent
spelling) run through ``item_answer`` with the real sandbox worker: no mocks of our own stack.
"""

from __future__ import annotations

import pytest
from django.core.exceptions import PermissionDenied, ValidationError

from attention_engine import codecheck
from quizzes.core.errors import ErrorCode
from quizzes.models import AttemptItem, ReviewCard, ReviewLog
from quizzes.practice.services import CodeNotRunnable, attempt_start, item_answer, item_rate
from tests import factories
from tests.factories import utc

pytestmark = pytest.mark.django_db

SPEC_KEYS = codecheck.names()


def _item(user, spec_key: str) -> AttemptItem:
    question = factories.CodeQuestionFactory(code_spec=spec_key, key=f"code-{spec_key.replace('_', '-')}")
    return attempt_start(user=user, lesson=question.lesson).items.get()


@pytest.mark.parametrize("spec_key", SPEC_KEYS)
def test_the_reference_passes_through_the_app(user, spec_key):
    item = _item(user, spec_key)
    spec = codecheck.get(spec_key)
    outcome = item_answer(user=user, item=item, code=spec.reference, now=utc(2026, 3, 2, 9))
    assert outcome.correct and outcome.result["check"]["verdict"] == "correct"
    assert outcome.result["suggested_rating"] == ReviewLog.Rating.GOOD
    log = ReviewLog.objects.get(attempt_item=item)
    assert log.rating == ReviewLog.Rating.GOOD


@pytest.mark.parametrize(
    ("spec_key", "index"),
    [(key, i) for key in SPEC_KEYS for i in range(len(codecheck.get(key).misconceptions))],
)
def test_each_misconception_written_as_code_is_named(user, spec_key, index):
    item = _item(user, spec_key)
    case = codecheck.get(spec_key).misconceptions[index]
    outcome = item_answer(user=user, item=item, code=case.code)
    check = outcome.result["check"]
    named = {check["misconception"]} | {m["params"].get("id") for m in check["messages"]}
    assert case.id in named, (case.id, check["message"])
    stored = AttemptItem.objects.get(pk=item.pk)
    assert stored.is_answered and stored.response == case.code


@pytest.mark.parametrize(
    ("spec_key", "index"),
    [(key, i) for key in SPEC_KEYS for i in range(len(codecheck.get(key).equivalents))],
)
def test_equivalent_spellings_pass(user, spec_key, index):
    item = _item(user, spec_key)
    outcome = item_answer(user=user, item=item, code=codecheck.get(spec_key).equivalents[index])
    assert outcome.correct and outcome.result["check"]["verdict"] == "correct"


def test_K_T_passes_the_card_but_is_told_it_breaks_batching(user):
    item = _item(user, "sdpa_three_lines")
    code = (
        "scores = Q @ K.T / np.sqrt(d_k)\nmask = np.triu(np.ones((T, T), dtype=bool), k=1)\nweights = softmax(scores)\n"
    )
    outcome = item_answer(user=user, item=item, code=code)
    assert outcome.correct  # accepted: right on every required input
    assert outcome.result["check"]["verdict"] == "accepted"
    assert outcome.result["check"]["code"] == "works_2d_only"
    assert outcome.result["suggested_rating"] == ReviewLog.Rating.HARD
    assert ReviewLog.objects.get(attempt_item=item).rating == ReviewLog.Rating.HARD


class TestLock:
    def test_a_syntax_error_locks_nothing_and_says_line_and_column(self, user):
        item = _item(user, "sdpa_three_lines")
        with pytest.raises(CodeNotRunnable) as caught:
            item_answer(user=user, item=item, code="scores = Q @ K.swapaxes(-2, -1) /\nmask = 1\nweights = 2\n")
        assert caught.value.error_code is ErrorCode.CODE_NOT_RUNNABLE
        first = caught.value.check["messages"][0]
        assert first["code"] == "syntax_error" and first["line"] == 1 and first["col"] is not None
        assert f"line {first['line']}, column {first['col']}" in caught.value.messages[0]
        item.refresh_from_db()
        assert not item.is_answered
        assert not ReviewLog.objects.filter(user=user).exists()

    def test_a_disallowed_construct_locks_nothing(self, user):
        item = _item(user, "stable_softmax")
        with pytest.raises(CodeNotRunnable) as caught:
            item_answer(user=user, item=item, code="import os\np = x\n")
        assert caught.value.check["messages"][0]["code"] == "not_allowed"
        item.refresh_from_db()
        assert not item.is_answered

    def test_the_first_runnable_submission_locks_even_when_wrong(self, user):
        item = _item(user, "stable_softmax")
        wrong = "e = np.exp(x)\np = e / e.sum(axis=-1, keepdims=True)\n"
        first = item_answer(user=user, item=item, code=wrong)
        assert not first.correct and first.result["check"]["misconception"] == "no_max_subtraction"
        right = codecheck.get("stable_softmax").reference
        again = item_answer(user=user, item=item, code=right)
        assert again.replayed and again.conflicting and again.result == first.result
        same = item_answer(user=user, item=item, code=wrong)
        assert same.replayed and not same.conflicting
        assert ReviewLog.objects.filter(attempt_item=item).count() == 1

    def test_empty_code_is_a_clear_error(self, user):
        item = _item(user, "stable_softmax")
        with pytest.raises(ValidationError) as caught:
            item_answer(user=user, item=item, code="   ")
        assert caught.value.error_code is ErrorCode.UNREADABLE_ANSWER


class TestRating:
    def test_the_learner_changes_the_suggested_rating_and_fsrs_gets_theirs(self, user):
        item = _item(user, "stable_softmax")
        item_answer(user=user, item=item, code=codecheck.get("stable_softmax").reference, now=utc(2026, 3, 2, 9))
        before = ReviewCard.objects.get(user=user, question=item.question)
        card = item_rate(user=user, item=item, rating=ReviewLog.Rating.HARD)
        assert ReviewLog.objects.get(attempt_item=item).rating == ReviewLog.Rating.HARD
        assert card.fsrs_card != before.fsrs_card  # replayed with the learner's rating
        back = item_rate(user=user, item=item, rating=ReviewLog.Rating.GOOD)
        assert back.fsrs_card == before.fsrs_card  # the same history, the same schedule

    def test_only_the_owner_rates_and_only_answered_code_items(self, user):
        item = _item(user, "stable_softmax")
        with pytest.raises(ValidationError) as caught:
            item_rate(user=user, item=item, rating=3)
        assert caught.value.error_code is ErrorCode.NOT_SELF_RATED
        item_answer(user=user, item=item, code=codecheck.get("stable_softmax").reference)
        with pytest.raises(PermissionDenied):
            item_rate(user=factories.UserFactory(), item=item, rating=3)
        with pytest.raises(ValidationError) as caught:
            item_rate(user=user, item=item, rating=7)
        assert caught.value.error_code is ErrorCode.BAD_RATING


def test_a_code_item_comes_back_in_the_review_session_when_due(user):
    import time_machine

    from quizzes.practice.services import review_attempt_get_or_start

    item = _item(user, "causal_mask")
    with time_machine.travel(utc(2026, 3, 2, 9), tick=False):
        item_answer(user=user, item=item, code=codecheck.get("causal_mask").reference, now=utc(2026, 3, 2, 9))
    with time_machine.travel(utc(2026, 3, 4, 10), tick=False):  # the first review: two days later
        review = review_attempt_get_or_start(user=user, lesson=item.question.lesson, now=utc(2026, 3, 4, 10))
    assert [i.question.kind for i in review.items.select_related("question")] == ["code"]


def test_the_end_screen_names_the_bug_of_a_missed_code_item(user):
    from attention_engine import misconceptions
    from quizzes.practice.grade_messages import grade_message

    item = _item(user, "stable_softmax")
    outcome = item_answer(user=user, item=item, code="p = x / x.sum(axis=-1, keepdims=True)\n")
    title = misconceptions.get("linear_normalisation").title_en
    assert grade_message(outcome.result) == f"line 1 (p): {title}"


def test_a_sandbox_that_cannot_start_is_a_clear_refusal_and_locks_nothing(user, monkeypatch):
    """A real failed start (the worker's interpreter exits at once): the learner hears "try again"."""
    import sys

    from attention_engine.codecheck import worker

    item = _item(user, "stable_softmax")
    monkeypatch.setattr(worker, "_SANDBOX", None)  # this process's worker is restored afterwards
    monkeypatch.setattr(sys, "executable", "/bin/false")
    with pytest.raises(ValidationError) as caught:
        item_answer(user=user, item=item, code=codecheck.get("stable_softmax").reference)
    assert caught.value.error_code is ErrorCode.CODE_NOT_RUNNABLE
    item.refresh_from_db()
    assert not item.is_answered and not ReviewLog.objects.exists()


def test_in_a_review_the_code_card_comes_after_the_quiz(user):
    """The seed: come back in two days, redo the quiz, then write the 3 lines from memory."""
    import time_machine

    from quizzes.practice.services import review_attempt_get_or_start

    lesson = factories.LessonFactory()
    code_question = factories.CodeQuestionFactory(lesson=lesson, order=0, code_spec="stable_softmax")
    for order in range(1, 6):
        factories.ChoiceQuestionFactory(lesson=lesson, order=order, options=3)
    with time_machine.travel(utc(2026, 3, 2, 9), tick=False):
        attempt = attempt_start(user=user, lesson=lesson)
        for item in attempt.items.select_related("question"):
            if item.question == code_question:
                item_answer(user=user, item=item, code=codecheck.get("stable_softmax").reference)
            else:
                item_answer(user=user, item=item, option_id=item.option_order[0])
    with time_machine.travel(utc(2026, 3, 4, 10), tick=False):
        review = review_attempt_get_or_start(user=user, lesson=lesson, now=utc(2026, 3, 4, 10))
    kinds = [i.question.kind for i in review.items.select_related("question").order_by("position")]
    assert len(kinds) == 6 and kinds[-1] == "code"
