"""The API side of the one throttle policy (quizzes.accounts.throttle): 429 with ``Retry-After`` in the error shape.

The limits themselves (per username and per client IP, shared with the learner pages and the admin's
log-in, counted in Redis across processes) live in quizzes.accounts.throttle; the log-in view gets them through
``authenticate()``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from django.http import HttpResponseBase
from django.utils.translation import ngettext
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse
from rest_framework import exceptions, status

from quizzes.accounts.throttle import QuotaExceeded, Throttled, learner_quota, ratelimit_headers
from quizzes.api.errors import ApiError
from quizzes.api.serializers.common import ErrorResponseSerializer
from quizzes.core.errors import ErrorCode


def throttled_error(exc: Throttled) -> exceptions.Throttled:
    message = ngettext(
        "Too many attempts; try again in %(minutes)d minute.",
        "Too many attempts; try again in %(minutes)d minutes.",
        exc.minutes,
    ) % {"minutes": exc.minutes}
    error = exceptions.Throttled()
    error.detail = exceptions.ErrorDetail(message, code=ErrorCode.THROTTLED)
    error.wait = exc.retry_after  # type: ignore[attr-defined]  # DRF's handler turns it into Retry-After
    return error


def learner_limited(scope: str) -> Callable[[Callable[..., HttpResponseBase]], Callable[..., HttpResponseBase]]:
    """A view method counted against the learner's ``scope`` quota (quizzes.accounts.throttle.learner_quota): its
    responses carry RateLimit-Policy and RateLimit; past the quota, 429 ``throttled`` with Retry-After and both."""

    def decorate(method: Callable[..., HttpResponseBase]) -> Callable[..., HttpResponseBase]:
        @functools.wraps(method)
        def limited(view: Any, request: Any, *args: Any, **kwargs: Any) -> HttpResponseBase:
            try:
                quota = learner_quota(scope, user_id=request.user.pk)
            except QuotaExceeded as exc:
                message = ngettext(
                    "Too many requests; try again in %(seconds)d second.",
                    "Too many requests; try again in %(seconds)d seconds.",
                    exc.retry_after,
                ) % {"seconds": exc.retry_after}
                raise ApiError(
                    status_code=status.HTTP_429_TOO_MANY_REQUESTS,
                    code=ErrorCode.THROTTLED,
                    message=message,
                    headers={"Retry-After": str(exc.retry_after), **ratelimit_headers(exc.quota)},
                ) from exc
            response = method(view, request, *args, **kwargs)
            for name, value in ratelimit_headers(quota).items():
                response[name] = value
            return response

        return limited

    return decorate


#: The schema of a learner_limited operation: its headers, and its 429.
RATELIMIT_HEADERS = [
    OpenApiParameter(
        "RateLimit-Policy",
        OpenApiTypes.STR,
        OpenApiParameter.HEADER,
        response=True,
        description='This operation\'s quota, e.g. `"answers";q=120;w=60` (draft-ietf-httpapi-ratelimit-headers-11).',
    ),
    OpenApiParameter(
        "RateLimit",
        OpenApiTypes.STR,
        OpenApiParameter.HEADER,
        response=True,
        description='What is left of it and seconds until it is whole again, e.g. `"answers";r=119;t=42`.',
    ),
]
QUOTA_EXCEEDED = OpenApiResponse(
    ErrorResponseSerializer,
    description="Code `throttled`: this learner's quota for the operation is spent (RateLimit-Policy / RateLimit); "
    "retry after the Retry-After header's seconds.",
)
