"""Concurrency on PostgreSQL: parallel uploads answering one pack item, parallel retries of one pack creation,
pruning beside a pack being issued."""

from __future__ import annotations

import datetime as dt
import uuid

import pytest
import time_machine
from django.utils import timezone

from quizzes.models import IdempotencyKey, PackItem, ReviewLog, ReviewPack
from tests import factories
from tests.quizzes.api.conftest import token_client
from tests.quizzes.packs.conftest import study_everything
from tests.quizzes.practice.test_concurrency import run_together

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def learner(transactional_db):
    with time_machine.travel(timezone.now() - dt.timedelta(days=7), tick=False):
        user = factories.UserFactory()
        lesson = factories.LessonFactory()
        factories.ChoiceQuestionFactory(lesson=lesson, options=4)
        study_everything(user, lesson)
    return user


def test_concurrent_different_answers_to_one_pack_item_lock_one(learner):
    pack = token_client(learner).post("/api/v1/packs/", {}, format="json").json()
    (item,) = pack["items"]
    at = timezone.now()

    def upload(index: int):
        option = item["options"][index % 4]["id"]
        entry = {"client_uuid": str(uuid.uuid4()), "pack_item_id": item["id"], "option_id": option}
        body = {"entries": [{**entry, "reviewed_at": (at + dt.timedelta(seconds=index)).isoformat()}]}
        response = token_client(learner).post("/api/v1/reviews/offline/", body, format="json")
        assert response.status_code == 200, response.content
        return response.json()["entries"][0]

    outcomes = run_together(8, upload)
    applied = [o for o in outcomes if o["status"] == "applied"]
    assert len(applied) == 1
    assert {(o["status"], o["reason"]) for o in outcomes if o not in applied} == {("rejected", "answered_twice")}
    stored = PackItem.objects.get(pk=item["id"])
    assert str(stored.client_uuid) == applied[0]["client_uuid"]
    assert ReviewLog.objects.filter(user=learner, source="offline").count() == 1


def test_concurrent_retries_of_one_pack_creation_issue_one_pack(learner):
    def create(index: int):
        response = token_client(learner).post("/api/v1/packs/", {}, format="json", HTTP_IDEMPOTENCY_KEY="pack-retry")
        return response.status_code, response.json()

    results = run_together(6, create)
    assert {status for status, _ in results} == {201}
    assert len({body["id"] for _, body in results}) == 1
    assert len({str(body["items"]) for _, body in results}) == 1  # the same pack, re-rendered for each retry
    assert ReviewPack.objects.filter(user=learner).count() == 1 and IdempotencyKey.objects.count() == 1


def test_pruning_waits_for_a_pack_being_issued_before_deleting_shared_variants(learner):
    """A pack issue holds the shared-variants lock from finding the variants it reuses to its commit; pruning
    deletes unused variants only under that lock, so it never deletes one under a pack that is about to use it."""
    import threading

    from django.db import connections, transaction

    from quizzes.models import PackedVariant, QuestionVersion
    from quizzes.packs.pruning import RETENTION, packs_prune, shared_versions_lock
    from quizzes.packs.rules import UPLOAD_GRACE
    from quizzes.packs.services import pack_issue

    old = pack_issue(user=learner)
    later = old.expires_at + UPLOAD_GRACE + RETENTION + dt.timedelta(minutes=1)
    issuing, release, pruned = threading.Event(), threading.Event(), threading.Event()
    errors: list[BaseException] = []

    def issue() -> None:  # stands for pack_issue between taking the lock and its commit
        try:
            with transaction.atomic():
                shared_versions_lock(exclusive=False)
                issuing.set()
                release.wait(timeout=30)
        except BaseException as exc:
            errors.append(exc)
        finally:
            connections.close_all()

    def prune() -> None:
        try:
            packs_prune(now=later)
            pruned.set()
        except BaseException as exc:
            errors.append(exc)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=issue), threading.Thread(target=prune)]
    threads[0].start()
    assert issuing.wait(timeout=30)
    threads[1].start()
    assert not pruned.wait(timeout=1)  # blocked on the lock while the issue is open
    release.set()
    for thread in threads:
        thread.join(timeout=60)
    assert not errors, errors
    assert pruned.is_set()
    assert not ReviewPack.objects.filter(pk=old.pk).exists() and not PackedVariant.objects.exists()
    assert QuestionVersion.objects.exists()  # question versions are history: never pruned with packs
