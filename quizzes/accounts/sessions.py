"""The browser session store: Django's database sessions, whose key rotation also moves the learner's index.

A signed-in session is indexed under its learner (``BrowserSession``, written at log-in: quizzes.accounts.signals);
when Django gives a session a new key (log-in, a password change), ``cycle_key`` carries the index row over to it.
Reading, writing and deleting sessions are Django's own code: the compiled read of the session row that issue 16
put here saved 0.76 ms of CPU per signed-in page (bench/README.md, "SQL fast paths"), under the 1 ms / 20 % that
keeps a fast path (issue 26).
"""

from __future__ import annotations

from django.contrib.sessions.backends import db

from quizzes.accounts.selectors import browser_session_for_key
from quizzes.accounts.services import browser_session_index


class SessionStore(db.SessionStore):
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
