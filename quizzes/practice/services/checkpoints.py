"""A signed-in learner's answer to a teaching checkpoint: the first answer locks, per learner, in the database.

Checkpoints are self-checks outside the review schedule (quizzes.content.teaching): no card, no log. The lock is
the one rule :func:`quizzes.content.teaching.checkpoint_lock` states (the first answer stays while it is one of the
checkpoint's options); this stores it per learner, so another browser or device of theirs shows the same answer
and never a second first click. The row is unique per (learner, lesson, section): of two first clicks at once,
one is stored and the other gets it back.
"""

from __future__ import annotations

import datetime as dt

from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.utils import timezone

from quizzes.content.models import Lesson
from quizzes.content.teaching import checkpoint_lock, checkpoint_owner
from quizzes.practice.models import CheckpointAnswer

_RETRIES = 2


def checkpoint_answer_record(
    *,
    user: User,
    lesson: Lesson,
    section_key: str,
    handle: str,
    carried: str | None = None,
    now: dt.datetime | None = None,
) -> str:
    """Answer a checkpoint of ``lesson`` with one of the learner's own handles; returns the option key that
    stays chosen (the first answer, or this one if there was none or the first is no longer an option).

    ``carried``: an answer this browser session kept from before the learner's answers were stored per learner
    (or from before they signed in): it counts as the first one. DomainError NOT_FOUND (no such checkpoint) or
    FOREIGN_OPTION (not one of this learner's handles for it), as ``checkpoint_answer``; nothing is stored then.
    """
    now = now or timezone.now()
    owner = checkpoint_owner(user_id=user.pk)
    for _try in range(_RETRIES):
        try:
            with transaction.atomic():
                row = (
                    CheckpointAnswer.objects.select_for_update()
                    .filter(user=user, lesson=lesson, section_key=section_key)
                    .first()
                )
                previous = row.option_key if row is not None else carried
                chosen = checkpoint_lock(
                    owner=owner,
                    lesson_key=lesson.key,
                    sections=lesson.teaching,
                    section_key=section_key,
                    handle=handle,
                    previous=previous,
                )
                if row is None:
                    row = CheckpointAnswer(
                        user=user, lesson=lesson, section_key=section_key, option_key=chosen, answered_at=now
                    )
                    row.full_clean(exclude=["user", "lesson"], validate_unique=False, validate_constraints=False)
                    row.save()
                elif row.option_key != chosen:  # the first answer is no longer an option: this one replaces it
                    row.option_key, row.answered_at = chosen, now
                    row.save(update_fields=["option_key", "answered_at"])
                return chosen
        except IntegrityError:
            continue  # a concurrent first click was stored: read it (and keep it) on the next round
    raise RuntimeError("checkpoint answer: stored concurrently, yet not found")
