"""Cache stamps follow the writes: any saved or deleted card, log or profile makes that learner's
cached reads stale; any lesson, question or option change makes everyone's stale (quizzes.reviews.learner_cache).

Signals rather than calls in each service, because admin edits, content imports and cascades
write these rows too. Every write path to them goes through ``save``/``delete`` (the one
``bulk_update`` — log roles in ``card_replay`` — always comes with a card save in the same transaction),
except the two that write in bulk or in plain SQL and call ``learner_cache.learner_changed`` once
themselves: the offline upload and a rating's one FSRS step (``reviews.services._add_log``).
"""

from __future__ import annotations

from typing import Any

from django.db.models.signals import post_delete, post_save
from django.dispatch import receiver

from quizzes.accounts.models import LearnerProfile
from quizzes.content.models import Lesson, Option, Question
from quizzes.reviews import learner_cache
from quizzes.reviews.models import ReviewCard, ReviewLog


@receiver([post_save, post_delete], sender=ReviewCard)
@receiver([post_save, post_delete], sender=ReviewLog)
@receiver([post_save, post_delete], sender=LearnerProfile)
def learner_rows_changed(sender: type, instance: Any, **kwargs: Any) -> None:
    learner_cache.learner_changed(instance.user_id)


@receiver([post_save, post_delete], sender=Lesson)
@receiver([post_save, post_delete], sender=Question)
@receiver([post_save, post_delete], sender=Option)
def content_rows_changed(sender: type, instance: Any, **kwargs: Any) -> None:
    learner_cache.content_changed()
