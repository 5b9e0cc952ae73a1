"""`manage.py load_lessons`: upsert the lesson files (rules in quizzes.content.reader, writer, pruning, ownership)."""

from typing import Any, TextIO

from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError, CommandParser

from quizzes.content.ownership import KEEP_ADMIN, TAKE_FILES
from quizzes.content.report import ContentConflictError, ContentError
from quizzes.content.selectors import content_counts
from quizzes.operations.lessons import lessons_load

CONFLICT_HINT = (
    "nothing was written. Re-run with --take-files to write the files' text, or --keep-admin to keep the "
    "admin's (or copy the admin's text into the file and load again)."
)


class LessonConflictError(CommandError):
    """The files and the admin both changed rows since the last import (the report is the message)."""


class Command(BaseCommand):
    help = (
        "Load lessons from YAML files (default fixtures/lessons). Idempotent: unchanged rows are not touched. "
        "Manages only the rows the files own: questions removed from the files are deleted, or unpublished "
        "when learners have history; options removed from the files are deleted, or retired when learners have "
        "seen them; rows made in the admin or by a generation job are never changed. A file row edited in the "
        "admin since the last import stops the load with a conflict report (--take-files / --keep-admin decide). "
        "Refuses files whose options give the answer away (quizzes.content.cues)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--dir", dest="directory", default=None, help="Directory of lesson .yaml files.")
        parser.add_argument(
            "--check",
            action="store_true",
            help="Validate (answer cues included) and count changes; write nothing. Prints the answer-cue summary.",
        )
        parser.add_argument(
            "--no-prune", action="store_true", help="Leave lessons and questions missing from the files alone."
        )
        resolve = parser.add_mutually_exclusive_group()
        resolve.add_argument(
            "--take-files",
            dest="resolve",
            action="store_const",
            const=TAKE_FILES,
            help="On a conflict with an admin's edit, write the files' text (the files win).",
        )
        resolve.add_argument(
            "--keep-admin",
            dest="resolve",
            action="store_const",
            const=KEEP_ADMIN,
            help="On a conflict with an admin's edit, keep the admin's text (until the file changes it again).",
        )

    def handle(
        self,
        *args: Any,
        directory: str | None = None,
        check: bool = False,
        no_prune: bool = False,
        resolve: str | None = None,
        **options: Any,
    ) -> None:
        try:
            report, carried = lessons_load(
                directory=directory, prune=not no_prune, validate_only=check, resolve=resolve
            )
        except ContentError as exc:
            raise CommandError(f"lesson files not loaded ({len(exc.problems)} problem(s)):\n{exc}") from exc
        except ContentConflictError as exc:
            raise LessonConflictError(
                f"lesson files not loaded: {len(exc.conflicts)} conflict(s) with the admin's rows:\n{exc}\n"
                f"{CONFLICT_HINT}"
            ) from exc
        verb = "checked" if check else "loaded"
        self.stdout.write(f"{verb} {len(report.files)} file(s): {', '.join(report.files)}")
        for line in report.lines():
            self.stdout.write(f"  {line}")
        if carried:
            self.stdout.write(f"  review cards carried over to replacing questions: {carried}")
        if check and report.cues is not None:
            self.stdout.write(f"  {report.cues.line()}")
        if not check:
            for lesson, kinds in sorted(content_counts().items()):
                summary = ", ".join(f"{kind} {count}" for kind, count in sorted(kinds.items()))
                self.stdout.write(f"  {lesson}: {summary}")
        self.stdout.write(self.style.SUCCESS("no changes" if not (report.changed or carried) else "done"))


def load_lessons_for_serving(*, stdout: TextIO, stderr: TextIO, directory: str | None = None) -> bool:
    """``make run``'s load: a conflict with the admin's edits is reported and the site serves anyway
    (with the database as it was); other problems in the files still stop it. True when loaded."""
    try:
        call_command("load_lessons", directory=directory, stdout=stdout, stderr=stderr)
    except LessonConflictError as exc:
        stderr.write(f"{exc}\nServing the content as it is in the database.\n")
        return False
    return True
