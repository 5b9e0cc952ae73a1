"""Practice writes: starting and finishing attempts, answering items (the lock), the review session's attempts,
teaching checkpoints' first answers."""

from quizzes.practice.services.anonymise import attempts_anonymise
from quizzes.practice.services.answers import AnswerOutcome, CodeNotRunnable, item_answer, item_rate
from quizzes.practice.services.attempts import (
    attempt_finish,
    attempt_show_skipped,
    attempt_start,
    attempt_start_missed,
    attempts_expire_abandoned,
)
from quizzes.practice.services.checkpoints import checkpoint_answer_record
from quizzes.practice.services.review_attempts import review_attempt_get_or_start

__all__ = [
    "AnswerOutcome",
    "CodeNotRunnable",
    "attempt_finish",
    "attempt_show_skipped",
    "attempt_start",
    "attempt_start_missed",
    "attempts_anonymise",
    "attempts_expire_abandoned",
    "checkpoint_answer_record",
    "item_answer",
    "item_rate",
    "review_attempt_get_or_start",
]
