"""Read side: due items, the review session, progress, forecast, heatmap, streak."""

import datetime as dt

import pytest

from quizzes.accounts.selectors import profile_for
from quizzes.content.selectors import lesson_list_published
from quizzes.models import LearnerProfile, ReviewCard
from quizzes.practice.selectors import attempt_score, lesson_progress
from quizzes.practice.services import attempt_start, item_answer
from quizzes.reviews.selectors.due import due_cards, due_count, new_count, new_questions, review_session
from quizzes.reviews.selectors.forecast import due_forecast
from quizzes.reviews.selectors.history import STREAK_WINDOW_DAYS, review_heatmap, review_streak
from quizzes.reviews.selectors.summary import MASTERY_STABILITY_DAYS
from quizzes.reviews.services import card_rate, card_suspend, card_unsuspend
from tests import factories
from tests.factories import utc

pytestmark = pytest.mark.django_db


def study(user, lesson, *, correct: bool = True) -> None:
    """Answer every item of a fresh study attempt."""
    for item in attempt_start(user=user, lesson=lesson).items.all():
        if item.question.kind == "choice":
            option = (
                item.question.options.get(is_correct=correct)
                if correct
                else item.question.options.filter(is_correct=False).first()
            )
            item_answer(user=user, item=item, option_id=option.pk)
        else:
            item_answer(user=user, item=item, value=item.variant["answer"])


def rate_all_self_rated(user, lesson) -> None:
    for question in lesson.questions.filter(kind__in=["prompt", "recall"]):
        card_rate(user=user, question=question, rating=3)


class TestDue:
    def test_ordered_by_due_and_excluding_suspended_and_unpublished(self, user, time_machine):
        lesson = factories.LessonFactory()
        questions = [factories.ChoiceQuestionFactory(lesson=lesson, order=i) for i in range(3)]
        for offset, question in enumerate(reversed(questions)):
            time_machine.move_to(utc(2025, 1, 1, 8 + offset), tick=False)
            attempt = attempt_start(user=user, lesson=lesson)
            item = attempt.items.get(question=question)
            item_answer(user=user, item=item, option_id=item.option_order[0])
        time_machine.move_to(utc(2025, 1, 3, 12), tick=False)
        assert [c.question for c in due_cards(user=user)] == list(reversed(questions))

        card = ReviewCard.objects.get(user=user, question=questions[0])
        card_suspend(user=user, card=card)
        questions[1].published = False
        questions[1].save()
        assert [c.question for c in due_cards(user=user)] == [questions[2]]
        card_unsuspend(user=user, card=card)
        assert [c.question for c in due_cards(user=user)] == [questions[2], questions[0]]

    def test_capped_by_reviews_per_day_minus_reviews_done_today(self, user, time_machine):
        LearnerProfile.objects.create(user=user, reviews_per_day=2)
        lesson = factories.LessonFactory()
        for i in range(4):
            factories.ChoiceQuestionFactory(lesson=lesson, order=i)
        time_machine.move_to(utc(2025, 1, 1, 8), tick=False)
        study(user, lesson)
        time_machine.move_to(utc(2025, 1, 3, 12), tick=False)
        assert len(due_cards(user=user)) == due_count(user=user) == 2
        assert len(due_cards(user=user, capped=False)) == 4
        card = due_cards(user=user)[0]
        attempt = attempt_start(user=user, lesson=lesson, mode="review")
        item = attempt.items.get(question=card.question)
        item_answer(user=user, item=item, option_id=item.option_order[0])
        assert len(due_cards(user=user)) == 1

    def test_new_questions_capped_by_new_per_day(self, user, time_machine):
        LearnerProfile.objects.create(user=user, new_per_day=3)
        lesson = factories.LessonFactory()
        for i in range(5):
            factories.ChoiceQuestionFactory(lesson=lesson, order=i)
        time_machine.move_to(utc(2025, 1, 1, 8), tick=False)
        assert len(new_questions(user=user)) == new_count(user=user) == 3
        attempt = attempt_start(user=user, lesson=lesson)
        item = attempt.items.get(position=0)
        item_answer(user=user, item=item, option_id=item.option_order[0])
        assert len(new_questions(user=user)) == new_count(user=user) == 2
        time_machine.move_to(utc(2025, 1, 2, 8), tick=False)
        assert len(new_questions(user=user)) == new_count(user=user) == 3
        for i in range(4):
            item = attempt.items.get(position=i + 1)
            item_answer(user=user, item=item, option_id=item.option_order[0])
        assert len(new_questions(user=user)) == new_count(user=user) == 0  # all 5 studied


def test_review_session_groups_by_lesson_quiz_reshuffled_recall_last(user, time_machine):
    lessons = [factories.LessonFactory(order=2), factories.LessonFactory(order=1)]
    for lesson in lessons:
        for i in range(4):
            factories.ChoiceQuestionFactory(lesson=lesson, order=i)
        factories.PromptQuestionFactory(lesson=lesson, order=10)
        factories.RecallQuestionFactory(lesson=lesson, order=11)
    time_machine.move_to(utc(2025, 1, 1, 8), tick=False)
    for lesson in lessons:
        study(user, lesson)
        rate_all_self_rated(user, lesson)
    time_machine.move_to(utc(2025, 1, 3, 9), tick=False)
    session = review_session(user=user)
    assert [group.lesson for group in session] == [lessons[1], lessons[0]]
    for group in session:
        assert {c.question.kind for c in group.quiz_cards} == {"choice"}
        assert len(group.quiz_cards) == 4
        assert [c.question.kind for c in group.cards[-2:]] == ["prompt", "recall"]
    again = review_session(user=user)
    assert [[c.pk for c in g.cards] for g in again] == [[c.pk for c in g.cards] for g in session]  # stable today


def test_lesson_progress(user, quiz_lesson, time_machine):
    other = factories.LessonFactory()
    factories.ChoiceQuestionFactory(lesson=other)
    time_machine.move_to(utc(2025, 1, 1, 8), tick=False)
    study(user, quiz_lesson)
    progress = {p.lesson: p for p in lesson_progress(user=user)}
    mine = progress[quiz_lesson]
    assert (mine.total, mine.studied, mine.due, mine.mastered) == (6, 4, 0, 0)
    assert mine.best_score == 1.0
    assert mine.studied_fraction == pytest.approx(4 / 6)
    assert (progress[other].studied, progress[other].best_score) == (0, None)
    time_machine.move_to(utc(2025, 1, 3, 8), tick=False)
    assert {p.lesson: p for p in lesson_progress(user=user)}[quiz_lesson].due == 4


def test_mastery_counts_stable_cards(user, time_machine):
    prompt = factories.PromptQuestionFactory()
    moment = utc(2025, 1, 1, 8)
    for _ in range(6):
        time_machine.move_to(moment, tick=False)
        card = card_rate(user=user, question=prompt, rating=4)
        moment = card.due
    assert card.stability >= MASTERY_STABILITY_DAYS
    progress = {p.lesson: p for p in lesson_progress(user=user)}[prompt.lesson]
    assert progress.mastered == 1
    assert progress.mastery == 1.0


def test_forecast_counts_due_cards_per_local_day_for_fourteen_days(shanghai_user, time_machine):
    lesson = factories.LessonFactory()
    for i in range(3):
        factories.ChoiceQuestionFactory(lesson=lesson, order=i)
    # 2025-01-01 21:00 Shanghai → due 2025-01-03 21:00 local (study day 2025-01-03)
    time_machine.move_to(utc(2025, 1, 1, 13), tick=False)
    study(shanghai_user, lesson)
    forecast = due_forecast(user=shanghai_user)
    assert len(forecast) == 14
    assert forecast[0].day == dt.date(2025, 1, 1)
    assert {d.day: d.count for d in forecast if d.count} == {dt.date(2025, 1, 3): 3}
    time_machine.move_to(utc(2025, 1, 5, 1), tick=False)  # overdue cards are counted today
    assert due_forecast(user=shanghai_user)[0].count == 3


def test_heatmap_and_streak_use_local_study_days(shanghai_user, time_machine):
    prompt = factories.PromptQuestionFactory()
    moments = [
        utc(2025, 1, 1, 2),  # 10:00 Shanghai, Jan 1
        utc(2025, 1, 1, 19),  # 03:00 Shanghai Jan 2 → still study day Jan 1
        utc(2025, 1, 2, 2),  # Jan 2
        utc(2025, 1, 3, 2),  # Jan 3
    ]
    for moment in moments:
        time_machine.move_to(moment, tick=False)
        card_rate(user=shanghai_user, question=prompt, rating=3)
    heatmap = review_heatmap(user=shanghai_user)
    assert len(heatmap) == 365
    assert heatmap[-1].day == dt.date(2025, 1, 3)
    assert {d.day: d.count for d in heatmap if d.count} == {
        dt.date(2025, 1, 1): 2,
        dt.date(2025, 1, 2): 1,
        dt.date(2025, 1, 3): 1,
    }
    assert review_streak(user=shanghai_user) == 3
    time_machine.move_to(utc(2025, 1, 4, 2), tick=False)  # nothing yet today: the streak still stands
    assert review_streak(user=shanghai_user) == 3
    time_machine.move_to(utc(2025, 1, 5, 2), tick=False)
    assert review_streak(user=shanghai_user) == 0


def test_streak_longer_than_the_first_window_and_the_heatmap(shanghai_user, time_machine):
    """review_streak reads a bounded window first and widens it; the heatmap shortcut falls back when needed."""
    prompt = factories.PromptQuestionFactory()
    days = STREAK_WINDOW_DAYS + 10
    for back in range(days, 0, -1):
        time_machine.move_to(utc(2025, 3, 1, 2) - dt.timedelta(days=back), tick=False)
        card_rate(user=shanghai_user, question=prompt, rating=3)
    time_machine.move_to(utc(2025, 3, 1, 2), tick=False)  # nothing yet today
    assert review_streak(user=shanghai_user) == days
    recent = review_heatmap(user=shanghai_user, days=365)
    assert review_streak(user=shanghai_user, recent=recent) == days
    short = review_heatmap(user=shanghai_user, days=20)  # the streak reaches its start: query instead
    assert review_streak(user=shanghai_user, recent=short) == days


def test_lesson_list_published_counts_published_questions(lesson):
    factories.ChoiceQuestionFactory(lesson=lesson)
    factories.ChoiceQuestionFactory(lesson=lesson, published=False)
    factories.LessonFactory(published=False)
    assert [(item, item.question_count) for item in lesson_list_published()] == [(lesson, 1)]


def test_profile_for_never_writes(user):
    profile = profile_for(user=user)
    assert profile.pk is None and profile.time_zone == "UTC"
    assert not LearnerProfile.objects.exists()


@pytest.mark.parametrize(
    ("zone", "rollover", "around"),
    [
        ("America/New_York", 4, utc(2025, 3, 9, 7)),  # clocks go forward 02:00 → 03:00 local
        ("America/New_York", 2, utc(2025, 11, 2, 6)),  # clocks go back 02:00 → 01:00 local
        ("Asia/Kolkata", 5, utc(2025, 6, 1, 0)),  # UTC+05:30: the study day starts at a half hour in UTC
        ("Australia/Lord_Howe", 0, utc(2025, 4, 5, 15)),  # a half-hour DST shift, rollover at midnight
    ],
)
def test_heatmap_days_agree_with_the_schedulers_study_day(user, time_machine, zone, rollover, around):
    """The database groups ratings by day; each must land on ``scheduling.local_day`` of its moment."""
    from collections import Counter

    from quizzes.reviews import scheduling

    LearnerProfile.objects.create(user=user, time_zone=zone, day_rollover_hour=rollover)
    prompt = factories.PromptQuestionFactory()
    moments = [around + dt.timedelta(minutes=47 * i) for i in range(-40, 40)]  # ±31 h, every 47 min
    time_machine.move_to(moments[-1] + dt.timedelta(minutes=1), tick=False)
    for moment in moments:
        card_rate(user=user, question=prompt, rating=3, reviewed_at=moment)
    expected = Counter(scheduling.local_day(m, scheduling.zoneinfo.ZoneInfo(zone), rollover) for m in moments)
    heatmap = review_heatmap(user=user, days=10)
    assert {d.day: d.count for d in heatmap if d.count} == dict(expected)


def test_an_attempt_has_no_score_until_an_item_is_answered(user, quiz_lesson):
    """One meaning on the pages, in the API and in progress: None before any answer, then the mean over
    every item with unanswered items counting 0."""
    attempt = attempt_start(user=user, lesson=quiz_lesson)
    assert attempt_score(attempt=attempt) is None
    assert {p.lesson: p for p in lesson_progress(user=user)}[quiz_lesson].best_score is None
    item = attempt.items.select_related("question").get(position=0)
    item_answer(user=user, item=item, option_id=item.question.options.get(is_correct=True).pk)
    assert attempt_score(attempt=attempt) == pytest.approx(1 / 4)  # 4 quiz items, one right
    assert {p.lesson: p for p in lesson_progress(user=user)}[quiz_lesson].best_score == pytest.approx(1 / 4)
