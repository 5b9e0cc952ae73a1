"""``item_for`` reads its item in plain SQL (quizzes.core.rows, issue 16): it must hand over exactly what the
ORM's select_related + prefetch_related read gives — JSON columns decoded, booleans, aware datetimes — on
SQLite and PostgreSQL alike."""

import pytest
from django.db.models import Model

from quizzes.content.versions import CONTENT_FIELDS
from quizzes.models import AttemptItem, Question
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
        # the question is the version the item pinned (quizzes.content.versions): its content, not the row's dates
        shown = ("id", "key", "kind", "lesson_id", *CONTENT_FIELDS)
        assert {n: getattr(read.question, n) for n in shown} == {n: getattr(orm.question, n) for n in shown}
        content = ("id", "question_id", "key", "text", "is_correct", "feedback", "order", "retired")
        options = [{n: getattr(o, n) for n in content} for o in read.question.options.all()]
        assert options == [{n: getattr(o, n) for n in content} for o in orm.question.options.all()]
    assert item_for(user=user, item_id=choice.pk).is_answered
    assert item_for(user=user, item_id=numeric.pk).variant


def test_item_for_finds_only_the_learners_own_items(user):
    question = factories.ChoiceQuestionFactory(options=3)
    item = attempt_start(user=user, lesson=question.lesson, mode="study").items.get()
    assert item_for(user=factories.UserFactory(), item_id=item.pk) is None
    assert item_for(user=user, item_id=item.pk + 1000) is None
    assert item_for(user=user, item_id=10**30) is None  # beyond the id column: not found, not an error


def test_item_for_shows_the_pinned_version_after_the_question_changed(user):
    lesson = factories.LessonFactory()
    question = factories.ChoiceQuestionFactory(lesson=lesson, order=0, options=3)
    shown = question.prompt
    item = attempt_start(user=user, lesson=lesson, mode="study").items.get()
    Question.objects.filter(pk=question.pk).update(prompt="改过的题干")  # edited in place after the attempt began
    question.options.filter(is_correct=False).update(text="改过的选项")
    read = item_for(user=user, item_id=item.pk)
    assert read.question.prompt == shown
    assert "改过的选项" not in [o.text for o in read.question.loaded_options()]
