"""Push reminders through the real sending code — django-push-notifications → firebase-admin → HTTP — to a local
FCM stand-in (fcm_standin.py): the OAuth token exchange, the messages:send requests and their payload, the
UNREGISTERED answer that removes a registration, the fall back to e-mail, at most one reminder a day, and the
logging sender when no credentials are set. A real worker runs the same pass in tests/ops/test_worker.py.
"""

from __future__ import annotations

import datetime as dt
import logging

import firebase_admin
import pytest
import time_machine
from django.core import mail
from firebase_admin import messaging
from push_notifications.models import APNSDevice, GCMDevice

from quizzes.accounts.devices import device_push_register
from quizzes.accounts.services import api_token_create, api_token_delete
from quizzes.models import ReminderDelivery
from quizzes.notifications.services import reminders_send_due
from tests.factories import utc
from tests.ops.helpers import due_card, learner
from tests.quizzes.notifications.fcm_standin import ACCESS_TOKEN, PROJECT, FcmStandIn

pytestmark = pytest.mark.django_db

EVENING = utc(2025, 3, 10, 19)
TOKEN_A = "fcm-token-a:" + "A" * 140
TOKEN_B = "fcm-token-b:" + "B" * 140


@pytest.fixture
def standin(settings, tmp_path, monkeypatch):
    server = FcmStandIn()
    monkeypatch.setattr(messaging._MessagingService, "FCM_URL", server.fcm_url)  # the library's constant
    settings.FCM_SERVICE_ACCOUNT_FILE = str(server.service_account(tmp_path / "service-account.json"))
    yield server
    for app in list(firebase_admin._apps.values()):  # the next test builds its app (and FCM URL) afresh
        firebase_admin.delete_app(app)
    server.stop()


def phone(profile, *, token: str, device_id: str = "phone", name: str = "Pixel 8"):
    issued = api_token_create(user=profile.user, device_name=name, device_id=device_id, platform="android")
    device = device_push_register(device=issued.device, service="fcm", token=token)
    return issued, device


def send_at(moment: dt.datetime):
    with time_machine.travel(moment, tick=False):
        return reminders_send_due()


def test_a_due_learner_gets_a_push_on_each_signed_in_device_and_no_email(standin, settings):
    settings.SITE_URL = "https://quiz.example.com"
    profile = learner(reminder_hour=18)
    due_card(profile, due=utc(2025, 3, 9, 12))
    due_card(profile, due=utc(2025, 3, 10, 8))
    phone(profile, token=TOKEN_A)
    phone(profile, token=TOKEN_B, device_id="tablet", name="Tab")

    run = send_at(EVENING)

    assert run.sent == [profile.user_id]
    assert mail.outbox == []  # the push took it: no e-mail
    # the service account's JWT traded for an access token (once per sending thread at most: firebase-admin sends
    # a batch's messages in parallel)
    assert 1 <= len(standin.token_requests) <= 2
    for grant in standin.token_requests:
        assert grant["grant_type"] == "urn:ietf:params:oauth:grant-type:jwt-bearer"
        assert grant["assertion"].count(".") == 2  # a signed JWT
    assert sorted(send["body"]["message"]["token"] for send in standin.sends) == sorted([TOKEN_A, TOKEN_B])
    for send in standin.sends:
        assert send["path"] == f"/v1/projects/{PROJECT}/messages:send"
        assert send["authorization"] == f"Bearer {ACCESS_TOKEN}"
        message = send["body"]["message"]
        assert message["notification"] == {"title": "Reviews are due", "body": "2 reviews are due today."}
        assert message["data"] == {
            "kind": "reviews_due",
            "due": "2",
            "day": "2025-03-10",
            "url": "https://quiz.example.com/review/",
        }
        assert message["android"]["collapse_key"] == "reviews_due"
        assert message["apns"]["headers"] == {"apns-collapse-id": "reviews_due"}
        assert "validate_only" not in send["body"]
    delivery = ReminderDelivery.objects.get(user=profile.user)
    assert (delivery.channel, delivery.local_date, delivery.due_count) == ("push", dt.date(2025, 3, 10), 2)

    send_at(EVENING + dt.timedelta(hours=2))  # once a day
    assert len(standin.sends) == 2 and mail.outbox == []


def test_an_unregistered_answer_removes_the_registration_and_the_email_takes_over(standin):
    profile = learner()
    due_card(profile, due=utc(2025, 3, 9, 12))
    _issued, device = phone(profile, token=TOKEN_A)
    standin.unregistered.add(TOKEN_A)

    run = send_at(EVENING)

    assert run.sent == [profile.user_id]
    assert [send["body"]["message"]["token"] for send in standin.sends] == [TOKEN_A]
    assert not GCMDevice.objects.exists()  # the registration FCM called gone is gone
    device.refresh_from_db()
    assert device.fcm_id is None  # the device itself stays, without push
    assert len(mail.outbox) == 1 and mail.outbox[0].to == [profile.user.email]
    assert ReminderDelivery.objects.get(user=profile.user).channel == "email"


def test_one_gone_device_of_two_still_counts_as_pushed(standin):
    profile = learner()
    due_card(profile, due=utc(2025, 3, 9, 12))
    phone(profile, token=TOKEN_A)
    phone(profile, token=TOKEN_B, device_id="old-phone")
    standin.unregistered.add(TOKEN_B)
    send_at(EVENING)
    assert list(GCMDevice.objects.values_list("registration_id", flat=True)) == [TOKEN_A]
    assert mail.outbox == []


def test_no_push_to_a_device_that_logged_out_and_none_for_the_email_channel(standin):
    logged_out = learner()
    due_card(logged_out, due=utc(2025, 3, 9, 12))
    issued, _device = phone(logged_out, token=TOKEN_A)
    api_token_delete(token=issued.instance)  # the registration is kept for the next log-in, but gets nothing
    by_email = learner()
    by_email.reminder_channel = "email"
    by_email.save()
    due_card(by_email, due=utc(2025, 3, 9, 12))
    phone(by_email, token=TOKEN_B, device_id="theirs")

    run = send_at(EVENING)

    assert sorted(run.sent) == sorted([logged_out.user_id, by_email.user_id])
    assert standin.sends == []
    assert sorted(m.to[0] for m in mail.outbox) == sorted([logged_out.user.email, by_email.user.email])


def test_a_push_learner_without_an_email_address_is_reminded_by_push(standin):
    profile = learner(email="")
    due_card(profile, due=utc(2025, 3, 9, 12))
    phone(profile, token=TOKEN_A)
    assert send_at(EVENING).sent == [profile.user_id]
    assert len(standin.sends) == 1 and mail.outbox == []


def test_fcm_down_falls_back_to_email_and_a_learner_with_nowhere_to_send_is_retried(standin, caplog):
    standin.stop()  # nothing answers on the stand-in's port any more
    with_email = learner()
    due_card(with_email, due=utc(2025, 3, 9, 12))
    phone(with_email, token=TOKEN_A)
    without = learner(email="")
    due_card(without, due=utc(2025, 3, 9, 12))
    phone(without, token=TOKEN_B, device_id="theirs")

    run = send_at(EVENING)

    assert run.sent == [with_email.user_id] and run.failed == [without.user_id]
    assert [m.to for m in mail.outbox] == [[with_email.user.email]]
    assert not ReminderDelivery.objects.filter(user=without.user).exists()  # released: the next pass tries again
    assert GCMDevice.objects.count() == 2  # a network error is not "unregistered"


def test_without_credentials_the_push_is_logged_not_sent(settings, caplog):
    settings.FCM_SERVICE_ACCOUNT_FILE = ""
    settings.APNS_AUTH_KEY_PATH = ""
    profile = learner()
    due_card(profile, due=utc(2025, 3, 9, 12))
    phone(profile, token=TOKEN_A)
    ios = api_token_create(user=profile.user, device_id="iphone", platform="ios").device
    device_push_register(device=ios, service="apns", token="ab" * 32)
    with caplog.at_level(logging.INFO, logger="quizzes.notifications.push"):
        run = send_at(EVENING)
    assert run.sent == [profile.user_id]
    assert "push (fcm not configured, logged instead of sent)" in caplog.text
    assert "push (apns not configured, logged instead of sent)" in caplog.text
    assert mail.outbox == []
    assert ReminderDelivery.objects.get(user=profile.user).channel == "push"
    assert APNSDevice.objects.count() == 1
