"""The benchmarks' own PostgreSQL databases: created, migrated, loaded and seeded on first use, dropped on request.

    .venv/bin/python bench/databases.py ensure URL --learners N --cards M
    .venv/bin/python bench/databases.py drop URL [URL ...]

Every bench command (``make bench-load``, ``bench-scaling``, ``bench-reminders``) calls ``ensure`` for the
databases it needs, so a fresh machine with PostgreSQL on 127.0.0.1 needs nothing else; each takes
``--cleanup`` to ``drop`` them (and empty its Redis db) afterwards. Each step prints a line with its time.
Django runs in subprocesses (``manage.py``) because one bench process may prepare several databases.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit

REPO = Path(__file__).resolve().parent.parent


def django_env(url: str, redis_url: str = "") -> dict[str, str]:
    return {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "quizsite.settings",
        "DATABASE_URL": url,
        "REDIS_URL": redis_url,
        "DEBUG": "false",
        "SECRET_KEY": "bench-only-secret-key-" + "x" * 40,
        "LOG_LEVEL": "WARNING",
    }


# The load benchmark's database and Redis db (``make bench-load`` seeds them): bench/profile.py and
# bench/sql_paths.py measure on them too.
LOAD_BENCH_URL = os.environ.get("BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/quizsite_bench")
LOAD_BENCH_REDIS_URL = os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/5")

# What Django's test client needs of the settings in a bench that runs requests in process.
TEST_CLIENT = {"ALLOWED_HOSTS": "testserver,127.0.0.1", "SECURE_SSL_REDIRECT": "false"}


def use_in_process(url: str, redis_url: str = "", **settings: str) -> None:
    """Point this process's Django at a bench database (before ``django.setup()``): the settings the
    subprocesses get from ``django_env``, ``settings`` on top."""
    os.environ.update({**django_env(url, redis_url), **settings})


def _admin_url(url: str) -> tuple[str, str]:
    parts = urlsplit(url)
    return parts._replace(path="/postgres").geturl(), parts.path.lstrip("/")


def _say(message: str, since: float) -> None:
    print(f"[bench db] {message} ({time.perf_counter() - since:.1f} s)", flush=True)


def create(url: str) -> str:
    """Create the database if it is missing; its name."""
    import psycopg

    t0 = time.perf_counter()
    admin, name = _admin_url(url)
    with psycopg.connect(admin, autocommit=True) as conn:
        if conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone() is None:
            conn.execute(f'CREATE DATABASE "{name}"')
            _say(f"created database {name}", t0)
    return name


def ensure(url: str, *, learners: int, cards: int, attempts: bool = True) -> None:
    """Create the database if missing, migrate it, load the lessons, and seed N × M unless already seeded so."""
    import psycopg

    t0 = time.perf_counter()
    name = create(url)
    manage = [sys.executable, "manage.py"]
    env = django_env(url)
    subprocess.run([*manage, "migrate", "--noinput", "-v0"], cwd=REPO, env=env, check=True)
    _say(f"{name}: migrated", t0)
    with psycopg.connect(url) as conn:
        if conn.execute("SELECT count(*) FROM quizzes_lesson").fetchone()[0] == 0:
            subprocess.run([*manage, "load_lessons", "-v0"], cwd=REPO, env=env, check=True, stdout=subprocess.DEVNULL)
            _say(f"{name}: lessons loaded", t0)
        users = conn.execute("SELECT count(*) FROM auth_user WHERE username LIKE 'scale-%%'").fetchone()[0]
        first = conn.execute(
            "SELECT count(*) FROM quizzes_reviewcard c JOIN auth_user u ON u.id = c.user_id "
            "WHERE u.username = 'scale-000001'"
        ).fetchone()[0]
    if users == learners and first >= min(cards, 1):
        _say(f"{name}: already seeded with {users:,} learners", t0)
        return
    _say(f"{name}: seeding {learners:,} learners × {cards} cards (seed_scale; minutes at 1M cards)", t0)
    subprocess.run(
        [*manage, "seed_scale", "--learners", str(learners), "--cards", str(cards), "--seed", "0", "--wipe",
         "--attempts" if attempts else "--no-attempts"],
        cwd=REPO, env=env, check=True,
    )  # fmt: skip
    _say(f"{name}: seeded", t0)


def drop(url: str) -> None:
    """Drop the database (closing other connections to it): the ``--cleanup`` of every bench command."""
    import psycopg

    admin, name = _admin_url(url)
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    print(f"[bench db] dropped {name}", flush=True)


def flush_redis(url: str) -> None:
    import redis

    redis.Redis.from_url(url).flushdb()
    print(f"[bench db] emptied {url}", flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    make = sub.add_parser("ensure")
    make.add_argument("url")
    make.add_argument("--learners", type=int, required=True)
    make.add_argument("--cards", type=int, required=True)
    make.add_argument("--attempts", action=argparse.BooleanOptionalAction, default=True)
    gone = sub.add_parser("drop")
    gone.add_argument("urls", nargs="+")
    args = parser.parse_args()
    if args.command == "ensure":
        ensure(args.url, learners=args.learners, cards=args.cards, attempts=args.attempts)
    else:
        for url in args.urls:
            drop(url)
    return 0


if __name__ == "__main__":
    sys.exit(main())
