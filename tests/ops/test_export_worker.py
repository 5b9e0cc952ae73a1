"""The data export job through the real Redis broker and a real Celery worker process on its own queue (``exports``).

The worker and the test share the test database (PostgreSQL) and the storage directory (MEDIA_ROOT, given to
the worker through its environment): the worker writes the files through ``default_storage``, the test
downloads them through the signed links and opens the deck with the official ``anki`` package.
"""

from __future__ import annotations

import json

import pytest
from anki.collection import Collection, ImportAnkiPackageOptions, ImportAnkiPackageRequest
from knox.models import AuthToken
from rest_framework.test import APIClient

from quizzes.models import DataExport, ReviewCard
from tests.ops.conftest import wait_for
from tests.quizzes.privacy.conftest import build_learner, fill_study_lesson

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def shared_media(tmp_path, settings, monkeypatch):
    media = tmp_path / "media"
    media.mkdir()
    settings.MEDIA_ROOT = str(media)
    monkeypatch.setenv("MEDIA_ROOT", str(media))  # the worker's environment is copied from ours
    return media


def test_a_large_export_runs_on_the_exports_worker_and_its_files_download(
    start_worker, shared_media, lesson, settings, tmp_path
):
    settings.EXPORT_INLINE_MAX_ROWS = 2  # this learner's history is "large"
    learner = build_learner(lesson=fill_study_lesson(lesson))
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {AuthToken.objects.create(user=learner.user)[1]}")

    worker = start_worker(queues=["exports"])  # a worker for the exports queue alone
    accepted = api.get("/api/v1/profile/export/")
    assert accepted.status_code == 202
    again = api.post("/api/v1/profile/exports/")  # asked again while it runs: the same job
    assert again.json()["id"] == accepted.json()["id"]
    url = accepted["Location"]

    job = wait_for(
        lambda: (body := api.get(url).json())["status"] == "ready" and body,
        timeout=60,
        what="the export job",
        log=worker.log_text,
    )
    assert isinstance(job, dict) and job["done"] == job["total"] > 2
    assert DataExport.objects.filter(user=learner.user).count() == 1
    links = {f["kind"]: f["url"] for f in job["files"]}
    stored = list(shared_media.rglob("*"))
    assert any(p.suffix == ".apkg" for p in stored) and any(p.suffix == ".json" for p in stored)

    anonymous = APIClient()
    document = json.loads(b"".join(anonymous.get(links["json"]).streaming_content))
    assert document["profile"]["username"] == learner.user.username
    assert len(document["cards"]) == ReviewCard.objects.filter(user=learner.user).count()

    package = tmp_path / "download.apkg"
    package.write_bytes(b"".join(anonymous.get(links["apkg"]).streaming_content))
    (tmp_path / "anki").mkdir()
    collection = Collection(str(tmp_path / "anki" / "collection.anki2"))
    try:
        collection.import_anki_package(
            ImportAnkiPackageRequest(package_path=str(package), options=ImportAnkiPackageOptions())
        )
        assert collection.card_count() == len(document["cards"])
    finally:
        collection.close()
