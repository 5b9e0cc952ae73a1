"""`manage.py seed_scale --learners N --cards M [--seed S] [--wipe]`: data at scale for the benchmarks (PostgreSQL).

What it writes and how: quizzes.operations.scale_data.
"""

import argparse
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from quizzes.operations.scale_data import ScaleSeeder, ScaleSeedError


class Command(BaseCommand):
    help = "Fill PostgreSQL with N learners × M review cards (realistic FSRS states), logs and attempts, via COPY."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--learners", type=int, required=True, help="number of learners (N)")
        parser.add_argument("--cards", type=int, required=True, help="review cards per learner (M)")
        parser.add_argument("--seed", type=int, default=0, help="random seed (learner k depends only on seed, k)")
        parser.add_argument("--wipe", action="store_true", help="delete a previous scale run first")
        parser.add_argument(
            "--attempts",
            action=argparse.BooleanOptionalAction,
            default=True,
            help="one finished attempt per learner, answers drawn from a Rasch model (planted difficulties)",
        )

    def handle(
        self, *args: Any, learners: int, cards: int, seed: int, wipe: bool, attempts: bool, **options: Any
    ) -> None:
        def log(line: str) -> None:
            self.stdout.write(line)
            self.stdout.flush()

        try:
            ScaleSeeder(log).run(learners=learners, cards=cards, seed=seed, wipe=wipe, attempts=attempts)
        except ScaleSeedError as exc:
            raise CommandError(str(exc)) from exc
