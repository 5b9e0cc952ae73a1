"""Fixtures for the practice pages' view tests."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from quizzes.models import Attempt
from tests.quizzes.versioned import versioned_template  # noqa: F401


@pytest.fixture
def learner_client(client, user):
    client.force_login(user)
    return client


@pytest.fixture
def csrf_client(user):
    """A client that enforces CSRF like a browser would (the test client skips it by default)."""
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(user)
    return strict


def start(client, lesson) -> Attempt:
    """Start an attempt through the page and return it."""
    response = client.post(reverse("web:attempt_start", args=[lesson.key]))
    assert response.status_code == 302, response
    return Attempt.objects.filter(lesson=lesson).order_by("-pk").first()


def choose(item, option) -> dict[str, str]:
    """The POST data for clicking ``option``: its 1-based position in this item's shuffled order."""
    return {"option": str(item.option_order.index(option.pk) + 1)}


def item_url(attempt: Attempt, position: int, suffix: str = "") -> str:
    name = "web:attempt_answer" if suffix == "answer" else "web:attempt_item"
    return reverse(name, args=[attempt.pk, position])
