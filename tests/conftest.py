"""Shared fixtures for the Django tests.

PostgreSQL policy: tests marked ``@pytest.mark.postgres`` need PostgreSQL (row locks,
real concurrency). On another database they skip with a visible reason — unless CI=true,
where running them is the point, so they fail loudly instead.
"""

from __future__ import annotations

import os

import pytest
from hypothesis import settings as hypothesis_settings

from tests import factories

# Hypothesis's default 200 ms deadline measures the host, not the code: on a loaded 2-core CI machine a
# correct example can overrun it. Speed is checked in bench/, never in tests.
hypothesis_settings.register_profile("quizsite", deadline=None)
hypothesis_settings.load_profile("quizsite")


def pytest_runtest_setup(item: pytest.Item) -> None:
    if item.get_closest_marker("postgres") is None:
        return
    from django.db import connection

    if connection.vendor == "postgresql":
        return
    message = (
        f"needs PostgreSQL, but the database is {connection.vendor}: "
        "set DATABASE_URL=postgres://postgres@127.0.0.1:5432/test to run it"
    )
    if os.environ.get("CI") == "true":
        pytest.fail(f"CI=true: {message}", pytrace=False)
    pytest.skip(message)


@pytest.fixture(autouse=True)
def _fast_password_hashing(settings):
    """PBKDF2's deliberate slowness buys nothing in tests."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def _fresh_cache():
    """The cache is real (Redis when REDIS_URL is set); keep tests independent of each other."""
    from django.core.cache import caches

    from quizzes.accounts import throttle

    for alias in caches:  # "default" and "throttle" (both Redis when REDIS_URL is set)
        caches[alias].clear()
    throttle._fallback.clear()
    throttle._shared_down_until = 0.0
    yield


@pytest.fixture(autouse=True)
def _default_language():
    """Every test starts (and leaves) in the default language.

    LocaleMiddleware activates a request's language on the thread that served it and leaves it there, so in
    a shuffled order a test of plain functions could inherit the Chinese of the previous test's request.
    """
    from django.utils import translation

    translation.deactivate()
    yield
    translation.deactivate()


@pytest.fixture
def user(db):
    return factories.UserFactory()


@pytest.fixture
def other_user(db):
    return factories.UserFactory()


@pytest.fixture
def shanghai_user(db):
    """A learner in Asia/Shanghai (UTC+8, no DST) whose study day starts at 04:00."""
    profile = factories.LearnerProfileFactory(time_zone="Asia/Shanghai", day_rollover_hour=4)
    return profile.user


@pytest.fixture
def lesson(db):
    return factories.LessonFactory()


@pytest.fixture
def choice_question(lesson):
    return factories.ChoiceQuestionFactory(lesson=lesson, order=1)


@pytest.fixture
def quiz_lesson(lesson):
    """A lesson with two 4-option questions, a 2-option one, a numeric one, a prompt and a recall card."""
    factories.ChoiceQuestionFactory(lesson=lesson, order=1, options=4)
    factories.ChoiceQuestionFactory(lesson=lesson, order=2, options=4)
    factories.ChoiceQuestionFactory(lesson=lesson, order=3, options=2)
    factories.NumericQuestionFactory(lesson=lesson, order=4)
    factories.PromptQuestionFactory(lesson=lesson, order=5)
    factories.RecallQuestionFactory(lesson=lesson, order=6)
    return lesson


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter, exitstatus: int, config: pytest.Config) -> None:
    """Print the random order's seed last, even with -q: a failure that depends on order reproduces with it."""
    if not config.pluginmanager.hasplugin("randomly"):
        return
    seed = config.getoption("randomly_seed", default=None)
    if isinstance(seed, int):
        terminalreporter.write_line(
            f"random test order: rerun this order with -p randomly --randomly-seed={seed} (-p no:randomly: file order)"
        )
