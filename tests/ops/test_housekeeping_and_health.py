"""Housekeeping (abandoned attempts, expired tokens, old idempotency keys) and /healthz."""

from __future__ import annotations

import datetime as dt

import pytest
from django.utils import timezone
from knox.models import AuthToken

from quizzes.models import Attempt, AttemptItem, IdempotencyKey
from quizzes.operations.housekeeping import housekeeping_run
from quizzes.practice.services.answers import item_answer
from quizzes.practice.services.attempts import attempt_start

pytestmark = pytest.mark.django_db


def test_abandoned_attempts_are_finished_and_answered_items_untouched(user, quiz_lesson, settings):
    settings.ATTEMPT_ABANDON_AFTER_HOURS = 24
    now = timezone.now()
    old = attempt_start(user=user, lesson=quiz_lesson, now=now - dt.timedelta(hours=30))
    first = old.items.order_by("position").first()
    option_id = first.option_order[0]
    item_answer(user=user, item=first, option_id=option_id, now=now - dt.timedelta(hours=30))
    answered = AttemptItem.objects.get(pk=first.pk)
    recent = attempt_start(user=user, lesson=quiz_lesson, now=now - dt.timedelta(hours=2))

    result = housekeeping_run(now=now)

    assert result.attempts_finished == 1
    old.refresh_from_db()
    recent.refresh_from_db()
    assert old.finished_at == now
    assert recent.finished_at is None
    after = AttemptItem.objects.get(pk=first.pk)
    assert (after.response, after.is_correct, after.score, after.answered_at, after.result) == (
        answered.response,
        answered.is_correct,
        answered.score,
        answered.answered_at,
        answered.result,
    )
    assert AttemptItem.objects.filter(attempt=old, answered_at__isnull=True).count() == old.items.count() - 1
    assert housekeeping_run(now=now).attempts_finished == 0  # idempotent


def test_expired_tokens_and_day_old_idempotency_keys_are_pruned(user):
    now = timezone.now()
    AuthToken.objects.create(user=user, expiry=dt.timedelta(days=1))
    expired, _ = AuthToken.objects.create(user=user, expiry=dt.timedelta(days=1))
    AuthToken.objects.filter(pk=expired.pk).update(expiry=now - dt.timedelta(minutes=1))
    fresh = IdempotencyKey.objects.create(user=user, key="fresh", method="POST", path="/x", request_hash="0" * 64)
    IdempotencyKey.objects.create(
        user=user, key="old", method="POST", path="/x", request_hash="0" * 64, created_at=now - dt.timedelta(hours=25)
    )

    result = housekeeping_run(now=now)

    assert (result.tokens_deleted, result.idempotency_keys_deleted) == (1, 1)
    assert AuthToken.objects.filter(user=user).count() == 1
    assert list(IdempotencyKey.objects.values_list("pk", flat=True)) == [fresh.pk]
    assert Attempt.objects.count() == 0


def test_healthz_reports_database_and_redis(client, settings):
    response = client.get("/healthz")
    assert response.status_code == 200
    body = response.json()
    assert body["database"] == "ok"
    assert body["redis"] == ("not configured" if not settings.REDIS_URL else "ok")
    assert "no-cache" in response.headers["Cache-Control"]


def test_healthz_says_redis_down_but_stays_200(client, settings):
    from tests.ops.conftest import free_port

    settings.REDIS_URL = f"redis://127.0.0.1:{free_port()}/0"  # nothing listens there
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "degraded", "database": "ok", "redis": "down"}
