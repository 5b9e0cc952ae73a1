"""`manage.py import_moodle FILE --lesson KEY [--skip-unsupported]`: a Moodle XML file's questions into a lesson
(rules: quizzes.content.moodle; the mapping table is in fixtures/lessons/README.md)."""

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from quizzes.content.moodle.importer import lesson_moodle_import
from quizzes.content.moodle.xmlfile import MAX_BYTES, MoodleError
from quizzes.content.selectors import lesson_by_key


class Command(BaseCommand):
    help = (
        "Import a Moodle XML file into a lesson: multichoice (one correct answer) → choice, numerical → number, "
        "essay → interview prompt; validated like load_lessons. Anything else is refused with its reason and "
        "nothing is written, unless --skip-unsupported imports the rest. Re-importing updates in place."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", help="The Moodle XML file.")
        parser.add_argument("--lesson", required=True, help="The key of the lesson the questions go into.")
        parser.add_argument(
            "--skip-unsupported",
            action="store_true",
            help="Import the questions we can represent and list the others, instead of refusing the file.",
        )

    def handle(self, *args: Any, file: str, lesson: str, skip_unsupported: bool = False, **options: Any) -> None:
        target = lesson_by_key(key=lesson)
        if target is None:
            raise CommandError(f"no lesson with the key {lesson!r}")
        path = Path(file)
        try:
            with path.open("rb") as handle:
                data = handle.read(MAX_BYTES + 1)  # one byte more than the limit: the reader refuses it
        except OSError as exc:
            raise CommandError(f"cannot read {file}: {exc.strerror}") from exc
        try:
            report = lesson_moodle_import(lesson=target, data=data, file=path.name, skip_unsupported=skip_unsupported)
        except MoodleError as exc:
            raise CommandError(
                f"{path.name} not imported ({len(exc.problems)} problem(s)), nothing written:\n{exc}"
            ) from exc
        self.stdout.write(f"imported {path.name} into lesson {target.key}")
        for line in report.lines():
            self.stdout.write(f"  {line}")
        for skipped in report.skipped:
            self.stdout.write(f"  skipped: {skipped}")
        for note in report.notes:
            self.stdout.write(f"  note: {note}")
        self.stdout.write(self.style.SUCCESS("done" if report.changed else "no changes"))
