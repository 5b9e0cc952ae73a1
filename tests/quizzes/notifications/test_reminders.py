"""Review reminders (service level, in-process mail outbox): who gets one, when, how often, what it says.

The same service runs inside the Celery task; tests/ops/test_worker.py drives it through a real worker.
"""

from __future__ import annotations

import datetime as dt

import pytest
import time_machine
from django.core import mail
from django.urls import resolve, reverse

from quizzes.models import LearnerProfile, ReminderDelivery
from quizzes.notifications.selectors import unsubscribe_user_for_token
from quizzes.notifications.services import reminder_moment, reminders_send_due, unsubscribe_token
from tests.factories import utc
from tests.ops.helpers import due_card, learner

pytestmark = pytest.mark.django_db

# Monday 10 March 2025, 19:00 in UTC.
EVENING = utc(2025, 3, 10, 19)


def send_at(moment: dt.datetime):
    with time_machine.travel(moment, tick=False):
        return reminders_send_due()


def test_a_due_learner_gets_exactly_one_email_with_count_lessons_and_links(settings):
    settings.SITE_URL = "https://quiz.example.com"
    profile = learner(reminder_hour=18)
    first = due_card(profile, due=utc(2025, 3, 9, 12))
    due_card(profile, due=utc(2025, 3, 10, 8))
    run = send_at(EVENING)
    assert run.sent == [profile.user_id]
    assert len(mail.outbox) == 1
    message = mail.outbox[0]
    assert message.to == [profile.user.email]
    assert "2 reviews due today" in message.subject
    assert first.question.lesson.title in message.body
    assert "https://quiz.example.com/" in message.body
    html = message.alternatives[0][0]
    assert message.alternatives[0][1] == "text/html"
    assert first.question.lesson.title in html
    header = message.extra_headers["List-Unsubscribe"]
    assert header.startswith("<https://quiz.example.com/reminders/unsubscribe/") and header.endswith(">")
    unsubscribe = header[1:-1]
    token = resolve(unsubscribe.removeprefix("https://quiz.example.com")).kwargs["token"]
    with time_machine.travel(EVENING):
        assert unsubscribe_user_for_token(token=token) == profile.user
    assert message.extra_headers["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    assert unsubscribe in message.body and unsubscribe in html
    delivery = ReminderDelivery.objects.get(user=profile.user)
    assert (delivery.local_date, delivery.due_count) == (dt.date(2025, 3, 10), 2)
    assert delivery.sent_at is not None
    profile.refresh_from_db()
    assert profile.last_reminded_on == dt.date(2025, 3, 10)


def test_running_again_the_same_day_sends_nothing_more():
    profile = learner()
    due_card(profile, due=utc(2025, 3, 9, 12))
    send_at(EVENING)
    send_at(EVENING + dt.timedelta(hours=2))
    assert len(mail.outbox) == 1
    assert ReminderDelivery.objects.filter(user=profile.user).count() == 1


def test_not_due_opted_out_no_email_and_inactive_learners_get_nothing():
    not_due = learner()
    due_card(not_due, due=utc(2025, 3, 12, 12))  # due in two days
    opted_out = learner(opt_in=False)
    due_card(opted_out, due=utc(2025, 3, 9, 12))
    no_email = learner(email="")
    due_card(no_email, due=utc(2025, 3, 9, 12))
    inactive = learner()
    due_card(inactive, due=utc(2025, 3, 9, 12))
    inactive.user.is_active = False
    inactive.user.save()
    run = send_at(EVENING)
    assert run.sent == []
    assert mail.outbox == []
    assert not ReminderDelivery.objects.exists()


def test_already_reminded_today_gets_nothing():
    profile = learner()
    due_card(profile, due=utc(2025, 3, 9, 12))
    ReminderDelivery.objects.create(user=profile.user, local_date=dt.date(2025, 3, 10), sent_at=utc(2025, 3, 10, 18))
    assert send_at(EVENING).sent == []
    assert mail.outbox == []


def test_nothing_before_the_reminder_hour_then_one_after_it():
    profile = learner(time_zone="Asia/Shanghai", reminder_hour=18)  # UTC+8
    due_card(profile, due=utc(2025, 3, 9, 12))
    assert send_at(utc(2025, 3, 10, 9, 59)).sent == []  # 17:59 in Shanghai
    assert send_at(utc(2025, 3, 10, 10, 0)).sent == [profile.user_id]  # 18:00
    assert ReminderDelivery.objects.get().local_date == dt.date(2025, 3, 10)


def test_the_same_instant_is_a_different_local_day_in_different_zones():
    """At 2025-03-10 10:30 UTC: 18:30 in Shanghai (day 10th), 03:30 in Los Angeles (still the 9th's study day)."""
    shanghai = learner(time_zone="Asia/Shanghai", rollover=4, reminder_hour=18)
    los_angeles = learner(time_zone="America/Los_Angeles", rollover=4, reminder_hour=3)
    new_york = learner(time_zone="America/New_York", rollover=4, reminder_hour=7)  # 06:30 there: not yet
    for profile in (shanghai, los_angeles, new_york):
        due_card(profile, due=utc(2025, 3, 8, 12))
    run = send_at(utc(2025, 3, 10, 10, 30))
    assert sorted(run.sent) == sorted([shanghai.user_id, los_angeles.user_id])
    days = dict(ReminderDelivery.objects.values_list("user_id", "local_date"))
    assert days == {shanghai.user_id: dt.date(2025, 3, 10), los_angeles.user_id: dt.date(2025, 3, 9)}


def test_rollover_hour_starts_a_new_reminder_day():
    """Reminded at 23:00 on the 10th; at 02:00 (before the 04:00 rollover) it is still the 10th; after, a new day."""
    profile = learner(rollover=4, reminder_hour=0)  # reminder moment = the first midnight after the day starts
    due_card(profile, due=utc(2025, 3, 9, 12))
    with time_machine.travel(utc(2025, 3, 10, 23), tick=False):
        assert reminder_moment(profile=profile, day=dt.date(2025, 3, 10)) == utc(2025, 3, 11, 0)
        assert reminders_send_due().sent == []  # the 10th's reminder moment is 00:00 on the 11th
    assert send_at(utc(2025, 3, 11, 2)).sent == [profile.user_id]  # still study day 10
    assert send_at(utc(2025, 3, 11, 3, 59)).sent == []
    assert send_at(utc(2025, 3, 12, 0, 30)).sent == [profile.user_id]  # study day 11
    assert sorted(ReminderDelivery.objects.values_list("local_date", flat=True)) == [
        dt.date(2025, 3, 10),
        dt.date(2025, 3, 11),
    ]
    assert len(mail.outbox) == 2


def test_a_failed_send_releases_the_day_so_the_next_run_sends(settings):
    """SMTP down: nothing was sent, so the claim is dropped and the next beat run (SMTP back) sends once."""
    from tests.ops.conftest import free_port

    profile = learner()
    due_card(profile, due=utc(2025, 3, 9, 12))
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT, settings.EMAIL_USE_TLS, settings.EMAIL_TIMEOUT = (
        "127.0.0.1",
        free_port(),  # nothing listens there
        False,
        2,
    )
    run = send_at(EVENING)
    assert (run.sent, run.failed) == ([], [profile.user_id])
    assert not ReminderDelivery.objects.exists()
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    assert send_at(EVENING + dt.timedelta(minutes=15)).sent == [profile.user_id]
    assert len(mail.outbox) == 1


@pytest.mark.parametrize(
    ("language", "subject", "body"),
    [("en", "1 review due today", "Start your review session"), ("zh-hans", "今天有 1 道题需要复习", "开始复习")],
)
def test_the_email_comes_in_the_site_language(settings, language, subject, body):
    settings.LANGUAGE_CODE = language
    profile = learner()
    due_card(profile, due=utc(2025, 3, 9, 12))
    send_at(EVENING)
    (message,) = mail.outbox
    assert subject in message.subject
    assert body in message.body and body in message.alternatives[0][0]


# --------------------------------------------------------------------------- unsubscribe


def test_unsubscribe_get_asks_and_post_unsubscribes(client):
    profile = learner()
    url = reverse("reminder_unsubscribe", args=[unsubscribe_token(user=profile.user)])
    page = client.get(url)
    assert page.status_code == 200
    assert b'method="post"' in page.content
    profile.refresh_from_db()
    assert profile.reminder_opt_in is True  # a link scanner's GET changes nothing
    done = client.post(url, {"List-Unsubscribe": "One-Click"})  # RFC 8058 one-click: no CSRF token, no login
    assert done.status_code == 200
    profile.refresh_from_db()
    assert profile.reminder_opt_in is False
    assert client.post(url).status_code == 200  # idempotent


def test_unsubscribe_with_a_tampered_or_expired_token_is_refused(client, settings):
    profile = learner()
    token = unsubscribe_token(user=profile.user)
    tampered = token[:-2] + ("aa" if not token.endswith("aa") else "bb")
    assert client.post(reverse("reminder_unsubscribe", args=[tampered])).status_code == 400
    with time_machine.travel(
        dt.datetime.now(dt.UTC) + dt.timedelta(days=settings.REMINDER_UNSUBSCRIBE_MAX_AGE_DAYS + 1)
    ):
        assert client.post(reverse("reminder_unsubscribe", args=[token])).status_code == 400
    assert LearnerProfile.objects.get(pk=profile.pk).reminder_opt_in is True


def test_an_unsubscribed_learner_gets_no_more_reminders(client):
    profile = learner()
    due_card(profile, due=utc(2025, 3, 9, 12))
    client.post(reverse("reminder_unsubscribe", args=[unsubscribe_token(user=profile.user)]))
    assert send_at(EVENING).sent == []
