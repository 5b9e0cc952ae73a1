"""Bulk generation: turn a numeric question into N standalone questions with fixed variant seeds.

An admin creates a ``GenerationJob`` (``generation_job_create``); the task
``quizzes.tasks.run_generation_job`` (enqueued by name after the commit: quizzes.core.background)
runs ``generation_job_run``. Which questions may be a source is ``generation_source_check``, used by
the service and the admin's action alike. Each seed in ``first_seed .. first_seed+total-1`` becomes
one Question copied from the source (lesson, prompt, explanation, template, **template version**,
params, answer form) with ``fixed_seed`` = the seed, ``generated_from`` = the source and key
``<source key>-s<seed>``. The generated question keeps that version forever (nothing updates it:
not a re-import of the source, not a newer template), so its numbers never change.

* Validated like the admin: the source's template + params pass ``validate_numeric_question``
  (the admin's 50-seed check) once per job, and each generated question passes field validation
  plus ``check_numeric_variant`` for its own seed. A seed that fails is recorded in ``errors``.
* Re-runnable without duplicates: UNIQUE (generated_from, fixed_seed) + get_or_create. Each seed
  commits together with the job's progress, so a run killed mid-way and redelivered (acks_late)
  continues where it stopped and ``created`` counts every question exactly once.
* Generated questions are the job's rows (``source`` = job): ``load_lessons`` never changes or removes
  them; the admin removes them with ``generated_questions_remove`` (retired once a learner saw one).
* Generated questions are created UNPUBLISHED: a published one would join every learner's
  attempt at the lesson at once (1000 extra quiz items). The admin reviews and publishes them.
"""

from __future__ import annotations

import logging

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.db.models import F, QuerySet
from django.utils import timezone
from django.utils.translation import gettext as _

from quizzes.content.models import ContentSource, GenerationJob, Question
from quizzes.content.validation import MAX_VARIANT_SEED, check_numeric_variant, validate_numeric_question
from quizzes.content.versions import versions_record
from quizzes.core.background import enqueue_on_commit
from quizzes.core.errors import DomainError, ErrorCode

logger = logging.getLogger(__name__)

MAX_JOB_SIZE = 1000
RUN_TASK = "quizzes.tasks.run_generation_job"
KEY_MAX_LENGTH: int = Question._meta.get_field("key").max_length or 100


def generated_key(*, source: Question, seed: int) -> str:
    suffix = f"-s{seed}"
    return f"{source.key[: KEY_MAX_LENGTH - len(suffix)]}{suffix}"


def generation_source_check(*, source: Question) -> None:
    """Raise DomainError unless ``source`` may generate questions: a numeric question that is not itself
    generated (neither a fixed seed nor a ``generated_from``)."""
    if source.kind != Question.Kind.NUMERIC:
        raise DomainError(ErrorCode.NOT_NUMERIC, _("Only numeric questions can generate standalone questions."))
    if source.fixed_seed is not None or source.generated_from_id is not None:
        raise DomainError(
            ErrorCode.GENERATED_SOURCE,
            _("%(key)s is itself a generated question; generate from its source instead.") % {"key": source.key},
        )


@transaction.atomic
def generation_job_create(
    *, source: Question, total: int, first_seed: int = 0, requested_by: User | None = None
) -> GenerationJob:
    """Record the job and start it once this transaction commits (a rollback starts nothing)."""
    generation_source_check(source=source)
    if not 1 <= total <= MAX_JOB_SIZE:
        raise DomainError(ErrorCode.TOTAL, _("Generate between 1 and %(max)d questions.") % {"max": MAX_JOB_SIZE})
    if first_seed < 0 or first_seed + total - 1 > MAX_VARIANT_SEED:
        raise DomainError(ErrorCode.FIRST_SEED, _("Seeds must lie between 0 and %(max)d.") % {"max": MAX_VARIANT_SEED})
    job = GenerationJob(source=source, total=total, first_seed=first_seed, requested_by=requested_by)
    job.full_clean()
    job.save()
    enqueue_on_commit(RUN_TASK, job.pk)
    return job


def _record_error(job_id: int, seed: int, message: str) -> None:
    job = GenerationJob.objects.select_for_update().get(pk=job_id)
    job.errors = [e for e in job.errors if e.get("seed") != seed] + [{"seed": seed, "error": message}]
    job.save(update_fields=["errors"])


def _generate_one(source: Question, seed: int, user: User | None = None) -> bool:
    """Create the standalone question for ``seed`` unless it exists, with its first version (the job's, on behalf
    of ``user``); True if created. Raises ValidationError."""
    from attention_engine import generators

    try:
        variant = generators.generate(source.template, seed, version=source.template_version, **(source.params or {}))
    except (ValueError, ArithmeticError, FloatingPointError) as exc:
        raise ValidationError(str(exc) or type(exc).__name__) from exc
    problem = check_numeric_variant(variant)
    if problem:
        raise ValidationError(problem)
    defaults = {
        "lesson": source.lesson,
        "key": generated_key(source=source, seed=seed),
        "kind": Question.Kind.NUMERIC,
        "prompt": source.prompt,
        "explanation": source.explanation,
        "order": source.order,
        "published": False,
        "template": source.template,
        "template_version": source.template_version,
        "params": source.params,
        "answer_form": source.answer_form,
        "source": ContentSource.JOB,  # the job's row: load_lessons never changes or removes it
    }
    candidate = Question(generated_from=source, fixed_seed=seed, **defaults)
    # Field-level validation; the per-kind clean() would redo the 50-seed check done once per job.
    candidate.clean_fields()
    question, created = Question.objects.get_or_create(generated_from=source, fixed_seed=seed, defaults=defaults)
    if created:
        versions_record(questions=[question], source=ContentSource.JOB, user=user)
    return created


def generation_job_run(*, job_id: int) -> GenerationJob | None:
    """Run (or resume) a job. Idempotent: a finished job is left alone, a re-run creates no duplicates."""
    job = GenerationJob.objects.select_related("source", "source__lesson", "requested_by").filter(pk=job_id).first()
    if job is None:
        logger.warning("generation job %s no longer exists", job_id)
        return None
    if job.status in (GenerationJob.Status.SUCCEEDED, GenerationJob.Status.FAILED):
        return job
    GenerationJob.objects.filter(pk=job.pk).update(
        status=GenerationJob.Status.RUNNING, started_at=job.started_at or timezone.now()
    )
    source = job.source
    try:
        generation_source_check(source=source)
        validate_numeric_question(template=source.template, params=source.params, version=source.template_version)
    except ValidationError as exc:
        return _finish(job.pk, failed=True, errors=[{"seed": None, "error": " ".join(exc.messages)}])
    for index, seed in enumerate(range(job.first_seed, job.first_seed + job.total)):
        with transaction.atomic():
            try:
                with transaction.atomic():
                    created = _generate_one(source, seed, job.requested_by)
            except ValidationError as exc:
                created = False
                _record_error(job.pk, seed, " ".join(exc.messages))
            except IntegrityError:
                # The key is taken by an unrelated question (not ours for this seed).
                created = False
                key = generated_key(source=source, seed=seed)
                _record_error(job.pk, seed, _("key %(key)s is already used by another question") % {"key": key})
            GenerationJob.objects.filter(pk=job.pk).update(done=index + 1, created=F("created") + int(created))
    job.refresh_from_db()
    return _finish(job.pk, failed=bool(job.errors))


@transaction.atomic
def generated_questions_remove(*, questions: QuerySet[Question]) -> tuple[int, int]:
    """Remove questions a job generated: delete those no learner saw; **retire** (unpublish) the others, so
    learners' attempts and cards keep showing what they saw. Other rows in ``questions`` are left alone.
    Returns (deleted, retired)."""
    deleted = retired = 0
    for question in Question.objects.filter(
        pk__in=questions.values("pk"), source=ContentSource.JOB, generated_from__isnull=False
    ).with_history():
        if question.has_history:  # type: ignore[attr-defined]  # annotated by with_history()
            if question.published:
                question.published = False
                question.save(update_fields=["published", "updated_at"])
                retired += 1
        else:
            question.delete()
            deleted += 1
    return deleted, retired


def generation_job_fail(*, job_id: int, reason: str) -> None:
    """Mark a job failed (the task's time limit); a new job over the same seeds resumes without duplicates."""
    _finish(job_id, failed=True, errors=[{"seed": None, "error": reason}])


def _finish(job_id: int, *, failed: bool, errors: list[dict] | None = None) -> GenerationJob:
    with transaction.atomic():
        job = GenerationJob.objects.select_for_update().get(pk=job_id)
        if errors:
            job.errors = [*job.errors, *errors]
        job.status = GenerationJob.Status.FAILED if failed else GenerationJob.Status.SUCCEEDED
        job.finished_at = timezone.now()
        job.save(update_fields=["errors", "status", "finished_at"])
    return job
