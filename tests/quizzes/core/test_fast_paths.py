"""Every SQL fast path run beside the ORM query it replaces, on the real database (SQLite, and PostgreSQL with
DATABASE_URL), comparing what they hand over (issue 26).

The fast paths — ``quizzes.core.compiled`` (a QuerySet compiled once through Django's undocumented compiler) and
the answer POST's hand-written statements (``item_for``, the card lock, ``quizzes.core.rows``' writes) — are kept
only for what bench/README.md ("SQL fast paths") measured them to buy. A Django upgrade that changes the compiler,
the converters or the row layout makes them differ from the ORM here, loudly.
"""

from __future__ import annotations

import datetime as dt

import pytest
from django.db import transaction
from django.db.models import Model
from django.test import Client
from rest_framework.test import APIClient

from quizzes.accounts import selectors as account_selectors
from quizzes.content import selectors as content_selectors
from quizzes.core.compiled import CompiledRead
from quizzes.models import AttemptItem, ReviewCard
from quizzes.practice import fast_paths as practice_paths
from quizzes.practice import selectors as practice_selectors
from quizzes.practice.selectors import item_for
from quizzes.practice.services import attempt_start, item_answer
from quizzes.reviews.fast_paths import card_locked, card_locked_orm
from quizzes.reviews.selectors import due, forecast, history
from quizzes.reviews.selectors.forecast import due_forecast
from tests import factories
from tests.factories import utc
from tests.quizzes.reviews.test_learner_summary import _mixed_history

pytestmark = pytest.mark.django_db

#: Every compiled read the app defines once per process (the card summary's are made per forecast length).
MODULE_READS = {
    "due page": due._DUE_PAGE,
    "log days": history._LOG_DAY_ROLES,
    "due before": forecast._DUE_BEFORE,
    "lesson heads": content_selectors._LESSON_HEADS,
    "profile": account_selectors._PROFILE,
    "user": account_selectors._USER,
    "item scores": practice_selectors._ITEM_SCORES,
}


def columns(instance: Model | None) -> dict | None:
    if instance is None:
        return None
    return {field.attname: getattr(instance, field.attname) for field in instance._meta.concrete_fields}


@pytest.fixture
def learner(shanghai_user, other_user, time_machine):
    """A learner with every kind of card, a year of nothing and three weeks of ratings, and an answered attempt."""
    time_machine.move_to(utc(2026, 3, 1, 9), tick=False)
    _mixed_history(shanghai_user, other_user, time_machine)
    lesson = factories.LessonFactory()
    factories.ChoiceQuestionFactory(lesson=lesson, order=0, options=4)
    factories.NumericQuestionFactory(lesson=lesson, order=1)
    attempt = attempt_start(user=shanghai_user, lesson=lesson, mode="study")
    first = attempt.items.order_by("position").first()
    item_answer(
        user=shanghai_user, item=item_for(user=shanghai_user, item_id=first.pk), option_id=first.option_order[1]
    )
    time_machine.move_to(utc(2026, 3, 18, 21), tick=False)  # just after the rollover in Shanghai
    return shanghai_user


def test_every_compiled_read_gives_the_querysets_rows(learner, monkeypatch, settings):
    """The pages' and the API's compiled reads, as the due fetch, the dashboard and the forecast make them."""
    made: list[tuple[CompiledRead, object, dict]] = []
    statement = CompiledRead._statement

    def recording(self, key, using, values):
        made.append((self, key, dict(values)))
        return statement(self, key, using, values)

    monkeypatch.setattr(CompiledRead, "_statement", recording)
    api = APIClient()
    api.force_login(learner)
    fast = api.get("/api/v1/reviews/due/").json()
    page = Client()
    page.force_login(learner)
    assert page.get("/").status_code == 200
    fast_forecast = due_forecast(user=learner, days=14)

    seen = {read for read, _key, _values in made}
    missing = [name for name, read in MODULE_READS.items() if read not in seen]
    assert not missing, f"compiled reads never exercised here: {missing}"
    for read, key, values in list(made):  # (rows() records again)
        assert read.rows(key, **values) == read.orm_rows(key, **values), read.build.__qualname__

    settings.SQL_FAST_PATHS = False  # the same requests by the ORM: the same answers
    assert api.get("/api/v1/reviews/due/").json() == fast
    assert due_forecast(user=learner, days=14) == fast_forecast


def test_the_answers_item_read_is_the_orm_read(learner):
    items = list(AttemptItem.objects.filter(attempt__user=learner).order_by("position"))
    assert items[0].is_answered and not items[1].is_answered  # answered (result JSON) and not (a variant JSON)
    for item in items:
        fast = practice_paths.item_read(user=learner, item_id=item.pk)
        orm = practice_paths.item_read_orm(user=learner, item_id=item.pk)
        assert columns(fast) == columns(orm)
        assert columns(fast.attempt) == columns(orm.attempt)
        assert columns(fast.question) == columns(orm.question)  # the pinned version, built once per process
        assert [columns(o) for o in fast.question.loaded_options()] == [
            columns(o) for o in orm.question.loaded_options()
        ]
    stranger = factories.UserFactory()
    assert practice_paths.item_read(user=stranger, item_id=items[0].pk) is None
    assert practice_paths.item_read_orm(user=stranger, item_id=items[0].pk) is None


def test_the_answers_card_lock_reads_what_the_orm_reads(learner, other_user):
    cards = list(ReviewCard.objects.filter(user=learner))
    assert len(cards) > 5
    without_profile = ReviewCard.objects.filter(user=other_user).first()  # other_user never saved a profile
    for card in [*cards, without_profile]:
        with transaction.atomic():
            fast = card_locked(user_id=card.user_id, question_id=card.question_id)
            orm = card_locked_orm(user_id=card.user_id, question_id=card.question_id)
        assert fast is not None and orm is not None
        assert columns(fast.card) == columns(orm.card)
        assert fast.last_log_at == orm.last_log_at and fast.fresh and orm.fresh
        assert columns(fast.profile) == columns(orm.profile)
    with transaction.atomic():
        assert card_locked(user_id=learner.pk, question_id=10**9) is None
        assert card_locked_orm(user_id=learner.pk, question_id=10**9) is None


@pytest.mark.parametrize("fast_paths", [True, False])
def test_an_answer_stores_the_same_rows_either_way(user, settings, fast_paths, time_machine):
    """The answer POST's writes (the lock, the first card, the log and the card) with and without the fast paths:
    the stored rows a learner's next page reads are the same."""
    settings.SQL_FAST_PATHS = fast_paths
    time_machine.move_to(utc(2026, 3, 1, 9), tick=False)
    question = factories.ChoiceQuestionFactory(options=3)
    attempt = attempt_start(user=user, lesson=question.lesson, mode="study")
    item = attempt.items.get()
    correct = next(o for o in question.options.all() if o.is_correct)
    outcome = item_answer(user=user, item=item_for(user=user, item_id=item.pk), option_id=correct.pk)
    assert outcome.result["correct"] and not outcome.replayed
    again = item_answer(user=user, item=item_for(user=user, item_id=item.pk), option_id=correct.pk)
    assert again.replayed and again.result == outcome.result
    stored = AttemptItem.objects.get(pk=item.pk)
    assert stored.is_correct and stored.chosen_option_id == correct.pk and stored.answered_at == utc(2026, 3, 1, 9)
    card = ReviewCard.objects.get(user=user, question=question)
    assert card.reps == 1 and card.logs.count() == 1
    assert card.due.date() == (utc(2026, 3, 1, 9) + dt.timedelta(days=2)).date()  # the two-day rule


def test_the_answer_locks_hand_written_guard_locks_what_the_querysets_guard_locks(user, settings):
    """The lock's SQL ("its attempt is unfinished") against ``Attempt.objects.unfinished()`` as an ``Exists``: on an
    open item, an answered one and one of a finished attempt, the same writes win."""
    from django.utils import timezone

    from quizzes.practice.fast_paths import attempt_unfinished_guard
    from quizzes.practice.services.locking import first_answer_lock

    lesson = factories.LessonFactory()
    factories.ChoiceQuestionFactory.create_batch(3, lesson=lesson, options=3)
    open_, answered, _ = attempt_start(user=user, lesson=lesson, mode="study").items.order_by("position")
    values = {
        "response": "y",
        "is_correct": False,
        "score": 0.0,
        "result": {"correct": False},
        "answered_at": timezone.now(),
    }
    AttemptItem.objects.filter(pk=answered.pk).update(**values)
    finished = attempt_start(user=user, lesson=lesson, mode="study")
    finished.finished_at = timezone.now()
    finished.save()
    closed = finished.items.first()
    won = {}
    for fast in (True, False):
        settings.SQL_FAST_PATHS = fast
        for name, item in (("open", open_), ("answered", answered), ("finished attempt", closed)):
            with transaction.atomic():
                won[fast, name] = first_answer_lock(
                    AttemptItem, pk=item.pk, values=values, also=attempt_unfinished_guard()
                )
                transaction.set_rollback(True)
    assert won == {
        **{(fast, "open"): True for fast in (True, False)},
        **{(fast, "answered"): False for fast in (True, False)},
        **{(fast, "finished attempt"): False for fast in (True, False)},
    }
