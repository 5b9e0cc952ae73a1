"""A deleted learner's answers, as item statistics keep them: anonymous, and only the first study of each lesson.

Item statistics (issue 27) are computed from *study-mode attempts, each learner's first attempt at a lesson*.
When a learner deletes their account, those first attempts are copied into :class:`AnonymousAnswer` rows —
question, template version, answered, chosen option, correct, score, time to answer, and a random ``sitting``
per attempt — and everything else (the attempts, their items, the responses typed, the seeds, the times) is
deleted with the account. Later attempts, review-mode and missed-item attempts are never kept: statistics do
not read them. A first attempt that was never finished is not kept either (it has no score on the rest).
"""

from __future__ import annotations

import uuid

from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import Min

from quizzes.practice.models import AnonymousAnswer, Attempt, AttemptItem
from quizzes.reviews.models import ReviewLog


def _first_study_attempts(user: User) -> list[int]:
    """Ids of the learner's first study-mode attempt at each lesson, when that attempt was finished."""
    study = Attempt.objects.owned_by(user).filter(mode=Attempt.Mode.STUDY)
    firsts = study.values("lesson_id").annotate(first=Min("number")).values_list("lesson_id", "first")
    wanted = set(firsts)
    rows = study.filter(finished_at__isnull=False).values_list("pk", "lesson_id", "number")
    return [pk for pk, lesson_id, number in rows if (lesson_id, number) in wanted]


@transaction.atomic
def attempts_anonymise(*, user: User) -> int:
    """Copy the learner's first finished study attempt per lesson into anonymous rows; returns how many rows.

    Called by ``account_delete`` just before the account (and with it every attempt) is deleted.
    """
    attempt_ids = _first_study_attempts(user)
    if not attempt_ids:
        return 0
    items = AttemptItem.objects.filter(attempt_id__in=attempt_ids).values(
        "pk", "attempt_id", "question_id", "template_version", "answered_at", "chosen_option_id", "is_correct", "score"
    )
    durations = dict(
        ReviewLog.objects.filter(user=user, attempt_item__attempt_id__in=attempt_ids, duration_ms__isnull=False)
        .values_list("attempt_item_id", "duration_ms")
        .order_by("attempt_item_id", "reviewed_at")
    )
    sittings = {attempt_id: uuid.uuid4() for attempt_id in attempt_ids}  # random, derived from nothing
    rows = [
        AnonymousAnswer(
            sitting=sittings[item["attempt_id"]],
            question_id=item["question_id"],
            template_version=item["template_version"],
            answered=item["answered_at"] is not None,
            chosen_option_id=item["chosen_option_id"] if item["answered_at"] is not None else None,
            is_correct=item["is_correct"],
            score=item["score"],
            duration_ms=durations.get(item["pk"]),
        )
        for item in items
    ]
    AnonymousAnswer.objects.bulk_create(rows)
    return len(rows)
