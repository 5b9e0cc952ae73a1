"""Fixtures the admin tests share."""

from __future__ import annotations

from pathlib import Path

import pytest

from quizzes.content.writer import content_load
from tests.quizzes.content.test_loader import LESSON
from tests.quizzes.content.test_provenance import NUMERIC


@pytest.fixture
def lesson_dir(tmp_path: Path) -> Path:
    """A lesson file with a choice and a numeric question, loaded: the rows are file-owned."""
    directory = tmp_path / "lessons"
    directory.mkdir()
    (directory / "demo.yaml").write_text(LESSON + NUMERIC, encoding="utf-8")
    content_load(directory=directory)
    return directory
