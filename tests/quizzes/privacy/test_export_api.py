"""The export over the API: the inline document (as documented), a job above the threshold, one job when asked
twice, progress and signed links that expire, throttling; every query scoped to the learner."""

from __future__ import annotations

import datetime as dt
import json
import threading

import pytest
import time_machine
from django.db import connection
from knox.models import AuthToken
from rest_framework.test import APIClient

from quizzes.api.views.export_document import ExportDocumentSerializer
from quizzes.models import DataExport, ReviewLog
from quizzes.privacy.document import export_document
from quizzes.privacy.services import data_export_request, data_export_run, data_exports_prune
from tests.quizzes.api.helpers import assert_error

pytestmark = pytest.mark.django_db


def client_for(user) -> APIClient:
    client = APIClient()
    _instance, token = AuthToken.objects.create(user=user)
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    return client


@pytest.fixture(autouse=True)
def _media(settings, tmp_path):
    settings.MEDIA_ROOT = str(tmp_path / "media")


def test_a_small_history_comes_back_inline_and_matches_its_documented_shape(learner):
    response = client_for(learner.user).get("/api/v1/profile/export/")
    assert response.status_code == 200
    document = response.json()
    assert document["format"] == "quizsite-export" and document["version"] == 1
    assert document["profile"]["username"] == learner.user.username
    assert document["profile"]["settings"]["time_zone"] == "Asia/Shanghai"
    (report,) = document["reports"]  # the problem report filed on the first attempt's first item
    first_item = learner.first_attempt.items.get(position=0)
    assert (report["attempt_item_id"], report["question_key"]) == (first_item.pk, first_item.question.key)
    assert (report["category"], report["text"], report["resolved_at"]) == ("typo", "A typo in the second line.", None)
    logs = ReviewLog.objects.filter(user=learner.user)
    assert len(document["review_logs"]) == logs.count() > 0
    assert {card["question"]["key"] for card in document["cards"]} == set(
        learner.user.review_cards.values_list("question__key", flat=True)
    )
    assert all("stability" in card["fsrs"] for card in document["cards"])
    assert len(document["attempts"]) == 2 and document["attempts"][0]["items"][0]["answered_at"]
    assert len(document["packs"]) == 1 and "Pixel" in [d["device_name"] for d in document["devices"]]
    # the documented schema (openapi.yaml's ExportDocument) describes exactly this document
    assert ExportDocumentSerializer(document).data == document


def test_unanswered_items_carry_no_answer(learner):
    document = export_document(user=learner.user)
    skipped = [item for attempt in document["attempts"] for item in attempt["items"] if not item["answered_at"]]
    assert len(skipped) == 1
    assert skipped[0]["result"] is None and skipped[0]["response"] is None and skipped[0]["chosen_option"] is None
    assert "correct" not in json.dumps(skipped[0]["options"])


def test_another_learners_data_is_never_in_the_export(learner, study_lesson):
    from tests.quizzes.privacy.conftest import build_learner

    other = build_learner(lesson=study_lesson)
    mine = export_document(user=learner.user)
    theirs = export_document(user=other.user)
    assert {c["id"] for c in mine["cards"]}.isdisjoint({c["id"] for c in theirs["cards"]})
    assert other.user.username not in json.dumps(mine)


def test_a_large_history_becomes_a_job_with_progress_and_links_that_expire(learner, settings):
    settings.EXPORT_INLINE_MAX_ROWS = 3
    api = client_for(learner.user)
    response = api.get("/api/v1/profile/export/")
    assert response.status_code == 202
    job = response.json()
    assert job["status"] == "pending" and job["files"] == [] and response["Location"] == job["url"]

    data_export_run(export_id=job["id"])  # what the worker does (tests/ops runs a real one)
    ready = api.get(job["url"]).json()
    assert ready["status"] == "ready" and ready["done"] == ready["total"] > 3
    links = {f["kind"]: f["url"] for f in ready["files"]}
    assert set(links) == {"json", "apkg"}

    anonymous = APIClient()  # the link is the key: no token needed
    download = anonymous.get(links["json"])
    assert download.status_code == 200 and download["Cache-Control"] == "private, no-store"
    assert 'attachment; filename="quizsite-export-' in download["Content-Disposition"]
    body = json.loads(b"".join(download.streaming_content))
    assert body["profile"]["username"] == learner.user.username and len(body["review_logs"]) > 0
    assert anonymous.get(links["json"][:-3] + "xyz/").status_code == 404  # tampered

    expired_at = dt.datetime.fromisoformat(ready["expires_at"].replace("Z", "+00:00"))
    with time_machine.travel(expired_at + dt.timedelta(seconds=1)):
        assert anonymous.get(links["apkg"]).status_code == 404  # expired, even before housekeeping ran
        assert data_exports_prune().deleted == 1
    assert not DataExport.objects.exists()


def test_export_requested_twice_gives_one_job(learner):
    api = client_for(learner.user)
    first = api.post("/api/v1/profile/exports/")
    second = api.post("/api/v1/profile/exports/")
    assert first.status_code == second.status_code == 202
    assert first.json()["id"] == second.json()["id"]
    assert DataExport.objects.filter(user=learner.user).count() == 1


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_export_requested_twice_at_once_gives_one_job_the_constraint_decides(learner):
    barrier = threading.Barrier(4)
    ids: list[int] = []

    def ask() -> None:
        try:
            barrier.wait()
            ids.append(data_export_request(user=learner.user).export.pk)
        finally:
            connection.close()

    threads = [threading.Thread(target=ask) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(ids) == 4 and len(set(ids)) == 1
    assert DataExport.objects.filter(user=learner.user).count() == 1


def test_another_learners_export_is_not_found(learner, other_user):
    export = data_export_request(user=learner.user).export
    assert_error(client_for(other_user).get(f"/api/v1/profile/exports/{export.pk}/"), 404, "not_found")
    assert_error(client_for(other_user).get("/api/v1/profile/exports/999999/"), 404, "not_found")


def test_asking_for_exports_is_throttled_per_learner(learner, other_user, settings):
    settings.THROTTLE_RATES = {**settings.THROTTLE_RATES, "export": {"username": "2/1h", "ip": "100/1h"}}
    api = client_for(learner.user)
    assert api.get("/api/v1/profile/export/").status_code == 200
    assert api.post("/api/v1/profile/exports/").status_code == 202
    refused = assert_error(api.post("/api/v1/profile/exports/"), 429, "throttled")
    assert refused["error"]["message"]
    assert client_for(other_user).get("/api/v1/profile/export/").status_code == 200  # per learner
    export = DataExport.objects.get(user=learner.user)
    assert api.get(f"/api/v1/profile/exports/{export.pk}/").status_code == 200  # polling is not counted


def test_anonymous_requests_are_refused(anon_client):
    assert anon_client.get("/api/v1/profile/export/").status_code == 401
    assert anon_client.post("/api/v1/profile/exports/").status_code == 401


@pytest.fixture
def anon_client():
    return APIClient()
