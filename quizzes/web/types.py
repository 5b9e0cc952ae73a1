"""The requests learner pages receive, for the type checker.

``PageRequest``: any page request (django-htmx's middleware adds ``htmx``). ``LearnerRequest``: a page
behind ``@login_required``, whose user is a learner, never anonymous. The decorator is what guarantees
it; the annotation lets views pass ``request.user`` to services typed ``user: User``.
"""

from __future__ import annotations

from django.contrib.auth.models import User
from django.http import HttpRequest
from django_htmx.middleware import HtmxDetails


class PageRequest(HttpRequest):
    htmx: HtmxDetails


class LearnerRequest(PageRequest):
    user: User


def signed_in(request: HttpRequest) -> User | None:
    """The learner a page request is signed in as, or None for a visitor (pages open to both)."""
    user = request.user
    return user if isinstance(user, User) and user.is_authenticated else None
