"""With Redis stopped, the site still answers; `check --deploy` on production settings is clean.

The degradation test runs the real production server (gunicorn, DEBUG off) in a child process on
this run's PostgreSQL test database and on a THROWAWAY redis-server of its own (a free port), which
it stops and restarts — never the shared Redis on 6379.
"""

from __future__ import annotations

import re
import subprocess
import sys
import time
from collections.abc import Iterator

import pytest
import requests
from django.contrib.auth.hashers import PBKDF2PasswordHasher

from quizzes.models import GenerationJob
from tests import factories
from tests.ops.conftest import ROOT, production_env, start_gunicorn, wait_for, web_env


@pytest.fixture
def gunicorn(throwaway_redis, tmp_path) -> Iterator[tuple[str, callable]]:
    log = tmp_path / "gunicorn.log"
    env = web_env(throwaway_redis.url)
    server, base = start_gunicorn(env, log)
    yield base, log.read_text
    server.terminate()
    server.wait(timeout=15)


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_pages_api_admin_and_healthz_answer_with_redis_stopped(gunicorn, throwaway_redis, lesson):
    base, server_log = gunicorn
    # The server uses the real hashers (the tests' fast MD5 one is not among them).
    password = PBKDF2PasswordHasher().encode("pw-for-tests", "opstestsalt", iterations=1000)
    learner = factories.UserFactory(username="learner")
    admin = factories.UserFactory(username="boss", is_staff=True, is_superuser=True)
    type(admin).objects.filter(pk__in=[learner.pk, admin.pk]).update(password=password)
    source = factories.NumericQuestionFactory(lesson=lesson, key="degraded-src")
    assert requests.get(f"{base}/healthz", timeout=5).json()["redis"] == "ok"

    throwaway_redis.stop()
    started = time.monotonic()

    health = requests.get(f"{base}/healthz", timeout=10)
    assert health.status_code == 200
    assert health.json() == {"status": "degraded", "database": "ok", "redis": "down"}

    assert requests.get(f"{base}/", timeout=10).status_code < 500
    assert requests.get(f"{base}/lessons/", timeout=10).status_code < 500

    # The API: login is rate-limited through the cache (dead) — it must still log in, not 500.
    login = requests.post(
        f"{base}/api/v1/auth/login/", json={"username": "learner", "password": "pw-for-tests"}, timeout=10
    )
    assert login.status_code == 200, login.text
    token = login.json()["token"]
    lessons = requests.get(f"{base}/api/v1/lessons/", headers={"Authorization": f"Token {token}"}, timeout=10)
    assert lessons.status_code == 200, lessons.text

    # The admin starts a background job: the broker is down, the enqueue is logged, the admin gets its page.
    browser = requests.Session()
    page = browser.get(f"{base}/admin/login/", timeout=10)
    csrf = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text).group(1)
    logged_in = browser.post(
        f"{base}/admin/login/?next=/admin/",
        data={"csrfmiddlewaretoken": csrf, "username": admin.username, "password": "pw-for-tests"},
        headers={"Referer": f"{base}/admin/login/"},
        timeout=10,
    )
    assert logged_in.status_code == 200 and "/admin/logout/" in logged_in.text
    changelist = f"{base}/admin/quizzes/question/"
    csrf = browser.cookies["csrftoken"]
    started_job = browser.post(
        changelist,
        data={
            "csrfmiddlewaretoken": csrf,
            "action": "generate_standalone_questions",
            "_selected_action": [source.pk],
            "apply": "1",
            "total": "3",
            "first_seed": "0",
        },
        headers={"Referer": changelist},
        timeout=30,
    )
    assert started_job.status_code == 200, started_job.text[:2000]  # redirected back to the list
    assert GenerationJob.objects.filter(source=source, status="pending").count() == 1
    assert "could not enqueue quizzes.tasks.run_generation_job" in server_log()
    assert time.monotonic() - started < 60  # dead Redis costs timeouts of seconds, not minutes

    throwaway_redis.start()  # Redis is back: health says so on the next probe
    wait_for(lambda: requests.get(f"{base}/healthz", timeout=5).json()["redis"] == "ok", timeout=15, what="redis ok")


def test_check_deploy_with_production_settings_reports_no_warnings():
    env = production_env(
        ALLOWED_HOSTS="quiz.example.com",
        DATABASE_URL="postgres://quiz:secret@db.internal:5432/quizsite",
        REDIS_URL="redis://cache.internal:6379/0",
        SITE_URL="https://quiz.example.com",
    )
    env.pop("DEBUG")
    done = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "System check identified no issues (0 silenced)." in done.stdout
