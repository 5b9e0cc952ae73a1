"""Item statistics at scale (issue 27, item 5): one lesson's admin statistics page, timed.

    .venv/bin/python bench/item_statistics.py [--rounds 5] [--learners 10000] [--cards 100] [--lesson KEY] [--profile]

Target: on the scale database (1M review cards, at least 100k attempt items) the page answers within 1 s per
lesson. The database (ITEM_STATS_BENCH_DATABASE_URL, default …/quizsite_bench, the load benchmark's: 10,000
learners × 100 cards) is created, migrated, loaded and seeded on first use (bench/databases.py); ``seed_scale``
gives every learner a finished first study attempt of the first lesson and a falling share of them (0.8^k) one of
lesson k, every quiz kind answered from a Rasch model, so the first lesson holds the most counted attempt items
(10,000 × its 28 quiz questions) and the table holds every lesson's.

Each round, after one warm-up, times two things for the lesson (default: the first published one):
``lesson_statistics()`` (the selector: its queries and the numpy over their columns) and the whole admin page
(``GET …/statistics/`` through Django's test client as a superuser: middleware, the selector, the template).
Printed per measure: median, min and max wall time, the process's own CPU time (``time.thread_time``; on a
shared host it moves far less than the wall time, which includes waiting for a core; PostgreSQL's CPU is not
in it), the CPU time of the connection's PostgreSQL backend (read from /proc: the database must run on this
host), the queries and the summed wall time of those Django's cursor times (the columns' array query goes
through psycopg's own cursor, so it is not among them). ``--profile`` adds cProfile's top functions for one call.
"""

from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
# bench/ is the script's directory, first on the path: its profile.py would shadow the standard library's.
sys.path[:] = [str(REPO)] + [p for p in sys.path if Path(p or ".").resolve() != REPO / "bench"]

import argparse  # noqa: E402 (after the path)
import cProfile  # noqa: E402
import io  # noqa: E402
import os  # noqa: E402
import pstats  # noqa: E402
import statistics  # noqa: E402
import time  # noqa: E402

from bench import databases  # noqa: E402 (after the path)

URL = os.environ.get("ITEM_STATS_BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/quizsite_bench")
BENCH_ADMIN = "bench-statistics-admin"


def _setup(url: str) -> None:
    databases.use_in_process(
        url,
        ALLOWED_HOSTS="testserver",
        SECURE_SSL_REDIRECT="false",
        STATIC_MANIFEST="false",  # no collectstatic here: the admin's CSS links need no manifest
        CONN_MAX_AGE="60",
    )
    import django

    django.setup()


def _server_cpu() -> float:
    """CPU seconds used so far by this connection's PostgreSQL backend (same host: its /proc entry; utime + stime).

    Parallel workers' CPU (the review-card aggregate plans two) is not in it."""
    from django.db import connection

    connection.ensure_connection()
    pid = connection.connection.info.backend_pid
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _timed(call) -> tuple[float, float, int, float, float]:
    """(wall s, CPU s, queries, their summed wall s, the PostgreSQL backend's CPU s) of one call."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    server = _server_cpu()
    with CaptureQueriesContext(connection) as queries:
        wall, cpu = time.perf_counter(), time.thread_time()
        call()
        wall, cpu = time.perf_counter() - wall, time.thread_time() - cpu
    return wall, cpu, len(queries), sum(float(q["time"]) for q in queries.captured_queries), _server_cpu() - server


def _line(name: str, runs: list[tuple[float, float, int, float, float]]) -> str:
    walls = [r[0] for r in runs]
    return (
        f"| {name} | {statistics.median(walls) * 1000:.0f} | {min(walls) * 1000:.0f}–{max(walls) * 1000:.0f} "
        f"| {statistics.median(r[1] for r in runs) * 1000:.0f} | {statistics.median(r[4] for r in runs) * 1000:.0f} "
        f"| {runs[0][2]} | {statistics.median(r[3] for r in runs) * 1000:.0f} |"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--learners", type=int, default=10000)
    parser.add_argument("--cards", type=int, default=100)
    parser.add_argument("--lesson", default="", help="a lesson key (default: the first published lesson)")
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    databases.ensure(URL, learners=args.learners, cards=args.cards)
    _setup(URL)

    from django.contrib.auth import get_user_model
    from django.test import Client
    from django.urls import reverse

    from quizzes.item_statistics.selectors import first_study_attempts, lesson_statistics
    from quizzes.models import AttemptItem, Lesson, ReviewCard

    lessons = Lesson.objects.published().order_by("order", "key")
    lesson = lessons.get(key=args.lesson) if args.lesson else lessons.first()
    assert lesson is not None, "no published lesson"
    items = AttemptItem.objects.filter(attempt__in=first_study_attempts(lesson=lesson)).count()
    print(f"database {URL.rsplit('/', 1)[-1]}: {ReviewCard.objects.count():,} review cards; lesson {lesson.key}: "
          f"{items:,} counted attempt items; load average {os.getloadavg()[0]:.1f}")  # fmt: skip
    admin, _ = get_user_model().objects.get_or_create(
        username=BENCH_ADMIN, defaults={"is_staff": True, "is_superuser": True, "email": "bench@example.com"}
    )
    client = Client()
    client.force_login(admin)
    url = reverse("admin:quizzes_lesson_statistics", args=[lesson.pk])

    def page() -> None:
        response = client.get(url, HTTP_ACCEPT_LANGUAGE="en")
        assert response.status_code == 200, response.status_code

    def selector() -> None:
        lesson_statistics(lesson=lesson)

    measures = {"lesson_statistics()": selector, "GET the admin page": page}
    for call in measures.values():
        call()  # warm-up: connection, templates, translations
    runs: dict[str, list] = {name: [] for name in measures}
    for _ in range(args.rounds):
        for name, call in measures.items():
            runs[name].append(_timed(call))
    print(f"\n{args.rounds} rounds, load average {os.getloadavg()[0]:.1f} after\n")
    print("| measure | median ms | min–max ms | CPU ms | PostgreSQL CPU ms | queries | Django-timed query ms |")
    print("|---|---|---|---|---|---|---|")
    for name, rows in runs.items():
        print(_line(name, rows))
    if args.profile:
        profiler = cProfile.Profile()
        profiler.runcall(selector)
        out = io.StringIO()
        pstats.Stats(profiler, stream=out).sort_stats("cumulative").print_stats(25)
        print(out.getvalue())
    return 0


if __name__ == "__main__":
    sys.exit(main())
