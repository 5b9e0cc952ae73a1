"""The due queue's and the dashboard's two wide reads (issue 16) agree with the one-rule-per-query selectors.

``card_summary`` and ``recent_logs`` replace five narrow queries on the hot paths; on a learner with every kind
of card (suspended, unpublished question, unpublished lesson, due today / later, mastered, never studied) and
another learner's cards beside them, they must give the same numbers as the selectors they stand in for.
"""

import datetime as dt
from collections import Counter

import pytest

from quizzes.accounts.selectors import profile_for
from quizzes.reviews.selectors.cards import next_review_after_today
from quizzes.reviews.selectors.days import today_logs
from quizzes.reviews.selectors.due import due_count, new_count
from quizzes.reviews.selectors.forecast import due_forecast
from quizzes.reviews.selectors.history import RECENT_LOG_DAYS, recent_logs, review_heatmap
from quizzes.reviews.selectors.summary import card_summary, lesson_card_counts
from quizzes.reviews.services import card_rate, card_suspend
from quizzes.reviews.services import card_rate as rate
from tests import factories
from tests.factories import utc

pytestmark = pytest.mark.django_db


def _mixed_history(user, other_user, time_machine) -> None:
    """Cards rated over three weeks (some twice), one suspended, one of a hidden question, one of a hidden lesson."""

    def card_rate(*, user, question, rating, reviewed_at):
        time_machine.move_to(reviewed_at, tick=False)
        return rate(user=user, question=question, rating=rating)

    shown, hidden = factories.LessonFactory(), factories.LessonFactory()
    prompts = factories.PromptQuestionFactory.create_batch(8, lesson=shown)
    factories.PromptQuestionFactory.create_batch(3, lesson=shown)  # never studied
    start = utc(2026, 3, 1, 9)
    for n, question in enumerate(prompts):
        card_rate(user=user, question=question, rating=3, reviewed_at=start + dt.timedelta(days=n, hours=n))
        card_rate(user=other_user, question=question, rating=1, reviewed_at=start + dt.timedelta(days=n, hours=n + 1))
    for n, question in enumerate(prompts[::3]):
        card_rate(user=user, question=question, rating=4, reviewed_at=start + dt.timedelta(days=n + 9))
    card_suspend(user=user, card=user.review_cards.get(question=prompts[1]))
    late = factories.PromptQuestionFactory(lesson=shown)
    card_rate(user=user, question=late, rating=3, reviewed_at=start + dt.timedelta(days=13))
    late.published = False
    late.save()
    card_rate(
        user=user,
        question=factories.PromptQuestionFactory(lesson=hidden),
        rating=3,
        reviewed_at=start + dt.timedelta(days=14),
    )
    hidden.published = False
    hidden.save()


@pytest.mark.parametrize("day", [13, 14, 17, 40])
def test_card_summary_and_recent_logs_match_the_narrow_selectors(shanghai_user, other_user, time_machine, day):
    user = shanghai_user
    time_machine.move_to(utc(2026, 3, 1, 9), tick=False)
    _mixed_history(user, other_user, time_machine)
    now = utc(2026, 3, 1, 21) + dt.timedelta(days=day)  # 05:00 in Shanghai: just after the rollover
    time_machine.move_to(now, tick=False)
    profile = profile_for(user=user)

    summary = card_summary(user=user, profile=profile, now=now)
    recent = recent_logs(user=user, profile=profile, now=now, days=RECENT_LOG_DAYS)

    assert recent.today == today_logs(user=user, profile=profile, now=now)
    assert recent.days == review_heatmap(user=user, now=now, profile=profile, days=RECENT_LOG_DAYS)
    assert summary.capped_due(profile=profile, today=recent.today) == due_count(user=user, now=now, profile=profile)
    assert summary.capped_new(profile=profile, today=recent.today) == new_count(user=user, now=now, profile=profile)
    assert summary.next_due_after_today == next_review_after_today(user=user, now=now, profile=profile)
    narrow = lesson_card_counts(user=user, now=now, profile=profile)
    assert {k: +v for k, v in summary.per_lesson.items() if +v} == {k: +v for k, v in narrow.items() if +v}
    # the dashboard's variant: the same numbers, and the forecast from the same query
    with_forecast = card_summary(user=user, profile=profile, now=now, forecast_days=14)
    assert with_forecast.forecast == due_forecast(user=user, days=14, now=now, profile=profile)
    assert (with_forecast.due, with_forecast.unseen, with_forecast.next_due_after_today) == (
        summary.due,
        summary.unseen,
        summary.next_due_after_today,
    )
    assert with_forecast.per_lesson == summary.per_lesson


@pytest.mark.parametrize("rollover", [0, 2, 4])
@pytest.mark.parametrize("start", [utc(2026, 3, 1, 12), utc(2026, 10, 25, 12)])
def test_the_summary_forecast_buckets_days_as_due_forecast_across_a_dst_change(time_machine, rollover, start):
    """New York changes its clocks at 02:00 on 8 March and 1 November 2026: a study day starting at 02:00
    begins in a gap or twice; the forecast's SQL day bounds must put every card on the day ``local_day`` does."""
    user = factories.LearnerProfileFactory(time_zone="America/New_York", day_rollover_hour=rollover).user
    lesson = factories.LessonFactory()
    questions = factories.PromptQuestionFactory.create_batch(40, lesson=lesson)
    time_machine.move_to(start - dt.timedelta(days=1), tick=False)
    for question in questions:
        rate(user=user, question=question, rating=3)
    # due every 7.5 hours from yesterday on: every hour of the day lands somewhere, the clock change included
    for n, card in enumerate(user.review_cards.order_by("id")):
        card.due = start - dt.timedelta(days=1) + dt.timedelta(minutes=450 * n)
        card.save(update_fields=["due"])
    time_machine.move_to(start, tick=False)
    profile = profile_for(user=user)
    summary = card_summary(user=user, profile=profile, now=start, forecast_days=14)
    forecast = due_forecast(user=user, days=14, now=start, profile=profile)
    assert summary.forecast == forecast
    assert sum(d.count for d in forecast) > 30


def test_today_counts_split_at_the_rollover_hour(shanghai_user, time_machine):
    """A rating at 03:59 Shanghai belongs to yesterday's study day, one at 04:00 to today's."""
    user = shanghai_user
    lesson = factories.LessonFactory()
    first, second = factories.PromptQuestionFactory.create_batch(2, lesson=lesson)
    time_machine.move_to(utc(2026, 3, 9, 19, 59), tick=False)
    card_rate(user=user, question=first, rating=3)  # 03:59 local
    time_machine.move_to(utc(2026, 3, 9, 20, 0), tick=False)
    card_rate(user=user, question=second, rating=3)  # 04:00 local
    now = utc(2026, 3, 9, 23)
    profile = profile_for(user=user)
    recent = recent_logs(user=user, profile=profile, now=now, days=3)
    assert (recent.today.total, recent.today.first) == (1, 1)
    assert [d.count for d in recent.days] == [0, 1, 1]


@pytest.mark.parametrize(
    ("zone", "start"),
    [
        ("America/New_York", utc(2026, 3, 4)),  # clocks forward at 02:00 on 8 March
        ("America/New_York", utc(2026, 10, 28)),  # back at 02:00 on 1 November
        ("Australia/Lord_Howe", utc(2026, 4, 1)),  # back half an hour on 5 April
        ("Asia/Kolkata", utc(2026, 6, 1)),  # +05:30, no change
    ],
)
@pytest.mark.parametrize("rollover", [0, 2, 3, 23])
def test_ratings_per_study_day_in_sql_are_local_day_in_python(time_machine, zone, start, rollover):
    """The database puts each log on a study day (``StudyDay``); ``scheduling.local_day`` is the rule. Logs every
    37 minutes for ten days reach every minute of the hour on both sides of each clock change."""
    from quizzes.reviews import scheduling
    from quizzes.reviews.models import ReviewLog

    user = factories.LearnerProfileFactory(time_zone=zone, day_rollover_hour=rollover).user
    time_machine.move_to(start, tick=False)
    card_rate(user=user, question=factories.PromptQuestionFactory(), rating=3)
    template = ReviewLog.objects.get(user=user)
    moments = [start + dt.timedelta(minutes=37 * n) for n in range(1, 10 * 24 * 60 // 37)]
    logs = []
    for moment in moments:
        template.pk, template.reviewed_at = None, moment
        logs.append(ReviewLog(**{f.attname: getattr(template, f.attname) for f in ReviewLog._meta.concrete_fields}))
    ReviewLog.objects.bulk_create(logs)
    now = moments[-1]
    profile = profile_for(user=user)

    recent = recent_logs(user=user, profile=profile, now=now, days=12)

    expected = Counter(scheduling.local_day(at, profile.zone, rollover) for at in [start, *moments])
    assert recent.per_day == expected
    assert len(expected) >= 10
