"""Celery app. Configured from Django settings (CELERY_* names); tasks are autodiscovered.

With no REDIS_URL the settings make tasks run eagerly in-process, so nothing needs a broker.
"""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "quizsite.settings")

app = Celery("quizsite")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
