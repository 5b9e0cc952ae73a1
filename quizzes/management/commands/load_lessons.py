"""`manage.py load_lessons`: upsert the lesson files (rules in quizzes.content.reader, writer and pruning)."""

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from quizzes.content.report import ContentError
from quizzes.content.selectors import content_counts
from quizzes.operations.lessons import lessons_load


class Command(BaseCommand):
    help = (
        "Load lessons from YAML files (default fixtures/lessons). Idempotent: unchanged rows are not touched; "
        "questions removed from the files are deleted, or unpublished when learners have history; options "
        "removed from the files are deleted, or retired when learners have seen them. Refuses files whose "
        "options give the answer away (quizzes.content.cues)."
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

    def handle(
        self, *args: Any, directory: str | None = None, check: bool = False, no_prune: bool = False, **options: Any
    ) -> None:
        try:
            report, carried = lessons_load(directory=directory, prune=not no_prune, validate_only=check)
        except ContentError as exc:
            raise CommandError(f"lesson files not loaded ({len(exc.problems)} problem(s)):\n{exc}") from exc
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
