"""Response headers the whole site shares: Cache-Control for per-learner content, and the favicon.

Cache-Control (``CacheControlMiddleware``): every dynamic response — learner pages and API responses —
is ``private, no-store`` unless its view said otherwise: nothing a learner sees (their queue, their
answers, a page with their CSRF token) may be kept by a shared cache or left on disk. The exceptions set
their own header and are left alone: resources revalidated with an ETag (the lessons API:
``private, no-cache``, so a client keeps its copy and asks with If-None-Match), the admin (Django's
never_cache) and static files (whitenoise answers them before this middleware).

The Content-Security-Policy itself is django-csp's middleware with ``CONTENT_SECURITY_POLICY`` in settings.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from django.http import FileResponse, HttpRequest, HttpResponse
from django.views.decorators.http import require_safe

NO_STORE = "private, no-store"
FAVICON = Path(__file__).resolve().parents[1] / "static" / "quizzes" / "favicon.ico"


class CacheControlMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if "Cache-Control" not in response:
            response["Cache-Control"] = NO_STORE
        return response


@require_safe
def favicon(request: HttpRequest) -> FileResponse:
    """``/favicon.ico`` (browsers ask for it whatever the page links): our own icon, cached for a day."""
    response = FileResponse(FAVICON.open("rb"), content_type="image/x-icon")
    response["Cache-Control"] = "public, max-age=86400"
    return response
