"""`manage.py dump_lessons`: write the lessons the database holds as lesson files (quizzes.content.dumper)."""

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from quizzes.content.dumper import DumpError, lessons_dump


class Command(BaseCommand):
    help = (
        "Write the lessons in the database (made by the files, the admin or a generation job) as lesson YAML files "
        "into --output. A lesson that has a file there or in fixtures/lessons is written onto it (comments, quoting "
        "and key order kept; only the values the database changed are rewritten), so an unchanged lesson comes out "
        "byte for byte; a lesson without one is written fresh. `load_lessons --dir DIR` reads them back."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--lesson", dest="lesson_key", default=None, help="Only the lesson with this key.")
        parser.add_argument("--output", required=True, help="Directory to write the .yaml files into (created).")

    def handle(self, *args: Any, lesson_key: str | None = None, output: str = "", **options: Any) -> None:
        try:
            files = lessons_dump(directory=output, lesson_key=lesson_key)
        except DumpError as exc:
            raise CommandError(str(exc)) from exc
        for path, written in files:
            self.stdout.write(f"{'wrote' if written else 'unchanged'} {path}")
        self.stdout.write(self.style.SUCCESS(f"{len(files)} lesson file(s) in {output}"))
