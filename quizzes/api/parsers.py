"""JSON parsing that never crashes: size, depth, numbers and strings are checked before a view sees the data.

Every refusal is a 4xx in the documented error shape (quizzes.api.errors):

- **Size**: a body larger than ``API_MAX_BODY_BYTES`` → 413 ``payload_too_large`` (Content-Length first,
  then the bytes read). Django's own ``DATA_UPLOAD_MAX_MEMORY_SIZE`` is answered the same way on API routes
  (quizzes.api.errors.RequestLimitsMiddleware and ``handler400``), whichever fires first.
- **Depth**: arrays/objects nested deeper than ``API_MAX_JSON_DEPTH`` (default 32) → 400 ``too_deep``.
  The depth is measured by a linear scan of the text *before* ``json.loads`` (strings are cut out with
  one regular expression, the brackets left are counted), so no input can make the decoder recurse
  deeply: ``RecursionError`` cannot happen. The walk over the decoded value is iterative as well.
- **Numbers**: ``NaN``/``Infinity`` literals, floats that overflow to ±inf (``1e400``) and integers
  outside the signed 64-bit range (what PostgreSQL's bigint and every mobile platform can hold) → 400
  naming the field.
- **Strings**: a NUL character (PostgreSQL text and jsonb cannot hold it) or an unpaired UTF-16
  surrogate (``"\\ud800"``: not encodable as UTF-8, so no database, renderer or log can take it) in any
  key or value → 400 naming the field. Nothing is "cleaned" silently: the client has a bug to hear about.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from itertools import accumulate
from typing import Any

from django.conf import settings
from django.utils.translation import gettext as _
from rest_framework import status
from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser

from quizzes.core.errors import ErrorCode

#: The largest integer a JSON number may be (signed 64-bit).
MAX_JSON_INT = 2**63 - 1

# A JSON string literal: a quote, then anything but a quote/backslash or an escape pair, then a quote.
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_DEPTH_STEP = str.maketrans({"[": "\x02", "{": "\x02", "]": "\x00", "}": "\x00"})
_BAD_CHARS = re.compile(r"[\x00\ud800-\udfff]")


def json_depth(text: str) -> int:
    """The deepest nesting of arrays/objects in ``text`` (0 for a scalar), without parsing or recursing."""
    brackets = _NOT_BRACKET.sub("", _STRING.sub("", text))
    if not brackets:
        return 0
    # "[" → +1, "]" → -1; the running sum's maximum is the depth (accumulate runs in C).
    return max(accumulate(ord(c) - 1 for c in brackets.translate(_DEPTH_STEP)))


class _BadNumber:
    """Stands in for a number the decoder met that the API refuses; reported with its field path."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text[:40]


def _parse_int(text: str) -> int | _BadNumber:
    if len(text) > 20:  # more digits than any 64-bit integer: don't even convert
        return _BadNumber(text)
    value = int(text)
    return value if -MAX_JSON_INT - 1 <= value <= MAX_JSON_INT else _BadNumber(text)


def _parse_float(text: str) -> float | _BadNumber:
    value = float(text)
    return value if value not in (float("inf"), float("-inf")) else _BadNumber(text)


def string_problem(text: str) -> str | None:
    """Why a string can't be accepted (NUL or an unpaired surrogate), or None."""
    found = _BAD_CHARS.search(text)
    if found is None:
        return None
    if found.group() == "\x00":
        return _("Contains a NUL character (\\u0000), which cannot be stored.")
    return _("Contains an unpaired UTF-16 surrogate (e.g. \\ud800), which is not valid Unicode text.")


def _path(parts: tuple) -> str:
    """A field path for the error body; a part that is itself a refused string is shown escaped."""
    shown = (repr(p)[1:-1] if isinstance(p, str) and _BAD_CHARS.search(p) else str(p) for p in parts)
    return ".".join(shown) or "non_field_errors"


def value_problems(data: Any) -> dict[str, list[str]]:
    """Every refused number or string in ``data``, by field path (``entries.3.question_key``); iterative."""
    problems: dict[str, list[str]] = {}
    stack: list[tuple[tuple, Any]] = [((), data)]
    while stack:
        path, value = stack.pop()
        if isinstance(value, dict):
            for key, child in value.items():
                reason = string_problem(key)
                if reason:
                    problems.setdefault(_path((*path, key)), []).append(reason)
                stack.append(((*path, key), child))
        elif isinstance(value, list):
            stack.extend(((*path, index), child) for index, child in enumerate(value))
        elif isinstance(value, str):
            reason = string_problem(value)
            if reason:
                problems.setdefault(_path(path), []).append(reason)
        elif isinstance(value, _BadNumber):
            problems.setdefault(_path(path), []).append(
                _("%(number)s is not a number the API accepts (too large, infinite or NaN).") % {"number": value.text}
            )
    return dict(sorted(problems.items()))


def _reject_constant(name: str) -> _BadNumber:
    return _BadNumber(name)


def parse_json_text(text: str) -> Any:
    """Decode JSON text under the API's rules; raises ApiError (400) or ParseError."""
    # Imported here: quizzes.api.errors imports rest_framework.views, which imports this module (the parser setting).
    from quizzes.api.errors import ApiError

    limit = settings.API_MAX_JSON_DEPTH
    if json_depth(text) > limit:
        raise ApiError(
            status_code=status.HTTP_400_BAD_REQUEST,
            code=ErrorCode.TOO_DEEP,
            message=_("The JSON is nested more than %(limit)d levels deep.") % {"limit": limit},
        )
    try:
        data = json.loads(text, parse_constant=_reject_constant, parse_int=_parse_int, parse_float=_parse_float)
    except (ValueError, RecursionError) as exc:  # RecursionError: unreachable after the depth check; belt and braces
        raise ParseError(_("JSON parse error - %(error)s") % {"error": str(exc)[:200]}) from exc
    problems = value_problems(data)
    if problems:
        raise ApiError(
            status_code=status.HTTP_400_BAD_REQUEST,
            code=ErrorCode.VALIDATION_ERROR,
            message=_("Some fields are invalid; see fields."),
            fields=problems,
        )
    return data


class LimitedJSONParser(JSONParser):
    def parse(self, stream: Any, media_type: str | None = None, parser_context: Mapping[str, Any] | None = None) -> Any:
        from quizzes.api.errors import PayloadTooLarge

        limit = settings.API_MAX_BODY_BYTES
        request = (parser_context or {}).get("request")
        if request is not None:
            try:
                declared = int(request.META.get("CONTENT_LENGTH") or 0)
            except ValueError:
                declared = 0
            if declared > limit:
                raise PayloadTooLarge(limit)
        raw = stream.read(limit + 1) if stream is not None else b""
        if len(raw) > limit:
            raise PayloadTooLarge(limit)
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ParseError(_("The body is not UTF-8 text.")) from exc
        return parse_json_text(text)
