"""Every table of the quizzes app, one import away (Django's app registry reads this module).

The models live with their domain (quizzes/README.md): content (lessons, questions, options, question
versions, generation jobs), practice (attempts and their items), reviews (cards and logs), accounts (learner
profiles, token devices, idempotency keys), notifications (reminder deliveries),
packs (offline review packs and their items), reports (learners' problem reports), privacy (data
exports; practice keeps the anonymous answers of deleted accounts). Code inside
quizzes/ imports them from their domain module; this module is for Django, migrations and tests.
"""

from quizzes.accounts.models import (
    BrowserSession,
    Device,
    IdempotencyKey,
    LearnerProfile,
    TokenDevice,
    UsernameSkeleton,
    validate_time_zone,
)
from quizzes.content.models import GenerationJob, Lesson, Option, Question, QuestionVersion
from quizzes.notifications.models import ReminderDelivery
from quizzes.packs.models import PackedVariant, PackItem, ReviewPack
from quizzes.practice.models import AnonymousAnswer, Attempt, AttemptItem, CheckpointAnswer
from quizzes.privacy.models import DataExport
from quizzes.reports.models import ProblemReport
from quizzes.reviews.models import ParameterFit, ReviewCard, ReviewLog

__all__ = [
    "AnonymousAnswer",
    "Attempt",
    "AttemptItem",
    "BrowserSession",
    "CheckpointAnswer",
    "DataExport",
    "Device",
    "GenerationJob",
    "IdempotencyKey",
    "LearnerProfile",
    "Lesson",
    "Option",
    "PackItem",
    "PackedVariant",
    "ParameterFit",
    "ProblemReport",
    "Question",
    "QuestionVersion",
    "ReminderDelivery",
    "ReviewCard",
    "ReviewLog",
    "ReviewPack",
    "TokenDevice",
    "UsernameSkeleton",
    "validate_time_zone",
]
