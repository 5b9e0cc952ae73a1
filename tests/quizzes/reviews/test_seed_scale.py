"""`manage.py seed_scale` fills the bench databases with COPY, bypassing the ORM's defaults: a new NOT NULL
column without a database default breaks it (stop 19's ReviewLog.client_graded did, found only when a fresh
machine ran `make bench-load`). A small run here keeps the seeder in step with the models."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command
from django.db import connection
from django.db.models import Sum
from rest_framework.test import APIClient

from quizzes.models import Lesson, Option, Question, ReviewCard, ReviewLog
from quizzes.operations.scale_data import USERNAME_PREFIX

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def test_seeded_learners_have_their_cards_logs_and_a_working_review_queue(django_user_model):
    call_command("load_lessons", stdout=io.StringIO())
    call_command("seed_scale", "--learners", "12", "--cards", "5", "--no-attempts", stdout=io.StringIO())

    learners = list(django_user_model.objects.filter(username__startswith=USERNAME_PREFIX))
    assert len(learners) == 12
    cards = ReviewCard.objects.filter(user__in=learners)
    assert cards.count() == 12 * 5
    # every review a card counts is a stored log, each graded by the server
    assert ReviewLog.objects.filter(user__in=learners).count() == cards.aggregate(n=Sum("reps"))["n"]
    assert not ReviewLog.objects.filter(user__in=learners, client_graded=True).exists()
    # the planner knows every table's size, the lessons' too (load_lessons filled them; without autovacuum, as on
    # the bench machine, nothing else analyses them, and the due queue's card summary picked a slower join)
    models = (Lesson, Question, Option, ReviewCard, ReviewLog)
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT relname, reltuples FROM pg_class WHERE relname = ANY(%s)", [[m._meta.db_table for m in models]]
        )
        estimated = dict(cursor.fetchall())
    assert estimated == {m._meta.db_table: m.objects.count() for m in models}

    client = APIClient()
    served = 0
    for learner in learners:
        client.force_authenticate(learner)
        response = client.get("/api/v1/reviews/due/")
        assert response.status_code == 200, response.content
        own = set(ReviewCard.objects.filter(user=learner).values_list("pk", flat=True))
        served_ids = {card["id"] for card in response.json()["results"]}
        assert served_ids <= own  # a learner's queue holds their seeded cards only
        served += len(served_ids)
    assert served > 0  # the seeder spreads due dates over past and future: some are due now
