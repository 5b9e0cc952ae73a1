"""``Idempotency-Key`` for POSTs that create something (the records: quizzes.accounts.idempotency).

A retry with the same key and the same request (method, path, JSON body) gets the original
response back — same status, same body, header ``Idempotent-Replayed: true`` — and creates
nothing. The replayed body is byte-identical to the first one (same key order): the rendered JSON text
is kept as a JSON *string* in ``response_body`` (a jsonb object would come back with its keys
reordered). The same key with a different request → 422. Only successful (2xx) responses are kept:
a request that failed may be retried with its key.

Concurrency: the key row is inserted in the same transaction as the work (``idempotency_key_claim``).
A concurrent retry's INSERT waits on the (user, key) unique index until the first commits, then fails
and replays the stored response; if the first rolled back, the retry does the work. Keys expire after
``API_IDEMPOTENCY_TTL``. This module hashes the request and renders the response; it writes no row itself.
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Callable
from typing import Any

from django.http import HttpResponse
from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiParameter
from rest_framework.request import Request
from rest_framework.response import Response

from quizzes.accounts.idempotency import idempotency_key_claim, idempotency_key_release, idempotency_key_store
from quizzes.accounts.models import IdempotencyKey
from quizzes.api.errors import ApiError
from quizzes.api.renderers import SafeJSONRenderer
from quizzes.api.types import LearnerApiRequest
from quizzes.core.errors import ErrorCode

HEADER = "Idempotency-Key"
MAX_KEY_LENGTH = 255

IDEMPOTENCY_KEY_PARAMETER = OpenApiParameter(
    name=HEADER,
    type={"type": "string", "minLength": 1, "maxLength": MAX_KEY_LENGTH},
    location=OpenApiParameter.HEADER,
    required=False,
    description=(
        "Any unique string (e.g. a UUID) per logical request. A retry with the same key and body returns the "
        "original response and creates nothing; the same key with a different body → 422."
    ),
)


def _request_hash(request: Request) -> str:
    body = json.dumps(request.data, sort_keys=True, default=str, ensure_ascii=False)
    return hashlib.sha256(f"{request.method}\n{request.path}\n{body}".encode()).hexdigest()


def _check_replayable(record: IdempotencyKey, digest: str) -> None:
    """422 for the same key with another request; 409 while the first request with the key is running."""
    if record.request_hash != digest:
        raise ApiError(
            status_code=422,
            code=ErrorCode.IDEMPOTENCY_KEY_REUSED,
            message=_("This Idempotency-Key was used with a different request."),
        )
    if record.response_status is None:
        raise ApiError(
            status_code=409, code=ErrorCode.REQUEST_IN_PROGRESS, message=_("A request with this key is running.")
        )


def _replay(record: IdempotencyKey) -> HttpResponse:
    headers = {"Idempotent-Replayed": "true"}
    assert record.response_status is not None  # _check_replayable
    if isinstance(record.response_body, str):  # the exact bytes of the first response
        body = record.response_body.encode()
        return HttpResponse(body, status=record.response_status, content_type="application/json", headers=headers)
    return Response(record.response_body, status=record.response_status, headers=headers)  # rows stored before


def _rendered_body(response: Response) -> str:
    """What ``@idempotent`` keeps of a response: its rendered JSON text, replayed byte for byte."""
    return SafeJSONRenderer().render(response.data).decode() or "null"


def _keyed(
    handler: Callable[..., Response],
    *,
    keep: Callable[[Response], Any],
    replay: Callable[[Any, LearnerApiRequest, IdempotencyKey], HttpResponse],
) -> Callable[..., HttpResponse]:
    """The Idempotency-Key protocol around ``handler``: ``keep`` says what is stored, ``replay`` answers a retry."""

    @functools.wraps(handler)
    def wrapper(view: Any, request: LearnerApiRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        key = request.headers.get(HEADER)
        if key is None:
            return handler(view, request, *args, **kwargs)
        key = key.strip()
        if not key or len(key) > MAX_KEY_LENGTH or not key.isprintable():  # NUL etc. can't be stored
            raise ApiError(
                status_code=400,
                code=ErrorCode.INVALID_IDEMPOTENCY_KEY,
                message=_("Idempotency-Key must be 1 to %(max)d printable characters.") % {"max": MAX_KEY_LENGTH},
                fields={HEADER: [_("Invalid key.")]},
            )
        digest = _request_hash(request)
        claimed = idempotency_key_claim(
            user=request.user, key=key, method=request.method or "", path=request.path, request_hash=digest
        )
        with claimed as claim:
            if claim.record is None:
                assert claim.existing is not None
                _check_replayable(claim.existing, digest)
                return replay(view, request, claim.existing)
            response = handler(view, request, *args, **kwargs)
            if 200 <= response.status_code < 300:
                idempotency_key_store(record=claim.record, status=response.status_code, body=keep(response))
            else:
                idempotency_key_release(record=claim.record)
            return response

    return wrapper


def idempotent(handler: Callable[..., Response]) -> Callable[..., HttpResponse]:
    """Decorate an APIView method; requests without the header run as usual."""
    return _keyed(handler, keep=_rendered_body, replay=lambda view, request, record: _replay(record))


def idempotent_by_reference(
    *,
    reference: Callable[[Response], dict[str, Any]],
    rerender: Callable[[Any, LearnerApiRequest, dict[str, Any]], Response],
) -> Callable[[Callable[..., Response]], Callable[..., HttpResponse]]:
    """``@idempotent`` for a response that must not be stored (an offline review pack carries answer keys).

    The key's row keeps only ``reference(response)`` (e.g. ``{"pack_id": 7}``); a retry gets
    ``rerender(view, request, reference)`` with the header ``Idempotent-Replayed: true`` — built afresh from
    the domain's own rows, so it may also refuse (e.g. 410 for a revoked pack).
    """

    def replay(view: Any, request: LearnerApiRequest, record: IdempotencyKey) -> HttpResponse:
        stored = record.response_body
        assert isinstance(stored, dict)  # what ``reference`` returned
        response = rerender(view, request, stored)
        response["Idempotent-Replayed"] = "true"
        return response

    def decorate(handler: Callable[..., Response]) -> Callable[..., HttpResponse]:
        return _keyed(handler, keep=reference, replay=replay)

    return decorate
