"""The API's JSON renderer: UTF-8 JSON that can always be encoded.

DRF renders with ``ensure_ascii=False`` (``UNICODE_JSON``) and then encodes to UTF-8, which fails on an
unpaired surrogate (``"\\ud800"``) anywhere in the data — e.g. a validation message that repeats the
client's input. The parser already refuses such strings in request bodies; this is the last line for
every other way one might reach a response (a message from a library, a header echoed back): the
offending characters are replaced with U+FFFD and the response is sent, never a 500.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from rest_framework.renderers import JSONRenderer

_SURROGATE = re.compile(r"[\ud800-\udfff]")


def scrub(data: Any) -> Any:
    """``data`` with every unpaired surrogate in its strings (keys and values) replaced by U+FFFD."""
    if isinstance(data, str):
        return _SURROGATE.sub("\ufffd", data)
    if isinstance(data, dict):
        return {scrub(k): scrub(v) for k, v in data.items()}
    if isinstance(data, list | tuple):
        return [scrub(v) for v in data]
    return data


class SafeJSONRenderer(JSONRenderer):
    def render(
        self, data: Any, accepted_media_type: str | None = None, renderer_context: Mapping[str, Any] | None = None
    ) -> bytes:
        try:
            return super().render(data, accepted_media_type, renderer_context)
        except UnicodeEncodeError:
            return super().render(scrub(data), accepted_media_type, renderer_context)
