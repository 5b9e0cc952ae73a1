"""``item_for`` reads its item in plain SQL (quizzes.core.rows, issue 16): it must hand over exactly what the
ORM's select_related + prefetch_related read gives — JSON columns decoded, booleans, aware datetimes — on
SQLite and PostgreSQL alike."""

import pytest
from django.db.models import Model

from quizzes.models import AttemptItem
from quizzes.practice.selectors import item_for
from quizzes.practice.services import attempt_start, item_answer
from tests import factories

pytestmark = pytest.mark.django_db


def columns(instance: Model) -> dict:
    return {field.attname: getattr(instance, field.attname) for field in instance._meta.concrete_fields}


def test_item_for_reads_what_the_orm_reads(user):
    lesson = factories.LessonFactory()
    factories.ChoiceQuestionFactory(lesson=lesson, order=0, options=4)
    factories.NumericQuestionFactory(lesson=lesson, order=1)
    attempt = attempt_start(user=user, lesson=lesson, mode="study")
    choice, numeric = attempt.items.order_by("position")
    item_answer(user=user, item=item_for(user=user, item_id=choice.pk), option_id=choice.option_order[1])

    for item in (choice, numeric):  # answered (result JSON, answered_at) and not (a variant JSON)
        read = item_for(user=user, item_id=item.pk)
        orm = (
            AttemptItem.objects.select_related("attempt", "question")
            .prefetch_related("question__options")
            .get(pk=item.pk)
        )
        assert columns(read) == columns(orm)
        assert columns(read.attempt) == columns(orm.attempt)
        assert columns(read.question) == columns(orm.question)
        assert [columns(o) for o in read.question.options.all()] == [columns(o) for o in orm.question.options.all()]
    assert item_for(user=user, item_id=choice.pk).is_answered
    assert item_for(user=user, item_id=numeric.pk).variant


def test_item_for_finds_only_the_learners_own_items(user):
    question = factories.ChoiceQuestionFactory(options=3)
    item = attempt_start(user=user, lesson=question.lesson, mode="study").items.get()
    assert item_for(user=factories.UserFactory(), item_id=item.pk) is None
    assert item_for(user=user, item_id=item.pk + 1000) is None
    assert item_for(user=user, item_id=10**30) is None  # beyond the id column: not found, not an error
