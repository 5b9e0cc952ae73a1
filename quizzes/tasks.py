"""Celery tasks: thin wrappers that take ids and call one service each (the interface layer for workers).

Services start tasks by name (quizzes.core.background: ``"quizzes.tasks.run_generation_job"``), never by
importing this module, so tasks → services is the only direction. Each task's ``name`` is that string.

Every task is idempotent (acks_late redelivers after a crash), has the soft/hard time limits from
settings, and retries transient failures — a database connection lost (OperationalError) or Redis
unreachable — with exponential backoff capped at TASK_RETRY_BACKOFF_MAX (below the broker's
visibility_timeout, see settings).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, TypeVar

import redis.exceptions
from celery import group, shared_task
from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.db import OperationalError, close_old_connections

from quizzes.content import generation
from quizzes.notifications import services as reminders
from quizzes.operations import housekeeping
from quizzes.privacy import services as exports
from quizzes.reviews import fitting, parameters

logger = logging.getLogger(__name__)

T = TypeVar("T")

TRANSIENT_ERRORS = (OperationalError, redis.exceptions.ConnectionError, redis.exceptions.TimeoutError)

RELIABLE: dict[str, Any] = {
    "acks_late": True,
    "reject_on_worker_lost": True,
    "autoretry_for": TRANSIENT_ERRORS,
    "retry_backoff": 5,
    "retry_backoff_max": settings.TASK_RETRY_BACKOFF_MAX,
    "retry_jitter": True,
    "max_retries": 6,
}


def _fresh_connection() -> None:
    """Drop a database connection the last failure left broken before (re)trying."""
    close_old_connections()


@shared_task(name="quizzes.tasks.send_review_reminders", **RELIABLE)
def send_review_reminders() -> dict[str, Any]:
    """Beat, every 15 minutes: take the learners whose reminder clock has come, one chunk task each (any worker)."""
    _fresh_connection()
    chunks = reminders.reminders_chunks()
    if chunks:
        group(send_review_reminders_chunk.s(chunk) for chunk in chunks).apply_async()
    learners = sum(map(len, chunks))
    logger.info("reminders: %d learners due, %d chunks dispatched", learners, len(chunks))
    return {"learners": learners, "chunks": len(chunks)}


@shared_task(name="quizzes.tasks.send_review_reminders_chunk", **RELIABLE)
def send_review_reminders_chunk(user_ids: list[int]) -> dict[str, Any]:
    """E-mail the learners of one chunk whose reminder is due (once per local day, see services)."""
    _fresh_connection()
    run = reminders.reminders_send_to(user_ids=user_ids)
    logger.info("reminders: %d sent, %d failed, %d skipped", len(run.sent), len(run.failed), run.skipped)
    return {"sent": len(run.sent), "failed": len(run.failed), "skipped": run.skipped}


def _failed_at_time_limit(run: Callable[[], T], *, what: str, fail: Callable[[], object]) -> T | None:
    """The soft-time-limit rule of the long jobs: a run the worker cuts short is logged and marked failed (with a
    reason its owner sees) rather than left running; None then, as for a job that is gone."""
    try:
        return run()
    except SoftTimeLimitExceeded:
        logger.warning("%s hit the soft time limit", what)
        fail()
        return None


@shared_task(name="quizzes.tasks.run_generation_job", **RELIABLE)
def run_generation_job(job_id: int) -> dict[str, Any] | None:
    """Create a GenerationJob's questions; resumes where a killed run stopped."""
    _fresh_connection()
    job = _failed_at_time_limit(
        lambda: generation.generation_job_run(job_id=job_id),
        what=f"generation job {job_id}",
        fail=lambda: generation.generation_job_fail(
            job_id=job_id, reason="time limit reached; run the job again to resume"
        ),
    )
    if job is None:
        return None
    return {"status": job.status, "done": job.done, "created": job.created, "errors": len(job.errors)}


@shared_task(name="quizzes.tasks.run_data_export", **RELIABLE)
def run_data_export(export_id: int) -> dict[str, Any] | None:
    """Write a learner's data export (JSON + Anki deck) to storage; a second copy of the message does nothing."""
    _fresh_connection()
    try:
        export = _failed_at_time_limit(
            lambda: exports.data_export_run(export_id=export_id),
            what=f"data export {export_id}",
            fail=lambda: exports.data_export_fail(
                export_id=export_id, reason="The export took too long. Ask for it again."
            ),
        )
    except TRANSIENT_ERRORS:
        raise  # retried with backoff (RELIABLE); the export is pending again
    except Exception:
        logger.exception("data export %s failed", export_id)
        exports.data_export_fail(export_id=export_id, reason="The export failed. Ask for it again.")
        return None
    if export is None:
        return None
    return {"status": export.status, "rows": export.total}


@shared_task(name="quizzes.tasks.housekeeping", **RELIABLE)
def housekeeping_task() -> dict[str, int]:
    """Beat, hourly: finish abandoned attempts, prune expired tokens, old idempotency keys, ended review packs and
    expired data exports (with their files)."""
    _fresh_connection()
    result = housekeeping.housekeeping_run()
    logger.info("housekeeping: %s", result)
    return {
        "attempts_finished": result.attempts_finished,
        "tokens_deleted": result.tokens_deleted,
        "idempotency_keys_deleted": result.idempotency_keys_deleted,
        "packs_deleted": result.packs_deleted,
        "exports_deleted": result.exports_deleted,
    }


@shared_task(name="quizzes.tasks.fit_learner_parameters_pass", **RELIABLE)
def fit_learner_parameters_pass() -> dict[str, int]:
    """Beat, daily: the learners with enough new history (quizzes.reviews.parameters.learners_to_fit), one fit
    task each on the fitting queue (off the request path; any fitting worker)."""
    _fresh_connection()
    user_ids = parameters.learners_to_fit()
    if user_ids:
        group(fit_learner_parameters.s(user_id) for user_id in user_ids).apply_async()
    logger.info("parameter fits: %d learners dispatched", len(user_ids))
    return {"learners": len(user_ids)}


@shared_task(name="quizzes.tasks.fit_learner_parameters", **RELIABLE)
def fit_learner_parameters(user_id: int) -> dict[str, Any]:
    """Fit one learner's FSRS parameters; kept only when they predict the learner's later reviews better."""
    _fresh_connection()
    fit = fitting.learner_parameters_fit(user_id=user_id)
    logger.info(
        "parameter fit of learner %s: %s (%d reviews, log loss %s -> %s, %.3f s CPU)",
        user_id, fit.outcome, fit.reviews, fit.log_loss_before, fit.log_loss_after, fit.cpu_seconds or 0,
    )  # fmt: skip
    return {"outcome": fit.outcome, "reviews": fit.reviews, "before": fit.log_loss_before, "after": fit.log_loss_after}
