"""Services start tasks by name (quizzes.core.background): every process must know those names.

A web process never imports quizzes.tasks itself (services must not: that was the services ↔ tasks import
cycle); the app config does. Without it, Celery sends a name it does not know as an unknown task — without
the task's options, and subscribing to its result in Redis, which fails while Redis is down.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]

FRESH_PROCESS = """
import django
django.setup()
from celery import current_app
from quizzes.content.generation import RUN_TASK
signature = current_app.signature(RUN_TASK, args=(1,))
print(RUN_TASK in current_app.tasks, signature.type.name)
"""


def test_a_fresh_process_knows_every_task_a_service_names():
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "quizsite.settings", "SECRET_KEY": "background-test-only"}
    result = subprocess.run(
        [sys.executable, "-c", FRESH_PROCESS], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["True", "quizzes.tasks.run_generation_job"]
