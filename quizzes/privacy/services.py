"""Export writes: ask for an export (one job per learner at a time), run the job, give up a lost one, prune.

The job (``quizzes.tasks.run_data_export``, queue ``exports``) writes the JSON document and the Anki deck to
temporary files, then stores both through ``default_storage`` under ``exports/<random>/`` and marks the export
ready with ``expires_at = finished + EXPORT_LINK_TTL``. Housekeeping (``data_exports_prune``) deletes the files
and the row once the links have expired, and gives up a job still unfinished after ``EXPORT_STALE_AFTER``.

Idempotent, as every task must be (acks_late redelivers after a crash): a job *claims* its export with one
conditional UPDATE (pending, or running for longer than the task's hard time limit — a killed worker's), so a
second copy of the message does nothing; files are stored only at the end, and a job whose export vanished
meanwhile (the account was deleted) deletes the files it stored.
"""

from __future__ import annotations

import datetime as dt
import logging
import secrets
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings
from django.contrib.auth.models import User
from django.core.files import File
from django.core.files.storage import default_storage
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone

from quizzes.core.background import enqueue_on_commit
from quizzes.privacy.anki import anki_package_write
from quizzes.privacy.document import export_size, write_document
from quizzes.privacy.models import DataExport
from quizzes.privacy.rules import link_ttl, stale_after

logger = logging.getLogger(__name__)

TASK = "quizzes.tasks.run_data_export"
#: A job still pending this long after it was asked for is sent again when the learner asks again (a lost message).
RESEND_AFTER = dt.timedelta(minutes=5)


@dataclass(frozen=True)
class ExportRequest:
    export: DataExport
    created: bool


def data_export_request(*, user: User, now: dt.datetime | None = None) -> ExportRequest:
    """Start an export job for the learner, or return the one still pending or running (never two).

    Two requests at once: both try to insert; the partial unique index lets one through and the other gets
    the first one's row back. The job is enqueued after the commit.
    """
    now = now or timezone.now()
    existing = DataExport.objects.owned_by(user).active().first()
    if existing is None:
        try:
            with transaction.atomic():
                export = DataExport.objects.create(user=user, created_at=now)
                enqueue_on_commit(TASK, export.pk)
            return ExportRequest(export=export, created=True)
        except IntegrityError:  # a concurrent request created it first
            existing = DataExport.objects.owned_by(user).active().first()
            if existing is None:
                raise
    if existing.status == DataExport.Status.PENDING and existing.created_at < now - RESEND_AFTER:
        enqueue_on_commit(TASK, existing.pk)  # its message was lost (a broker outage): the claim keeps it one job
    return ExportRequest(export=existing, created=False)


def _claim(export_id: int, now: dt.datetime) -> bool:
    killed_before = now - dt.timedelta(seconds=settings.CELERY_TASK_TIME_LIMIT)
    claimable = Q(status=DataExport.Status.PENDING) | Q(status=DataExport.Status.RUNNING, started_at__lt=killed_before)
    claimed = DataExport.objects.filter(claimable, pk=export_id).update(
        status=DataExport.Status.RUNNING, started_at=now, done=0
    )
    return claimed == 1


def _delete_files(names: Iterable[str]) -> None:
    for name in names:
        try:
            default_storage.delete(name)
        except OSError:  # logged and left: the next prune cannot see it any more, but nothing breaks
            logger.exception("data export: could not delete %s", name)


def _write_files(export: DataExport, directory: Path, started: dt.datetime) -> dict[str, str]:
    """Write both files locally, then store them; returns their storage names by kind."""
    total = export.total

    def progress(rows: int) -> None:
        DataExport.objects.filter(pk=export.pk, started_at=started).update(done=min(rows, total))

    day = started.date().isoformat()
    json_path, apkg_path = directory / "export.json", directory / "cards.apkg"
    with json_path.open("w", encoding="utf-8") as out:
        write_document(user=export.user, out=out, progress=progress, now=started)
    anki_package_write(user=export.user, path=str(apkg_path))
    folder = f"exports/{secrets.token_urlsafe(24)}/"  # random: names in a shared bucket give nothing away
    stored = {}
    for kind, path, name in (("json", json_path, "quizsite-export"), ("apkg", apkg_path, "quizsite-cards")):
        with path.open("rb") as handle:
            stored[kind] = default_storage.save(f"{folder}{name}-{day}.{kind}", File(handle))
    return stored


def data_export_run(*, export_id: int) -> DataExport | None:
    """The job: write and store the export's files. None when there is nothing to do (done, claimed, gone)."""
    started = timezone.now()
    if not _claim(export_id, started):
        return None
    try:
        export = DataExport.objects.select_related("user").get(pk=export_id)
        export.total = export_size(user=export.user).rows
        DataExport.objects.filter(pk=export_id).update(total=export.total)
        with tempfile.TemporaryDirectory(prefix="quizsite-export-") as tmp:
            stored = _write_files(export, Path(tmp), started)
    except BaseException:  # a retry (or the caller giving it up) starts from a job that is pending again
        DataExport.objects.filter(pk=export_id, started_at=started).update(
            status=DataExport.Status.PENDING, started_at=None, done=0
        )
        raise
    finished = timezone.now()
    ready = DataExport.objects.filter(pk=export_id, status=DataExport.Status.RUNNING, started_at=started).update(
        status=DataExport.Status.READY,
        json_file=stored["json"],
        apkg_file=stored["apkg"],
        done=export.total,
        finished_at=finished,
        expires_at=finished + link_ttl(),
    )
    if not ready:  # the account was deleted, or the job was given up, while it ran: keep nothing
        _delete_files(stored.values())
        return None
    return DataExport.objects.get(pk=export_id)


def data_export_fail(*, export_id: int, reason: str, now: dt.datetime | None = None) -> None:
    """Give the job up (the learner sees why and may ask again); the row goes when its expiry passes."""
    now = now or timezone.now()
    DataExport.objects.filter(pk=export_id).active().update(
        status=DataExport.Status.FAILED, error=reason[:200], finished_at=now, expires_at=now + link_ttl()
    )


@dataclass(frozen=True)
class ExportPruning:
    deleted: int
    given_up: int


def data_exports_prune(*, now: dt.datetime | None = None) -> ExportPruning:
    """Housekeeping: exports past their links' expiry go with their files; lost jobs are given up."""
    now = now or timezone.now()
    given_up = 0
    for export_id in DataExport.objects.stale_at(now, after=stale_after()).values_list("pk", flat=True):
        data_export_fail(export_id=export_id, reason="The export did not finish in time. Ask for it again.", now=now)
        given_up += 1
    deleted = 0
    for export in DataExport.objects.expired_at(now).exclude(status__in=("pending", "running")).iterator():
        _delete_files(export.files.values())
        export.delete()
        deleted += 1
    return ExportPruning(deleted=deleted, given_up=given_up)


def data_exports_files(*, user: User) -> list[str]:
    """The stored files of every export of the learner (account deletion removes them after its commit)."""
    return [name for export in DataExport.objects.owned_by(user) for name in export.files.values()]


def data_exports_files_delete(*, names: Iterable[str]) -> None:
    _delete_files(list(names))
