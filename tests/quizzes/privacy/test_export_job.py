"""The export job's life: run once (a redelivered message does nothing), a failure leaves it failed and a new
request possible, a lost job is given up, an account deleted mid-run keeps no file; housekeeping prunes."""

from __future__ import annotations

import datetime as dt

import pytest
import time_machine
from django.core.files.storage import default_storage
from django.utils import timezone

from quizzes import tasks
from quizzes.models import DataExport
from quizzes.privacy import services
from quizzes.privacy.services import data_export_request, data_export_run, data_exports_prune
from quizzes.tasks import run_data_export

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _media(settings, tmp_path):
    settings.MEDIA_ROOT = str(tmp_path / "media")


def stored_files() -> list[str]:
    folders = default_storage.listdir("exports")[0] if default_storage.exists("exports") else []
    return [name for folder in folders for name in default_storage.listdir(f"exports/{folder}")[1]]


def test_a_job_runs_once_a_second_copy_of_its_message_does_nothing(learner):
    export = data_export_request(user=learner.user).export
    assert data_export_run(export_id=export.pk) is not None
    assert data_export_run(export_id=export.pk) is None  # acks_late redelivery: already done
    assert len(stored_files()) == 2


def test_a_killed_workers_job_is_claimed_again_after_the_time_limit(learner, settings):
    export = data_export_request(user=learner.user).export
    started = timezone.now() - dt.timedelta(seconds=settings.CELERY_TASK_TIME_LIMIT + 5)
    DataExport.objects.filter(pk=export.pk).update(status="running", started_at=started)
    assert data_export_run(export_id=export.pk).status == "ready"


def test_a_job_still_running_is_not_run_twice(learner):
    export = data_export_request(user=learner.user).export
    DataExport.objects.filter(pk=export.pk).update(status="running", started_at=timezone.now())
    assert data_export_run(export_id=export.pk) is None


def test_a_failing_job_is_marked_failed_and_the_learner_can_ask_again(learner, monkeypatch):
    export = data_export_request(user=learner.user).export

    def broken(**kwargs):
        raise RuntimeError("disk full")

    monkeypatch.setattr(services, "anki_package_write", broken)
    monkeypatch.setattr(tasks, "_fresh_connection", lambda: None)  # it would close the test's transaction
    assert run_data_export(export.pk) is None
    export.refresh_from_db()
    assert export.status == "failed" and "failed" in export.error and export.expires_at
    assert stored_files() == []
    again = data_export_request(user=learner.user)
    assert again.created and again.export.pk != export.pk


def test_an_account_deleted_while_its_export_runs_keeps_no_file(learner, monkeypatch):
    export = data_export_request(user=learner.user).export
    real = services.anki_package_write

    def delete_meanwhile(**kwargs):
        real(**kwargs)
        DataExport.objects.filter(pk=export.pk).delete()  # what the account's deletion does to the row

    monkeypatch.setattr(services, "anki_package_write", delete_meanwhile)
    assert data_export_run(export_id=export.pk) is None
    assert stored_files() == []


def test_housekeeping_gives_up_lost_jobs_and_deletes_expired_exports_with_their_files(learner, settings):
    lost = data_export_request(user=learner.user).export
    with time_machine.travel(timezone.now() + settings.EXPORT_STALE_AFTER + dt.timedelta(minutes=1)):
        assert data_exports_prune().given_up == 1
        lost.refresh_from_db()
        assert lost.status == "failed"
        fresh = data_export_request(user=learner.user).export
        data_export_run(export_id=fresh.pk)
        assert len(stored_files()) == 2
    with time_machine.travel(timezone.now() + settings.EXPORT_STALE_AFTER + settings.EXPORT_LINK_TTL * 2):
        assert data_exports_prune().deleted == 2
    assert not DataExport.objects.exists() and stored_files() == []


def test_a_pending_job_whose_message_was_lost_is_sent_again_when_asked_again(learner, monkeypatch):
    sent = []
    monkeypatch.setattr(services, "enqueue_on_commit", lambda name, *args: sent.append(args))
    export = data_export_request(user=learner.user).export
    assert data_export_request(user=learner.user).export.pk == export.pk and len(sent) == 1  # not yet
    later = timezone.now() + services.RESEND_AFTER + dt.timedelta(seconds=1)
    assert data_export_request(user=learner.user, now=later).export.pk == export.pk and len(sent) == 2
