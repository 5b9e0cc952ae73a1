"""Operational endpoints: /healthz for load balancers, and the one-click reminder unsubscribe."""

from __future__ import annotations

import logging

from django.conf import settings
from django.core import signing
from django.db import DatabaseError, connection
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_http_methods

from quizzes.services.reminders import reminder_unsubscribe, unsubscribe_user_for_token

logger = logging.getLogger(__name__)


def _database_ok() -> bool:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except DatabaseError:
        logger.exception("healthz: database unreachable")
        return False
    return True


def _redis_status() -> str:
    """ "ok", "down", or "not configured" (the default run has no Redis)."""
    if not settings.REDIS_URL:
        return "not configured"
    import redis

    client = redis.Redis.from_url(settings.REDIS_URL, socket_connect_timeout=1, socket_timeout=1)
    try:
        client.ping()
    except redis.exceptions.RedisError:
        logger.warning("healthz: Redis unreachable at %s", settings.REDIS_URL.rsplit("@", 1)[-1])
        return "down"
    finally:
        client.close()
    return "ok"


@never_cache
@require_GET
def healthz(request: HttpRequest) -> JsonResponse:
    """200 while the database answers (Redis is reported, not required: pages degrade without it); else 503."""
    database = _database_ok()
    redis_status = _redis_status()
    body = {
        "status": ("ok" if redis_status != "down" else "degraded") if database else "down",
        "database": "ok" if database else "down",
        "redis": redis_status,
    }
    return JsonResponse(body, status=200 if database else 503)


@never_cache
@csrf_exempt  # RFC 8058: the mail client POSTs without a CSRF token; the signed token is the authority
@require_http_methods(["GET", "POST"])
def reminder_unsubscribe_view(request: HttpRequest, token: str) -> HttpResponse:
    """GET asks for confirmation (link scanners must not unsubscribe anyone); POST unsubscribes."""
    try:
        learner = unsubscribe_user_for_token(token)
    except signing.BadSignature:
        return render(request, "quizzes/ops/unsubscribe.html", {"state": "invalid"}, status=400)
    if request.method == "POST":
        reminder_unsubscribe(token=token)
        return render(request, "quizzes/ops/unsubscribe.html", {"state": "done", "learner": learner})
    return render(request, "quizzes/ops/unsubscribe.html", {"state": "confirm", "learner": learner})
