"""Account rows that follow other writes: the browser-session index at every log-in, the username skeleton at every
save of a new or renamed user; and a new API token's device counts as just seen (its log-in wrote last_seen_at), so
its first requests in this process write nothing (quizzes.accounts.devices.device_seen).

Signals rather than calls in each view, because every way in signs in through ``django.contrib.auth.login`` (the
learner pages, sign-up, the admin's log-in page) and users are also made by the admin and ``createsuperuser``.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import SESSION_KEY, get_user_model
from django.contrib.auth.signals import user_logged_in
from django.db.models.signals import post_save
from django.dispatch import receiver
from django.http import HttpRequest
from knox.models import AuthToken

from quizzes.accounts.devices import device_seen_note
from quizzes.accounts.services import browser_session_index, username_skeleton_write


@receiver(user_logged_in)
def index_the_session(sender: type, request: HttpRequest | None, user: Any, **kwargs: Any) -> None:
    """A browser signed in (``login()`` put the user in its session): index the session under the learner.

    The API's token log-in sends this signal too, without signing the request's session in: nothing to index.
    """
    session = getattr(request, "session", None)
    if request is None or session is None or session.get(SESSION_KEY) != str(user.pk):
        return
    if session.session_key is None:  # login() flushed a session that belonged to someone else: store the new one
        session.save()
    browser_session_index(
        session_key=session.session_key, user_id=user.pk, user_agent=request.META.get("HTTP_USER_AGENT", "")
    )


@receiver(post_save, sender=get_user_model())
def index_the_username(sender: type, instance: Any, created: bool, update_fields: Any = None, **kwargs: Any) -> None:
    if created or update_fields is None or "username" in update_fields:
        username_skeleton_write(user=instance)


@receiver(post_save, sender=AuthToken)
def a_new_token_was_just_seen(sender: type, instance: AuthToken, created: bool, **kwargs: Any) -> None:
    if created:
        device_seen_note(digest=instance.digest, now=instance.created)
