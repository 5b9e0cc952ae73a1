"""Helpers shared by the tests that load the real lesson files."""

from __future__ import annotations

import contextlib

import pytest


@contextlib.contextmanager
def cue_rules_off():
    """Load lesson files without the answer-cue rules (quizzes.cues).

    The real files are checked against those rules in test_fixture_cues.py, and only there: today's
    files break them (their rewrite is under way on another branch), and the other tests of the real
    files are about everything else in them (required questions, feedback, templates, idempotence).
    """
    from quizzes import cues

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(cues, "question_cue_problems", lambda options: [])
        patch.setattr(cues, "bank_longest_correct", lambda bank: cues.LongestCorrectSummary(keys=(), total=len(bank)))
        yield
