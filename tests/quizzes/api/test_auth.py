"""Tokens per device, expiry, logout, login throttling, and 401 for anonymous requests."""

from __future__ import annotations

import datetime as dt
import re

import pytest
import time_machine
from django.urls import URLPattern, URLResolver, get_resolver
from django.utils import timezone
from knox.models import AuthToken
from rest_framework.test import APIClient

from tests import factories
from tests.quizzes.api.helpers import assert_error

pytestmark = pytest.mark.django_db
LOGIN = "/api/v1/auth/login/"


def login(client, username, password=factories.PASSWORD, device="Pixel 8", **fields):
    return client.post(LOGIN, {"username": username, "password": password, "device_name": device, **fields}, "json")


def authed(token: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    return client


def test_login_gives_a_token_per_device_that_expires_after_the_ttl(anon, user, settings):
    phone = login(anon, user.username).json()
    tablet = login(anon, user.username, device="iPad").json()
    assert phone["token"] != tablet["token"] and phone["device_name"] == "Pixel 8"
    assert phone["user"] == {"id": user.pk, "username": user.username, "is_staff": False}
    expiry = dt.datetime.fromisoformat(phone["expiry"])
    ttl = settings.REST_KNOX["TOKEN_TTL"]
    assert abs(expiry - (timezone.now() + ttl)) < dt.timedelta(minutes=1)
    assert authed(phone["token"]).get("/api/v1/profile/").status_code == 200
    listed = authed(phone["token"]).get("/api/v1/auth/tokens/").json()["tokens"]
    assert len(listed) == 2 and [t["current"] for t in listed].count(True) == 1
    assert {t["device_name"] for t in listed} == {"Pixel 8", "iPad"}  # the learner can tell devices apart
    assert next(t for t in listed if t["current"])["device_name"] == "Pixel 8"
    with time_machine.travel(timezone.now() + ttl + dt.timedelta(minutes=1)):
        assert_error(authed(phone["token"]).get("/api/v1/profile/"), 401, "authentication_failed")


def test_wrong_password(anon, user):
    assert_error(login(anon, user.username, password="nope"), 400, "invalid_credentials")
    body = assert_error(anon.post(LOGIN, {"username": user.username}, format="json"), 400, "validation_error")
    assert "password" in body["error"]["fields"]
    assert not AuthToken.objects.exists()


def test_logout_this_device_keeps_the_others(anon, user):
    phone, tablet = login(anon, user.username).json()["token"], login(anon, user.username).json()["token"]
    assert authed(phone).post("/api/v1/auth/logout/").status_code == 204
    assert_error(authed(phone).get("/api/v1/profile/"), 401)
    assert authed(tablet).get("/api/v1/profile/").status_code == 200


def test_logout_everywhere(anon, user, other_user):
    phone, tablet = login(anon, user.username).json()["token"], login(anon, user.username).json()["token"]
    theirs = login(anon, other_user.username).json()["token"]
    assert authed(phone).post("/api/v1/auth/logout-all/").status_code == 204
    assert_error(authed(phone).get("/api/v1/profile/"), 401)
    assert_error(authed(tablet).get("/api/v1/profile/"), 401)
    assert authed(theirs).get("/api/v1/profile/").status_code == 200


def test_login_with_a_stale_token_header_still_works(anon, user):
    anon.credentials(HTTP_AUTHORIZATION="Token expired-or-garbage")
    assert login(anon, user.username).status_code == 200


def test_session_auth_is_accepted(user):
    client = APIClient(enforce_csrf_checks=True)
    client.force_login(user)
    assert client.get("/api/v1/profile/").json()["username"] == user.username
    # unsafe methods with a session need the CSRF token, as in the browser
    assert_error(client.patch("/api/v1/profile/", {"reminder_opt_in": True}, format="json"), 403)


def test_login_is_throttled_per_account_and_address(user):
    """5 failed log-ins from one address lock that address out of the account for 15 minutes (the right password
    too); the owner's log-in from another address goes through."""
    attacker = APIClient(REMOTE_ADDR="10.0.0.66")
    for _ in range(5):
        assert login(attacker, user.username, password="wrong").status_code == 400
    response = login(attacker, user.username)
    body = assert_error(response, 429, "throttled")
    assert 0 < int(response.headers["Retry-After"]) <= 15 * 60
    assert body["error"]["message"] == "Too many attempts; try again in 15 minutes."
    assert not AuthToken.objects.exists()
    assert login(APIClient(REMOTE_ADDR="10.0.0.99"), user.username).status_code == 200


def test_the_account_wide_limit_holds_unknown_clients_but_lets_the_owners_devices_through(user, settings):
    """Many addresses together reach the account-wide limit (far above the per-address one): unknown clients are
    refused then, the owner's app — a device id the account knows — is not."""
    settings.THROTTLE_RATES = {
        **settings.THROTTLE_RATES,
        "login": {"pair": "2/15m", "ip": "20/15m", "username": "6/1h", "device": "10/15m"},
    }
    phone = login(APIClient(REMOTE_ADDR="10.0.1.1"), user.username, device_id="phone-1", platform="android")
    assert phone.status_code == 200
    for index in range(6):  # a botnet: 6 addresses, one failure each
        assert login(APIClient(REMOTE_ADDR=f"10.0.2.{index}"), user.username, password="wrong").status_code == 400
    assert_error(login(APIClient(REMOTE_ADDR="10.0.3.3"), user.username), 429, "throttled")  # unknown client
    again = login(APIClient(REMOTE_ADDR="10.0.3.3"), user.username, device_id="phone-1")
    assert again.status_code == 200  # the owner's phone, from the same new address
    assert again.json()["device"]["id"] == phone.json()["device"]["id"]
    # an unknown device id is an unknown client
    assert_error(login(APIClient(REMOTE_ADDR="10.0.3.4"), user.username, device_id="guessed"), 429, "throttled")


def test_a_known_device_has_its_own_limit(user, settings):
    settings.THROTTLE_RATES = {
        **settings.THROTTLE_RATES,
        "login": {"pair": "5/15m", "ip": "20/15m", "username": "100/1h", "device": "3/15m"},
    }
    assert login(APIClient(REMOTE_ADDR="10.0.4.1"), user.username, device_id="tablet").status_code == 200
    for _ in range(3):
        assert login(APIClient(REMOTE_ADDR="10.0.4.1"), user.username, "wrong", device_id="tablet").status_code == 400
    assert_error(login(APIClient(REMOTE_ADDR="10.0.4.1"), user.username, device_id="tablet"), 429, "throttled")
    assert login(APIClient(REMOTE_ADDR="10.0.4.1"), user.username).status_code == 200  # the pair is not held


def test_login_is_throttled_per_ip(db, settings):
    settings.THROTTLE_RATES = {
        **settings.THROTTLE_RATES,
        "login": {"pair": "5/15m", "ip": "3/15m", "username": "100/1h", "device": "10/15m"},
    }
    client = APIClient(REMOTE_ADDR="10.1.1.1")
    for index in range(3):
        assert login(client, f"nobody{index}", password="wrong").status_code == 400
    response = login(client, "somebody-else", password="wrong")
    assert_error(response, 429, "throttled")
    assert "Retry-After" in response.headers
    assert login(APIClient(REMOTE_ADDR="10.1.1.2"), "somebody-else", password="wrong").status_code == 400


def test_throttle_window_passes(user):
    client = APIClient(REMOTE_ADDR="10.2.2.2")
    start = timezone.now()
    with time_machine.travel(start, tick=False):
        for _ in range(5):
            login(client, user.username, password="wrong")
        assert login(client, user.username).status_code == 429
    with time_machine.travel(start + dt.timedelta(minutes=14), tick=False):
        assert login(client, user.username).status_code == 429
    with time_machine.travel(start + dt.timedelta(minutes=15, seconds=1), tick=False):
        assert login(client, user.username).status_code == 200


def _v1_routes():
    from quizzes.api.urls import v1

    for pattern in v1:
        assert isinstance(pattern, URLPattern)
        route = re.sub(r"<(?:int|slug):\w+>", "1", str(pattern.pattern))  # every id, so a new route is checked too
        methods = [m for m in ("get", "post", "patch", "put", "delete") if hasattr(pattern.callback.cls, m)]
        yield "/api/v1/" + route, methods


def test_anonymous_requests_get_401_everywhere_but_login_and_docs(anon, lesson):
    checked = 0
    for url, methods in _v1_routes():
        for method in methods:
            response = getattr(anon, method)(url, {}, format="json")
            if url == LOGIN:
                assert response.status_code == 400
                continue
            assert_error(response, 401, "not_authenticated")
            assert response.headers["WWW-Authenticate"] == "Token"
            checked += 1
    assert checked >= 25
    for url in ("/api/schema/", "/api/docs/", "/api/redoc/"):
        assert anon.get(url).status_code == 200


def test_docs_are_served_offline(anon):
    for url in ("/api/docs/", "/api/redoc/"):
        html = anon.get(url).content.decode()
        assert "/static/drf_spectacular_sidecar/" in html
        assert "cdn" not in html.lower() and "https://" not in html.replace("https://github.com", "")


def test_every_route_is_in_the_api_namespace():
    resolver = get_resolver()
    api = next(p for p in resolver.url_patterns if isinstance(p, URLResolver) and str(p.pattern) == "api/")
    assert api.namespace == "api"


def test_login_creates_the_token_and_its_device_row_together(anon, user, monkeypatch):
    """One transaction: if the device row cannot be written, no token is left behind."""
    from django.db import DatabaseError

    from quizzes.models import TokenDevice

    def disk_full(*args, **kwargs):
        raise DatabaseError("disk full")

    monkeypatch.setattr(TokenDevice, "save", disk_full)
    with pytest.raises(DatabaseError):
        login(anon, user.username)
    assert not AuthToken.objects.filter(user=user).exists()


@pytest.mark.parametrize("path", ["/api/v1/auth/logout/", "/api/v1/auth/logout-all/"])
@pytest.mark.parametrize("way_in", ["token", "session"])
def test_logging_out_tells_the_receivers_once_who_left(anon, user, path, way_in):
    """``user_logged_out`` fires exactly once per log-out, with the learner (a session's log-out goes through
    Django's ``logout()``, which sends it itself; a token's is sent by the view)."""
    from django.contrib.auth.signals import user_logged_out

    if way_in == "token":
        client = authed(login(anon, user.username).json()["token"])
    else:
        client = APIClient()
        client.force_login(user)
    heard = []

    def receiver(sender, request, user, **kwargs):
        heard.append(user.pk if user is not None else None)

    user_logged_out.connect(receiver)
    try:
        assert client.post(path).status_code == 204
    finally:
        user_logged_out.disconnect(receiver)
    assert heard == [user.pk]
    assert_error(client.get("/api/v1/profile/"), 401)  # and the way in is closed
