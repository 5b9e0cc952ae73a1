"""Reminders in O(learners due now): the reminder clock (LearnerProfile.next_reminder_at) and the pass that reads it.

What a learner notices is still "one e-mail on the right day"; what these tests add is that the pass only
looks at learners whose clock has come, that the clock follows their cards, settings and days, that a
duplicate pass takes nobody, and that a chunk lost with its worker is taken again once its lease ends.
"""

from __future__ import annotations

import datetime as dt

import pytest
import time_machine
from django.core import mail
from django.db import connection
from django.test.utils import CaptureQueriesContext

from quizzes.accounts.models import CHECK_SOON
from quizzes.accounts.services import learner_profile_update
from quizzes.models import LearnerProfile, ReminderDelivery, ReviewCard
from quizzes.notifications.services import (
    REMINDER_LEASE,
    reminder_moment,
    reminders_chunks,
    reminders_send_due,
    reminders_send_to,
    reminders_take_due,
)
from quizzes.reviews.services import card_rate
from tests import factories
from tests.factories import utc
from tests.ops.helpers import due_card, learner

pytestmark = pytest.mark.django_db

EVENING = utc(2025, 3, 10, 19)  # Monday, 19:00 UTC


def send_at(moment: dt.datetime):
    with time_machine.travel(moment, tick=False):
        return reminders_send_due()


def clock(profile: LearnerProfile) -> dt.datetime | None:
    profile.refresh_from_db(fields=["next_reminder_at"])
    return profile.next_reminder_at


def test_opting_in_starts_the_clock_and_opting_out_stops_it():
    profile = learner(opt_in=False)
    assert clock(profile) is None
    learner_profile_update(user=profile.user, reminder_opt_in=True)
    assert clock(profile) == CHECK_SOON
    learner_profile_update(user=profile.user, reminder_opt_in=False)
    assert clock(profile) is None


def test_after_a_reminder_the_clock_is_the_next_study_days_moment_in_the_learners_zone():
    profile = learner(time_zone="Asia/Shanghai", rollover=4, reminder_hour=18)
    due_card(profile, due=utc(2025, 3, 9, 12))
    assert send_at(utc(2025, 3, 10, 10, 30)).sent == [profile.user_id]  # 18:30 in Shanghai
    assert clock(profile) == utc(2025, 3, 11, 10)  # 18:00 on the 11th in Shanghai
    assert reminder_moment(profile=profile, day=dt.date(2025, 3, 11)) == clock(profile)


def test_a_learner_looked_at_before_the_hour_is_due_at_the_hour_and_not_before():
    profile = learner(reminder_hour=18)
    due_card(profile, due=utc(2025, 3, 9, 12))
    assert send_at(utc(2025, 3, 10, 12)).sent == []
    assert clock(profile) == utc(2025, 3, 10, 18)
    with time_machine.travel(utc(2025, 3, 10, 17, 59), tick=False):
        assert reminders_take_due() == []
    assert send_at(utc(2025, 3, 10, 18)).sent == [profile.user_id]


def test_the_clock_waits_for_the_first_day_a_card_is_due():
    profile = learner(reminder_hour=18)
    due_card(profile, due=utc(2025, 3, 14, 9))  # due on Friday's study day
    assert send_at(EVENING).sent == []
    assert clock(profile) == utc(2025, 3, 14, 18)
    for day in (11, 12, 13):  # the passes of the days between take nobody
        with time_machine.travel(utc(2025, 3, day, 19), tick=False):
            assert reminders_take_due() == []
    assert send_at(utc(2025, 3, 14, 18, 5)).sent == [profile.user_id]


def test_no_live_cards_no_clock_until_a_card_arrives():
    profile = learner(reminder_hour=18)
    assert send_at(EVENING).sent == []
    assert clock(profile) is None
    question = factories.PromptQuestionFactory()
    with time_machine.travel(EVENING + dt.timedelta(minutes=1), tick=False):
        card_rate(user=profile.user, question=question, rating=3)  # first study: due two days later
    assert clock(profile) == utc(2025, 3, 12, 18)
    assert send_at(utc(2025, 3, 12, 18, 1)).sent == [profile.user_id]


def test_an_answer_that_moves_a_card_later_writes_no_clock():
    profile = learner(reminder_hour=18)
    question = factories.PromptQuestionFactory()
    with time_machine.travel(utc(2025, 3, 8, 9), tick=False):
        card_rate(user=profile.user, question=question, rating=3)
    send_at(utc(2025, 3, 9, 12))  # the pass sets the exact moment: the 10th, 18:00
    assert clock(profile) == utc(2025, 3, 10, 18)
    with time_machine.travel(utc(2025, 3, 10, 9), tick=False), CaptureQueriesContext(connection) as captured:
        card_rate(user=profile.user, question=question, rating=4)
    writes = [q["sql"] for q in captured.captured_queries if q["sql"].startswith("UPDATE")]
    assert not [sql for sql in writes if "next_reminder_at" in sql]
    assert clock(profile) == utc(2025, 3, 10, 18)  # early is allowed; the pass corrects it


def test_a_settings_change_makes_the_next_pass_look_again():
    profile = learner(time_zone="UTC", reminder_hour=18)
    due_card(profile, due=utc(2025, 3, 9, 12))
    send_at(utc(2025, 3, 10, 12))
    assert clock(profile) == utc(2025, 3, 10, 18)
    learner_profile_update(user=profile.user, time_zone="Asia/Shanghai")  # 20:00 there at 12:00 UTC
    assert clock(profile) == CHECK_SOON
    assert send_at(utc(2025, 3, 10, 12, 15)).sent == [profile.user_id]


def test_a_pass_with_nobody_due_is_one_query():
    for n in range(30):
        profile = learner(reminder_hour=18)
        due_card(profile, due=utc(2025, 3, 9, 12) + dt.timedelta(days=n % 3))
    send_at(utc(2025, 3, 10, 12))  # every clock set: 18:00 today or later
    with time_machine.travel(utc(2025, 3, 10, 17), tick=False), CaptureQueriesContext(connection) as captured:
        assert reminders_chunks() == []
    assert len(captured) == 1


def test_a_duplicate_pass_takes_nobody_and_a_lost_chunk_is_retaken_after_its_lease():
    profiles = [learner(reminder_hour=0, rollover=0) for _ in range(5)]
    for profile in profiles:
        due_card(profile, due=utc(2025, 3, 9, 12))
    with time_machine.travel(EVENING, tick=False):
        chunks = reminders_chunks(size=2)
        assert [len(c) for c in chunks] == [2, 2, 1]
        assert reminders_chunks() == []  # the beat fired twice: the second pass takes nobody
        reminders_send_to(user_ids=chunks[0])  # one chunk ran; the others' worker died
    assert len(mail.outbox) == 2
    with time_machine.travel(EVENING + REMINDER_LEASE - dt.timedelta(minutes=1), tick=False):
        assert reminders_chunks() == []
    with time_machine.travel(EVENING + REMINDER_LEASE, tick=False):
        retaken = [uid for chunk in reminders_chunks() for uid in chunk]
        assert sorted(retaken) == sorted(chunks[1] + chunks[2])
        reminders_send_to(user_ids=retaken + chunks[0])  # a retried chunk too: nobody is e-mailed twice
    assert sorted(m.to[0] for m in mail.outbox) == sorted(p.user.email for p in profiles)
    assert ReminderDelivery.objects.filter(sent_at__isnull=False).count() == 5


def test_undo_and_unsuspend_bring_the_clock_forward():
    profile = learner(reminder_hour=18)
    question = factories.PromptQuestionFactory()
    with time_machine.travel(utc(2025, 3, 1, 9), tick=False):
        card_rate(user=profile.user, question=question, rating=3)  # due on the 3rd
    with time_machine.travel(utc(2025, 3, 3, 9), tick=False):
        card_rate(user=profile.user, question=question, rating=4)  # due weeks later
    send_at(utc(2025, 3, 3, 19))
    later = clock(profile)
    assert later is not None and later > utc(2025, 3, 10)
    from quizzes.reviews.services import card_suspend, card_undo_last, card_unsuspend

    with time_machine.travel(utc(2025, 3, 3, 20), tick=False):
        card_undo_last(user=profile.user)  # back to due on the 3rd
    assert clock(profile) == utc(2025, 3, 3, 18)  # due today, past the hour, not reminded: now
    assert send_at(utc(2025, 3, 3, 20, 15)).sent == [profile.user_id]
    card = ReviewCard.objects.get(user=profile.user)
    card_suspend(user=profile.user, card=card)
    send_at(utc(2025, 3, 4, 19))
    assert clock(profile) is None  # nothing live
    with time_machine.travel(utc(2025, 3, 5, 9), tick=False):
        card_unsuspend(user=profile.user, card=card)
    assert clock(profile) == utc(2025, 3, 5, 18)
    assert send_at(utc(2025, 3, 5, 18, 10)).sent == [profile.user_id]
