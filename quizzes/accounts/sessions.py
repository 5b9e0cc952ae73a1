"""The browser session store: Django's database sessions, with the row read by a compiled statement.

Why (issue 16): every signed-in page loads its session first; ``Session.objects.get(...)`` built and compiled a
QuerySet for it each time, about as much Python as PostgreSQL's whole primary-key read. The rule is Django's
(the key, not expired); only how the row is fetched changes. Writing, rotating and deleting sessions are
Django's own code. ``SESSION_ENGINE`` names this module.

A signed-in session is indexed under its learner (``BrowserSession``, written at log-in: quizzes.accounts.signals);
when Django gives a session a new key (log-in, a password change), ``cycle_key`` carries the index row over to it.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.contrib.sessions.backends import db
from django.contrib.sessions.models import Session
from django.db.models import QuerySet
from django.utils import timezone

from quizzes.accounts.selectors import browser_session_for_key
from quizzes.accounts.services import browser_session_index
from quizzes.core.compiled import CompiledRead


def _session_data_query(_key: object, *, session_key: str, now: dt.datetime) -> QuerySet[Any]:
    return Session.objects.filter(session_key=session_key, expire_date__gt=now).values_list("session_data")


_SESSION_DATA = CompiledRead(_session_data_query, {"session_key": str, "now": dt.datetime})


class SessionStore(db.SessionStore):
    def load(self) -> dict[str, Any]:
        """The session's data, or ``{}`` (and no key, so a write makes a new one) when it is unknown or expired."""
        found = _SESSION_DATA.rows(None, session_key=self.session_key or "", now=timezone.now())
        if not found:
            self._session_key = None
            return {}
        return self.decode(found[0][0])

    def cycle_key(self) -> None:
        """A new key for the same data; the learner's index follows it (the old row goes with the old session)."""
        old_key = self.session_key
        indexed = browser_session_for_key(session_key=old_key) if old_key else None
        super().cycle_key()
        if indexed is not None and self.session_key:
            browser_session_index(
                session_key=self.session_key,
                user_id=indexed.user_id,
                user_agent=indexed.user_agent,
                created_at=indexed.created_at,
            )
