"""One throttle policy for every way in (quizzes.accounts.throttle): learner and admin log-in, the API, reset, sign-up.

Counters are in the ``throttle`` cache (Redis when REDIS_URL is set). The cross-process and Redis-down
behaviour with real gunicorn processes is in tests/ops/test_throttle_processes.py.
"""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from quizzes.accounts import throttle
from tests import factories

pytestmark = pytest.mark.django_db
LOGIN = reverse("web:login")
API_LOGIN = "/api/v1/auth/login/"


def web_login(client: Client, username: str, password: str = "wrong"):
    return client.post(LOGIN, {"username": username, "password": password})


def api_login(username: str, password: str = "wrong", ip: str = "10.9.9.9"):
    return APIClient(REMOTE_ADDR=ip).post(API_LOGIN, {"username": username, "password": password}, format="json")


def logged_in(client: Client) -> bool:
    return "_auth_user_id" in client.session


def test_web_login_locks_the_address_out_after_five_failures_even_for_the_right_password(client):
    user = factories.UserFactory(username="lin")
    for _ in range(5):
        assert web_login(client, "lin").status_code == 200  # the form again, with its error
    refused = web_login(client, "lin", factories.PASSWORD)
    assert refused.status_code == 429
    assert 0 < int(refused["Retry-After"]) <= 15 * 60
    assert "Too many attempts; try again in 15 minutes." in refused.content.decode()
    assert not logged_in(client)
    user.refresh_from_db()
    assert user.last_login is None
    # the owner, elsewhere, is not locked out by someone else's guesses (OWASP: no lock-out by others)
    owner = Client(REMOTE_ADDR="10.12.12.12")
    assert web_login(owner, "lin", factories.PASSWORD).status_code == 302


def test_the_locked_page_is_translated(client):
    factories.UserFactory(username="lin")
    for _ in range(5):
        web_login(client, "lin")
    refused = client.post(LOGIN, {"username": "lin", "password": "x"}, headers={"accept-language": "zh-hans"})
    assert refused.status_code == 429
    assert "尝试次数过多" in refused.content.decode()


def test_web_and_api_share_the_account_and_address_counter():
    factories.UserFactory(username="shared")
    browser = Client(REMOTE_ADDR="10.3.3.3")
    for _ in range(3):
        web_login(browser, "shared")
    for _ in range(2):
        assert api_login("shared", ip="10.3.3.3").status_code == 400
    assert api_login("shared", factories.PASSWORD, ip="10.3.3.3").status_code == 429
    assert web_login(Client(REMOTE_ADDR="10.3.3.3"), "SHARED", factories.PASSWORD).status_code == 429  # case-folded
    assert web_login(Client(REMOTE_ADDR="10.4.4.4"), "shared", factories.PASSWORD).status_code == 302


def test_admin_login_is_throttled_too(client):
    factories.UserFactory(username="boss", is_staff=True, is_superuser=True)
    for _ in range(5):
        client.post("/admin/login/", {"username": "boss", "password": "wrong"})
    client.post("/admin/login/?next=/admin/", {"username": "boss", "password": factories.PASSWORD})
    assert not logged_in(client)
    assert api_login("boss", factories.PASSWORD, ip="127.0.0.1").status_code == 429  # the test client's address


def login_rates(**rates: str) -> dict[str, str]:
    return {"pair": "5/15m", "ip": "20/15m", "username": "100/1h", "device": "10/15m", **rates}


def test_success_clears_the_pairs_counter_but_never_the_addresses(settings):
    settings.THROTTLE_RATES = {**settings.THROTTLE_RATES, "login": login_rates(pair="3/15m", ip="6/15m")}
    factories.UserFactory(username="ada")
    office = Client(REMOTE_ADDR="10.5.5.5")
    web_login(office, "ada")
    web_login(office, "ada")
    assert web_login(office, "ada", factories.PASSWORD).status_code == 302  # success: (ada, office) is cleared
    office.post(reverse("web:logout"))
    office.cookies.pop(throttle.KNOWN_DEVICE_COOKIE)  # an unknown browser again
    web_login(office, "ada")
    web_login(office, "ada")
    assert web_login(office, "ada", factories.PASSWORD).status_code == 302  # 2 + 2 failures would be over 3
    office.post(reverse("web:logout"))
    office.cookies.pop(throttle.KNOWN_DEVICE_COOKIE)
    # the office address kept its 4 failures (a success gave back only its own reservation): 2 more, then locked
    assert web_login(office, "someone").status_code == 200
    assert web_login(office, "someone-else").status_code == 200
    assert web_login(office, "a-third").status_code == 429


def test_the_account_wide_limit_holds_unknown_browsers_but_not_the_owners_known_one(settings):
    """Guesses from many addresses reach the account-wide limit; a browser the owner signed in with before (its
    known-device cookie) still signs in, and counts its own failures only."""
    settings.THROTTLE_RATES = {**settings.THROTTLE_RATES, "login": login_rates(pair="2/15m", username="6/1h")}
    factories.UserFactory(username="grace")
    laptop = Client(REMOTE_ADDR="10.13.0.1")
    assert web_login(laptop, "grace", factories.PASSWORD).status_code == 302
    assert throttle.KNOWN_DEVICE_COOKIE in laptop.cookies
    laptop.post(reverse("web:logout"))
    for index in range(6):
        assert web_login(Client(REMOTE_ADDR=f"10.13.1.{index}"), "grace").status_code == 200
    assert web_login(Client(REMOTE_ADDR="10.13.2.1"), "grace", factories.PASSWORD).status_code == 429
    assert web_login(laptop, "grace", factories.PASSWORD).status_code == 302
    laptop.post(reverse("web:logout"))
    # the cookie is this account's only: for another account the laptop is an unknown browser
    factories.UserFactory(username="other")
    assert web_login(laptop, "other", factories.PASSWORD).status_code == 302


def test_a_password_reset_by_e_mail_gets_the_owner_in_while_the_account_is_held(settings):
    settings.THROTTLE_RATES = {**settings.THROTTLE_RATES, "login": login_rates(pair="2/15m", username="4/1h")}
    factories.UserFactory(username="hopper", email="hopper@example.com")
    for index in range(4):
        web_login(Client(REMOTE_ADDR=f"10.14.1.{index}"), "hopper")
    owner = Client(REMOTE_ADDR="10.14.9.9")
    assert web_login(owner, "hopper", factories.PASSWORD).status_code == 429
    assert owner.post(reverse("web:password_reset"), {"email": "hopper@example.com"}).status_code == 302
    link = next(line for line in mail.outbox[-1].body.splitlines() if "/accounts/password/reset/" in line)
    form = owner.get(link.strip()[link.index("/accounts/") :], follow=True)
    new = "a-brand-new-pass-77"
    done = owner.post(form.redirect_chain[-1][0], {"new_password1": new, "new_password2": new})
    assert done.status_code == 302
    assert throttle.KNOWN_DEVICE_COOKIE in owner.cookies
    assert web_login(owner, "hopper", new).status_code == 302  # this browser is known now
    owner.post(reverse("web:logout"))
    assert web_login(Client(REMOTE_ADDR="10.14.9.8"), "hopper", new).status_code == 302  # the account-wide lock ended


def test_one_trusted_proxy_rule_for_pages_and_api(settings):
    settings.NUM_PROXIES = 1
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "NUM_PROXIES": 1}
    settings.THROTTLE_RATES = {**settings.THROTTLE_RATES, "login": login_rates(ip="2/15m")}
    behind = {"REMOTE_ADDR": "10.0.0.1"}  # the proxy
    web = Client(**behind, HTTP_X_FORWARDED_FOR="spoofed, 203.0.113.7")
    web_login(web, "u1")
    web_login(web, "u2")
    assert web_login(web, "u3").status_code == 429
    api = APIClient(**behind, HTTP_X_FORWARDED_FOR="198.51.100.1, 203.0.113.7")  # same client, another spoof
    assert api.post(API_LOGIN, {"username": "u4", "password": "x"}, format="json").status_code == 429
    other = Client(**behind, HTTP_X_FORWARDED_FOR="203.0.113.8")
    assert web_login(other, "u5").status_code == 200


def test_without_proxies_x_forwarded_for_is_ignored(settings):
    settings.THROTTLE_RATES = {**settings.THROTTLE_RATES, "login": login_rates(ip="2/15m")}
    for index in range(2):
        web_login(Client(REMOTE_ADDR="10.7.7.7", HTTP_X_FORWARDED_FOR=f"1.2.3.{index}"), f"u{index}")
    assert web_login(Client(REMOTE_ADDR="10.7.7.7", HTTP_X_FORWARDED_FOR="9.9.9.9"), "u9").status_code == 429


def test_ipv6_clients_are_counted_by_their_64_network():
    request = type("R", (), {"META": {"REMOTE_ADDR": "2001:db8:1:2:aaaa::1"}})()
    other = type("R", (), {"META": {"REMOTE_ADDR": "2001:db8:1:2:bbbb::9"}})()
    assert throttle._identities(request, None) == throttle._identities(other, None)


def test_password_reset_requests_are_limited_per_address(client):
    factories.UserFactory(email="ada@example.com")
    url = reverse("web:password_reset")
    for index in range(3):
        assert Client(REMOTE_ADDR=f"10.8.8.{index}").post(url, {"email": "ada@example.com"}).status_code == 302
    refused = Client(REMOTE_ADDR="10.8.8.99").post(url, {"email": "ADA@example.com"})
    assert refused.status_code == 429 and "Too many attempts" in refused.content.decode()
    assert len(mail.outbox) == 3


def test_signups_are_limited_per_ip(settings):
    settings.THROTTLE_RATES = {**settings.THROTTLE_RATES, "signup": {"username": "5/1h", "ip": "2/1h"}}
    password = "a-long-enough-pass-42"
    for index in range(2):
        client = Client(REMOTE_ADDR="10.10.10.10")
        data = {"username": f"farm{index}", "password1": password, "password2": password}
        assert client.post(reverse("web:signup"), data).status_code == 302
    data = {"username": "farm9", "password1": password, "password2": password}
    assert Client(REMOTE_ADDR="10.10.10.10").post(reverse("web:signup"), data).status_code == 429
    assert get_user_model().objects.filter(username__startswith="farm").count() == 2


def test_admin_action_and_page_unlock(admin_client):
    user = factories.UserFactory(username="locked", email="locked@example.com")
    for _ in range(6):
        web_login(Client(REMOTE_ADDR="10.11.11.11"), "locked")
    assert web_login(Client(REMOTE_ADDR="10.11.11.11"), "locked", factories.PASSWORD).status_code == 429
    changelist = reverse("admin:auth_user_changelist")
    assert reverse("admin:auth_user_throttles") in admin_client.get(changelist).content.decode()
    done = admin_client.post(changelist, {"action": "unlock_sign_in", "_selected_action": [user.pk]}, follow=True)
    assert "Unlocked 1 user" in done.content.decode()
    assert web_login(Client(REMOTE_ADDR="10.11.11.11"), "locked", factories.PASSWORD).status_code == 302

    # the page: look an IP up, see its lock, unlock it
    page = reverse("admin:auth_user_throttles")
    shown = admin_client.post(page, {"ip": "10.11.11.11", "lookup": "1"}).content.decode()
    assert "ip: 10.11.11.11" in shown
    admin_client.post(page, {"ip": "10.11.11.11", "unlock": "1"})
    assert throttle.locks(ip="10.11.11.11") == []


def test_with_the_shared_store_down_each_process_still_counts(settings, client, caplog):
    """A dead Redis (nothing listens on the port): log-ins work and stay limited, per process, logged."""
    settings.CACHES = {
        **settings.CACHES,
        "throttle": {
            "BACKEND": "django_redis.cache.RedisCache",
            "LOCATION": "redis://127.0.0.1:1/0",
            "OPTIONS": {"CLIENT_CLASS": "django_redis.client.DefaultClient", "SOCKET_CONNECT_TIMEOUT": 1},
        },
    }
    factories.UserFactory(username="offline")
    assert web_login(client, "offline", factories.PASSWORD).status_code == 302
    client.post(reverse("web:logout"))
    client.cookies.pop(throttle.KNOWN_DEVICE_COOKIE)  # guessed from an unknown browser
    for _ in range(5):
        assert web_login(client, "offline").status_code == 200
    assert web_login(client, "offline", factories.PASSWORD).status_code == 429
    assert "throttle: the shared cache failed" in caplog.text
