"""Loading the lesson files, and what a load means for learners' schedules (content + reviews)."""

from __future__ import annotations

from pathlib import Path

from django.db import transaction

from quizzes.content.report import LoadReport
from quizzes.content.writer import content_load
from quizzes.reviews.services import cards_carry_over


def lessons_load(
    *,
    directory: Path | str | None = None,
    prune: bool = True,
    validate_only: bool = False,
    resolve: str | None = None,
) -> tuple[LoadReport, int]:
    """``content_load``, then carry learners' cards over to questions that replace retired ones
    (``replaces:`` in a file, e.g. lesson 1's code card replacing its recall card), in one transaction.
    Returns the load report and how many cards were carried over."""
    with transaction.atomic():
        report = content_load(directory=directory, prune=prune, validate_only=validate_only, resolve=resolve)
        carried = 0 if validate_only else cards_carry_over()
    return report, carried
