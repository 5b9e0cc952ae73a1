"""The sample Moodle XML files beside these tests (written to Moodle's documented format, as Moodle's own exporter
writes it: question/format/xml/format.php), and a lesson to import them into."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests import factories

SAMPLES = Path(__file__).parent


def sample(name: str) -> bytes:
    return (SAMPLES / name).read_bytes()


@pytest.fixture
def target(db):
    """An empty published lesson the samples are imported into."""
    return factories.LessonFactory(key="moodle-demo", title="从 Moodle 导入", summary="导入的题。", order=90)
