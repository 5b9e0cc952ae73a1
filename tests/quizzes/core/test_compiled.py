"""Compiled reads (quizzes.core.compiled): the stored SQL, bound to new values, returns what the QuerySet would."""

from __future__ import annotations

import datetime as dt

import pytest
from django.db.models import Count, Max

from quizzes.core.compiled import CompiledRead, CompiledReadError, together
from quizzes.reviews.models import ReviewCard
from quizzes.reviews.services import card_rate
from tests import factories
from tests.factories import utc

pytestmark = pytest.mark.django_db


def _due_per_user(_key, *, user_id: int, before: dt.datetime):
    return (
        ReviewCard.objects.filter(user_id=user_id, due__lt=before)
        .values("user_id")
        .annotate(cards=Count("id"), last=Max("due"))
        .values_list("cards", "last")
    )


DUE = CompiledRead(_due_per_user, {"user_id": int, "before": dt.datetime})


def test_bound_values_give_the_querysets_rows_with_its_types(time_machine):
    learners = [factories.LearnerProfileFactory().user for _ in range(2)]
    for n, learner in enumerate(learners):
        for question in factories.PromptQuestionFactory.create_batch(2 + n, lesson=factories.LessonFactory()):
            time_machine.move_to(utc(2026, 3, 1, 9), tick=False)
            card_rate(user=learner, question=question, rating=3)
    for learner in learners:
        for before in (utc(2026, 3, 2), utc(2026, 4, 1)):
            expected = list(_due_per_user(None, user_id=learner.pk, before=before))
            assert DUE.rows(None, user_id=learner.pk, before=before) == expected
    cards, last = DUE.rows(None, user_id=learners[1].pk, before=utc(2026, 4, 1))[0]
    assert cards == 3 and isinstance(last, dt.datetime) and last.tzinfo is not None  # SQLite's text converted
    # run together: the same results, in order
    first, second = together(
        DUE.later(None, len, user_id=learners[0].pk, before=utc(2026, 4, 1)),
        DUE.later(None, list, user_id=learners[1].pk, before=utc(2026, 4, 1)),
    )
    assert first == 1 and second == [(3, last)]


def test_a_value_that_changes_the_sql_is_refused():
    def sliced(_key, *, user_id: int):
        return ReviewCard.objects.filter(user__isnull=False).values_list("id")[:user_id]  # a LIMIT, not a parameter

    with pytest.raises(CompiledReadError):
        CompiledRead(sliced, {"user_id": int}).rows(None, user_id=3)
