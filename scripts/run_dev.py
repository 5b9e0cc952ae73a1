"""`make run`: bring quizsite up on the zero-install defaults with the demo content.

SQLite, local-memory cache and eager Celery unless DATABASE_URL / REDIS_URL say otherwise.
Migrates, loads (upserts) the lessons (a conflict with an admin's edits is reported, not fatal),
creates the demo learner and admin, prints where to go, then hands the process over to Django's development server.
"""

import os
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
os.chdir(REPO)
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "quizsite.settings")
os.environ.setdefault("DEBUG", "true")
os.environ.setdefault("SINGLE_PROCESS", "true")  # runserver + eager Celery: the learner cache runs in local memory

import django  # noqa: E402

django.setup()

from django.core.management import call_command  # noqa: E402

from quizzes.management.commands.load_lessons import load_lessons_for_serving  # noqa: E402


def main() -> None:
    host = os.environ.get("HOST", "127.0.0.1")
    port = os.environ.get("PORT", "8000")
    call_command("migrate", interactive=False, verbosity=0)
    load_lessons_for_serving(stdout=sys.stdout, stderr=sys.stderr)  # a conflict with admin edits: reported, serves
    call_command("seed_demo")
    print(f"\nquizsite is starting at http://{host}:{port}/  (admin: http://{host}:{port}/admin/)\n", flush=True)
    os.execv(sys.executable, [sys.executable, "manage.py", "runserver", f"{host}:{port}"])


if __name__ == "__main__":
    main()
