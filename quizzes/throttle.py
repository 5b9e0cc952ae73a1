"""Session compatibility only: the log-in backend's path before issue 12 moved it to quizzes.accounts.throttle.

A Django session stores the dotted path of the backend that logged it in and loads the user only if
that path is still in AUTHENTICATION_BACKENDS. This alias keeps sessions created before the move
loading until they expire (SESSION_COOKIE_AGE, two weeks); after that, delete this module and its
entry in settings. Nothing else imports it.
"""

from quizzes.accounts.throttle import ThrottledModelBackend

__all__ = ["ThrottledModelBackend"]
