"""A learner with one card of every kind, studied a week ago and due again now (in the past two days)."""

from __future__ import annotations

import datetime as dt

import pytest
import time_machine
from django.utils import timezone

from quizzes.content.code import spec_from_field
from quizzes.models import Question, ReviewCard
from quizzes.practice.services import attempt_start, item_answer
from quizzes.reviews.services import card_rate
from tests import factories
from tests.quizzes.api.conftest import token_client


def study_everything(user, lesson) -> None:
    """One attempt at the lesson's quiz (wrong answers: due again soon; code: a misconception) and a rating of each
    prompt/recall card."""
    attempt = attempt_start(user=user, lesson=lesson)
    for item in attempt.items.select_related("question"):
        if item.question.kind == Question.Kind.CHOICE:
            wrong = next(o for o in item.question.options.all() if not o.is_correct)
            item_answer(user=user, item=item, option_id=wrong.pk)
        elif item.question.kind == Question.Kind.CODE:
            item_answer(user=user, item=item, code=spec_from_field(item.question.code_spec).misconceptions[0].code)
        elif item.question.answer_form == Question.AnswerForm.CHOICE:
            wrong = next(i for i, c in enumerate(item.variant["choices"]) if c["misconception"] is not None)
            item_answer(user=user, item=item, choice_index=wrong)
        else:
            item_answer(user=user, item=item, value="0")
    for question in lesson.questions.filter(kind__in=Question.SELF_RATED_KINDS):
        card_rate(user=user, question=question, rating=1)


@pytest.fixture
def world(db):
    """(learner, lesson, {kind: question}) — every card due before now; content and learner made 7 days ago."""
    start = timezone.now() - dt.timedelta(days=7)
    with time_machine.travel(start, tick=False):
        user = factories.UserFactory()
        lesson = factories.LessonFactory()
        questions = {
            "choice": factories.ChoiceQuestionFactory(lesson=lesson, order=1, options=4),
            "numeric": factories.NumericQuestionFactory(lesson=lesson, order=2),
            "numeric_choice": factories.NumericQuestionFactory(
                lesson=lesson, order=3, answer_form=Question.AnswerForm.CHOICE
            ),
            "prompt": factories.PromptQuestionFactory(lesson=lesson, order=4),
            "recall": factories.RecallQuestionFactory(lesson=lesson, order=5),
        }
        study_everything(user, lesson)
    assert ReviewCard.objects.filter(user=user, due__lt=timezone.now()).count() == len(questions)
    return user, lesson, questions


@pytest.fixture
def learner(world):
    return world[0]


@pytest.fixture
def api(learner):
    return token_client(learner)
