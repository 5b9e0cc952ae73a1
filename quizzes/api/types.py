"""The request an authenticated API view receives, for the type checker.

Every view but log-in runs behind DEFAULT_PERMISSION_CLASSES (IsAuthenticated): its user is a learner,
never anonymous, so views annotate ``request: LearnerApiRequest`` and pass ``request.user`` to services
typed ``user: User``.
"""

from __future__ import annotations

from django.contrib.auth.models import User
from rest_framework.request import Request


class LearnerApiRequest(Request):
    user: User
