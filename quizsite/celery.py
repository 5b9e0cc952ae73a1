"""Celery app. Configured from Django settings (CELERY_* names); tasks are autodiscovered.

With no REDIS_URL the settings make tasks run eagerly in-process, so nothing needs a broker.
Reliability settings (acks_late, reject_on_worker_lost, time limits, visibility_timeout) live in
the "Background work and production" block of quizsite/settings.py.

Services start background work with ``quizzes.core.background.enqueue_on_commit`` (by task name,
after the surrounding transaction commits; a broker that is down is logged, never a 500). Each task
name is routed to its queue (reminders, generation, housekeeping, else ``celery``) by
``CELERY_TASK_ROUTES`` in settings, the one place that says which work waits behind which.
"""

from __future__ import annotations

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "quizsite.settings")

app = Celery("quizsite")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
