"""The lesson-1 exercise: the engine must print exactly what the lesson tells the learner to expect."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from attention_engine.exercise import run_exercise

DATA = Path(__file__).parent / "data"
REPO = Path(__file__).resolve().parents[2]
SEED_DOCS = REPO.parent / "shared" / "seeds"


def expected_output() -> str:
    return (DATA / "lesson1_exercise_seed0.txt").read_text(encoding="utf-8")


def test_seed_0_prints_the_lesson_output_line_for_line():
    assert run_exercise(0).splitlines() == expected_output().splitlines()


def test_our_copy_of_the_expected_output_is_the_lessons_own():
    """The committed expectation is the block printed in shared/seeds/000_*.txt, when that is beside the clone."""
    docs = sorted(SEED_DOCS.glob("000_*.txt"))
    if not docs:
        reason = f"seed documents not found at {SEED_DOCS}; the committed copy is checked by the test above"
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI=true: {reason}", pytrace=False)
        pytest.skip(reason)
    lesson = docs[0].read_text(encoding="utf-8").splitlines()
    start = lesson.index("Q (4, 16) K (4, 16) V (4, 16)")
    end = next(i for i in range(start, len(lesson)) if lesson[i].startswith("avg max weight"))
    assert lesson[start : end + 1] == expected_output().splitlines()


def test_other_seeds_give_other_numbers_but_the_same_shape_lines():
    other = run_exercise(1).splitlines()
    assert other[:3] == expected_output().splitlines()[:3]
    assert other[4:8] != expected_output().splitlines()[4:8]


def test_command_line_prints_the_same_text():
    result = subprocess.run(
        [sys.executable, "-m", "attention_engine", "exercise", "--seed", "0"],
        capture_output=True,
        text=True,
        cwd=REPO,
        check=True,
    )
    assert result.stdout.splitlines() == expected_output().splitlines()
