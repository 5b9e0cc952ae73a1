"""Starting background work from a service: by Celery task *name*, once the transaction commits.

By name, not by importing the task: quizzes.tasks is an interface layer (it registers the Celery
tasks and calls the services), so a service that imported it would close an import cycle
(services → tasks → services). Services name the task (``"quizzes.tasks.run_generation_job"``);
``tasks.py`` registers it under that name. A Celery signature looks the task up in the app's
registry when it is applied, so eager mode (no broker, the default run) still runs it in process.

After the commit: a rolled-back request enqueues nothing. A broker that is down is logged, never
raised: every task here is driven by database state (a pending GenerationJob, a learner with reviews
due) that the next run or a re-run picks up.
"""

from __future__ import annotations

import logging
from typing import Any

logger = logging.getLogger("quizsite.celery")


def _broker_errors() -> tuple[type[BaseException], ...]:
    """What a publish raises when Redis is down or unreachable."""
    import kombu.exceptions
    import redis.exceptions

    return (kombu.exceptions.OperationalError, redis.exceptions.RedisError, OSError)


def enqueue(task_name: str, *args: Any, **kwargs: Any) -> bool:
    """Send the task named ``task_name`` now; False (logged) when the broker cannot take it."""
    from celery import current_app

    try:
        current_app.signature(task_name, args=args, kwargs=kwargs).apply_async()
    except _broker_errors():
        logger.exception("could not enqueue %s%r: broker unavailable", task_name, args)
        return False
    return True


def enqueue_on_commit(task_name: str, *args: Any, using: str | None = None, **kwargs: Any) -> None:
    """Send the task named ``task_name`` once the current transaction commits (at once outside one)."""
    from django.db import transaction

    transaction.on_commit(lambda: enqueue(task_name, *args, **kwargs), using=using)
