"""The log-in throttle across real processes, and with Redis really stopped.

Two separate gunicorn servers (production settings, DEBUG off) share this run's PostgreSQL test
database and a THROWAWAY redis-server (tests/ops/conftest.py), never the shared one on 6379:

1. wrong passwords on the learner log-in page, alternating between the two servers, lock the account out
   for this client address (the (account, address) pair) after 5 in total — the counters are shared — and the
   right password is then refused on both, page and API;
2. with that Redis stopped, log-ins still work (nothing fails), and each process keeps counting on its own
   (the documented fallback in quizzes.accounts.throttle): 5 wrong passwords on one server lock the account there.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
import requests
from django.contrib.auth.hashers import PBKDF2PasswordHasher

from tests import factories
from tests.ops.conftest import start_gunicorn, web_env

PASSWORD = "pw-for-tests"


@pytest.fixture
def two_servers(throwaway_redis, tmp_path) -> Iterator[list[str]]:
    env = web_env(throwaway_redis.url)
    servers = [start_gunicorn(env, tmp_path / f"gunicorn{i}.log") for i in range(2)]
    yield [base for _server, base in servers]
    for server, _base in servers:
        server.terminate()
        server.wait(timeout=15)


def web_login(base: str, username: str, password: str) -> requests.Response:
    """A fresh browser: fetch the page for its CSRF token, then post the form."""
    browser = requests.Session()
    page = browser.get(f"{base}/accounts/login/", timeout=10)
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text).group(1)
    return browser.post(
        f"{base}/accounts/login/",
        data={"csrfmiddlewaretoken": token, "username": username, "password": password},
        headers={"Referer": f"{base}/accounts/login/"},
        allow_redirects=False,
        timeout=10,
    )


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_lockout_is_shared_by_processes_and_survives_a_redis_outage(two_servers, throwaway_redis):
    first, second = two_servers
    hashed = PBKDF2PasswordHasher().encode(PASSWORD, "opstestsalt", iterations=1000)
    for name in ("target", "bystander", "later"):
        user = factories.UserFactory(username=name)
        type(user).objects.filter(pk=user.pk).update(password=hashed)

    for index in range(5):  # 5 failures, alternating servers (separate processes)
        assert web_login((first, second)[index % 2], "target", "wrong").status_code == 200
    for base in (first, second):
        refused = web_login(base, "target", PASSWORD)
        assert refused.status_code == 429, refused.text[:500]
        assert "Too many attempts; try again in" in refused.text
        assert int(refused.headers["Retry-After"]) > 0
    api = requests.post(f"{second}/api/v1/auth/login/", json={"username": "target", "password": PASSWORD}, timeout=10)
    assert api.status_code == 429 and api.json()["error"]["code"] == "throttled"
    assert web_login(first, "bystander", PASSWORD).status_code == 302  # others are not affected

    throwaway_redis.stop()
    assert web_login(first, "later", PASSWORD).status_code == 302  # log-in works with Redis down
    for _ in range(5):
        assert web_login(first, "later", "wrong").status_code == 200
    assert web_login(first, "later", PASSWORD).status_code == 429  # still limited, in this process
    api = requests.post(f"{first}/api/v1/auth/login/", json={"username": "later", "password": PASSWORD}, timeout=10)
    assert api.status_code == 429
