"""The API side of the one throttle policy (quizzes.accounts.throttle): 429 with ``Retry-After`` in the error shape.

The limits themselves (per username and per client IP, shared with the learner pages and the admin's
log-in, counted in Redis across processes) live in quizzes.accounts.throttle; the log-in view gets them through
``authenticate()``.
"""

from __future__ import annotations

from django.utils.translation import ngettext
from rest_framework import exceptions

from quizzes.accounts.throttle import Throttled
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
