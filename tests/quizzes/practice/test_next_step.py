"""The one obvious next step: reviews due, then an open attempt, then the first place never studied, else wait."""

from __future__ import annotations

import datetime as dt

import pytest

from quizzes.practice.next_step import NextStepKind, next_step_for
from quizzes.practice.services import attempt_finish, attempt_start, item_answer
from quizzes.reviews.services import card_rate
from tests import factories
from tests.factories import utc

pytestmark = pytest.mark.django_db

T0 = utc(2026, 3, 2, 10)


@pytest.fixture
def two_lessons(db):
    first = factories.LessonFactory(key="first", order=1)
    factories.ChoiceQuestionFactory(lesson=first, order=1)
    prompt = factories.PromptQuestionFactory(lesson=first, order=2)
    recall = factories.RecallQuestionFactory(lesson=first, order=3)
    second = factories.LessonFactory(key="second", order=2)
    factories.ChoiceQuestionFactory(lesson=second, order=1)
    return first, prompt, recall, second


def _take_quiz(user, lesson, now):
    attempt = attempt_start(user=user, lesson=lesson, now=now)
    for item in attempt.items.select_related("question"):
        item_answer(user=user, item=item, option_id=item.question.options.get(is_correct=True).pk, now=now)
    return attempt_finish(user=user, attempt=attempt, now=now)


def test_a_new_learner_starts_at_the_first_lesson(user, two_lessons):
    first, *_ = two_lessons
    step = next_step_for(user=user)
    assert step.kind is NextStepKind.LESSON
    assert step.lesson == first


def test_an_open_attempt_is_continued(user, two_lessons, time_machine):
    first, *_ = two_lessons
    time_machine.move_to(T0, tick=False)
    attempt = attempt_start(user=user, lesson=first)
    step = next_step_for(user=user)
    assert (step.kind, step.attempt) == (NextStepKind.ATTEMPT, attempt)


def test_after_the_quiz_come_the_prompt_then_the_recall_card_then_the_next_lesson(user, two_lessons, time_machine):
    first, prompt, recall, second = two_lessons
    time_machine.move_to(T0, tick=False)
    _take_quiz(user, first, T0)
    step = next_step_for(user=user)
    assert (step.kind, step.question) == (NextStepKind.PROMPT, prompt)
    card_rate(user=user, question=prompt, rating=3)
    step = next_step_for(user=user)
    assert (step.kind, step.question) == (NextStepKind.RECALL, recall)
    card_rate(user=user, question=recall, rating=3)
    step = next_step_for(user=user)
    assert (step.kind, step.lesson) == (NextStepKind.LESSON, second)


def test_when_everything_is_studied_wait_for_the_next_review_then_review(user, two_lessons, time_machine):
    first, prompt, recall, second = two_lessons
    time_machine.move_to(T0, tick=False)
    _take_quiz(user, first, T0)
    _take_quiz(user, second, T0)
    card_rate(user=user, question=prompt, rating=3)
    card_rate(user=user, question=recall, rating=3)
    step = next_step_for(user=user)
    assert step.kind is NextStepKind.WAIT
    assert step.next_review == T0 + dt.timedelta(days=2)
    time_machine.move_to(T0 + dt.timedelta(days=2, hours=1), tick=False)
    step = next_step_for(user=user)
    assert (step.kind, step.due) == (NextStepKind.REVIEW, 4)


def test_reviews_due_come_before_an_open_attempt(user, two_lessons, time_machine):
    _first, prompt, _recall, second = two_lessons
    time_machine.move_to(T0, tick=False)
    card_rate(user=user, question=prompt, rating=3)
    time_machine.move_to(T0 + dt.timedelta(days=2, hours=1), tick=False)
    attempt_start(user=user, lesson=second)
    assert next_step_for(user=user).kind is NextStepKind.REVIEW


def test_nothing_published_means_nothing_to_wait_for(user):
    step = next_step_for(user=user)
    assert (step.kind, step.next_review) == (NextStepKind.WAIT, None)


def test_another_learners_progress_changes_nothing(user, other_user, two_lessons, time_machine):
    first, *_ = two_lessons
    time_machine.move_to(T0, tick=False)
    _take_quiz(other_user, first, T0)
    attempt_start(user=other_user, lesson=first)
    assert next_step_for(user=user).kind is NextStepKind.LESSON


def _any_answer(item) -> dict:
    """Some answer of the item's kind (right or wrong does not matter to where the learner goes next)."""
    from quizzes.content.code import spec_from_field
    from quizzes.content.models import Question

    question = item.question
    if question.kind == Question.Kind.CHOICE:
        return {"option_id": question.options.first().pk}
    if question.kind == Question.Kind.CODE:
        return {"code": spec_from_field(question.code_spec).reference}
    if question.answer_form == Question.AnswerForm.CHOICE:
        return {"choice_index": 0}
    return {"value": item.variant["answer"]}


def test_the_next_step_walks_the_real_lessons_in_order(user, time_machine):
    """With the seven lesson files loaded, finishing a lesson (its quiz, its prompts, its recall card) moves the
    obvious next step to the next lesson, in the order the lesson list shows."""
    from pathlib import Path

    from quizzes.content.models import Lesson, Question
    from quizzes.content.writer import content_load

    content_load(directory=Path(__file__).resolve().parents[3] / "fixtures" / "lessons")
    shown = list(Lesson.objects.filter(published=True).order_by("order").values_list("key", flat=True))
    assert len(shown) == 7
    time_machine.move_to(T0, tick=False)
    walked = []
    for _ in range(200):
        step = next_step_for(user=user, due=0)
        if step.kind is NextStepKind.WAIT:
            break
        if step.kind is NextStepKind.LESSON:
            walked.append(step.lesson.key)
            attempt = attempt_start(user=user, lesson=step.lesson, now=T0)
            for item in attempt.items.select_related("question"):
                item_answer(user=user, item=item, now=T0, **_any_answer(item))
            attempt_finish(user=user, attempt=attempt, now=T0)
        else:
            assert step.kind in (NextStepKind.PROMPT, NextStepKind.RECALL), step
            assert step.question.kind in (Question.Kind.PROMPT, Question.Kind.RECALL)
            card_rate(user=user, question=step.question, rating=3)
    assert walked == shown
