"""Reminder passes at scale: 100k learners through real Celery workers and a real SMTP server; nobody due at 1M.

    .venv/bin/python bench/reminders.py [--workers 1 2] [--parts 100k 1m] [--markdown] [--cleanup]
    .venv/bin/python bench/reminders.py --parts 10k --backlog 2000 [--workers 2] [--markdown]   (make bench-queues)

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
5. ``--backlog N`` (instead of 3 and 4): the separate Celery queues (settings ``CELERY_TASK_ROUTES``). N pending
   GenerationJobs (real generation work, ≈ 60 ms each: the 50-seed template check, then their one question)
   are queued first, then the pass is sent as beat sends it, in three set-ups of the same ``--workers`` W
   processes: ``one-queue`` (every task on the default queue, as before the split), ``shared`` (the queues
   split, one worker consuming all of them, the Procfile's default) and ``per-queue`` (``-Q reminders`` with
   ⌈W/2⌉, ``-Q generation`` with ⌊W/2⌋). **waited** = until the pass took its learners, **total** = until
   each was looked at; the jobs done by then show what ran first. The jobs, their question and the rest of
   the backlog are removed afterwards. ``--parts 10k`` (BENCH_REMINDERS_10K_DATABASE_URL, default
   …/quizsite_bench_reminders_10k, 10,000 learners × 10 cards: 277 due, one chunk) seeds in under a minute.

Writes bench/results/reminders-*.json (``--backlog``: reminders-queues-*.json) and prints the README table.
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

from bench import databases, tables  # noqa: E402 (after the path)

URL_100K = os.environ.get("BENCH_REMINDERS_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/quizsite_bench_reminders")
URL_1M = os.environ.get("BENCH_1M_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/quizsite_bench_1m")
URL_10K = os.environ.get(
    "BENCH_REMINDERS_10K_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/quizsite_bench_reminders_10k"
)
#: The database of each ``--parts`` label: (URL, learners, cards per learner).
PARTS = {"10k": (URL_10K, 10_000, 10), "100k": (URL_100K, 100_000, 10), "1m": (URL_1M, 1_000_000, 1)}
#: ``--backlog``'s three set-ups: every task on the one default queue (before the queues were split), the queues
#: split with one worker consuming all of them, a worker per queue.
SETUPS = ("one-queue", "shared", "per-queue")
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


def start_workers(
    concurrency: int, url: str, log: Path, *, queues: str = "", one_queue: bool = False
) -> subprocess.Popen:
    """``celery worker --concurrency N`` (prefork) once it reports ready. ``queues``: its ``-Q`` (default: every
    queue); ``one_queue``: the worker routes every task to the default queue, as before the queues were split."""
    celery = (
        [sys.executable, __file__, "--one-queue-worker"]
        if one_queue
        else [sys.executable, "-m", "celery", "-A", "quizsite", "worker"]
    )
    worker = subprocess.Popen(
        [*celery, "--loglevel=INFO", f"--concurrency={concurrency}", "--pool=prefork", "--without-gossip",
         "--without-mingle", "--without-heartbeat", *([f"--queues={queues}"] if queues else [])],
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


def one_run(concurrency: int, sink: Sink, zone: str, url: str) -> dict:
    """Runs in a process whose DATABASE_URL is ``url`` (Django set up)."""
    import redis as redis_client
    from django.db import connection

    from quizzes.notifications.services import REMINDER_LEASE
    from quizzes.tasks import send_review_reminders

    opted, due = reset_one_zone_due(zone)
    redis_client.Redis.from_url(REDIS).flushdb()
    log = REPO / "bench" / "results" / f"reminders-worker-{concurrency}.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    worker = start_workers(concurrency, url, log)
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


def pass_progress(sent_at: dt.datetime) -> tuple[int, int]:
    """(learners not taken yet, learners taken but not looked at yet) of a pass enqueued at ``sent_at``.

    Not taken: the clock still CHECK_SOON (as reset). Taken: the lease the pass set, ``REMINDER_LEASE`` after
    the moment it ran (between ``sent_at`` and now); each chunk replaces it with the learner's next moment.
    """
    from django.db import connection

    from quizzes.accounts.models import CHECK_SOON
    from quizzes.notifications.services import REMINDER_LEASE

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FILTER (WHERE next_reminder_at <= %s), count(*) FILTER (WHERE next_reminder_at "
            "BETWEEN %s AND now() + %s) FROM quizzes_learnerprofile WHERE reminder_opt_in",
            [CHECK_SOON, sent_at + REMINDER_LEASE - dt.timedelta(minutes=1), REMINDER_LEASE + dt.timedelta(minutes=1)],
        )
        untaken, leased = cursor.fetchone()
    return untaken, leased


def backlog_jobs(count: int) -> tuple[list[int], set[int]]:
    """``count`` pending GenerationJobs (1 question each, all the same seed of one source) and the ids of the
    questions that existed before, so ``drop_backlog`` removes exactly what the run added.

    Real generation work: each job checks the source's template on 50 seeds and then finds (the first job:
    creates, unpublished) its one question, so the bench database keeps no more than it had.
    """
    from quizzes.content.models import GenerationJob, Question

    source = (
        Question.objects.filter(kind=Question.Kind.NUMERIC, fixed_seed=None, generated_from=None, published=True)
        .order_by("pk")
        .first()
    )
    if source is None:
        raise SystemExit("no published numeric question to generate from: load the lessons")
    before = set(Question.objects.filter(generated_from=source).values_list("pk", flat=True))
    jobs = GenerationJob.objects.bulk_create(GenerationJob(source=source, total=1, first_seed=0) for _ in range(count))
    return [job.pk for job in jobs], before


def drop_backlog(job_ids: list[int], questions_before: set[int]) -> None:
    from quizzes.content.models import GenerationJob, Question

    source_id = GenerationJob.objects.filter(pk=job_ids[0]).values_list("source_id", flat=True).first()
    GenerationJob.objects.filter(pk__in=job_ids).delete()
    Question.objects.filter(generated_from_id=source_id).exclude(pk__in=questions_before).delete()


def backlog_run(setup: str, processes: int, sink: Sink, zone: str, url: str, backlog: int) -> dict:
    """A reminder pass enqueued (as beat does) right behind ``backlog`` generation jobs, in one ``setup``:

    - ``one-queue``: one worker of ``processes`` processes, every task on the default queue (before the split):
      the pass and its chunks wait behind the whole backlog;
    - ``shared``: the queues split, one worker of ``processes`` processes consuming all of them (the Procfile's
      default): Redis hands a worker the queues' messages in turn, so reminders interleave with the backlog;
    - ``per-queue``: a ``-Q reminders`` worker of ⌈processes/2⌉ and a ``-Q generation`` worker of ⌊processes/2⌋
      (the same number of processes in all).

    **waited** = until the pass took its learners; **total** = until every taken learner was looked at.
    """
    import redis as redis_client

    from quizzes.content.models import GenerationJob
    from quizzes.tasks import run_generation_job, send_review_reminders

    opted, due = reset_one_zone_due(zone)
    redis_client.Redis.from_url(REDIS).flushdb()
    job_ids, questions_before = backlog_jobs(backlog)
    default = {"queue": "celery"} if setup == "one-queue" else {}  # else CELERY_TASK_ROUTES
    logs = REPO / "bench" / "results"
    logs.mkdir(parents=True, exist_ok=True)
    workers = []
    try:
        for job_id in job_ids:  # queued first: the backlog a worker meets when the pass comes
            run_generation_job.apply_async((job_id,), **default)
        if setup == "per-queue":
            if processes < 2:
                raise SystemExit("per-queue needs --workers 2 or more (one process per queue at least)")
            for queues, n in (("reminders", (processes + 1) // 2), ("generation", processes // 2)):
                workers.append(start_workers(n, url, logs / f"queues-{setup}-{queues}.log", queues=queues))
        else:
            workers.append(start_workers(processes, url, logs / f"queues-{setup}.log", one_queue=setup == "one-queue"))
        sent_before = sink.count
        sent_at = dt.datetime.now(dt.UTC)
        t0 = time.perf_counter()
        send_review_reminders.apply_async(**default)  # as beat sends it
        waited = None
        while True:
            untaken, leased = pass_progress(sent_at)
            if waited is None and untaken == 0:
                waited = time.perf_counter() - t0
            if untaken == 0 and leased == 0:
                break
            if any(worker.poll() is not None for worker in workers):
                raise SystemExit(f"a worker died: see {logs}/queues-{setup}*.log")
            time.sleep(0.05)
        total = time.perf_counter() - t0
        jobs_done = GenerationJob.objects.filter(pk__in=job_ids, status=GenerationJob.Status.SUCCEEDED).count()
    finally:
        for worker in workers:
            stop(worker)
        redis_client.Redis.from_url(REDIS).flushdb()  # the rest of the backlog
        drop_backlog(job_ids, questions_before)
    return {
        "setup": setup,
        "worker_processes": processes,
        "backlog": backlog,
        "due": due,
        "opted_in": opted,
        "waited_s": waited,
        "total_s": total,
        "emails": sink.count - sent_before,
        "jobs_done": jobs_done,
    }


def measure_pass(label: str, url: str, workers: list[int], zone: str, backlog: int) -> dict:
    """The pass with each worker count (``--workers``), or with ``backlog``: each count in every ``SETUPS``."""
    import django

    django.setup()
    runs = []
    with Sink(SMTP_PORT) as sink:
        for n in workers:
            if backlog:
                for setup in SETUPS:
                    print(f"pass behind {backlog:,} generation jobs, {setup}, {n} worker processes …", flush=True)
                    runs.append(backlog_run(setup, n, sink, zone, url, backlog))
                    print(f"  {runs[-1]}", flush=True)
                continue
            print(f"pass with {n} worker process(es) …", flush=True)
            runs.append(one_run(n, sink, zone, url))
            print(f"  {runs[-1]}", flush=True)
    if backlog:
        return {"backlog_runs": runs}
    return {"runs": runs, "nobody_due": nobody_due(f"{label}, right after the pass")}


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


def one_queue_worker(argv: list[str]) -> int:
    """``celery worker`` with every task on the default queue: the routing before the queues were split
    (``--backlog``'s one-queue set-up; the chunks its pass dispatches must stay on that queue too)."""
    from quizsite.celery import app

    app.conf.task_routes = {}
    app.conf.task_queues = None
    app.worker_main(["worker", *argv])
    return 0


def main() -> int:
    if sys.argv[1:2] == ["--one-queue-worker"]:  # a worker process of --backlog's one-queue set-up
        return one_queue_worker(sys.argv[2:])
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workers", type=int, nargs="+", help="worker process counts (default 1 2; --backlog: 2)")
    parser.add_argument("--markdown", action="store_true")
    parser.add_argument("--zone", default="Asia/Kolkata", help="the time zone whose learners are due in the pass")
    parser.add_argument("--parts", nargs="+", choices=list(PARTS), default=["100k", "1m"], help="1M: minutes to seed")
    parser.add_argument(
        "--backlog",
        type=int,
        default=0,
        help="queue this many generation jobs before the pass and compare one queue / shared worker / a worker "
        "per queue (the empty pass and 1m are skipped)",
    )
    parser.add_argument("--cleanup", action="store_true", help="drop the bench databases and empty Redis afterwards")
    parser.add_argument("--measure", choices=list(PARTS), help=argparse.SUPPRESS)
    args = parser.parse_args()
    workers = args.workers or ([2] if args.backlog else [1, 2])
    parts = [p for p in args.parts if not (args.backlog and p == "1m")]
    if args.measure:  # a child process, DATABASE_URL set for one database
        if args.measure == "1m":
            data = measure_1m()
        else:
            data = measure_pass(args.measure, PARTS[args.measure][0], workers, args.zone, args.backlog)
        print("BENCH_JSON " + json.dumps(data, default=str))
        return 0
    for label in parts:
        url, learners, cards = PARTS[label]
        databases.ensure(url, learners=learners, cards=cards, attempts=False)
    results: dict = {}
    try:
        for label in parts:
            url = PARTS[label][0]
            out = subprocess.run(
                [sys.executable, __file__, "--measure", label, "--zone", args.zone,
                 "--workers", *map(str, workers), "--backlog", str(args.backlog)],
                cwd=REPO, env=env_for(url), stdout=subprocess.PIPE, text=True, check=True,
            ).stdout  # fmt: skip
            for line in out.splitlines():
                if line.startswith("BENCH_JSON "):
                    results[label] = json.loads(line[11:])
                else:
                    print(line, flush=True)
    finally:
        if args.cleanup:
            for label in parts:
                databases.drop(PARTS[label][0])
            with contextlib.suppress(Exception):
                databases.flush_redis(REDIS)
    out_dir = REPO / "bench" / "results"
    out_dir.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    name = "reminders-queues" if args.backlog else "reminders"
    (out_dir / f"{name}-{stamp}.json").write_text(json.dumps(results, indent=2, default=str))
    print_table(results, markdown=args.markdown)
    return 0


def print_table(results: dict, *, markdown: bool) -> None:
    for label, part in results.items():
        if part.get("runs"):
            runs = part["runs"]
            base = runs[0]["total_s"]
            header = ("worker processes", "learners taken", "chunks", "dispatch s", "total s", "e-mails", "e-mails/s",
                      "speed-up")  # fmt: skip
            rows = [
                (str(r["worker_processes"]), f"{r['taken']:,}", str(r["chunks"]), f"{r['dispatch_s']:.2f}",
                 f"{r['total_s']:.1f}", f"{r['emails']:,}", f"{r['emails_per_s']:.0f}",
                 f"{base / r['total_s']:.2f}×")
                for r in runs
            ]  # fmt: skip
            tables.print_table(header, rows, markdown=markdown, title=f"{label}:")
        if part.get("backlog_runs"):
            runs = part["backlog_runs"]
            header = ("set-up", "worker processes", "generation backlog", "learners due", "pass waited s",
                      "reminders total s", "e-mails", "jobs done by then")  # fmt: skip
            rows = [
                (r["setup"], str(r["worker_processes"]), f"{r['backlog']:,}", f"{r['due']:,}", f"{r['waited_s']:.1f}",
                 f"{r['total_s']:.1f}", f"{r['emails']:,}", f"{r['jobs_done']:,}")
                for r in runs
            ]  # fmt: skip
            title = f"{label}, a reminder pass behind a generation backlog:"
            tables.print_table(header, rows, markdown=markdown, title=title)
        if part.get("nobody_due"):
            n = part["nobody_due"]
            print(f"\nnobody due, {n['label']}: {n['learners']:,} learners ({n['opted_in']:,} opted in): "
                  f"{n['queries']} query, median {n['median_ms']:.2f} ms\n{n['plan']}")  # fmt: skip


if __name__ == "__main__":
    sys.exit(main())
