"""The answer lock as the API states it, for items and lesson checkpoints alike: the first answer stands, and a
different one afterwards is a 409 ``answer_locked`` whose body carries the locked thing, so a client shows what
counts without another request."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiResponse
from rest_framework import serializers, status

from quizzes.api.errors import ApiError
from quizzes.api.serializers.common import ErrorResponseSerializer
from quizzes.core.errors import ErrorCode


def locked_response(ref_name: str, **locked: serializers.Field) -> OpenApiResponse:
    """The documented 409 (component ``ref_name``): the error shape plus the locked thing, one field named for it."""
    ((name, field),) = locked.items()
    meta = type("Meta", (), {"ref_name": ref_name})
    serializer = serializers.SerializerMetaclass(
        f"{ref_name}Serializer", (ErrorResponseSerializer,), {name: field, "Meta": meta, "__module__": __name__}
    )
    return OpenApiResponse(serializer, description=f"Already answered differently: the locked {name}.")


def answer_locked(message: str, **locked: Any) -> ApiError:
    """The 409 to raise; ``locked`` is the locked thing under its name, as the answer's own response shows it."""
    return ApiError(status_code=status.HTTP_409_CONFLICT, code=ErrorCode.ANSWER_LOCKED, message=message, extra=locked)
