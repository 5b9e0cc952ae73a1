"""Fixtures for the learner-shell page tests."""

from __future__ import annotations

import pytest

from tests import factories


@pytest.fixture
def learner(db):
    """A learner with a profile (as sign-up creates it)."""
    return factories.LearnerProfileFactory().user


@pytest.fixture
def learner_client(client, learner):
    client.force_login(learner)
    return client


@pytest.fixture
def sdpa_lesson(db):
    """Lesson 1 under its real key: its page carries the d_k demo."""
    lesson = factories.LessonFactory(key="sdpa", title="缩放点积注意力", order=1, summary="除以 $\\sqrt{d_k}$ 的理由")
    factories.ChoiceQuestionFactory(lesson=lesson, order=1)
    factories.ChoiceQuestionFactory(lesson=lesson, order=2)
    factories.PromptQuestionFactory(
        lesson=lesson, order=3, key="l1-interview-why-scale", prompt="为什么要除以根号 d_k？"
    )
    factories.RecallQuestionFactory(lesson=lesson, order=4, key="l1-recall-three-lines", prompt="默写三行")
    return lesson
