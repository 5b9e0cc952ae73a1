"""OpenAPI helpers: the documented error responses every operation shares, and limits serializers can't declare."""

from __future__ import annotations

from typing import Any

from drf_spectacular.openapi import AutoSchema
from drf_spectacular.utils import OpenApiResponse

from quizzes.api.serializers.common import ErrorResponseSerializer

ERROR_DESCRIPTIONS = {
    400: "Invalid request: see error.fields.",
    401: "Not logged in, or the token is invalid or expired.",
    403: "Logged in, but not allowed (e.g. staff only, or a missing CSRF token with session auth).",
    404: "No such object for this learner (other learners' objects are never found).",
    409: "Conflict with the current state.",
    413: "The request body is too large.",
    415: "Send JSON (Content-Type: application/json).",
    422: "The Idempotency-Key was already used with a different request.",
    429: "Too many requests; retry after the Retry-After header's seconds.",
}


class ProjectAutoSchema(AutoSchema):
    """drf-spectacular documents a request body only for POST, PUT and PATCH; a DELETE that names one with
    ``extend_schema(request=...)`` (``DELETE /profile/`` reads the password again) gets it too, so a generated
    client can send it. OpenAPI 3.0 allows it (RFC 9110 gives such a body no generic meaning, not no meaning)."""

    def get_operation(
        self, path: str, path_regex: str, path_prefix: str, method: str, registry: Any
    ) -> dict[str, Any] | None:
        operation = super().get_operation(path, path_regex, path_prefix, method, registry)
        if operation is None or self.method != "DELETE" or "requestBody" in operation:
            return operation
        serializer = self.get_request_serializer()  # None unless the handler's extend_schema names one
        if serializer is not None:
            component = self.resolve_serializer(serializer, "request")
            operation["requestBody"] = {"content": {"application/json": {"schema": component.ref}}, "required": True}
        return operation


def errors(*codes: int) -> dict[int, OpenApiResponse]:
    return {code: OpenApiResponse(ErrorResponseSerializer, description=ERROR_DESCRIPTIONS[code]) for code in codes}


def add_error_responses(result: dict[str, Any], generator: Any, request: Any, public: bool) -> dict[str, Any]:
    """Postprocessing hook: every operation may also answer 406 (Accept not JSON) and 401/400 in the error shape."""
    ref = {"$ref": "#/components/schemas/ErrorResponse"}
    for path_item in result.get("paths", {}).values():
        for method, operation in path_item.items():
            responses = operation.setdefault("responses", {})
            responses.setdefault(
                "406", {"content": {"application/json": {"schema": ref}}, "description": "Only JSON is served."}
            )
            codes: tuple[int, ...] = ()
            if method in ("post", "put", "patch"):  # a body is read (even if only for the Idempotency-Key hash)
                codes = (400, 413, 415)
            elif any(p.get("in") in ("query", "header") for p in operation.get("parameters", [])):
                codes = (400,)
            if codes:
                for code in codes:
                    responses.setdefault(
                        str(code),
                        {"content": {"application/json": {"schema": ref}}, "description": ERROR_DESCRIPTIONS[code]},
                    )
    return result


def add_enforced_limits(result: dict[str, Any], generator: Any, request: Any, public: bool) -> dict[str, Any]:
    """Postprocessing hook: limits the server enforces that drf-spectacular does not derive by itself.

    - the offline batch's ``minItems``/``maxItems`` (a ListSerializer's min_length/max_length);
    - the longest typed numeric answer (``value`` as text), as a description: ``value`` may be any JSON;
    - the offline entry's ``correct`` is deprecated (the client's own grade; review packs replace it).
    """
    from django.conf import settings

    from quizzes.practice.services.answers import MAX_NUMERIC_RESPONSE_CHARS

    schemas = result.get("components", {}).get("schemas", {})
    entries = schemas.get("OfflineUploadRequest", {}).get("properties", {}).get("entries")
    if entries is not None:
        entries.update({"minItems": 1, "maxItems": settings.API_OFFLINE_MAX_ENTRIES})
    correct = schemas.get("OfflineEntryRequest", {}).get("properties", {}).get("correct")
    if correct is not None:  # kept working for one version; pack answers replace it (issue 17)
        correct["deprecated"] = True
    value = schemas.get("AnswerRequest", {}).get("properties", {}).get("value")
    if value is not None:
        value["description"] = (
            value.get("description", "")
            + f" Text is at most {MAX_NUMERIC_RESPONSE_CHARS} characters; numbers must be finite and fit in 64 bits."
        ).strip()
    return result
