"""Writes. Every rule that changes learner state lives here (DESIGN.md §3, §7).

Keyword-only, type-annotated ``<entity>_<action>`` functions; each runs in a transaction and
validates with ``full_clean()``. Pages, the API, the admin and tasks call these.
"""

from quizzes.services.answers import AnswerOutcome, item_answer
from quizzes.services.attempts import attempt_finish, attempt_start
from quizzes.services.profiles import learner_profile_get_or_create, learner_profile_update
from quizzes.services.reviews import (
    card_rate,
    card_record_answer,
    card_replay,
    card_suspend,
    card_undo_last,
    card_unsuspend,
)

__all__ = [
    "AnswerOutcome",
    "attempt_finish",
    "attempt_start",
    "card_rate",
    "card_record_answer",
    "card_replay",
    "card_suspend",
    "card_undo_last",
    "card_unsuspend",
    "item_answer",
    "learner_profile_get_or_create",
    "learner_profile_update",
]
