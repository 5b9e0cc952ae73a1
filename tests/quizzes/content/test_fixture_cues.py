"""The real lesson files (fixtures/lessons/) against the answer-cue rules, as load_lessons loads them.

Before issue 11 the correct option was the single longest in 27 of 37 questions and 21 questions broke
the length rule: these tests name the question and the rule when a file slips back.
"""

from __future__ import annotations

import pytest

from quizzes.content import cues
from quizzes.content.report import ContentError
from quizzes.content.writer import content_load


@pytest.fixture
def bank(real_lessons) -> dict[str, list]:
    """Every published choice question of the loaded files → its live options (what learners are offered).

    From the session's rolled-back load of the real files (tests/quizzes/content/conftest.py): no rows remain.
    """
    return {
        q["key"]: [o for o in q["options"] if not o["retired"]]
        for q in real_lessons.of(kind="choice", published=True, lesson_published=True)
    }


def _problems(bank: dict[str, list], code: str) -> list[str]:
    return [
        f"{key}: {problem.message}"
        for key, options in bank.items()
        for problem in cues.question_cue_problems(options)
        if problem.code == code
    ]


def test_real_choice_questions_have_options_of_similar_length(bank):
    assert bank
    assert _problems(bank, "length_spread") == []


def test_real_choice_questions_have_no_catch_all_options(bank):
    assert _problems(bank, "catch_all") == []


def test_real_correct_options_are_the_single_longest_in_at_most_one_question_in_three(bank):
    summary = cues.bank_longest_correct(bank)
    assert summary.ok, f"{summary.line()}: {', '.join(summary.keys)}"


@pytest.mark.django_db
def test_real_lessons_pass_load_lessons_check():
    try:
        content_load(validate_only=True)
    except ContentError as exc:
        pytest.fail(f"load_lessons --check refuses the real files:\n{exc}", pytrace=False)
