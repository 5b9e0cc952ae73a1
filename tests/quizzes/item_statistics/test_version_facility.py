"""Facility per question version, and the flag "a change in facility after an edit" (issue 27, item 5).

Versions are recorded by the real service (``versions_record``) after a real edit of the prompt; the learners'
first attempts pin them as attempt starts do. Expected facilities are the planted counts divided here.
"""

from __future__ import annotations

import datetime as dt

import pytest
from django.urls import reverse

from quizzes.content.versions import versions_record
from quizzes.item_statistics.selectors import lesson_statistics
from quizzes.models import Attempt, AttemptItem, Question
from tests.factories import LessonFactory, OptionFactory, QuestionFactory, UserFactory

START = dt.datetime(2026, 11, 1, 9, 0, tzinfo=dt.UTC)


def _record(question: Question):
    return versions_record(questions=[Question.objects.prefetch_related("options").get(pk=question.pk)])[question.pk]


@pytest.fixture
def question(db):
    lesson = LessonFactory()
    question = QuestionFactory(lesson=lesson, key="edited", prompt="Which scaling keeps the variance at 1?")
    for i, key in enumerate("ab"):
        OptionFactory(question=question, key=key, is_correct=key == "a", order=i)
    return question


def _answer(question: Question, version, right: int, total: int) -> None:
    """``total`` learners' first study attempts showing ``version``; the first ``right`` pick the key."""
    options = {o.key: o for o in question.options.all()}
    for n in range(total):
        chosen = options["a" if n < right else "b"]
        attempt = Attempt.objects.create(user=UserFactory(), lesson=question.lesson, number=1, seed=n,
                                         started_at=START, finished_at=START + dt.timedelta(minutes=2))  # fmt: skip
        AttemptItem.objects.create(attempt=attempt, question=question, version=version, position=0,
                                   chosen_option=chosen, response=chosen.pk, is_correct=chosen.is_correct,
                                   score=float(chosen.is_correct), result={"kind": "choice"},
                                   answered_at=START + dt.timedelta(seconds=10))  # fmt: skip


def _edit_and_answer(question: Question, before: tuple[int, int], after: tuple[int, int]):
    first = _record(question)
    _answer(question, first, *before)
    question.prompt = "Which scaling keeps the variance of q·k at 1 (hint: d_k terms)?"
    question.save()
    second = _record(question)
    assert (first.number, second.number) == (1, 2)  # the edit made a new version
    _answer(question, second, *after)
    (item,) = lesson_statistics(lesson=question.lesson).items
    return item


def _flagged(item) -> list[str]:
    return [f.text for f in item.flags if f.code == "version_facility"]


def test_an_edit_that_makes_the_question_easier_is_flagged_with_both_figures(question):
    item = _edit_and_answer(question, before=(12, 40), after=(32, 40))
    assert [(v.number, v.attempts) for v in item.versions] == [(1, 40), (2, 40)]
    assert [v.facility for v in item.versions] == pytest.approx([12 / 40, 32 / 40])
    assert item.facility == pytest.approx(44 / 80)  # the question's own figure keeps every version
    (text,) = _flagged(item)
    assert "0.30" in text and "0.80" in text and "version 1" in text and "version 2" in text


def test_an_edit_that_changes_nothing_is_not_flagged(question):
    item = _edit_and_answer(question, before=(20, 40), after=(21, 40))
    assert [v.facility for v in item.versions] == pytest.approx([20 / 40, 21 / 40])
    assert _flagged(item) == []


def test_too_few_attempts_on_the_new_version_is_not_flagged(question):
    item = _edit_and_answer(question, before=(12, 40), after=(10, 10))  # all right, but only 10 learners
    assert [v.attempts for v in item.versions] == [40, 10]
    assert _flagged(item) == []


def test_a_step_of_the_size_chance_gives_on_thirty_attempts_is_not_flagged(question):
    # 12/30 → 17/30: Δ = 0.17, but the pooled standard error is 0.129 (z ≈ 1.3 by hand): not clear of chance
    item = _edit_and_answer(question, before=(12, 30), after=(17, 30))
    assert _flagged(item) == []


def test_the_admin_page_shows_the_versions_and_the_flag(admin_client, question):
    _edit_and_answer(question, before=(12, 40), after=(32, 40))
    page = admin_client.get(reverse("admin:quizzes_lesson_statistics", args=[question.lesson.pk])).content.decode()
    assert "Facility per version" in page
    assert page.count('data-flag="version_facility"') == 1
    assert "0.30" in page and "0.80" in page
