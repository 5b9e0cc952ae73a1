"""Devices over the API: a record that outlives its tokens (re-login keeps name and push registration), listed with
platform, created and last seen; renamed; deleted with its tokens and push registration at once; push tokens
registered per device with their format and platform checked; other learners' devices never found."""

from __future__ import annotations

import datetime as dt

import pytest
import time_machine
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from knox.models import AuthToken
from push_notifications.models import APNSDevice, GCMDevice, WebPushDevice
from rest_framework.test import APIClient

from quizzes.models import Device
from tests import factories
from tests.quizzes.api.helpers import assert_error

pytestmark = pytest.mark.django_db

LOGIN = "/api/v1/auth/login/"
DEVICES = "/api/v1/auth/devices/"
FCM = "fcm-registration:" + "x" * 140
APNS = "a1" * 32
P256DH = "BNcRdreALRFXTkOOUHK1EtK2wtaz5Ry4YfYCA_0QTpQtUbVlUls0VJXg7A8u-Ts1XbjhazAkj7I99e8QcYP7DkM"
AUTH = "tBHItJI5svbpez7KI4CCXg"


def login(username, *, device_id="", name="Pixel 8", platform="", password=factories.PASSWORD):
    body = {"username": username, "password": password, "device_name": name}
    body |= {"device_id": device_id} if device_id else {}
    body |= {"platform": platform} if platform else {}
    return APIClient().post(LOGIN, body, format="json")


def client_for(token: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    return client


def signed_in(user, **kwargs):
    response = login(user.username, **kwargs)
    assert response.status_code == 200, response.content
    body = response.json()
    return client_for(body["token"]), body


def test_a_relogin_with_the_same_device_id_keeps_its_name_and_push_registration(user):
    phone, first = signed_in(user, device_id="install-7f3a", platform="android")
    device = first["device"]
    assert device["device_id"] == "install-7f3a" and device["platform"] == "android" and device["current"]
    assert phone.patch(f"{DEVICES}{device['id']}/", {"name": "Work phone"}, format="json").status_code == 200
    assert phone.put(f"{DEVICES}{device['id']}/push/", {"service": "fcm", "token": FCM}, format="json").json()[
        "push"
    ] == ("fcm")
    assert phone.post("/api/v1/auth/logout/").status_code == 204
    listed = client_for(login(user.username, device_id="other").json()["token"]).get(DEVICES).json()["devices"]
    assert next(d for d in listed if d["id"] == device["id"])["signed_in"] is False  # logged out, still listed

    _again, second = signed_in(user, device_id="install-7f3a", name="Pixel 8 (new name ignored)")
    assert second["device"]["id"] == device["id"]
    assert second["device"]["name"] == second["device_name"] == "Work phone"
    assert second["device"]["push"] == "fcm" and second["device"]["signed_in"]
    assert GCMDevice.objects.get().registration_id == FCM
    assert Device.objects.filter(user=user).count() == 2


def test_devices_are_listed_with_platform_created_and_last_seen_most_recent_first(user, other_user):
    start = timezone.now()
    with time_machine.travel(start, tick=False):
        phone, _ = signed_in(user, device_id="phone", platform="ios")
    with time_machine.travel(start + dt.timedelta(hours=1), tick=False):
        signed_in(user, device_id="tablet", name="iPad", platform="ios")
    signed_in(other_user, device_id="phone")  # the same app id on another account: its own device
    with time_machine.travel(start + dt.timedelta(hours=2), tick=False):
        body = phone.get(DEVICES).json()  # the phone is seen now: first in the list
    devices = body["devices"]
    assert [d["device_id"] for d in devices] == ["phone", "tablet"]
    assert [d["current"] for d in devices] == [True, False]
    assert devices[0]["platform"] == "ios" and devices[0]["push"] is None
    assert dt.datetime.fromisoformat(devices[0]["created"]) == start
    assert dt.datetime.fromisoformat(devices[0]["last_seen"]) == start + dt.timedelta(hours=2)
    assert dt.datetime.fromisoformat(devices[1]["last_seen"]) == start + dt.timedelta(hours=1)
    assert set(devices[0]) == {
        "id",
        "device_id",
        "name",
        "platform",
        "created",
        "last_seen",
        "signed_in",
        "current",
        "push",
    }


def test_last_seen_is_written_at_most_once_per_interval(user, settings):
    start = timezone.now()
    with time_machine.travel(start, tick=False):
        phone, body = signed_in(user, device_id="phone")
    device = Device.objects.get(pk=body["device"]["id"])
    for minutes in (1, 5, 14):
        with time_machine.travel(start + dt.timedelta(minutes=minutes), tick=False):
            with CaptureQueriesContext(connection) as queries:
                assert phone.get("/api/v1/ping/").status_code == 200
            assert not [q for q in queries if q["sql"].startswith("UPDATE")]  # no write inside the interval
    device.refresh_from_db()
    assert device.last_seen_at == start
    with time_machine.travel(start + settings.DEVICE_SEEN_INTERVAL + dt.timedelta(seconds=1), tick=False):
        with CaptureQueriesContext(connection) as queries:
            phone.get("/api/v1/ping/")
        assert len([q for q in queries if q["sql"].startswith("UPDATE")]) == 1
    device.refresh_from_db()
    assert device.last_seen_at == start + settings.DEVICE_SEEN_INTERVAL + dt.timedelta(seconds=1)


def test_deleting_a_device_ends_its_tokens_and_push_registration_at_once(user):
    lost, body = signed_in(user, device_id="lost-phone", platform="android")
    lost_again, _ = signed_in(user, device_id="lost-phone")  # a second token of the same phone
    laptop, _ = signed_in(user, device_id="browser", platform="web")
    device = body["device"]["id"]
    assert lost.put(f"{DEVICES}{device}/push/", {"service": "fcm", "token": FCM}, format="json").status_code == 200

    assert laptop.delete(f"{DEVICES}{device}/").status_code == 204

    assert_error(lost.get("/api/v1/ping/"), 401)
    assert_error(lost_again.get("/api/v1/ping/"), 401)
    assert not GCMDevice.objects.exists()
    assert not Device.objects.filter(pk=device).exists()
    assert laptop.get("/api/v1/ping/").status_code == 200
    assert_error(laptop.delete(f"{DEVICES}{device}/"), 404, "not_found")  # gone: unknown now


def test_unknown_devices_and_other_learners_devices_are_not_found(user, other_user):
    mine, _ = signed_in(user, device_id="mine")
    _theirs, body = signed_in(other_user, device_id="theirs")
    theirs = body["device"]["id"]
    for url in (f"{DEVICES}{theirs}/", f"{DEVICES}999999/"):
        assert_error(mine.get(url), 404, "not_found")
        assert_error(mine.patch(url, {"name": "mine now"}, format="json"), 404, "not_found")
        assert_error(mine.delete(url), 404, "not_found")
        assert_error(mine.put(f"{url}push/", {"service": "fcm", "token": FCM}, format="json"), 404, "not_found")
        assert_error(mine.delete(f"{url}push/"), 404, "not_found")
    assert Device.objects.get(pk=theirs).name == "Pixel 8"
    assert AuthToken.objects.filter(user=other_user).count() == 1


@pytest.mark.parametrize(
    ("platform", "body", "field"),
    [
        ("android", {"service": "fcm", "token": "short"}, "token"),
        ("android", {"service": "fcm", "token": "has spaces " * 10}, "token"),
        ("android", {"service": "fcm"}, "token"),
        ("ios", {"service": "apns", "token": "zz" * 32}, "token"),
        ("ios", {"service": "apns", "token": "ab" * 31}, "token"),
        ("android", {"service": "apns", "token": APNS}, "service"),  # APNs is iOS's
        (
            "ios",
            {
                "service": "webpush",
                "subscription": {"endpoint": "https://p.example/x", "keys": {"p256dh": P256DH, "auth": AUTH}},
            },
            "service",
        ),  # Web Push is the browser's
        ("android", {"service": "sms", "token": FCM}, "service"),
        ("web", {"service": "webpush"}, "subscription"),
        ("web", {"service": "webpush", "subscription": {"endpoint": "http://push.example/x", "keys": {}}}, None),
        (
            "web",
            {"service": "webpush", "subscription": {"endpoint": "https://p.example/x", "keys": {"p256dh": "AAAA"}}},
            None,
        ),
        (
            "web",
            {"service": "webpush", "browser": "NETSCAPE", "subscription": {"endpoint": "https://p.example/x"}},
            "browser",
        ),
    ],
)
def test_a_push_token_of_the_wrong_format_or_platform_is_a_400_naming_the_field(user, platform, body, field):
    client, login_body = signed_in(user, device_id=f"d-{platform}", platform=platform)
    response = client.put(f"{DEVICES}{login_body['device']['id']}/push/", body, format="json")
    fields = assert_error(response, 400, "validation_error")["error"]["fields"]
    if field is not None:
        assert field in fields, fields
    else:
        assert any(name.startswith("subscription") for name in fields), fields
    assert not (GCMDevice.objects.exists() or APNSDevice.objects.exists() or WebPushDevice.objects.exists())


def test_apns_and_webpush_registrations_and_replacing_one(user):
    iphone, body = signed_in(user, device_id="iphone", platform="ios")
    url = f"{DEVICES}{body['device']['id']}/push/"
    assert iphone.put(url, {"service": "apns", "token": APNS.upper()}, format="json").json()["push"] == "apns"
    assert APNSDevice.objects.get().registration_id == APNS  # stored as sent by Apple's API, lower case
    assert iphone.put(url, {"service": "fcm", "token": FCM}, format="json").json()["push"] == "fcm"  # replaced
    assert not APNSDevice.objects.exists() and GCMDevice.objects.count() == 1
    assert iphone.delete(url).status_code == 204
    assert iphone.delete(url).status_code == 204  # idempotent
    assert not GCMDevice.objects.exists()

    browser, body = signed_in(user, device_id="firefox", platform="web")
    subscription = {
        "endpoint": "https://updates.push.services.mozilla.com/wpush/v2/gAAA",
        "keys": {"p256dh": P256DH, "auth": AUTH},
    }
    response = browser.put(
        f"{DEVICES}{body['device']['id']}/push/",
        {"service": "webpush", "subscription": subscription, "browser": "FIREFOX"},
        format="json",
    )
    assert response.status_code == 200 and response.json()["push"] == "webpush"
    row = WebPushDevice.objects.get()
    assert (row.registration_id, row.p256dh, row.auth, row.browser, row.user) == (
        subscription["endpoint"],
        P256DH,
        AUTH,
        "FIREFOX",
        user,
    )


def test_a_device_of_unknown_platform_takes_it_from_the_service(user):
    old_client, body = signed_in(user, device_id="old-app")  # logged in without a platform
    assert body["device"]["platform"] == "other"
    response = old_client.put(f"{DEVICES}{body['device']['id']}/push/", {"service": "apns", "token": APNS}, "json")
    assert response.json()["platform"] == "ios"


def test_a_push_token_moves_to_the_device_that_registers_it_last(user, other_user):
    mine, my_body = signed_in(user, device_id="shared-phone", platform="android")
    theirs, their_body = signed_in(other_user, device_id="shared-phone", platform="android")
    mine.put(f"{DEVICES}{my_body['device']['id']}/push/", {"service": "fcm", "token": FCM}, format="json")
    theirs.put(f"{DEVICES}{their_body['device']['id']}/push/", {"service": "fcm", "token": FCM}, format="json")
    assert GCMDevice.objects.get().user == other_user  # one phone, one account's reminders
    assert mine.get(f"{DEVICES}{my_body['device']['id']}/").json()["push"] is None


def test_the_tokens_list_keeps_its_shape_and_names_each_tokens_device(user):
    phone, body = signed_in(user, device_id="phone")
    tokens = phone.get("/api/v1/auth/tokens/").json()["tokens"]
    assert tokens == [
        {
            "token_key": body["token_key"],
            "device_name": "Pixel 8",
            "device": body["device"]["id"],
            "created": tokens[0]["created"],
            "expiry": body["expiry"],
            "current": True,
        }
    ]


@pytest.mark.parametrize("device_id", ["has space", "x" * 129, "ünïcode", "semi;colon"])
def test_a_bad_device_id_at_login_is_a_400(user, device_id):
    fields = assert_error(login(user.username, device_id=device_id), 400, "validation_error")["error"]["fields"]
    assert "device_id" in fields
    assert not AuthToken.objects.exists()


def test_renaming_checks_the_name(user):
    phone, body = signed_in(user, device_id="phone")
    url = f"{DEVICES}{body['device']['id']}/"
    assert "name" in assert_error(phone.patch(url, {"name": "x" * 101}, format="json"), 400)["error"]["fields"]
    assert "name" in assert_error(phone.patch(url, {"name": 5}, format="json"), 400)["error"]["fields"]
    assert phone.patch(url, {"name": "Mine"}, format="json").json()["name"] == "Mine"
