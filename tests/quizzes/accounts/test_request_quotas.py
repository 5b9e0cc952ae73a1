"""Sign-up and data exports on the one quota mechanism (issue 28 item 5): RateLimit-Policy / RateLimit on every
counted response (one list member per quota: per account and per client IP), 429 + Retry-After and both headers
once a quota is spent, and the admin's unlock page sees and clears them."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse
from knox.models import AuthToken
from rest_framework.test import APIClient

from quizzes.accounts import throttle
from tests import factories

pytestmark = pytest.mark.django_db
PASSWORD = "a-long-enough-pass-42"
MEMBER = re.compile(r'"(?P<name>[a-z_]+)";(?P<a>[qr])=(?P<n>\d+);(?P<b>[wt])=(?P<s>\d+)')


def members(value: str) -> dict[str, tuple[int, int]]:
    """A RateLimit-Policy or RateLimit list → {policy name: (q or r, w or t)}."""
    found = {m["name"]: (int(m["n"]), int(m["s"])) for m in MEMBER.finditer(value)}
    assert found and len(found) == len(value.split(",")), value
    return found


def signup(address: str, username: str):
    data = {"username": username, "password1": PASSWORD, "password2": PASSWORD}
    return Client(REMOTE_ADDR=address).post(reverse("web:signup"), data)


def test_signup_sends_both_quotas_then_429_with_retry_after(settings):
    settings.THROTTLE_RATES = {**settings.THROTTLE_RATES, "signup": {"username": "5/1h", "ip": "2/1h"}}
    first = signup("10.20.0.1", "farm0")
    assert first.status_code == 302
    assert members(first["RateLimit-Policy"]) == {"signup_username": (5, 3600), "signup_ip": (2, 3600)}
    state = members(first["RateLimit"])
    assert (state["signup_username"][0], state["signup_ip"][0]) == (4, 1)
    assert 0 < state["signup_ip"][1] <= 3600
    taken = signup("10.20.0.1", "farm0")  # a refused form (the name is taken) counts too, and says so
    assert taken.status_code == 400 and members(taken["RateLimit"])["signup_ip"][0] == 0
    refused = signup("10.20.0.1", "farm9")
    assert refused.status_code == 429 and "Too many attempts" in refused.content.decode()
    state = members(refused["RateLimit"])
    assert state["signup_ip"][0] == 0 and int(refused["Retry-After"]) == state["signup_ip"][1] > 0
    assert not get_user_model().objects.filter(username="farm9").exists()
    assert signup("10.20.0.2", "farm9").status_code == 302  # another address has its own quota
    assert signup("10.20.0.1", "farm8").status_code == 429
    assert "10.20.0.1" in str(throttle.locks(ip="10.20.0.1"))
    assert throttle.unlock(ip="10.20.0.1") == 1  # the admin's unlock clears the address's quota
    assert signup("10.20.0.1", "farm8").status_code == 302


def test_a_get_of_the_signup_page_is_not_counted(settings):
    assert "RateLimit" not in Client().get(reverse("web:signup"))


def api_for(user) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {AuthToken.objects.create(user=user)[1]}")
    return client


def test_exports_send_both_quotas_in_the_api_and_the_page(settings, tmp_path):
    settings.MEDIA_ROOT = str(tmp_path)
    settings.THROTTLE_RATES = {**settings.THROTTLE_RATES, "export": {"username": "2/1h", "ip": "100/1h"}}
    user = factories.UserFactory()
    api = api_for(user)
    inline = api.get("/api/v1/profile/export/")
    assert inline.status_code == 200
    assert members(inline["RateLimit-Policy"]) == {"export_username": (2, 3600), "export_ip": (100, 3600)}
    assert members(inline["RateLimit"])["export_username"][0] == 1
    browser = Client()
    browser.force_login(user)
    page = browser.post(reverse("web:export_start"))  # the settings button: the same learner's quota
    assert page.status_code == 302 and members(page["RateLimit"])["export_username"][0] == 0
    refused = api.post("/api/v1/profile/exports/")
    assert refused.status_code == 429 and refused.json()["error"]["code"] == "throttled"
    state = members(refused["RateLimit"])
    assert state["export_username"][0] == 0 and int(refused["Retry-After"]) == state["export_username"][1] > 0
    again = browser.post(reverse("web:export_start"))
    assert again.status_code == 429 and "RateLimit-Policy" in again and int(again["Retry-After"]) > 0
    other = api_for(factories.UserFactory()).get("/api/v1/profile/export/")
    assert other.status_code == 200 and members(other["RateLimit"])["export_username"][0] == 1
