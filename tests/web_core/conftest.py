"""Fixtures for the learner-shell page tests."""

from __future__ import annotations

import os
from pathlib import Path

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


# --- the one browser test (test_demo_browser.py) -------------------------------------------------

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Without Chromium the browser test skips with the reason; with CI=true it fails instead."""
    if CHROMIUM.exists():
        return
    for item in items:
        if item.path.name == "test_demo_browser.py":
            if os.environ.get("CI") == "true":
                item.add_marker(pytest.mark.usefixtures("_fail_without_chromium"))
            else:
                item.add_marker(pytest.mark.skip(reason=f"needs Chromium at {CHROMIUM} (apt-get install chromium)"))


@pytest.fixture
def _fail_without_chromium():
    pytest.fail(f"CI=true: the browser test needs Chromium at {CHROMIUM}", pytrace=False)


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    """pytest-playwright's launch options, pointed at the system Chromium (as tests/e2e does)."""
    return {**browser_type_launch_args, "executable_path": str(CHROMIUM), "args": CHROMIUM_ARGS}


# The browser test here fails on any Content-Security-Policy violation too (the e2e suite's guard).
from tests.e2e.conftest import _no_csp_violations  # noqa: E402, F401
