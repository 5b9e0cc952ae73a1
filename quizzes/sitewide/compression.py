"""Compressed API responses (issue 28): gzip when the client accepts it, above a minimum size.

What is compressed: responses under ``/api/`` (the REST API, review packs, the schema) whose type is JSON,
YAML, XML, SVG or another text type but not HTML, at least ``COMPRESS_MIN_BYTES`` long (streamed ones too,
chunk by chunk). (Issue 28: a 14-day pack was 158 KiB on the wire, 28 KiB gzipped; bench/README.md has our figures.)

**BREACH.** The attack needs a secret and attacker-chosen text in one compressed response, fetched by the victim's
browser with its credentials, many times. Learner *pages* (HTML: the CSRF token and the learner's data next to
echoed input) are therefore never compressed, and neither is the API's HTML (``/api/docs/``). The API's JSON is:
apps authenticate with a token in a header, which a page on another site cannot make a browser send. Django's gzip
also pads every response with 0–99 random bytes in the gzip header ("Heal the Breach", Django ≥ 4.2), kept here.

**No Brotli.** It would save a little more than gzip but needs a native dependency (``brotli``) and has no such
padding in Django, so it would need a BREACH story of its own; every phone HTTP stack (OkHttp, URLSession) sends
and decodes gzip.

A strong ETag of a compressed response becomes weak (``W/"…"``), as RFC 9110 requires; If-None-Match is a
weak comparison, and the API views compare without the ``W/`` (quizzes.api.views.common.etag_response).
"""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest, HttpResponseBase
from django.middleware.gzip import GZipMiddleware

#: Content types worth compressing (the type before any ``;`` parameters); HTML never (BREACH, above).
COMPRESSIBLE = frozenset(
    {
        "application/json",
        "application/problem+json",
        "application/yaml",
        "application/vnd.oai.openapi",
        "application/vnd.oai.openapi+json",
        "application/xml",
        "image/svg+xml",
        "text/plain",
        "text/csv",
        "text/xml",
        "text/yaml",
    }
)


def compressible(request: HttpRequest, response: HttpResponseBase) -> bool:
    """The one rule for what may be compressed: an API path, a text type that is not HTML, and big enough."""
    if not request.path.startswith("/api/"):
        return False
    content_type = response.get("Content-Type", "").split(";", 1)[0].strip().lower()
    if content_type not in COMPRESSIBLE:
        return False
    if response.streaming:
        return True
    return len(getattr(response, "content", b"")) >= settings.COMPRESS_MIN_BYTES


class ApiCompressionMiddleware(GZipMiddleware):
    """Django's GZipMiddleware (random padding, Vary: Accept-Encoding, weak ETags), for ``compressible`` only."""

    def process_response(self, request: HttpRequest, response: HttpResponseBase) -> HttpResponseBase:
        if not compressible(request, response):
            return response
        return super().process_response(request, response)
