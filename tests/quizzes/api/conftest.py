"""Fixtures for the API tests: clients authenticated with a real knox token, and lesson content."""

from __future__ import annotations

import pytest
from knox.models import AuthToken
from rest_framework.test import APIClient

from tests import factories
from tests.quizzes.versioned import versioned_template  # noqa: F401


def token_client(user) -> APIClient:
    client = APIClient()
    _instance, token = AuthToken.objects.create(user=user)
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    return client


@pytest.fixture
def anon():
    return APIClient()


@pytest.fixture
def api(user):
    """The learner's client (Authorization: Token …)."""
    return token_client(user)


@pytest.fixture
def other_api(other_user):
    return token_client(other_user)


@pytest.fixture
def staff_api(db):
    return token_client(factories.UserFactory(is_staff=True))


@pytest.fixture
def choice_lesson(lesson):
    """A lesson with two 4-option choice questions (first option correct) and a prompt."""
    factories.ChoiceQuestionFactory(lesson=lesson, order=1, options=4)
    factories.ChoiceQuestionFactory(lesson=lesson, order=2, options=4)
    factories.PromptQuestionFactory(lesson=lesson, order=3)
    return lesson
