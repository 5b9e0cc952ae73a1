"""``GET /healthz`` for load balancers: 200 while the database answers (Redis reported, not required), else 503."""

from __future__ import annotations

import logging

from django.conf import settings
from django.db import DatabaseError
from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from quizzes.accounts.selectors import user_table_answers

logger = logging.getLogger(__name__)


def _database_ok() -> bool:
    try:
        user_table_answers()
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
