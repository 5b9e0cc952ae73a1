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


def test_web_login_locks_after_five_failures_even_for_the_right_password(client):
    user = factories.UserFactory(username="lin")
    for _ in range(5):
        assert web_login(client, "lin").status_code == 200  # the form again, with its error
    refused = web_login(client, "lin", factories.PASSWORD)
    assert refused.status_code == 429
    assert 0 < int(refused["Retry-After"]) <= 15 * 60
    assert "Too many attempts; try again in 15 minutes." in refused.content.decode()
    assert not logged_in(client)
    assert user.last_login is None


def test_the_locked_page_is_translated(client):
    factories.UserFactory(username="lin")
    for _ in range(5):
        web_login(client, "lin")
    refused = client.post(LOGIN, {"username": "lin", "password": "x"}, headers={"accept-language": "zh-hans"})
    assert refused.status_code == 429
    assert "尝试次数过多" in refused.content.decode()


def test_web_and_api_share_the_username_counter(client):
    factories.UserFactory(username="shared")
    for _ in range(3):
        web_login(client, "shared")
    for index in range(2):
        assert api_login("shared", ip=f"10.3.3.{index}").status_code == 400
    assert api_login("shared", factories.PASSWORD).status_code == 429
    assert web_login(Client(REMOTE_ADDR="10.4.4.4"), "SHARED", factories.PASSWORD).status_code == 429  # case-folded


def test_admin_login_is_throttled_too(client):
    factories.UserFactory(username="boss", is_staff=True, is_superuser=True)
    for _ in range(5):
        client.post("/admin/login/", {"username": "boss", "password": "wrong"})
    client.post("/admin/login/?next=/admin/", {"username": "boss", "password": factories.PASSWORD})
    assert not logged_in(client)
    assert api_login("boss", factories.PASSWORD).status_code == 429


def test_success_clears_the_usernames_counter_but_never_the_ips(settings):
    settings.THROTTLE_RATES = {**settings.THROTTLE_RATES, "login": {"username": "3/15m", "ip": "4/15m"}}
    factories.UserFactory(username="ada")
    office = Client(REMOTE_ADDR="10.5.5.5")
    web_login(office, "ada")
    web_login(office, "ada")
    assert web_login(office, "ada", factories.PASSWORD).status_code == 302  # success: ada's counter is cleared
    office.post(reverse("web:logout"))
    for _ in range(3):  # ada may fail 3 times again (from elsewhere) before she is locked
        assert web_login(Client(REMOTE_ADDR="10.6.6.6"), "ada").status_code == 200
    assert web_login(Client(REMOTE_ADDR="10.6.6.7"), "ada", factories.PASSWORD).status_code == 429
    # the office IP kept its 2 failures (the success gave back only its own reservation): 2 more, then locked
    assert web_login(office, "someone").status_code == 200
    assert web_login(office, "someone-else").status_code == 200
    assert web_login(office, "a-third").status_code == 429


def test_one_trusted_proxy_rule_for_pages_and_api(settings):
    settings.NUM_PROXIES = 1
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "NUM_PROXIES": 1}
    settings.THROTTLE_RATES = {**settings.THROTTLE_RATES, "login": {"username": "50/15m", "ip": "2/15m"}}
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
    settings.THROTTLE_RATES = {**settings.THROTTLE_RATES, "login": {"username": "50/15m", "ip": "2/15m"}}
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
    assert web_login(Client(), "locked", factories.PASSWORD).status_code == 429
    changelist = reverse("admin:auth_user_changelist")
    assert reverse("admin:auth_user_throttles") in admin_client.get(changelist).content.decode()
    done = admin_client.post(changelist, {"action": "unlock_sign_in", "_selected_action": [user.pk]}, follow=True)
    assert "Unlocked 1 user" in done.content.decode()
    assert web_login(Client(), "locked", factories.PASSWORD).status_code == 302

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
    for _ in range(5):
        assert web_login(client, "offline").status_code == 200
    assert web_login(client, "offline", factories.PASSWORD).status_code == 429
    assert "throttle: the shared cache failed" in caplog.text
