"""How much code grading one request, and one learner, may cause (issue 25).

Every code answer runs the learner's code in the sandbox worker (attention_engine.codecheck): about
1.5 ms for an ordinary answer, at most about 0.1 s for the heaviest submission the checker's limits
allow (bench/README.md). An offline upload carries up to 500 entries, any of them code, and it is
graded inside one gunicorn request (``--timeout 30``), so the grading is bounded twice:

- **per request**: :class:`GradingBudget` (``CODECHECK_REQUEST_GRADING_SECONDS``, 2 s). What counts is
  the wall-clock time of each sandbox call (at least the worker's own CPU time, and a worker restarted
  on the way counts too). Checked *before* each grading: once the request has spent its budget, every
  further code answer in it is refused with ``grading_budget_exceeded`` — nothing is graded, stored or
  locked, and the client sends it again later. A grading that has started is never cut short (the
  worker's own 2 s timeout backs it), so a request grades for at most the budget plus one grading.
- **per learner**: the same seconds, added up per learner in fixed one-minute windows in the
  ``throttle`` cache (Redis in production: shared by every process and machine; this process's memory
  while it is down, as for the log-in throttle), at most ``CODECHECK_LEARNER_GRADING_SECONDS`` (10 s)
  per minute. Past it, code answers are refused the same way until the minute is over (``retry_after``):
  parallel requests of one learner cannot each take a request's budget.

The budget belongs to the *judging* of answers, not to storing them: an online answer creates one
for its request (``item_answer``); the offline upload creates one and hands it to its pure judging step
(``quizzes.packs.upload.upload_judge``), which runs before anything is locked or written.
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
import time
from collections.abc import Iterator

from django.conf import settings
from django.utils.translation import gettext as _

from quizzes.accounts import throttle
from quizzes.core.errors import DomainError, ErrorCode

WINDOW_SECONDS = 60


class GradingBudgetExceeded(DomainError):
    """No more code grading now: this request's budget is spent, or this learner's for the minute.
    Nothing was graded or locked; ``retry_after`` seconds until trying again makes sense."""

    def __init__(self, message: str, *, retry_after: int) -> None:
        super().__init__(ErrorCode.GRADING_BUDGET_EXCEEDED, message)
        self.retry_after = max(1, retry_after)


def _window_key(user_id: int, now: float) -> str:
    return f"codecheck:grading:{user_id}:{int(now // WINDOW_SECONDS)}"


@dataclasses.dataclass
class GradingBudget:
    """The grading one request may still do: ``seconds`` in all, ``spent`` so far (see the module docstring)."""

    user_id: int | None
    seconds: float
    learner_seconds: float
    spent: float = 0.0
    gradings: int = 0
    refused: int = 0

    @classmethod
    def for_request(cls, *, user_id: int | None) -> GradingBudget:
        return cls(
            user_id=user_id,
            seconds=float(settings.CODECHECK_REQUEST_GRADING_SECONDS),
            learner_seconds=float(settings.CODECHECK_LEARNER_GRADING_SECONDS),
        )

    def check(self) -> None:
        """Raise GradingBudgetExceeded unless another grading may start now."""
        if self.spent >= self.seconds:
            self.refused += 1
            raise GradingBudgetExceeded(
                _(
                    "This request has used its %(seconds)s s of code grading; nothing was graded or locked for "
                    "this answer. Send it again in a new request."
                )
                % {"seconds": _number(self.seconds)},
                retry_after=1,
            )
        if self.user_id is not None:
            now = time.time()
            used = throttle.counter_value(_window_key(self.user_id, now)) / 1000
            if used >= self.learner_seconds:
                self.refused += 1
                wait = math.ceil(WINDOW_SECONDS - now % WINDOW_SECONDS)
                raise GradingBudgetExceeded(
                    _(
                        "You have used %(seconds)s s of code grading this minute; nothing was graded or locked for "
                        "this answer. Try again in %(wait)d s."
                    )
                    % {"seconds": _number(self.learner_seconds), "wait": wait},
                    retry_after=wait,
                )

    @contextlib.contextmanager
    def grading(self) -> Iterator[None]:
        """Around one sandbox call: checked before it starts, its time charged after it ends (even if it failed)."""
        self.check()
        start = time.monotonic()
        try:
            yield
        finally:
            elapsed = time.monotonic() - start
            self.spent += elapsed
            self.gradings += 1
            if self.user_id is not None:
                key = _window_key(self.user_id, time.time())
                throttle.counter_add(key, max(1, round(elapsed * 1000)), timeout=2 * WINDOW_SECONDS)


def _number(seconds: float) -> str:
    return f"{seconds:g}"
