"""Request guards shared by pages and the API: body size and unacceptable characters, checked up front.

- On ``/api/`` a declared ``Content-Length`` above ``API_MAX_BODY_BYTES`` is answered at once with 413
  in the API's error shape, before anything reads the body. If Django's own limits fire instead
  (``DATA_UPLOAD_MAX_MEMORY_SIZE`` → ``RequestDataTooBig``, ``DATA_UPLOAD_MAX_NUMBER_FIELDS``), the
  ``handler400`` below answers API routes in the same JSON shape (413 for a size), pages with the 400 page.
- A NUL character in a header, a query parameter or a submitted form field (name or value) is refused
  with 400 naming it, on pages and the API alike: PostgreSQL text cannot hold it, and no form of ours
  has a use for it. (Unpaired surrogates cannot arrive this way: Django decodes form and query data
  with replacement characters. In JSON bodies both are refused by quizzes.api.parsers.)
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from django.conf import settings
from django.core.exceptions import RequestDataTooBig, TooManyFieldsSent, TooManyFilesSent
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.utils.translation import gettext as _

from quizzes.core.errors import ErrorCode

logger = logging.getLogger(__name__)

FORM_TYPES = ("application/x-www-form-urlencoded", "multipart/form-data")


def is_api(request: HttpRequest) -> bool:
    return request.path_info.startswith("/api/")


def _error(code: str, message: str, fields: dict[str, list[str]] | None = None) -> dict:
    return {"error": {"code": code, "message": message, "fields": fields or {}}}


def payload_too_large_response(limit: int) -> JsonResponse:
    message = _("The request body is larger than %(limit)d bytes.") % {"limit": limit}
    return JsonResponse(_error(ErrorCode.PAYLOAD_TOO_LARGE, message), status=413)


def _shown(name: str) -> str:
    return name.replace("\x00", "\\u0000")[:100]


def _nul_fields(request: HttpRequest) -> list[str]:
    # Headers too: a token or key with NUL would reach a PostgreSQL query (knox looks the token up).
    found = [
        key[5:].replace("_", "-").title()
        for key, value in request.META.items()
        if key.startswith("HTTP_") and isinstance(value, str) and "\x00" in value
    ]
    sources = [request.GET]
    if request.method == "POST" and not is_api(request) and request.content_type in FORM_TYPES:
        sources.append(request.POST)
    for data in sources:
        for key, values in data.lists():
            if "\x00" in key or any("\x00" in v for v in values):
                found.append(_shown(key))
    return sorted(set(found))


def bad_field_response(request: HttpRequest, fields: list[str]) -> HttpResponse:
    reason = _("Contains a NUL character (\\u0000), which cannot be stored.")
    if is_api(request):
        message = _("Some fields are invalid; see fields.")
        return JsonResponse(_error(ErrorCode.VALIDATION_ERROR, message, {f: [reason] for f in fields}), status=400)
    return render(request, "400.html", {"fields": fields, "reason": reason}, status=400)


class RequestGuardMiddleware:
    """Before the view (and before CSRF reads the form): API body size, then NUL characters in fields."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if is_api(request):
            try:
                declared = int(request.META.get("CONTENT_LENGTH") or 0)
            except ValueError:
                declared = 0
            if declared > settings.API_MAX_BODY_BYTES:
                return payload_too_large_response(settings.API_MAX_BODY_BYTES)
        try:
            fields = _nul_fields(request)
        except (RequestDataTooBig, TooManyFieldsSent, TooManyFilesSent) as exc:
            return bad_request(request, exc)
        if fields:
            return bad_field_response(request, fields)
        return self.get_response(request)


def bad_request(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    """``handler400``: JSON in the API's error shape under /api/ (413 for a size limit), else the 400 page."""
    too_big = isinstance(exception, RequestDataTooBig)
    if is_api(request):
        if too_big:
            return payload_too_large_response(min(settings.API_MAX_BODY_BYTES, settings.DATA_UPLOAD_MAX_MEMORY_SIZE))
        return JsonResponse(_error(ErrorCode.BAD_REQUEST, _("The request could not be read.")), status=400)
    if too_big:
        message = _("The form is too large to be sent.")
    elif isinstance(exception, TooManyFieldsSent | TooManyFilesSent):
        message = _("The form has too many fields.")
    else:
        message = _("The request could not be read.")
    try:
        return render(request, "400.html", {"message": message}, status=413 if too_big else 400)
    except Exception:  # the error page must never fail itself
        logger.exception("400 page failed to render")
        return HttpResponse(message, status=400, content_type="text/plain; charset=utf-8")
