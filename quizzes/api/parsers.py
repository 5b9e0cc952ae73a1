"""JSON parsing with a body size limit: a request larger than API_MAX_BODY_BYTES is refused with 413.

Django's DATA_UPLOAD_MAX_MEMORY_SIZE only guards ``request.body``; DRF reads the stream, so the
limit is enforced here, before anything is decoded (Content-Length first, then the bytes read).
"""

from __future__ import annotations

import json
from typing import Any

from django.conf import settings
from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser

from quizzes.api.errors import PayloadTooLarge


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


class LimitedJSONParser(JSONParser):
    def parse(self, stream: Any, media_type: str | None = None, parser_context: dict | None = None) -> Any:
        limit = settings.API_MAX_BODY_BYTES
        request = (parser_context or {}).get("request")
        if request is not None:
            try:
                declared = int(request.META.get("CONTENT_LENGTH") or 0)
            except ValueError:
                declared = 0
            if declared > limit:
                raise PayloadTooLarge(limit)
        raw = stream.read(limit + 1)
        if len(raw) > limit:
            raise PayloadTooLarge(limit)
        try:
            return json.loads(raw.decode("utf-8"), parse_constant=_reject_constant)
        except (ValueError, UnicodeDecodeError) as exc:
            raise ParseError(f"JSON parse error - {exc}") from exc
