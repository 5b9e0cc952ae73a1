"""The statistics recover what seed_scale planted: its attempts are drawn from a Rasch model (issue 27, item 5).

A small real run (the lessons loaded, then ``seed_scale``), read back through the statistics: facility
must order the questions as the planted difficulties do (Spearman's rho, computed here from numpy ranks), and
the one distractor planted to be (almost) never picked must be the one flagged as picked by under 5 %.
"""

from __future__ import annotations

import io

import numpy as np
import pytest
from django.core.management import call_command

from quizzes.content.selectors import lesson_quiz_questions
from quizzes.item_statistics.selectors import lesson_statistics
from quizzes.models import Lesson, Question
from quizzes.operations.scale_answers import question_answers
from quizzes.operations.scale_data import lesson_rasch_answers, lesson_seed

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

LEARNERS = 1500


def _ranks(values: np.ndarray) -> np.ndarray:
    """Average ranks (1-based), ties sharing the mean of their positions."""
    order = np.argsort(values, kind="stable")
    ranks = np.empty(values.size)
    ranks[order] = np.arange(1, values.size + 1)
    for value in np.unique(values):
        tied = values == value
        ranks[tied] = ranks[tied].mean()
    return ranks


def _spearman(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.corrcoef(_ranks(a), _ranks(b))[0, 1])


def test_statistics_recover_the_planted_difficulties_and_the_bad_distractor():
    call_command("load_lessons", stdout=io.StringIO())
    call_command("seed_scale", "--learners", str(LEARNERS), "--cards", "1", "--seed", "7", stdout=io.StringIO())

    lesson = Lesson.objects.published().order_by("order", "key").first()
    questions = list(lesson_quiz_questions(lesson=lesson))
    planted = lesson_rasch_answers(
        tables=question_answers(questions=questions, seed=lesson_seed(7, 0)), learners=LEARNERS, seed=7, index=0
    )
    kinds = {q.kind for q in questions}
    assert {Question.Kind.CHOICE, Question.Kind.NUMERIC, Question.Kind.CODE} <= kinds  # every kind is answered

    stats = lesson_statistics(lesson=lesson)
    by_question = {item.question_id: item for item in stats.items}
    assert stats.attempts == LEARNERS
    assert all(by_question[q.pk].attempts == LEARNERS for q in questions)
    facility = np.array([by_question[q.pk].facility for q in questions])
    # easier (lower b) → higher facility: rank agreement with −b, over every kind
    assert _spearman(facility, -planted.difficulty) > 0.9

    rare = {
        (item.question_id, flag.text) for item in stats.items for flag in item.flags if flag.code == "rare_distractor"
    }
    bad_question = questions[planted.bad_question]
    assert bad_question.kind == Question.Kind.CHOICE
    bad_key = list(bad_question.options.all())[planted.bad_option].key
    assert len(rare) == 1
    ((question_id, text),) = rare
    assert question_id == bad_question.pk and bad_key in text
    bad = next(o for o in by_question[bad_question.pk].options if o.key == bad_key)
    assert bad.rate < 0.05
    # the seeded answers took time, harder questions longer: every item has a median time
    assert all(by_question[q.pk].median_seconds > 0 for q in questions)
    # the learners got better with ability: the items discriminate (the Rasch model has no bad item)
    assert all(by_question[q.pk].discrimination > 0.1 for q in questions)
    # a wrong numeric answer names the misconception the grader matched: the statistics list them
    numeric = [by_question[q.pk] for q in questions if q.kind == Question.Kind.NUMERIC]
    assert any(option.picks > 0 for item in numeric for option in item.options if not option.is_key)


def test_every_lesson_gets_first_attempts_from_a_falling_share_of_the_learners():
    call_command("load_lessons", stdout=io.StringIO())
    call_command("seed_scale", "--learners", "40", "--cards", "1", "--seed", "3", stdout=io.StringIO())

    lessons = list(Lesson.objects.published().order_by("order", "key"))
    counts = [lesson_statistics(lesson=lesson).attempts for lesson in lessons]
    assert counts[0] == 40 and all(count > 0 for count in counts)
    assert counts == sorted(counts, reverse=True) and counts[-1] < counts[0]
    for lesson in lessons:  # each attempt answered every quiz question of its lesson, graded as the app grades
        stats = lesson_statistics(lesson=lesson)
        assert {item.question_id for item in stats.items} == set(
            lesson_quiz_questions(lesson=lesson).values_list("pk", flat=True)
        )
        assert stats.complete_attempts == stats.attempts
