"""The item statistics' PostgreSQL fast path beside the ORM query it replaces (issue 26, item 2).

``_float_table`` asks PostgreSQL for each column as one bytea of packed float8s through psycopg's own cursor and
Django's compiler. A Django or psycopg upgrade that changes either must fail here, not skew an author's figures:
the table it returns must hold exactly the rows ``values_list`` gives, NULLs as NaN, in one row order.
"""

from __future__ import annotations

import datetime as dt

import numpy as np
import pytest
from django.db.models import IntegerField
from django.db.models.functions import Cast

from quizzes.item_statistics.selectors import EpochSeconds, _float_table
from quizzes.models import Attempt, AttemptItem
from tests.factories import LessonFactory, OptionFactory, QuestionFactory, UserFactory

pytestmark = [pytest.mark.postgres, pytest.mark.django_db]

START = dt.datetime(2026, 11, 1, 9, 0, 0, 250000, tzinfo=dt.UTC)  # a fraction of a second: the epoch is a float


def _items():
    lesson = LessonFactory()
    questions = [QuestionFactory(lesson=lesson, key=f"ft-{n}", order=n) for n in range(3)]
    correct = [OptionFactory(question=q, key="a", is_correct=True, order=0) for q in questions]
    for n, user in enumerate(UserFactory() for _ in range(4)):
        attempt = Attempt.objects.create(user=user, lesson=lesson, number=1, mode=Attempt.Mode.STUDY, seed=n,
                                         started_at=START, finished_at=START + dt.timedelta(minutes=5))  # fmt: skip
        for position, (question, option) in enumerate(zip(questions, correct, strict=True)):
            item = AttemptItem(attempt=attempt, question=question, position=position, option_order=[option.pk])
            if (n + position) % 3:  # some left unanswered: their answer columns stay NULL
                item.chosen_option, item.is_correct, item.score = option, n % 2 == 0, float(n % 2 == 0)
                item.response, item.result = option.pk, {"kind": "choice"}
                item.answered_at = START + dt.timedelta(seconds=10 * n + position, microseconds=500)
            item.save()
    return AttemptItem.objects.filter(attempt__lesson=lesson).order_by()


def test_the_packed_columns_hold_the_rows_the_orm_reads_with_null_as_nan():
    rows = _items().values_list(
        "pk", "attempt_id", "chosen_option_id", Cast("is_correct", IntegerField()), EpochSeconds("answered_at")
    )
    table = _float_table(rows, 5)
    expected = [
        (pk, attempt, np.nan if option is None else option, np.nan if right is None else right,
         np.nan if at is None else at)
        for pk, attempt, option, right, at in rows
    ]  # fmt: skip
    assert table.shape == (12, 5)
    order = np.argsort(table[:, 0])
    np.testing.assert_array_equal(table[order], np.array(sorted(expected), dtype=np.float64))
    assert np.isnan(table[:, 2]).sum() == 4  # the four unanswered items


def test_epoch_seconds_are_the_answers_moments_to_the_microsecond():
    items = _items().exclude(answered_at=None)
    table = _float_table(items.values_list("pk", EpochSeconds("answered_at")), 2)
    moments = dict(items.values_list("pk", "answered_at"))
    assert table.shape == (8, 2)
    for pk, seconds in table:
        assert seconds == pytest.approx(moments[int(pk)].timestamp(), abs=1e-6)


def test_no_rows_is_an_empty_table_even_when_the_queryset_has_no_sql():
    assert _float_table(AttemptItem.objects.filter(pk=-1).values_list("pk", "attempt_id"), 2).shape == (0, 2)
    assert _float_table(AttemptItem.objects.none().values_list("pk", "attempt_id"), 2).shape == (0, 2)
    assert _float_table(AttemptItem.objects.filter(pk__in=[]).values_list("pk", "attempt_id"), 2).shape == (0, 2)
