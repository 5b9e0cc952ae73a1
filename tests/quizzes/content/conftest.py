"""Fixtures for the content tests.

``torch``: PyTorch as the reference for the lessons' facts (its own operations, conventions, parameter and FLOP
counts); it skips with the reason on a laptop without it and fails under CI=true, where .ci/run installs it.

``real_lessons``: the real lesson files (fixtures/lessons/), loaded once per test session for the
tests that only *read* them. The load runs in a transaction that is rolled back at once, so no row
outlives the fixture: every other test, in any order, finds the database as its own setup left it
(pytest-randomly shuffles the order). What the tests read is kept as plain data.
"""

from __future__ import annotations

import os
from collections import Counter
from dataclasses import dataclass
from typing import Any

import pytest
from django.db import connection, transaction

from quizzes.content.models import Lesson, Question
from quizzes.content.report import LoadReport
from quizzes.content.selectors import content_counts
from quizzes.content.writer import content_load


@dataclass(frozen=True)
class RealLessons:
    """The real lesson files as load_lessons stored them (copied out of a rolled-back transaction)."""

    report: LoadReport
    counts: dict[str, Counter]  # content_counts(): published questions per lesson and kind
    lesson_keys: list[str]  # in lesson order
    questions: list[dict[str, Any]]  # every question, lesson order, with its options (retired too)

    def of(self, **where: Any) -> list[dict[str, Any]]:
        return [q for q in self.questions if all(q[k] == v for k, v in where.items())]


def _question(question: Question) -> dict[str, Any]:
    return {
        "key": question.key,
        "kind": question.kind,
        "lesson": question.lesson.key,
        "published": question.published,
        "lesson_published": question.lesson.published,
        "explanation": question.explanation,
        "template": question.template,
        "params": dict(question.params or {}),
        "answer_form": question.answer_form,
        "options": [
            {
                "key": option.key,
                "text": option.text,
                "is_correct": option.is_correct,
                "feedback": option.feedback,
                "retired": option.retired,
            }
            for option in question.options.all()
        ],
    }


@pytest.fixture(scope="session")
def real_lessons(django_db_setup, django_db_blocker) -> RealLessons:
    """Load fixtures/lessons once (the 50-seed numeric checks are the slow part), copy it out, roll back."""
    with django_db_blocker.unblock(), transaction.atomic():
        report = content_load()
        questions = Question.objects.select_related("lesson").prefetch_related("options")
        loaded = RealLessons(
            report=report,
            counts=content_counts(),
            lesson_keys=list(Lesson.objects.order_by("order").values_list("key", flat=True)),
            questions=[_question(q) for q in questions.order_by("lesson__order", "order", "key")],
        )
        transaction.set_rollback(True)
    with django_db_blocker.unblock():
        # Close what this fixture opened: set up from inside a test, it may run in another asyncio context than
        # the session's own (Playwright's browser tests run an event loop), on a connection nothing else closes,
        # which then keeps PostgreSQL from dropping the test database at the end of the run.
        connection.close()
    return loaded


@pytest.fixture(scope="module")
def torch():
    try:
        import torch
    except ImportError:
        if os.environ.get("CI") == "true":
            pytest.fail("PyTorch is required in CI but is not importable")
        pytest.skip("PyTorch not installed: `pip install torch==2.13.0` to run the PyTorch reference checks")
    return torch
