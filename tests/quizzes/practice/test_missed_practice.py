"""Practising the missed ones now: just those items, reshuffled with new numbers, and the schedule not inflated."""

from __future__ import annotations

import datetime as dt

import pytest
from django.core.exceptions import PermissionDenied

from quizzes.core.errors import DomainError, ErrorCode
from quizzes.models import Attempt, ReviewCard, ReviewLog
from quizzes.practice.selectors import best_scores
from quizzes.practice.services import attempt_finish, attempt_start, attempt_start_missed, item_answer
from tests.factories import utc

pytestmark = pytest.mark.django_db

T0 = utc(2026, 3, 2, 10)


def _answer(user, item, *, correct: bool, now: dt.datetime):
    """Answer an item right or wrong (choice: an option; numeric: the answer or a clearly wrong value)."""
    if item.question.kind == "choice":
        options = item.question.options.all()
        option = next(o for o in options if o.is_correct == correct)
        return item_answer(user=user, item=item, option_id=option.pk, now=now)
    answer = item.variant["answer"]
    value = answer if correct else (-1000.0 if not isinstance(answer, list) else [[-1000.0] * len(r) for r in answer])
    return item_answer(user=user, item=item, value=value, now=now)


@pytest.fixture
def finished(user, quiz_lesson, time_machine):
    """A finished study attempt at T0: item 1 right, item 2 wrong, items 3 and 4 left unanswered."""
    time_machine.move_to(T0, tick=False)
    attempt = attempt_start(user=user, lesson=quiz_lesson, now=T0)
    items = list(attempt.items.select_related("question").order_by("position"))
    _answer(user, items[0], correct=True, now=T0)
    _answer(user, items[1], correct=False, now=T0)
    return attempt_finish(user=user, attempt=attempt, now=T0)


def test_the_practice_holds_just_the_missed_items_in_their_order(user, finished):
    practice = attempt_start_missed(user=user, attempt=finished, now=T0)
    source = list(finished.items.order_by("position"))
    missed = [item.question_id for item in source if item.is_correct is not True]
    assert [item.question_id for item in practice.items.order_by("position")] == missed
    assert len(missed) == 3  # the wrong one and the two unanswered
    assert practice.mode == Attempt.Mode.MISSED
    assert practice.number == finished.number + 1
    assert practice.finished_at is None


def test_options_are_offered_again_and_numbers_are_new(user, finished):
    practice = attempt_start_missed(user=user, attempt=finished, now=T0)
    before = {item.question_id: item for item in finished.items.all()}
    for item in practice.items.select_related("question"):
        earlier = before[item.question_id]
        if item.question.kind == "choice":
            assert sorted(item.option_order) == sorted(earlier.option_order)
        else:
            assert item.variant_seed != earlier.variant_seed
            assert (
                item.variant["given"] != earlier.variant["given"] or item.variant["answer"] != earlier.variant["answer"]
            )


def test_practising_the_same_day_does_not_move_the_schedule(user, finished, time_machine):
    """Only the day's first answer feeds the scheduler: a right answer an hour later is a logged repeat."""
    wrong = finished.items.get(position=1)
    card = ReviewCard.objects.get(user=user, question=wrong.question)
    due_before, stability_before = card.due, card.stability
    later = T0 + dt.timedelta(hours=1)
    time_machine.move_to(later, tick=False)
    practice = attempt_start_missed(user=user, attempt=finished, now=later)
    for item in practice.items.select_related("question"):
        _answer(user, item, correct=True, now=later)
    card.refresh_from_db()
    assert (card.due, card.stability) == (due_before, stability_before)
    assert card.due == T0 + dt.timedelta(days=2)  # the two-day rule of the first study stands
    roles = list(ReviewLog.objects.filter(card=card).order_by("reviewed_at").values_list("role", flat=True))
    assert roles == [ReviewLog.Role.FIRST, ReviewLog.Role.REPEAT]
    # the two never-answered questions are studied for the first time now: their two-day rule starts here
    for item in practice.items.exclude(question=wrong.question):
        assert ReviewCard.objects.get(user=user, question=item.question).due == later + dt.timedelta(days=2)


def test_practising_on_a_later_day_counts_as_that_days_review(user, finished, time_machine):
    wrong = finished.items.get(position=1)
    card = ReviewCard.objects.get(user=user, question=wrong.question)
    due_before = card.due
    later = T0 + dt.timedelta(days=3)
    time_machine.move_to(later, tick=False)
    practice = attempt_start_missed(user=user, attempt=finished, now=later)
    _answer(user, practice.items.get(question=wrong.question), correct=True, now=later)
    card.refresh_from_db()
    assert card.due > due_before
    assert ReviewLog.objects.filter(card=card).order_by("-reviewed_at").first().role == ReviewLog.Role.REVIEW


def test_a_practice_attempt_does_not_raise_the_lessons_best_score(user, finished, quiz_lesson):
    before = best_scores(user=user)[quiz_lesson.pk]
    practice = attempt_start_missed(user=user, attempt=finished, now=T0)
    for item in practice.items.select_related("question"):
        _answer(user, item, correct=True, now=T0)
    assert best_scores(user=user)[quiz_lesson.pk] == before == 0.25


def test_refusals(user, other_user, quiz_lesson, finished):
    with pytest.raises(DomainError) as unfinished:
        attempt_start_missed(user=user, attempt=attempt_start(user=user, lesson=quiz_lesson))
    assert unfinished.value.error_code is ErrorCode.ATTEMPT_UNFINISHED
    perfect = attempt_start(user=user, lesson=quiz_lesson)
    for item in perfect.items.select_related("question"):
        _answer(user, item, correct=True, now=T0)
    perfect = attempt_finish(user=user, attempt=perfect)
    with pytest.raises(DomainError) as nothing:
        attempt_start_missed(user=user, attempt=perfect)
    assert nothing.value.error_code is ErrorCode.NOTHING_MISSED
    with pytest.raises(PermissionDenied):
        attempt_start_missed(user=other_user, attempt=finished)


def test_unpublished_questions_are_left_out(user, finished):
    wrong = finished.items.get(position=1).question
    wrong.published = False
    wrong.save()
    practice = attempt_start_missed(user=user, attempt=finished)
    assert wrong.pk not in set(practice.items.values_list("question_id", flat=True))
    assert practice.items.count() == 2
