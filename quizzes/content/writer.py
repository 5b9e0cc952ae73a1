"""Lesson content import: YAML files in ``fixtures/lessons/`` → Lesson / Question / Option rows.

The import is three modules: quizzes.content.reader (phase 1, read and validate), this writer
(phase 2, and ``content_load``, the service ``load_lessons`` calls) and quizzes.content.pruning
(rows no longer in the files).

The files are the source of truth for the content *they own*: every row records where it came from
(``source``: the files, the admin or a generation job), and an import creates, updates, retires and
unpublishes file rows only — never a row the admin or a job made. A file row edited in the admin
since the last import is a conflict that stops the import (quizzes.content.ownership; ``resolve``
decides it). The database also holds learners' history, which must never be lost by a re-import.
Hence an **upsert by stable keys**, in two phases:

1. *Validate everything* (file syntax, schema, duplicate keys, ``full_clean()`` of every row
   including the numeric 50-seed check, the choice-option rules, and history conflicts) and
   collect every problem with its file, lesson, question and option key. Any problem → raise
   :class:`ContentError`; nothing is written.
2. *Write* in one transaction, saving only rows whose fields differ (so a second run touches
   nothing and ``updated_at`` stays put; an edited text is updated in place, same primary key).

What happens to file rows that are no longer in the files (the admin's and the jobs' rows are left alone):

* **Question** — deleted when no learner has touched it; *unpublished* (kept, hidden) when it
  has history (an AttemptItem or a ReviewCard; both PROTECT the question anyway). Putting the
  key back into a file publishes it again.
* **Lesson** — unpublished when it still holds questions or attempts after the question rule,
  deleted otherwise.
* **Option** of a question — deleted when no attempt ever showed it. An option some attempt
  *did* show is referenced by ``AttemptItem.option_order`` (and maybe ``chosen_option``): deleting
  it would rewrite what the learner saw and answered, so it is **retired** instead
  (``Option.retired``): new attempts and content listings no longer show it, old attempts still
  do. A file may also retire an option explicitly (``retired: true``) and keep it listed; putting
  a retired option back (or writing ``retired: false``) revives it. The option rules (≥ 2 options,
  exactly one correct) count live options only.
* Changing the *kind* of a question with history, or moving it to another lesson, is refused,
  because old attempts would then describe a question that no longer matches: give the new
  question a new key (the old one is unpublished).

Numeric questions name their generator's **template version** (``template_version: N``; omitted =
the newest version of the template). A changed version updates the question in place: a lesson
question draws new numbers for every attempt anyway, and attempt items keep the variant they
stored. Questions generated from a numeric question (fixed seeds) keep their own version.

**Answer cues** (quizzes.content.cues) are checked on every load and ``--check``, over live options: the
option lengths of each choice question (rule a), no "以上都对"-style options (rule c), and, over
all published choice questions of the files (the bank), how often the correct option is the single
longest one (rule b; ``LoadReport.cues`` holds the count for ``--check``'s summary line).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from django.db import transaction

from quizzes.content.models import ContentSource, Question
from quizzes.content.ownership import plan_ownership
from quizzes.content.pruning import prune_missing
from quizzes.content.reader import DEFAULT_LESSONS_DIR, LessonReader, Plan, Planned, PlannedQuestion, lesson_files
from quizzes.content.report import (
    ContentConflictError,
    ContentError,
    ContentProblem,
    Counts,
    LoadReport,
    OptionCounts,
)
from quizzes.content.versions import versions_record


def _save(planned: Planned, counts: Counts) -> None:
    if planned.is_new:
        planned.instance.save()
        counts.created += 1
    elif planned.changed:
        planned.instance.save()
        if planned.retiring and isinstance(counts, OptionCounts):
            counts.retired += 1
        else:
            counts.updated += 1
    else:
        if planned.hashes_only:  # what the import wrote is recorded, nothing the learner sees changed
            planned.instance.save(update_fields=["import_hashes"])
        counts.unchanged += 1


def content_load(
    *,
    directory: Path | str | None = None,
    prune: bool = True,
    validate_only: bool = False,
    resolve: str | None = None,
) -> LoadReport:
    """Upsert every lesson file in ``directory`` (default ``fixtures/lessons``); see the module docstring.

    Raises ContentError, listing every problem, or ContentConflictError, listing every conflict with
    the admin's rows, before writing anything. ``validate_only`` runs the whole check and the change
    count without saving; ``prune=False`` leaves rows missing from the files alone (for loading a
    subset of the files); ``resolve`` (``"take-files"`` or ``"keep-admin"``) decides the conflicts.
    """
    directory = Path(directory) if directory is not None else DEFAULT_LESSONS_DIR
    if not directory.is_dir():
        raise ContentError([ContentProblem(file=str(directory), message="not a directory")])
    paths = lesson_files(directory)
    if not paths:
        raise ContentError([ContentProblem(file=str(directory), message="no .yaml lesson files")])
    with transaction.atomic():
        reader = LessonReader(paths)
        plan = reader.read()
        if reader.problems:
            raise ContentError(reader.problems)
        conflicts = plan_ownership(plan, resolve=resolve)
        if conflicts:
            raise ContentConflictError(conflicts)
        reader.moves_with_history(plan)  # only once ownership has said which lesson each question ends in
        if reader.problems:
            raise ContentError(reader.problems)
        report = LoadReport(files=[p.name for p in paths], written=not validate_only, cues=plan.cues)
        if validate_only:
            _count_only(plan, report)
            return report
        _write(plan, report, source=ContentSource.FILE)
        if prune:
            prune_missing(question_keys=plan.question_keys, lesson_keys=plan.lesson_keys, report=report)
    return report


def _write(plan: Plan, report: LoadReport, *, source: str | None = None) -> None:
    """Phase 2: save the planned lessons, then each question with its options (deleted, retired, saved), then a
    new version of each question whose content changed (none for an unchanged import; ``source``: where from)."""
    lessons = {}
    for planned in plan.lessons:
        _save(planned, report.lessons)
        lessons[planned.instance.key] = planned.instance
    for planned_question in sorted(plan.questions, key=_after_its_source):
        question = planned_question.question.instance
        if planned_question.lesson_key in lessons:  # else a lesson of the admin's, where keep-admin left it
            question.lesson = lessons[planned_question.lesson_key]
        _save(planned_question.question, report.questions)
        for option in planned_question.delete:
            option.delete()
            report.options.deleted += 1
        for option in planned_question.retire:
            option.retired = True
            option.record_import("retired", True)  # the import retired it: not an admin's edit
            option.save(update_fields=["retired", "import_hashes"])
            report.options.retired += 1
        for planned_option in planned_question.options:
            planned_option.instance.question = question
            _save(planned_option, report.options)
    saved = [planned.question.instance.pk for planned in plan.questions]
    versions_record(questions=list(Question.objects.filter(pk__in=saved).prefetch_related("options")), source=source)


def _after_its_source(planned_question: PlannedQuestion) -> bool:
    """A question generated from one this import creates is saved after it (the foreign key needs its id)."""
    source = planned_question.question.instance.generated_from
    return source is not None and source.pk is None


def content_plan_write(*, plan: Plan, report: LoadReport) -> None:
    """Phase 2 for a plan another reader made and validated (the Moodle XML import, quizzes.content.moodle):
    save what changed, delete or retire the options it drops, version what changed (with each question's source).
    The caller holds the transaction."""
    _write(plan, report)


def _count_only(plan: Plan, report: LoadReport) -> None:
    def count(items: Iterable[Planned], counts: Counts) -> None:
        for p in items:
            key = "created" if p.is_new else "retired" if p.retiring else "updated" if p.changed else "unchanged"
            setattr(counts, key, getattr(counts, key) + 1)

    count(plan.lessons, report.lessons)
    count((q.question for q in plan.questions), report.questions)
    count((o for q in plan.questions for o in q.options), report.options)
    report.options.deleted += sum(len(q.delete) for q in plan.questions)
    report.options.retired += sum(len(q.retire) for q in plan.questions)
