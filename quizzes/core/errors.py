"""Every error code the app speaks, in one enum, and the domain exception that carries one.

Services raise :class:`DomainError` with an :class:`ErrorCode`; the API puts the code in its error
body (``{"error": {"code", "message", "fields"}}``), the pages branch on it, tests assert it. Nobody
compares message strings or string literals: a code is a member of this enum.

``DomainError`` is a Django ``ValidationError`` (so ``full_clean()`` errors, forms and the API's
exception handler treat both alike); ``field`` names the input the refusal is about, when there is one.
The values are part of the API's contract (openapi.yaml, mobile clients): never rename one.
"""

from __future__ import annotations

from enum import StrEnum

from django.core.exceptions import ValidationError


class ErrorCode(StrEnum):
    # --- the API's request-level codes (quizzes.api.errors) ------------------------------------
    VALIDATION_ERROR = "validation_error"
    INVALID = "invalid"
    NOT_FOUND = "not_found"
    BAD_REQUEST = "bad_request"
    PAYLOAD_TOO_LARGE = "payload_too_large"
    TOO_DEEP = "too_deep"
    THROTTLED = "throttled"
    INVALID_IDEMPOTENCY_KEY = "invalid_idempotency_key"
    IDEMPOTENCY_KEY_REUSED = "idempotency_key_reused"
    REQUEST_IN_PROGRESS = "request_in_progress"

    # --- accounts -------------------------------------------------------------------------------
    INVALID_CREDENTIALS = "invalid_credentials"
    USERNAME_TAKEN = "username_taken"
    USERNAME_CONFUSABLE = "username_confusable"
    EMAIL_TAKEN = "email_taken"
    TIME_ZONE = "time_zone"
    WRONG_PASSWORD = "wrong_password"  # the password asked again (account deletion) is not the account's
    STAFF_ACCOUNT = "staff_account"  # a staff account cannot delete itself (an administrator removes it)

    # --- your data (quizzes.privacy) --------------------------------------------------------------
    EXPORT_GONE = "export_gone"  # the export's download link expired, or its files were deleted

    # --- content --------------------------------------------------------------------------------
    LESSON_UNPUBLISHED = "lesson_unpublished"
    QUESTION_UNPUBLISHED = "question_unpublished"
    UNKNOWN_VERSION = "unknown_version"
    BAD_SEED = "bad_seed"
    TOO_FEW_OPTIONS = "too_few_options"
    CORRECT_COUNT = "correct_count"
    NOT_NUMERIC = "not_numeric"
    GENERATED_SOURCE = "generated_source"
    TOTAL = "total"
    FIRST_SEED = "first_seed"
    # answer cues (quizzes.content.cues)
    LENGTH_SPREAD = "length_spread"
    CATCH_ALL = "catch_all"
    LONGEST_CORRECT = "longest_correct"

    # --- practice -------------------------------------------------------------------------------
    UNKNOWN_MODE = "unknown_mode"
    NO_QUESTIONS = "no_questions"
    NOTHING_DUE = "nothing_due"
    ATTEMPT_FINISHED = "attempt_finished"
    NOT_ANSWERABLE = "not_answerable"
    FOREIGN_OPTION = "foreign_option"
    ANSWER_LOCKED = "answer_locked"
    UNREADABLE_ANSWER = "unreadable_answer"
    ATTEMPT_UNFINISHED = "attempt_unfinished"
    NOTHING_MISSED = "nothing_missed"
    NOTHING_SKIPPED = "nothing_skipped"
    CODE_NOT_RUNNABLE = "code_not_runnable"
    GRADING_BUDGET_EXCEEDED = "grading_budget_exceeded"  # code grading spent for this request or minute: retry later

    # --- reviews --------------------------------------------------------------------------------
    NOT_SELF_RATED = "not_self_rated"
    BAD_RATING = "bad_rating"
    NOTHING_TO_UNDO = "nothing_to_undo"
    # a review time a client reported (API rating, offline entry), and the offline upload's reasons
    NAIVE_TIME = "naive_time"
    IN_FUTURE = "in_future"
    BEFORE_CARD_EXISTED = "before_card_existed"
    UNKNOWN_QUESTION = "unknown_question"
    WRONG_OUTCOME = "wrong_outcome"
    NOT_STUDIED = "not_studied"  # a client-graded quiz entry for a question with no card: it cannot create one

    # --- offline review packs -------------------------------------------------------------------
    PACK_SIZE = "pack_size"
    PACK_GONE = "pack_gone"  # revoked or expired: not served again (410)
    UNKNOWN_PACK_ITEM = "unknown_pack_item"
    BEFORE_PACK_ISSUED = "before_pack_issued"
    PACK_REVOKED = "pack_revoked"
    PACK_EXPIRED = "pack_expired"
    ANSWERED_TWICE = "answered_twice"

    # --- learners' problem reports (quizzes.reports) --------------------------------------------
    NOT_REVEALED = "not_revealed"  # a report about an item before its lock (its answer not yet shown)
    ONE_ORIGIN = "one_origin"  # a report names exactly one of an attempt item, a pack item or a card


class DomainError(ValidationError):
    """A rule refused the request. ``error_code`` says which; ``field`` names the input it is about (or None).

    Raised by services, never built from a message string: callers branch on ``error_code``.
    """

    def __init__(self, code: ErrorCode, message: str, *, field: str | None = None) -> None:
        if field is None:
            super().__init__(message, code=code)
        else:
            super().__init__({field: [ValidationError(message, code=code)]})
        self.error_code = code
        self.field = field
