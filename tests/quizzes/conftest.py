"""Fixtures for the quiz domain's tests (the shared ones are in tests/conftest.py)."""

from tests.quizzes.versioned import versioned_template, versioned_template_v1_only  # noqa: F401
