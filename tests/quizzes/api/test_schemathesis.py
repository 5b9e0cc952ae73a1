"""schemathesis against the live WSGI app: every operation, positive and negative data, all checks.

Bounded to stay fast (a couple of dozen examples per operation, no deadline). Runs with a real
token of a learner who has lesson content, an attempt and review cards, so many generated ids
resolve; logout endpoints are exercised last within their own test, with their own token.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
import schemathesis
from django.conf import settings as django_settings
from django.core.signals import request_finished, request_started
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from django.utils import timezone
from hypothesis import HealthCheck, settings
from knox.models import AuthToken
from schemathesis import GenerationMode
from schemathesis.config._checks import PositiveDataAcceptanceConfig

from quizzes.models import Lesson
from quizzes.practice.services import attempt_start, item_answer
from quizzes.reviews.services import card_rate
from tests import factories

MAX_EXAMPLES = 20

# Business rules that JSON Schema cannot express make some schema-valid requests a 400 with a reason:
# a time zone must be in the tz database, an option id must be one of *this* item's, a lesson id must
# exist and be published, a review time must not be in the future, there must be something to undo.
# And 422: generated examples reuse the same Idempotency-Key value with different bodies, which is
# exactly the misuse 422 reports.
POSITIVE_STATUSES = ["2xx", "3xx", "400", "401", "403", "404", "409", "422", "429"]


@pytest.fixture
def learner_token(db):
    user = factories.UserFactory()
    start = timezone.now() - dt.timedelta(days=3)
    lesson = factories.LessonFactory()
    factories.ChoiceQuestionFactory(lesson=lesson, options=4)
    factories.NumericQuestionFactory(lesson=lesson)
    prompt = factories.PromptQuestionFactory(lesson=lesson)
    card_rate(user=user, question=prompt, rating=3, reviewed_at=start)
    attempt = attempt_start(user=user, lesson=Lesson.objects.get(pk=lesson.pk))
    first = attempt.items.select_related("question").order_by("position").first()
    assert first is not None
    # one answered item: its card is due within a pack's horizon, so review packs carry a quiz item and its key
    item_answer(
        user=user, item=first, **({"option_id": first.option_order[0]} if first.option_order else {"value": "0"})
    )
    _instance, token = AuthToken.objects.create(user=user)
    return token


def _schema():
    """The committed openapi.yaml (test_schema.py keeps it equal to the generated one), called in-process."""
    loaded = schemathesis.openapi.from_path(str(Path(django_settings.BASE_DIR) / "openapi.yaml"))
    loaded.app = get_wsgi_application()
    loaded.config.generation.update(modes=[GenerationMode.POSITIVE, GenerationMode.NEGATIVE], max_examples=MAX_EXAMPLES)
    loaded.config.checks.positive_data_acceptance = PositiveDataAcceptanceConfig(expected_statuses=POSITIVE_STATUSES)
    return loaded


# schemathesis' lazy from_fixture() loader does not work with pytest 9 (it sets Function._nodeid), so the
# schema is loaded eagerly from the file; it needs no database or request.
schema = _schema()


@pytest.fixture(autouse=True)
def _in_process_app(settings):
    """Any Host header; and keep the test's DB connection open across requests, as Django's test client does."""
    settings.ALLOWED_HOSTS = ["*"]
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


@schema.parametrize()
# derandomize: CI is a gate, so the same examples every run; new code paths still get explored when the schema changes
@settings(max_examples=MAX_EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
@pytest.mark.django_db
def test_api_conforms_to_its_schema(case, learner_token):
    # identity: schemathesis' in-process WSGI call asks for gzip but, unlike a phone's HTTP library, never
    # decodes it (the compression is tested in tests/quizzes/packs/test_pack_compression.py)
    case.call_and_validate(headers={"Authorization": f"Token {learner_token}", "Accept-Encoding": "identity"})
