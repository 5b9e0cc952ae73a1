"""The answers quota on the quiz page (the API's, quizzes.accounts.throttle.learner_quota): past it, 429 with the item
again, nothing locked, how long to wait, Retry-After and the RateLimit headers; another learner is not held."""

from __future__ import annotations

import pytest
from django.test import Client

from quizzes.models import AttemptItem
from tests import factories
from tests.quizzes.web.practice.conftest import choose, item_url, start

pytestmark = pytest.mark.django_db


def test_past_the_answers_quota_the_page_says_wait_and_locks_nothing(settings):
    settings.THROTTLE_RATES = {**settings.THROTTLE_RATES, "answers": {"learner": "1/1m"}}
    lesson = factories.LessonFactory()
    for order in (1, 2):
        factories.ChoiceQuestionFactory(lesson=lesson, order=order, options=4)
    client = Client()
    client.force_login(factories.UserFactory())
    attempt = start(client, lesson)
    first, second = AttemptItem.objects.filter(attempt=attempt).order_by("position")
    answered = client.post(item_url(attempt, 1, "answer"), choose(first, first.question.options.first()))
    assert answered.status_code in (200, 302) and "RateLimit" not in answered
    refused = client.post(item_url(attempt, 2, "answer"), choose(second, second.question.options.first()))
    assert refused.status_code == 429
    assert "Too many answers in a short time; wait" in refused.content.decode()
    assert 0 < int(refused["Retry-After"]) <= 60 and refused["RateLimit-Policy"] == '"answers";q=1;w=60'
    second.refresh_from_db()
    assert not second.is_answered
    stranger = Client()
    stranger.force_login(factories.UserFactory())
    theirs = start(stranger, lesson)
    item = AttemptItem.objects.filter(attempt=theirs).order_by("position").first()
    assert stranger.post(item_url(theirs, 1, "answer"), choose(item, item.question.options.first())).status_code != 429
