"""Lesson 1's recall card becomes a code card with its own key (issue 15): loading the files retires the
old card (unpublished, history kept) and copies each learner's schedule onto the new card."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
import time_machine
from django.core.management import call_command

from quizzes.models import Question, ReviewCard, ReviewLog
from quizzes.operations.lessons import lessons_load
from quizzes.reviews.services import card_rate, cards_carry_over
from tests import factories
from tests.factories import utc

pytestmark = pytest.mark.django_db
FIXTURES = Path(__file__).resolve().parents[3] / "fixtures" / "lessons"


def _rate(user, question, when: dt.datetime, rating: int) -> None:
    with time_machine.travel(when, tick=False):
        card_rate(user=user, question=question, rating=rating, reviewed_at=when)


def test_loading_the_files_retires_the_recall_card_and_carries_schedules_over(user, other_user):
    lesson = factories.LessonFactory(key="sdpa", source="file")  # as an earlier load of the files left them
    old = factories.RecallQuestionFactory(lesson=lesson, key="l1-recall-three-lines", source="file")
    _rate(user, old, utc(2026, 3, 1, 9), ReviewLog.Rating.GOOD)
    _rate(user, old, utc(2026, 3, 3, 9), ReviewLog.Rating.GOOD)
    before = ReviewCard.objects.get(user=user, question=old)

    with time_machine.travel(utc(2026, 3, 4, 9), tick=False):
        report, carried = lessons_load(directory=FIXTURES)
    assert carried == 1 and report.questions.unpublished == 1
    old.refresh_from_db()
    assert not old.published and old.review_cards.count() == 1  # retired, history kept
    new = Question.objects.get(key="l1-code-three-lines")
    assert new.kind == "code" and new.replaces_key == old.key
    copy = ReviewCard.objects.get(user=user, question=new)
    assert (copy.due, copy.stability, copy.difficulty, copy.reps, copy.fsrs_card) == (
        before.due,
        before.stability,
        before.difficulty,
        before.reps,
        before.fsrs_card,
    )
    assert list(copy.logs.oldest_first().values_list("rating", "reviewed_at", "role")) == list(
        before.logs.oldest_first().values_list("rating", "reviewed_at", "role")
    )
    assert not ReviewCard.objects.filter(user=other_user, question=new).exists()  # nothing to carry

    # idempotent: a second load (or carry-over) copies nothing again
    assert lessons_load(directory=FIXTURES)[1] == 0
    assert cards_carry_over() == 0
    assert ReviewCard.objects.filter(question=new).count() == 1


def test_a_learner_who_already_has_the_new_card_keeps_it(user):
    lesson = factories.LessonFactory()
    old = factories.RecallQuestionFactory(lesson=lesson, key="old-card")
    new = factories.CodeQuestionFactory(lesson=lesson, key="new-card", replaces_key="old-card")
    _rate(user, old, utc(2026, 3, 1, 9), ReviewLog.Rating.AGAIN)
    ReviewCard.objects.create(user=user, question=new, due=utc(2026, 5, 1))
    assert cards_carry_over() == 0
    assert ReviewCard.objects.get(user=user, question=new).due == utc(2026, 5, 1)


def test_the_command_reports_the_carried_cards(user, capsys):
    lesson = factories.LessonFactory(key="sdpa", source="file")  # as an earlier load of the files left them
    old = factories.RecallQuestionFactory(lesson=lesson, key="l1-recall-three-lines", source="file")
    _rate(user, old, utc(2026, 3, 1, 9), ReviewLog.Rating.GOOD)
    call_command("load_lessons", "--dir", str(FIXTURES))
    assert "review cards carried over to replacing questions: 1" in capsys.readouterr().out


def test_a_client_graded_log_stays_client_graded_on_the_copy(user, lesson):
    """A card built from the deprecated offline form keeps saying so when carried over: no pack hands out its key."""
    old = factories.ChoiceQuestionFactory(lesson=lesson, key="l9-old", order=1)
    new = factories.ChoiceQuestionFactory(lesson=lesson, key="l9-new", order=2, replaces_key=old.key)
    card = ReviewCard.objects.create(user=user, question=old, due=utc(2026, 3, 3, 9))
    ReviewLog.objects.create(user=user, card=card, rating=1, reviewed_at=utc(2026, 3, 1, 9), client_graded=True)
    assert cards_carry_over() == 1
    copy = ReviewCard.objects.get(user=user, question=new)
    assert list(copy.logs.values_list("client_graded", flat=True)) == [True]
    assert not ReviewCard.objects.filter(pk=copy.pk).keys_earned().exists()
