"""Fixtures for the background-work tests: real Redis, a real Celery worker process, a throwaway Redis.

Policy (as tests/conftest.py for PostgreSQL): a test that needs Redis or a worker skips with the
reason where they are missing — unless CI=true, where it fails. Worker tests also need PostgreSQL
(the worker is another process and must see the test database; SQLite's test database is in memory).
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest
from django.conf import settings

ROOT = Path(__file__).resolve().parents[2]
WORKER_START_TIMEOUT = 30
#: Short in the worker tests so an abandoned message is redelivered within seconds.
TEST_VISIBILITY_TIMEOUT = 4


def _missing(reason: str) -> None:
    if os.environ.get("CI") == "true":
        pytest.fail(f"CI=true: {reason}", pytrace=False)
    pytest.skip(reason)


def redis_ping(url: str) -> bool:
    import redis

    client = redis.Redis.from_url(url, socket_connect_timeout=1, socket_timeout=1)
    try:
        return bool(client.ping())
    except redis.exceptions.RedisError:
        return False
    finally:
        client.close()


@pytest.fixture
def redis_url() -> str:
    """The Redis the settings use (REDIS_URL), reachable — or skip/fail per the policy."""
    url = settings.REDIS_URL
    if not url:
        _missing("needs Redis: set REDIS_URL=redis://127.0.0.1:6379/<db> to run it")
    if not redis_ping(url):
        _missing(f"needs Redis, but {url} does not answer")
    return url


def database_url() -> str:
    """A URL for the test database this test run created (the worker process connects to it)."""
    from django.db import connection

    db = connection.settings_dict
    if connection.vendor != "postgresql":
        _missing(
            f"needs PostgreSQL (a worker process must share the test database), but the database is "
            f"{connection.vendor}: set DATABASE_URL=postgres://postgres@127.0.0.1:5432/test to run it"
        )
    auth = db["USER"] + (f":{db['PASSWORD']}" if db.get("PASSWORD") else "")
    return f"postgres://{auth}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def production_env(**extra: str) -> dict[str, str]:
    """Environment for a child process on production settings (no DEBUG, a real secret key)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST", "DJANGO_"))}
    env.update(
        DJANGO_SETTINGS_MODULE="quizsite.settings",
        SECRET_KEY="ops-tests-" + uuid.uuid4().hex + uuid.uuid4().hex,
        DEBUG="false",
        ALLOWED_HOSTS="127.0.0.1,localhost,testserver",
        PYTHONPATH=str(ROOT),
    )
    env.update(extra)
    return env


@dataclass
class Worker:
    process: subprocess.Popen
    log: Path
    mail_dir: Path

    def kill(self) -> None:
        """SIGKILL: no warm shutdown, no message restored — as if the machine died."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(timeout=10)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.kill()

    def log_text(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    def sent_messages(self) -> list[str]:
        """E-mails the worker sent through the file backend, one string each."""
        texts = [path.read_text() for path in sorted(self.mail_dir.glob("*.log"))]
        messages = []
        for text in texts:
            messages += [m for m in text.split("-" * 79) if "Subject:" in m]
        return messages


def purge_broker(url: str) -> None:
    """Forget queued and unacknowledged messages left in this Redis db by an earlier run."""
    import redis

    client = redis.Redis.from_url(url)
    try:
        client.delete(*settings.BACKGROUND_QUEUES, "unacked", "unacked_index", "unacked_mutex")
    finally:
        client.close()


@pytest.fixture
def start_worker(redis_url, tmp_path) -> Iterator[Callable[..., Worker]]:
    """Start ``python -m tests.ops.worker_main`` (a real worker process) on the test database."""
    db_url = database_url()
    workers: list[Worker] = []

    def start(
        *,
        pool: str = "solo",
        concurrency: int = 1,
        travel_to: str | None = None,
        queues: Sequence[str] = (),
        extra_env: dict[str, str] | None = None,
    ) -> Worker:
        """``queues``: the worker's ``-Q`` (default: none given, so it consumes every queue of the settings).
        ``extra_env``: more environment for the worker (e.g. push credentials, OPS_FCM_URL)."""
        index = len(workers)
        log = tmp_path / f"worker{index}.log"
        mail_dir = tmp_path / "mail"
        mail_dir.mkdir(exist_ok=True)
        env = production_env(
            DATABASE_URL=db_url,
            REDIS_URL=redis_url,
            EMAIL_BACKEND="django.core.mail.backends.filebased.EmailBackend",
            EMAIL_FILE_PATH=str(mail_dir),
            BROKER_VISIBILITY_TIMEOUT=str(TEST_VISIBILITY_TIMEOUT),
            CELERY_TASK_SOFT_TIME_LIMIT="60",
            CELERY_TASK_TIME_LIMIT="90",
            STATIC_MANIFEST="false",
            SITE_URL="https://quiz.example.com",
        )
        if travel_to:
            env["OPS_TRAVEL_TO"] = travel_to
        env.update(extra_env or {})
        args = [
            sys.executable,
            "-m",
            "tests.ops.worker_main",
            f"--pool={pool}",
            f"--concurrency={concurrency}",
            "--without-mingle",
            "--without-gossip",
            "--without-heartbeat",
            "--loglevel=INFO",
            f"--hostname=ops-test-{uuid.uuid4().hex[:8]}@%h",
            *([f"--queues={','.join(queues)}"] if queues else []),
        ]
        with log.open("w") as out:
            process = subprocess.Popen(args, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
        worker = Worker(process=process, log=log, mail_dir=mail_dir)
        workers.append(worker)
        deadline = time.monotonic() + WORKER_START_TIMEOUT
        while " ready." not in worker.log_text():
            if process.poll() is not None or time.monotonic() > deadline:
                worker.kill()
                pytest.fail(f"the Celery worker did not start:\n{worker.log_text()[-3000:]}")
            time.sleep(0.1)
        return worker

    purge_broker(redis_url)
    yield start
    for worker in workers:
        worker.stop()
    purge_broker(redis_url)


def web_env(redis_url: str, **extra: str) -> dict[str, str]:
    """Production settings for a web server over plain HTTP on loopback, on this run's test database."""
    return production_env(
        DATABASE_URL=database_url(),
        REDIS_URL=redis_url,
        STATIC_MANIFEST="false",
        SECURE_SSL_REDIRECT="false",
        SESSION_COOKIE_SECURE="false",
        CSRF_COOKIE_SECURE="false",
        SECURE_HSTS_SECONDS="0",
        **extra,
    )


def start_gunicorn(env: dict[str, str], log: Path, *, workers: int = 1) -> tuple[subprocess.Popen, str]:
    """The production web server (``quizsite.wsgi``) on a free port with ``env``, once ``/healthz`` answers:
    the process and its base URL. The caller stops it (``terminate``)."""
    import requests

    port = free_port()
    with log.open("w") as out:
        server = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "quizsite.wsgi:application", "-b", f"127.0.0.1:{port}",
             "-w", str(workers)],
            cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT,
        )  # fmt: skip
    base = f"http://127.0.0.1:{port}"

    def up() -> bool:
        try:
            return requests.get(f"{base}/healthz", timeout=2).status_code == 200
        except (requests.ConnectionError, requests.Timeout):  # not up yet, or a first request slow on a busy host
            return False

    wait_for(up, timeout=30, what="gunicorn", log=log.read_text)
    return server, base


def wait_for(predicate: Callable[[], object], *, timeout: float = 30, what: str = "condition", log=None) -> object:
    """Poll until ``predicate()`` is truthy (the worker is another process: there is nothing to await)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.1)
    detail = f"\nworker log:\n{log()[-3000:]}" if log else ""
    pytest.fail(f"timed out after {timeout}s waiting for {what}{detail}")


@dataclass
class ThrowawayRedis:
    port: int
    data_dir: Path
    process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.process = subprocess.Popen(
            [
                shutil.which("redis-server") or "redis-server",
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                str(self.data_dir),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        wait_for(lambda: redis_ping(self.url), timeout=10, what=f"redis-server on port {self.port}")

    def stop(self) -> None:
        """Stop THIS server only (its own process), never the shared one on 6379."""
        if self.process and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=10)
        self.process = None


@pytest.fixture
def throwaway_redis(tmp_path) -> Iterator[ThrowawayRedis]:
    if not shutil.which("redis-server"):
        _missing("needs redis-server on PATH to start a throwaway Redis")
    server = ThrowawayRedis(port=free_port(), data_dir=tmp_path)
    server.start()
    yield server
    server.stop()
