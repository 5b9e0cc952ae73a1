"""Lesson import: what happens to rows that are no longer in the files.

* **Question** — deleted when no learner has touched it; *unpublished* (kept, hidden) when it has
  history (an attempt item or a review card; both PROTECT the question anyway).
* **Lesson** — unpublished when it still holds questions or attempts after the question rule,
  deleted otherwise.
* **Option** of a question — deleted when no attempt ever showed it; **retired** when one did
  (``missing_options``, used by the reader while it plans).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from quizzes.content.models import Lesson, Option, Question
from quizzes.content.report import LoadReport


def missing_options(
    *, current: Mapping[str, Option], keep: set[str], shown: Callable[[], set[int]]
) -> tuple[list[Option], list[Option]]:
    """Options of a question that the file no longer lists: (to delete, to retire).

    ``shown()`` gives the ids of options some attempt displayed (asked only when an option is missing):
    those are retired — never rewrite what a learner saw — and the others deleted.
    """
    delete: list[Option] = []
    retire: list[Option] = []
    for option_key, option in current.items():
        if option_key in keep:
            continue
        if option.pk in shown():
            if not option.retired:  # learners saw it: retire it, never rewrite their attempts
                retire.append(option)
        else:
            delete.append(option)
    return delete, retire


def prune_missing(*, question_keys: set[str], lesson_keys: set[str], report: LoadReport) -> None:
    """Rows missing from the files: delete the untouched ones, unpublish those with history."""
    for question in Question.objects.exclude(key__in=question_keys).with_history():
        if question.has_history:  # type: ignore[attr-defined]  # annotated by with_history()
            if question.published:
                question.published = False
                question.save(update_fields=["published", "updated_at"])
                report.questions.unpublished += 1
        else:
            report.options.deleted += question.options.count()
            question.delete()
            report.questions.deleted += 1
    for lesson in Lesson.objects.exclude(key__in=lesson_keys):
        in_use = lesson.questions.exists() or lesson.attempts.exists()
        if in_use:
            if lesson.published:
                lesson.published = False
                lesson.save(update_fields=["published", "updated_at"])
                report.lessons.unpublished += 1
        else:
            lesson.delete()
            report.lessons.deleted += 1
