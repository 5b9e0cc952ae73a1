"""Lesson import: what happens to rows that are no longer in the files.

Only rows the files own (``source`` = file) are considered; the admin's and generation jobs' rows
are never deleted, unpublished or retired by an import.

* **Question** — deleted when no learner has touched it; *unpublished* (kept, hidden) when it has
  history (an attempt item or a review card; both PROTECT the question anyway) or generated questions.
* **Lesson** — unpublished when it still holds questions or attempts after the question rule,
  deleted otherwise.
* **Option** of a question — deleted when no attempt ever showed it; **retired** when one did
  (``missing_options``, used by the reader while it plans).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from quizzes.content.models import ContentSource, Lesson, Option, Question
from quizzes.content.report import Counts, LoadReport


def missing_options(
    *, current: Mapping[str, Option], keep: set[str], shown: Callable[[], set[int]], owner: str
) -> tuple[list[Option], list[Option]]:
    """Options of a question that the file no longer lists: (to delete, to retire).

    ``shown()`` gives the ids of options some attempt displayed (asked only when an option is missing):
    those are retired — never rewrite what a learner saw — and the others deleted. Only options with
    the question's own ``owner`` (its source) are the file's to drop: one an admin added to a file
    question stays.
    """
    delete: list[Option] = []
    retire: list[Option] = []
    for option_key, option in current.items():
        if option_key in keep or option.source != owner:
            continue
        if option.pk in shown():
            if not option.retired:  # learners saw it: retire it, never rewrite their attempts
                retire.append(option)
        else:
            delete.append(option)
    return delete, retire


def prune_missing(*, question_keys: set[str], lesson_keys: set[str], report: LoadReport) -> None:
    """File-owned rows missing from the files: delete the untouched ones, unpublish those in use.

    Rows the admin or a generation job made are never the files' to remove. A file question that
    generated questions is in use too (they keep its template, and PROTECT it).
    """
    files = ContentSource.FILE
    for question in Question.objects.filter(source=files).exclude(key__in=question_keys).with_history():
        if question.has_history or question.generated_questions.exists():  # type: ignore[attr-defined]
            _unpublish(question, report.questions)
        else:
            report.options.deleted += question.options.count()
            question.delete()
            report.questions.deleted += 1
    for lesson in Lesson.objects.filter(source=files).exclude(key__in=lesson_keys):
        if lesson.questions.exists() or lesson.attempts.exists():
            _unpublish(lesson, report.lessons)
        else:
            lesson.delete()
            report.lessons.deleted += 1


def _unpublish(row: Question | Lesson, counts: Counts) -> None:
    """Hide a file row still in use, and keep it: learners' history points at it. Recorded as the import's own
    write, so the next import does not read it as an admin's edit."""
    if row.published:
        row.published = False
        row.record_import("published", False)
        row.save(update_fields=["published", "import_hashes", "updated_at"])
        counts.unpublished += 1
