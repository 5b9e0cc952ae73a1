"""Reminder passes at scale: 100k learners through real Celery workers and a real SMTP server; nobody due at 1M.

    .venv/bin/python bench/reminders.py [--workers 1 2] [--parts 100k 1m] [--markdown] [--cleanup]

1. Data (bench/databases.py, created and seeded on first use): BENCH_REMINDERS_DATABASE_URL (default
   …/quizsite_bench_reminders), ``seed_scale --learners 100000 --cards 10 --no-attempts``: a third of the
   learners opted in (12 time zones); and BENCH_1M_DATABASE_URL (default …/quizsite_bench_1m), 1,000,000
   learners × 1 card. Redis: BENCH_REDIS_URL (default db 5) is the broker, emptied before each run.
2. The SMTP server: aiosmtpd on 127.0.0.1 in this process, accepting every message (and counting it): each
   chunk task opens one SMTP connection and sends its e-mails through it, so sending costs what it costs.
3. For each worker count (``--workers``, default 1 then 2): 1/12 of the opted-in learners, all in one
   time zone (``--zone``: a realistic pass meets the zones whose reminder hour just came), are made due
   now (reminder hour = rollover hour, so today's moment has passed; clocks CHECK_SOON, as after the
   migration; deliveries of earlier runs deleted), every other clock a day ahead; N worker processes
   start (``celery worker --concurrency N``, prefork) and report ready, then the beat task runs once in
   this process: it takes the due learners (one UPDATE … RETURNING) and dispatches chunks of 500 to the
   broker (**dispatch**).
   The run ends when no taken learner still holds the pass's lease (every chunk has looked at its
   learners and set their next moment) (**total**). E-mails/s = e-mails the SMTP server accepted ÷ total.
4. Nobody due: the same pass right after (100k), and at 1M learners after setting every clock to a
   future moment in one UPDATE (as after a day of passes; computing 333k clocks through the pass would
   take this machine half an hour): queries counted, time, and EXPLAIN of the pass's statement.

Writes bench/results/reminders-*.json and prints the README table.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench import databases  # noqa: E402 (after the path)

URL_100K = os.environ.get("BENCH_REMINDERS_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/quizsite_bench_reminders")
URL_1M = os.environ.get("BENCH_1M_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/quizsite_bench_1m")
REDIS = os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/5")
SMTP_PORT = int(os.environ.get("BENCH_SMTP_PORT", "8825"))


class Sink:
    """An SMTP server on loopback that accepts every message and counts them."""

    def __init__(self, port: int) -> None:
        from aiosmtpd.controller import Controller

        self.count = 0
        self.lock = threading.Lock()
        self.controller = Controller(self, hostname="127.0.0.1", port=port)

    async def handle_DATA(self, server, session, envelope) -> str:
        with self.lock:
            self.count += 1
        return "250 OK"

    def __enter__(self) -> Sink:
        self.controller.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.controller.stop()


def env_for(url: str) -> dict[str, str]:
    return {
        **databases.django_env(url, REDIS),
        "EMAIL_HOST": "127.0.0.1",
        "EMAIL_PORT": str(SMTP_PORT),
        "EMAIL_USE_TLS": "false",
        "LEARNER_CACHE_SECONDS": "0",
    }


def start_workers(concurrency: int, url: str, log: Path) -> subprocess.Popen:
    worker = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "quizsite", "worker", "--loglevel=INFO", f"--concurrency={concurrency}",
         "--pool=prefork", "--without-gossip", "--without-mingle", "--without-heartbeat"],
        cwd=REPO, env=env_for(url), stdout=log.open("w"), stderr=subprocess.STDOUT,
    )  # fmt: skip
    deadline = time.monotonic() + 60
    while "ready." not in log.read_text():
        if worker.poll() is not None or time.monotonic() > deadline:
            raise SystemExit(f"the worker did not start:\n{log.read_text()[-3000:]}")
        time.sleep(0.2)
    return worker


def stop(worker: subprocess.Popen) -> None:
    worker.terminate()
    try:
        worker.wait(timeout=30)
    except subprocess.TimeoutExpired:
        worker.kill()


def reset_one_zone_due(zone: str) -> tuple[int, int]:
    """1/12 of the opted-in learners due now (the first of one time zone's), everyone else later.

    A realistic pass: reminders go out at a local hour, so one pass meets the opted-in learners of the zones
    whose hour just came: one zone in twelve (the seed's opted-in learners fall in 4 of its 12 zones, so the
    due ones are the first twelfth by id of one of those). Deliveries of earlier runs are deleted; the due
    learners' clocks are CHECK_SOON (as after the migration), the others' a day ahead. Returns (opted in, due).
    """
    from django.db import connection

    from quizzes.accounts.models import CHECK_SOON

    with connection.cursor() as cursor:
        cursor.execute("DELETE FROM quizzes_reminderdelivery")
        cursor.execute(
            "UPDATE quizzes_learnerprofile SET reminder_hour = day_rollover_hour, last_reminded_on = NULL, "
            "next_reminder_at = now() + interval '1 day' WHERE reminder_opt_in"
        )
        opted = cursor.rowcount
        cursor.execute(
            "UPDATE quizzes_learnerprofile SET next_reminder_at = %s WHERE user_id IN (SELECT user_id FROM "
            "quizzes_learnerprofile WHERE reminder_opt_in AND time_zone = %s ORDER BY user_id LIMIT %s)",
            [CHECK_SOON, zone, opted // 12],
        )
        due = cursor.rowcount
        cursor.execute("VACUUM ANALYZE quizzes_learnerprofile")  # a fair start for every run
        cursor.execute("VACUUM ANALYZE quizzes_reminderdelivery")
    return opted, due


def one_run(concurrency: int, sink: Sink, zone: str) -> dict:
    """Runs in a process whose DATABASE_URL is the 100k database (Django set up)."""
    import redis as redis_client
    from django.db import connection

    from quizzes.notifications.services import REMINDER_LEASE
    from quizzes.tasks import send_review_reminders

    opted, due = reset_one_zone_due(zone)
    redis_client.Redis.from_url(REDIS).flushdb()
    log = REPO / "bench" / "results" / f"reminders-worker-{concurrency}.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    worker = start_workers(concurrency, URL_100K, log)
    try:
        sent_before = sink.count
        t0 = time.perf_counter()
        started = dt.datetime.now(dt.UTC)
        result = send_review_reminders.apply().get()
        dispatch = time.perf_counter() - t0
        lease_end = started + REMINDER_LEASE  # every taken learner's clock until their chunk sets it
        while True:
            with connection.cursor() as cursor:
                cursor.execute(
                    "SELECT count(*) FROM quizzes_learnerprofile WHERE next_reminder_at BETWEEN %s AND %s",
                    [lease_end - dt.timedelta(minutes=1), lease_end + dt.timedelta(minutes=1)],
                )
                left = cursor.fetchone()[0]
            if left == 0:
                break
            if worker.poll() is not None:
                raise SystemExit(f"the worker died:\n{log.read_text()[-3000:]}")
            time.sleep(0.05)
        total = time.perf_counter() - t0
        with connection.cursor() as cursor:
            cursor.execute("SELECT count(*) FROM quizzes_reminderdelivery WHERE sent_at IS NOT NULL")
            delivered = cursor.fetchone()[0]
    finally:
        stop(worker)
    emails = sink.count - sent_before
    return {
        "worker_processes": concurrency,
        "opted_in": opted,
        "due_zone": zone,
        "due": due,
        "taken": result["learners"],
        "chunks": result["chunks"],
        "dispatch_s": dispatch,
        "total_s": total,
        "emails": emails,
        "deliveries": delivered,
        "emails_per_s": emails / total,
    }


def nobody_due(label: str) -> dict:
    """The pass when nobody is due: its queries, its time (median of 20) and the plan of its statement."""
    import statistics

    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from quizzes.notifications.services import reminders_chunks

    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*), count(*) FILTER (WHERE reminder_opt_in) FROM quizzes_learnerprofile")
        learners, opted = cursor.fetchone()
    times = []
    for _ in range(20):
        with CaptureQueriesContext(connection) as captured:
            t0 = time.perf_counter()
            assert reminders_chunks() == []
            times.append((time.perf_counter() - t0) * 1000)
    sql = captured.captured_queries[0]["sql"]
    with connection.cursor() as cursor:
        cursor.execute("BEGIN")
        cursor.execute("EXPLAIN (ANALYZE, BUFFERS) " + sql)  # rolled back: the UPDATE changes nothing
        plan = "\n".join(row[0] for row in cursor.fetchall())
        cursor.execute("ROLLBACK")
    return {
        "label": label,
        "learners": learners,
        "opted_in": opted,
        "queries": len(captured),
        "median_ms": statistics.median(times),
        "plan": plan,
    }


def measure_100k(workers: list[int], zone: str) -> dict:
    import django

    django.setup()
    runs = []
    with Sink(SMTP_PORT) as sink:
        for n in workers:
            print(f"pass with {n} worker process(es) …", flush=True)
            runs.append(one_run(n, sink, zone))
            print(f"  {runs[-1]}", flush=True)
    return {"runs": runs, "nobody_due": nobody_due("100k, right after the pass")}


def measure_1m() -> dict:
    import django

    django.setup()
    from django.db import connection

    with connection.cursor() as cursor:  # every clock in the future, as after a day of passes
        cursor.execute(
            "UPDATE quizzes_learnerprofile SET next_reminder_at = now() + interval '1 day' WHERE reminder_opt_in"
        )
        cursor.execute("VACUUM ANALYZE quizzes_learnerprofile")
    return {"nobody_due": nobody_due("1M, every clock in the future")}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2], help="worker process counts to compare")
    parser.add_argument("--markdown", action="store_true")
    parser.add_argument("--zone", default="Asia/Kolkata", help="the time zone whose learners are due in the pass")
    parser.add_argument(
        "--parts", nargs="+", choices=["100k", "1m"], default=["100k", "1m"], help="1M: minutes to seed"
    )
    parser.add_argument("--cleanup", action="store_true", help="drop the bench databases and empty Redis afterwards")
    parser.add_argument("--measure", choices=["100k", "1m"], help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:  # a child process, DATABASE_URL set for one database
        data = measure_100k(args.workers, args.zone) if args.measure == "100k" else measure_1m()
        print("BENCH_JSON " + json.dumps(data, default=str))
        return 0
    parts = {"100k": (URL_100K, 100_000, 10), "1m": (URL_1M, 1_000_000, 1)}
    for label in args.parts:
        url, learners, cards = parts[label]
        databases.ensure(url, learners=learners, cards=cards, attempts=False)
    results: dict = {}
    try:
        for label in args.parts:
            url = parts[label][0]
            out = subprocess.run(
                [sys.executable, __file__, "--measure", label, "--zone", args.zone,
                 "--workers", *map(str, args.workers)],
                cwd=REPO, env=env_for(url), stdout=subprocess.PIPE, text=True, check=True,
            ).stdout  # fmt: skip
            for line in out.splitlines():
                if line.startswith("BENCH_JSON "):
                    results[label] = json.loads(line[11:])
                else:
                    print(line, flush=True)
    finally:
        if args.cleanup:
            for url in (URL_100K, URL_1M):
                databases.drop(url)
            with contextlib.suppress(Exception):
                databases.flush_redis(REDIS)
    out_dir = REPO / "bench" / "results"
    out_dir.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    (out_dir / f"reminders-{stamp}.json").write_text(json.dumps(results, indent=2, default=str))
    print_table(results, markdown=args.markdown)
    return 0


def print_table(results: dict, *, markdown: bool) -> None:
    runs = results.get("100k", {}).get("runs", [])
    base = runs[0]["total_s"] if runs else 1.0
    header = (
        "worker processes",
        "learners taken",
        "chunks",
        "dispatch s",
        "total s",
        "e-mails",
        "e-mails/s",
        "speed-up",
    )
    rows = [
        (str(r["worker_processes"]), f"{r['taken']:,}", str(r["chunks"]), f"{r['dispatch_s']:.2f}",
         f"{r['total_s']:.1f}", f"{r['emails']:,}", f"{r['emails_per_s']:.0f}", f"{base / r['total_s']:.2f}×")
        for r in runs
    ]  # fmt: skip
    if markdown:
        print("| " + " | ".join(header) + " |\n|" + "---:|" * len(header))
        for row in rows:
            print("| " + " | ".join(row) + " |")
    else:
        for row in (header, *rows):
            print("  ".join(f"{x:>16}" for x in row))
    for key in ("100k", "1m"):
        if key in results:
            n = results[key]["nobody_due"]
            print(f"\nnobody due, {n['label']}: {n['learners']:,} learners ({n['opted_in']:,} opted in): "
                  f"{n['queries']} query, median {n['median_ms']:.2f} ms\n{n['plan']}")  # fmt: skip


if __name__ == "__main__":
    sys.exit(main())
