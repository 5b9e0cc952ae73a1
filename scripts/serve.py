"""`make serve`: the production stack on this machine, in the foreground; Ctrl-C stops everything.

gunicorn (2 workers, whitenoise static files) + one Celery worker + Celery beat, against the
machine's PostgreSQL (DATABASE_URL, default postgres://postgres@127.0.0.1:5432/quizsite — created
if missing) and Redis (REDIS_URL, default redis://127.0.0.1:6379/0). Runs collectstatic and
migrate first. Production settings (DEBUG off), except that plain HTTP on localhost is allowed:
the HTTPS redirect, secure cookies and HSTS default to off here (override them in the environment).
SECRET_KEY is generated once into .serve-secret-key if not set.
"""

from __future__ import annotations

import os
import secrets
import signal
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit

REPO = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent


def environment() -> dict[str, str]:
    env = dict(os.environ)
    env.setdefault("DJANGO_SETTINGS_MODULE", "quizsite.settings")
    env.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/quizsite")
    env.setdefault("REDIS_URL", "redis://127.0.0.1:6379/0")
    env.setdefault("HOST", "127.0.0.1")
    env.setdefault("PORT", "8000")
    env.setdefault("ALLOWED_HOSTS", f"{env['HOST']},localhost,127.0.0.1")
    env.setdefault("SITE_URL", f"http://{env['HOST']}:{env['PORT']}")
    for name in ("SECURE_SSL_REDIRECT", "SESSION_COOKIE_SECURE", "CSRF_COOKIE_SECURE"):
        env.setdefault(name, "false")
    env.setdefault("SECURE_HSTS_SECONDS", "0")  # HSTS on localhost would stick in the browser
    env.setdefault("DEBUG", "false")
    if not env.get("SECRET_KEY"):
        key_file = REPO / ".serve-secret-key"
        if not key_file.exists():
            key_file.write_text(secrets.token_urlsafe(64))
            key_file.chmod(0o600)
        env["SECRET_KEY"] = key_file.read_text().strip()
    return env


def create_database(url: str) -> None:
    """createdb if the PostgreSQL database does not exist yet."""
    parts = urlsplit(url)
    if parts.scheme not in ("postgres", "postgresql", "pgsql"):
        return
    import psycopg

    name = parts.path.lstrip("/")
    admin_url = parts._replace(path="/postgres").geturl()
    with psycopg.connect(admin_url, autocommit=True) as conn:
        if conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone() is None:
            conn.execute(f'CREATE DATABASE "{name}"')
            print(f"created database {name}", flush=True)


def main() -> int:
    env = environment()
    os.chdir(REPO)
    create_database(env["DATABASE_URL"])
    manage = [sys.executable, "manage.py"]
    subprocess.run([*manage, "collectstatic", "--noinput", "--verbosity", "0"], env=env, check=True)
    subprocess.run([*manage, "migrate", "--noinput", "--verbosity", "1"], env=env, check=True)
    commands = {
        "web": [
            sys.executable, "-m", "gunicorn", "quizsite.wsgi:application",
            "--bind", f"{env['HOST']}:{env['PORT']}", "--workers", "2", "--access-logfile", "-",
        ],
        "worker": [sys.executable, "-m", "celery", "-A", "quizsite", "worker", "--loglevel=INFO", "--concurrency=2"],
        "beat": [
            sys.executable, "-m", "celery", "-A", "quizsite", "beat", "--loglevel=INFO",
            f"--schedule={REPO / '.celerybeat-schedule'}",
        ],
    }  # fmt: skip
    processes = {name: subprocess.Popen(cmd, env=env) for name, cmd in commands.items()}
    print(f"\nquizsite (production stack) at {env['SITE_URL']}/  — Ctrl-C stops web, worker and beat\n", flush=True)

    stopping = False

    def stop(*_args: object) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)
    exit_code = 0
    while not stopping:
        for name, process in processes.items():
            if process.poll() is not None:
                print(f"{name} exited with {process.returncode}; stopping the rest", flush=True)
                exit_code = process.returncode or 1
                stopping = True
        time.sleep(0.5)
    for process in processes.values():
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
    deadline = time.monotonic() + 20
    for process in processes.values():
        try:
            process.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            process.kill()
    return exit_code


if __name__ == "__main__":
    sys.exit(main())
