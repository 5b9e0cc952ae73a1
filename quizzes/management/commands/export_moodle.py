"""`manage.py export_moodle --lesson KEY [--output FILE] [--skip-unsupported]`: a lesson's questions as Moodle XML
(rules: quizzes.content.moodle.exporter)."""

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from quizzes.content.moodle.exporter import lesson_moodle_export
from quizzes.content.moodle.xmlfile import MoodleError
from quizzes.content.selectors import lesson_by_key


class Command(BaseCommand):
    help = (
        "Export a lesson's questions as Moodle XML (choice → multichoice, number → numerical, generated numeric → "
        "numerical for one fixed seed when its answer is one number, prompt → essay). Recall and code questions, "
        "and generated ones whose answer is an array, are refused, unless --skip-unsupported leaves them out."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--lesson", required=True, help="The key of the lesson to export.")
        parser.add_argument("--output", default=None, help="The file to write (default: standard output).")
        parser.add_argument(
            "--skip-unsupported", action="store_true", help="Leave out (and list) what Moodle cannot represent."
        )

    def handle(
        self, *args: Any, lesson: str, output: str | None = None, skip_unsupported: bool = False, **options: Any
    ) -> None:
        target = lesson_by_key(key=lesson)
        if target is None:
            raise CommandError(f"no lesson with the key {lesson!r}")
        try:
            export = lesson_moodle_export(lesson=target, skip_unsupported=skip_unsupported)
        except MoodleError as exc:
            raise CommandError(f"lesson {target.key} not exported ({len(exc.problems)} problem(s)):\n{exc}") from exc
        # The XML alone on standard output; what was written and skipped on standard error then.
        say = self.stdout if output is not None else self.stderr
        if output is None:
            self.stdout.write(export.xml, ending="")
        else:
            Path(output).write_text(export.xml, encoding="utf-8")
            say.write(f"exported {len(export.exported)} question(s) of lesson {target.key} to {output}")
        for key, why in export.skipped:
            say.write(f"  skipped {key}: {why}", style_func=str)
