"""Credentials that revoke, through the real web forms and the API: a password change or reset ends the learner's
other API tokens and browser sessions; "log out everywhere" ends browser sessions too; the settings page lists
sessions and devices with "Sign out" for each (the user → session index written at log-in)."""

from __future__ import annotations

import pytest
from django.contrib.sessions.models import Session
from django.core import mail
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from quizzes.models import BrowserSession
from tests import factories
from tests.quizzes.api.helpers import assert_error

pytestmark = pytest.mark.django_db

NEW_PASSWORD = "a-fresh-pass-phrase-31"


def api_login(user, device_id: str, password: str = factories.PASSWORD) -> APIClient:
    response = APIClient().post(
        "/api/v1/auth/login/",
        {"username": user.username, "password": password, "device_id": device_id, "device_name": device_id},
        format="json",
    )
    assert response.status_code == 200, response.content
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {response.json()['token']}")
    return client


def browser_login(user, agent: str = "Mozilla/5.0 (X11; Linux x86_64; rv:130.0) Gecko/20100101 Firefox/130.0"):
    browser = Client(HTTP_USER_AGENT=agent)
    response = browser.post(reverse("web:login"), {"username": user.username, "password": factories.PASSWORD})
    assert response.status_code == 302, response.content
    return browser


def signed_in(browser: Client) -> bool:
    return browser.get(reverse("web:settings")).status_code == 200


def works(api: APIClient) -> bool:
    return api.get("/api/v1/ping/").status_code == 200


def test_an_api_password_change_ends_every_other_token_and_every_browser_session(user):
    phone, tablet, browser = api_login(user, "phone"), api_login(user, "tablet"), browser_login(user)
    response = phone.post(
        "/api/v1/auth/password/",
        {"current_password": factories.PASSWORD, "new_password": NEW_PASSWORD},
        format="json",
    )
    assert response.status_code == 200, response.content
    assert response.json() == {"tokens_ended": 1, "sessions_ended": 1}
    assert works(phone)  # the token that made the change
    assert_error(tablet.get("/api/v1/ping/"), 401)
    assert not signed_in(browser)
    user.refresh_from_db()
    assert user.check_password(NEW_PASSWORD)


def test_a_browser_changing_its_password_through_the_api_stays_signed_in_and_others_do_not(user):
    """The API called with the browser's own session (the web app's JavaScript would): Django's rule keeps that
    session signed in (update_session_auth_hash on DRF's request), and every other session and token ends."""
    browser, other, phone = browser_login(user), browser_login(user), api_login(user, "phone")
    response = browser.post(
        "/api/v1/auth/password/",
        {"current_password": factories.PASSWORD, "new_password": NEW_PASSWORD},
        content_type="application/json",
    )
    assert response.status_code == 200, response.content
    assert response.json() == {"tokens_ended": 1, "sessions_ended": 1}
    assert signed_in(browser)
    assert not signed_in(other)
    assert_error(phone.get("/api/v1/ping/"), 401)


def test_an_api_password_change_needs_the_current_password_and_a_good_new_one(user):
    phone, tablet = api_login(user, "phone"), api_login(user, "tablet")
    wrong = phone.post(
        "/api/v1/auth/password/", {"current_password": "nope", "new_password": NEW_PASSWORD}, format="json"
    )
    assert "current_password" in assert_error(wrong, 400, "invalid_credentials")["error"]["fields"]
    weak = phone.post(
        "/api/v1/auth/password/", {"current_password": factories.PASSWORD, "new_password": "123"}, format="json"
    )
    assert "new_password" in assert_error(weak, 400, "validation_error")["error"]["fields"]
    assert works(tablet)
    user.refresh_from_db()
    assert user.check_password(factories.PASSWORD)


def test_guessing_the_current_password_through_the_api_is_throttled(user, settings):
    settings.THROTTLE_RATES = {
        **settings.THROTTLE_RATES,
        "login": {"pair": "5/15m", "ip": "20/15m", "username": "100/1h", "device": "2/15m"},
    }
    phone = api_login(user, "phone")
    for _ in range(2):
        phone.post("/api/v1/auth/password/", {"current_password": "guess", "new_password": NEW_PASSWORD}, "json")
    response = phone.post(
        "/api/v1/auth/password/", {"current_password": factories.PASSWORD, "new_password": NEW_PASSWORD}, "json"
    )
    assert_error(response, 429, "throttled")
    assert "Retry-After" in response.headers


def test_a_web_password_change_ends_the_api_tokens_and_other_browsers_but_keeps_this_one(user):
    phone, laptop, desktop = api_login(user, "phone"), browser_login(user), browser_login(user)
    response = laptop.post(
        reverse("web:password_change"),
        {"old_password": factories.PASSWORD, "new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD},
    )
    assert response.status_code == 302 and response.url == reverse("web:password_change_done")
    assert_error(phone.get("/api/v1/ping/"), 401)
    assert not signed_in(desktop)
    assert signed_in(laptop)
    page = laptop.get(reverse("web:settings")).content.decode()  # the rotated session is still indexed as current
    assert "This browser" in page
    assert BrowserSession.objects.filter(user=user).count() == 1


def test_a_password_reset_by_e_mail_ends_every_token_and_session(user):
    user.email = "reset@example.com"
    user.save()
    phone, browser = api_login(user, "phone"), browser_login(user)
    stranger = Client()
    assert stranger.post(reverse("web:password_reset"), {"email": "reset@example.com"}).status_code == 302
    link = next(line.strip() for line in mail.outbox[-1].body.splitlines() if "/accounts/password/reset/" in line)
    form = stranger.get(link[link.index("/accounts/") :], follow=True)
    done = stranger.post(form.redirect_chain[-1][0], {"new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD})
    assert done.status_code == 302
    assert_error(phone.get("/api/v1/ping/"), 401)
    assert not signed_in(browser)


def test_log_out_everywhere_over_the_api_ends_browser_sessions_too(user, other_user):
    phone, browser, theirs = api_login(user, "phone"), browser_login(user), browser_login(other_user)
    assert phone.post("/api/v1/auth/logout-all/").status_code == 204
    assert_error(phone.get("/api/v1/ping/"), 401)
    assert not signed_in(browser)
    assert signed_in(theirs)


def test_the_settings_page_lists_sessions_and_devices_and_signs_each_out(user, other_user):
    phone, firefox = api_login(user, "phone"), browser_login(user)
    chrome = browser_login(
        user, agent="Mozilla/5.0 (Macintosh; Intel Mac OS X 14_0) AppleWebKit/537.36 Chrome/130.0 Safari/537.36"
    )
    page = firefox.get(reverse("web:settings")).content.decode()
    assert "Firefox on Linux" in page and "Chrome on macOS" in page and "This browser" in page
    assert ">phone<" in page
    chrome_row = BrowserSession.objects.exclude(session_id=firefox.session.session_key).get(user=user)
    assert chrome_row.session.session_key not in page  # a session key is a credential: never in the page

    browser_login(other_user)
    theirs = BrowserSession.objects.get(user=other_user)
    assert firefox.post(reverse("web:session_sign_out", args=[theirs.pk])).status_code == 404
    assert Session.objects.filter(pk=theirs.session_id).exists()

    response = firefox.post(reverse("web:session_sign_out", args=[chrome_row.pk]))
    assert response.status_code == 302 and not signed_in(chrome) and signed_in(firefox)

    device = user.devices.get()
    api_login(other_user, "phone")
    other_device = other_user.devices.get()
    assert firefox.post(reverse("web:device_sign_out", args=[other_device.pk])).status_code == 404
    assert firefox.post(reverse("web:device_sign_out", args=[device.pk])).status_code == 302
    assert_error(phone.get("/api/v1/ping/"), 401)
    assert not user.devices.exists()

    own = BrowserSession.objects.get(user=user)
    assert firefox.post(reverse("web:session_sign_out", args=[own.pk])).status_code == 302  # this browser itself
    assert not signed_in(firefox)


def test_sign_out_everywhere_on_the_settings_page(user):
    phone, browser, other_browser = api_login(user, "phone"), browser_login(user), browser_login(user)
    response = browser.post(reverse("web:sign_out_everywhere"))
    assert response.status_code == 302 and response.url == reverse("web:login")
    assert not signed_in(browser) and not signed_in(other_browser)
    assert_error(phone.get("/api/v1/ping/"), 401)


def test_the_session_index_goes_with_its_session(user):
    browser = browser_login(user)
    assert BrowserSession.objects.filter(user=user).count() == 1
    browser.post(reverse("web:logout"))
    assert not BrowserSession.objects.filter(user=user).exists()
    factories.UserFactory(username="signup-check")
    password = "a-long-enough-pass-42"
    fresh = Client()
    data = {"username": "newcomer", "password1": password, "password2": password}
    assert fresh.post(reverse("web:signup"), data).status_code == 302
    assert BrowserSession.objects.get(session_id=fresh.session.session_key).user.username == "newcomer"
