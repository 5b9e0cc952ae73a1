"""The reminder e-mail's one-click unsubscribe page (RFC 8058)."""

from __future__ import annotations

from django.core import signing
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods

from quizzes.notifications.selectors import unsubscribe_user_for_token
from quizzes.notifications.services import reminder_unsubscribe


@never_cache
@csrf_exempt  # RFC 8058: the mail client POSTs without a CSRF token; the signed token is the authority
@require_http_methods(["GET", "POST"])
def reminder_unsubscribe_view(request: HttpRequest, token: str) -> HttpResponse:
    """GET asks for confirmation (link scanners must not unsubscribe anyone); POST unsubscribes."""
    try:
        learner = unsubscribe_user_for_token(token=token)
    except signing.BadSignature:
        return render(request, "quizzes/ops/unsubscribe.html", {"state": "invalid"}, status=400)
    if request.method == "POST":
        reminder_unsubscribe(token=token)
        return render(request, "quizzes/ops/unsubscribe.html", {"state": "done", "learner": learner})
    return render(request, "quizzes/ops/unsubscribe.html", {"state": "confirm", "learner": learner})
