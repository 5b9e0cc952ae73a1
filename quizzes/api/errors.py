"""The one error shape of the API: every 4xx body is ``{"error": {"code", "message", "fields"}}``.

DRF exceptions, Django ``ValidationError``/``PermissionDenied``/``Http404`` raised by services, and
URLs under /api/ that match nothing all end up here, so a mobile client parses one shape.
``fields`` maps a field path (``entries.3.reviewed_at``) to its messages; it is ``{}`` when the
error is not about a field.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import RequestDataTooBig, TooManyFieldsSent
from django.core.exceptions import ValidationError as DjangoValidationError
from django.http import Http404, HttpRequest, JsonResponse
from django.utils.translation import gettext as _
from django.views.decorators.csrf import csrf_exempt
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.serializers import as_serializer_error
from rest_framework.views import exception_handler as drf_exception_handler

from quizzes.core.errors import ErrorCode

NON_FIELD_KEYS = ("non_field_errors", "__all__")


class ApiError(exceptions.APIException):
    """An error with an explicit status, code and message, and optional extra top-level data (e.g. the locked item)."""

    def __init__(
        self,
        *,
        status_code: int,
        code: str,
        message: str,
        fields: dict[str, list[str]] | None = None,
        extra: dict[str, Any] | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(detail=message, code=code)
        self.status_code = status_code
        self.code = code
        self.message = message
        self.fields = fields or {}
        self.extra = extra or {}
        self.headers = headers or {}


class PayloadTooLarge(ApiError):
    def __init__(self, limit: int) -> None:
        super().__init__(
            status_code=status.HTTP_413_REQUEST_ENTITY_TOO_LARGE,
            code=ErrorCode.PAYLOAD_TOO_LARGE,
            message=_("The request body is larger than %(limit)d bytes.") % {"limit": limit},
        )


def error_body(code: str, message: str, fields: dict[str, list[str]] | None = None) -> dict[str, Any]:
    return {"error": {"code": code, "message": message, "fields": fields or {}}}


def _flatten(detail: Any, prefix: str = "") -> dict[str, list[str]]:
    """DRF's nested error detail → {"a.b.0.c": ["message", ...]}."""
    out: dict[str, list[str]] = {}
    if isinstance(detail, dict):
        for key, value in detail.items():
            name = str(key) if not prefix else f"{prefix}.{key}"
            if key in NON_FIELD_KEYS:
                name = prefix or "non_field_errors"
            for sub, messages in _flatten(value, name).items():
                out.setdefault(sub, []).extend(messages)
    elif isinstance(detail, list):
        if all(not isinstance(v, dict | list) for v in detail):
            out[prefix or "non_field_errors"] = [str(v) for v in detail]
        else:
            for index, value in enumerate(detail):
                if value:
                    out.update(_flatten(value, f"{prefix}.{index}" if prefix else str(index)))
    else:
        out[prefix or "non_field_errors"] = [str(detail)]
    return out


def _first_code(detail: Any) -> str | None:
    if isinstance(detail, exceptions.ErrorDetail):
        return detail.code
    if isinstance(detail, dict):
        for value in detail.values():
            code = _first_code(value)
            if code:
                return code
    if isinstance(detail, list):
        for value in detail:
            code = _first_code(value)
            if code:
                return code
    return None


def _validation_body(exc: exceptions.ValidationError) -> dict[str, Any]:
    fields = _flatten(exc.detail)
    general = fields.pop("non_field_errors", None)
    if general and not fields:
        # A rule about the request as a whole ("Nothing in this lesson is due"): its own code.
        code = _first_code(exc.detail) or "invalid"
        return error_body(ErrorCode.INVALID if code in ("invalid", "invalid_choice") else code, " ".join(general))
    if general:
        fields["non_field_errors"] = general
    return error_body(ErrorCode.VALIDATION_ERROR, _("Some fields are invalid; see fields."), fields)


def api_exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """DRF's EXCEPTION_HANDLER: convert, let DRF set status and headers (Retry-After, WWW-Authenticate), reshape."""
    if isinstance(exc, RequestDataTooBig):  # Django's DATA_UPLOAD_MAX_MEMORY_SIZE fired before our own limit
        exc = PayloadTooLarge(min(settings.API_MAX_BODY_BYTES, settings.DATA_UPLOAD_MAX_MEMORY_SIZE))
    elif isinstance(exc, TooManyFieldsSent):
        exc = exceptions.ParseError(_("The request has too many fields."))
    if isinstance(exc, DjangoValidationError):
        exc = exceptions.ValidationError(detail=as_serializer_error(exc))
    elif isinstance(exc, DjangoPermissionDenied):
        exc = exceptions.PermissionDenied(detail=str(exc) or None)
    elif isinstance(exc, Http404):
        exc = exceptions.NotFound()
    if isinstance(exc, ApiError):
        body = error_body(exc.code, exc.message, exc.fields) | exc.extra
        return Response(body, status=exc.status_code, headers=exc.headers)
    response = drf_exception_handler(exc, context)
    if response is None:
        return None
    if isinstance(exc, exceptions.ValidationError):
        response.data = _validation_body(exc)
    elif isinstance(exc, exceptions.APIException):
        detail = exc.detail
        message = (
            str(detail)
            if not isinstance(detail, dict | list)
            else " ".join(_flatten(detail).get("non_field_errors", []))
        )
        codes = exc.get_codes()
        response.data = error_body(codes if isinstance(codes, str) else str(exc.default_code), message)
    return response


@csrf_exempt
def api_not_found(request: HttpRequest, *args: Any, **kwargs: Any) -> JsonResponse:
    """Catch-all for /api/ URLs that match nothing: a JSON 404 in the error shape, not an HTML page."""
    return JsonResponse(error_body(ErrorCode.NOT_FOUND, _("There is no API endpoint at this address.")), status=404)
