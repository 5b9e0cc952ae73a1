"""Celery app. Configured from Django settings (CELERY_* names); tasks are autodiscovered.

With no REDIS_URL the settings make tasks run eagerly in-process, so nothing needs a broker.
Reliability settings (acks_late, reject_on_worker_lost, time limits, visibility_timeout) live in
the "Background work and production" block of quizsite/settings.py.

``enqueue_on_commit`` is how web code starts background work: after the surrounding transaction
commits (a rolled-back request enqueues nothing), and a broker that is down is logged, never a 500.
"""

from __future__ import annotations

import logging
import os
from typing import Any

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "quizsite.settings")

app = Celery("quizsite")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()

logger = logging.getLogger("quizsite.celery")


def _broker_errors() -> tuple[type[BaseException], ...]:
    """What a publish raises when Redis is down or unreachable."""
    import kombu.exceptions
    import redis.exceptions

    return (kombu.exceptions.OperationalError, redis.exceptions.RedisError, OSError)


def enqueue(task: Any, *args: Any, **kwargs: Any) -> bool:
    """Send ``task`` now; False (logged) when the broker cannot take it.

    The work is not lost for good: every task here is driven by database state (a pending
    GenerationJob, a learner with reviews due) that the next run or a re-run picks up.
    """
    try:
        task.apply_async(args=args, kwargs=kwargs)
    except _broker_errors():
        logger.exception("could not enqueue %s%r: broker unavailable", task.name, args)
        return False
    return True


def enqueue_on_commit(task: Any, *args: Any, using: str | None = None, **kwargs: Any) -> None:
    """Send ``task`` once the current transaction commits (at once outside a transaction)."""
    from django.db import transaction

    transaction.on_commit(lambda: enqueue(task, *args, **kwargs), using=using)
