"""The one way a write makes cached reads stale (quizzes.reviews.learner_cache): a signal.

Any saved or deleted card, log or profile makes that learner's cached reads stale; any lesson, question or
option change makes everyone's stale. Django's model signals cover every row-by-row write, admin edits,
content imports and cascades included. The writes Django sends none for (``bulk_create``, a queryset's
``delete`` or ``update``, plain SQL, COPY) send ``learner_rows_written`` or ``content_rows_written``
themselves, once per write: the offline upload, a rating's one FSRS step (``reviews.services._add_log``),
the account deletion's review logs and the scale-data reseed. (The one ``bulk_update`` — log roles in
``card_replay`` — always comes with a card save in the same transaction.)
"""

from __future__ import annotations

from typing import Any

from django.db.models.signals import post_delete, post_save
from django.dispatch import Signal, receiver

from quizzes.accounts.models import LearnerProfile
from quizzes.content.models import Lesson, Option, Question
from quizzes.reviews import learner_cache
from quizzes.reviews.models import ReviewCard, ReviewLog

#: Sent with ``user_id`` by a write of a learner's cards, logs or profile that sends no model signal.
learner_rows_written = Signal()
#: Sent by a write of lessons, questions or options that sends no model signal.
content_rows_written = Signal()


@receiver([post_save, post_delete], sender=ReviewCard)
@receiver([post_save, post_delete], sender=ReviewLog)
@receiver([post_save, post_delete], sender=LearnerProfile)
def learner_rows_changed(sender: type, instance: Any, **kwargs: Any) -> None:
    learner_cache.learner_changed(instance.user_id)


@receiver(learner_rows_written)
def learner_rows_written_in_bulk(sender: type, user_id: int, **kwargs: Any) -> None:
    learner_cache.learner_changed(user_id)


@receiver([post_save, post_delete], sender=Lesson)
@receiver([post_save, post_delete], sender=Question)
@receiver([post_save, post_delete], sender=Option)
@receiver(content_rows_written)
def content_rows_changed(sender: type, **kwargs: Any) -> None:
    learner_cache.content_changed()
