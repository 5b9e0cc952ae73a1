"""``quizzes.core.rows`` writes in plain SQL what the ORM would write (issue 16: the answer POST's statements).
The review log and its card go in one statement on PostgreSQL and two elsewhere; both must store exactly what
``Model.save`` stores, and neither may leave half a write behind."""

import datetime as dt

import pytest
from django.db import transaction
from django.utils import timezone

from quizzes.core.rows import row_insert_and_update, row_insert_unless_taken
from quizzes.models import ReviewCard, ReviewLog
from tests import factories

pytestmark = pytest.mark.django_db


def test_the_log_and_the_card_are_stored_as_the_orm_stores_them(user):
    question = factories.PromptQuestionFactory()
    card = ReviewCard.objects.create(user=user, question=question, due=timezone.now())
    at = timezone.now().replace(microsecond=0)
    log = ReviewLog(user=user, card=card, rating=3, reviewed_at=at, duration_ms=1200, source=ReviewLog.Source.API)
    row_insert_and_update(log, ReviewCard, pk=card.pk, values={"reps": 4, "due": at + dt.timedelta(days=2)})

    stored = ReviewLog.objects.get()
    assert log.pk == stored.pk and not log._state.adding
    assert (stored.card_id, stored.rating, stored.reviewed_at, stored.duration_ms) == (card.pk, 3, at, 1200)
    assert stored.created_at is not None  # auto_now_add applied, as save() applies it
    card.refresh_from_db()
    assert (card.reps, card.due) == (4, at + dt.timedelta(days=2))


def test_a_missing_card_refuses_and_the_transaction_keeps_no_log(user):
    question = factories.PromptQuestionFactory()
    card = ReviewCard.objects.create(user=user, question=question, due=timezone.now())
    log = ReviewLog(user=user, card=card, rating=3, reviewed_at=timezone.now(), source=ReviewLog.Source.WEB)
    with pytest.raises(ReviewCard.DoesNotExist), transaction.atomic():
        row_insert_and_update(log, ReviewCard, pk=card.pk + 1000, values={"reps": 1})
    assert not ReviewLog.objects.exists()
    card.refresh_from_db()
    assert card.reps == 0


def test_a_taken_row_is_not_inserted_and_the_transaction_goes_on(user):
    question = factories.PromptQuestionFactory()
    first = ReviewCard(user=user, question=question, due=timezone.now())
    with transaction.atomic():
        assert row_insert_unless_taken(first)
        second = ReviewCard(user=user, question=question, due=timezone.now())
        assert not row_insert_unless_taken(second)  # one card per (learner, question)
        assert second.pk is None and second._state.adding
        assert ReviewCard.objects.get().pk == first.pk  # still usable: no aborted transaction on PostgreSQL
