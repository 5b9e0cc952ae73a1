"""Where a request's time goes: the load scenarios in process, per-request ms and queries, optional pyinstrument.

    .venv/bin/python bench/profile.py due [--requests 200] [--pyinstrument]
    .venv/bin/python bench/profile.py answer|dashboard|ping|offline|code ... [--entries 500] [--rounds 3]

Runs against the load benchmark's database (BENCH_DATABASE_URL, default …/quizsite_bench, seeded by
``make bench-load`` or ``manage.py seed_scale``) and Redis db 5, with DEBUG off, through Django's test
client: the whole middleware + DRF stack, without gunicorn and the network. Each request uses a
different random learner (fresh attempt items for ``answer``), like the load benchmark.
Every request sends ``Accept-Encoding: gzip`` as a phone does (``BENCH_ACCEPT_ENCODING``, empty for none), so the
API's compression (quizzes.sitewide.compression) is in the figures.
Prints mean / median / p95 ms and queries per request; ``--pyinstrument`` adds the call tree. ``--rounds`` also
prints the web process's own CPU per request (``time.thread_time``): on a shared host it moves far less than
the wall time, which includes waiting for a core (PostgreSQL's and Redis's CPU are not in it).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import random
import statistics
import sys
import time
import uuid
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench import databases  # noqa: E402 (after the path)

databases.use_in_process(
    databases.LOAD_BENCH_URL, databases.LOAD_BENCH_REDIS_URL, **databases.TEST_CLIENT, CONN_MAX_AGE="60"
)

SCENARIOS = ("ping", "due", "dashboard", "answer", "offline", "code")


Row = tuple[str, str, dict, "str | None"]


def _token(user) -> dict:
    from knox.models import get_token_model

    token = get_token_model().objects.create(user=user, expiry=dt.timedelta(hours=1))[1]
    return {"HTTP_AUTHORIZATION": f"Token {token}"}


def _dashboard_rows(users: list) -> list[Row]:
    from django.test import Client

    rows: list[Row] = []
    for user in users:
        client = Client()
        client.force_login(user)
        cookie = client.cookies["sessionid"].value
        rows.append(("GET", "/", {"HTTP_COOKIE": f"sessionid={cookie}", "HTTP_ACCEPT_LANGUAGE": "en"}, None))
    return rows


def _answer_rows(users: list, count: int, rng: random.Random) -> list[Row]:
    from quizzes.models import Lesson, Question
    from quizzes.practice.presenter import option_handle
    from quizzes.practice.services import attempt_start

    lesson = Lesson.objects.published().order_by("order", "key").first()
    rows: list[Row] = []
    for user in users:
        headers = _token(user)
        attempt = attempt_start(user=user, lesson=lesson, mode="study")
        for item in attempt.items.select_related("question").order_by("position"):
            if item.question.kind == Question.Kind.CHOICE and item.option_order:
                handle = option_handle(item_id=item.pk, option_id=rng.choice(item.option_order))
                body = {"option_id": handle, "duration_ms": 5000}
                rows.append(("POST", f"/api/v1/items/{item.pk}/answer/", headers, json.dumps(body)))
        if len(rows) >= count:
            break
    return rows


def _code_rows(users: list, count: int, rng: random.Random) -> list[Row]:
    """Lesson 1's code card answered over the API: the sandbox grades every submission (the production
    path, the worker process started on the warm-up request), then the lock, the review log and FSRS.
    Each learner sends one of the spec's known submissions: the reference, an equivalent spelling or a
    misconception's buggy code (the diagnosis path) — always runnable, so every request locks."""
    from attention_engine import codecheck
    from quizzes.models import Lesson, Question
    from quizzes.practice.services import attempt_start

    question = Question.objects.published().filter(kind=Question.Kind.CODE, code_spec="sdpa_three_lines").first()
    if question is None:
        raise SystemExit("no published code card on sdpa_three_lines: run `manage.py load_lessons` first")
    spec = codecheck.get("sdpa_three_lines")
    codes = [spec.reference, *spec.equivalents, *(m.code for m in spec.misconceptions)]
    lesson = Lesson.objects.get(pk=question.lesson_id)
    rows: list[Row] = []
    for user in users[:count]:
        item = attempt_start(user=user, lesson=lesson, mode="study").items.get(question=question)
        body = {"code": rng.choice(codes), "duration_ms": 60000}
        rows.append(("POST", f"/api/v1/items/{item.pk}/answer/", _token(user), json.dumps(body)))
    return rows


def _offline_rows(users: list, rng: random.Random, size: int) -> list[Row]:
    """``size`` entries per upload, in time order (a phone's week offline: every question at most once a
    day-ish), the newest 5 minutes ago; up to 20 questions, so a 500-entry upload reviews each one ~25 times."""
    from quizzes.models import Question

    questions = list(Question.objects.published().values_list("pk", "kind", "created_at"))
    newest = max(created for _, _, created in questions)  # a review can't predate its question
    last = max(dt.datetime.now(dt.UTC) - dt.timedelta(minutes=5), newest + dt.timedelta(seconds=size))
    rows: list[Row] = []
    for user in users:
        picked = rng.sample(questions, min(20, size))
        entries = []
        for i in range(size):
            pk, kind, _ = picked[i % len(picked)]
            at = (last - dt.timedelta(seconds=size - 1 - i)).isoformat()
            entry = {"client_uuid": str(uuid.uuid4()), "question_id": pk, "reviewed_at": at}
            entry.update({"correct": rng.random() < 0.8} if kind in Question.QUIZ_KINDS else {"rating": 3})
            entries.append(entry)
        rows.append(("POST", "/api/v1/reviews/offline/", _token(user), json.dumps({"entries": entries})))
    return rows


def requests_for(name: str, count: int, rng: random.Random, entries: int = 20) -> list[Row]:
    """(method, path, headers, body) per request, each from a different random scale learner."""
    from django.contrib.auth import get_user_model

    users = list(get_user_model().objects.filter(username__startswith="scale-").order_by("?")[: count + 50])
    if not users:
        raise SystemExit("no scale learners: run `manage.py seed_scale --learners 10000 --cards 100` first")
    if name in ("ping", "due"):
        path = "/api/v1/ping/" if name == "ping" else "/api/v1/reviews/due/"
        rows = [("GET", path, _token(user), None) for user in users[:count]]
    elif name == "dashboard":
        rows = _dashboard_rows(users[:count])
    elif name == "answer":
        rows = _answer_rows(users, count, rng)
    elif name == "code":
        rows = _code_rows(users, count, rng)
    else:  # offline
        rows = _offline_rows(users[:count], rng, entries)
    encoding = os.environ.get("BENCH_ACCEPT_ENCODING", "gzip")  # what a phone sends (OkHttp, URLSession); "" for none
    if encoding:
        rows = [
            (method, path, {**headers, "HTTP_ACCEPT_ENCODING": encoding}, body) for method, path, headers, body in rows
        ]
    return rows[:count]


def _measure(client, rows: list[Row], passes: int = 1) -> tuple[list[float], list[int], dict[int, int]]:
    from django.db import connection

    times, queries, statuses = [], [], {}
    cpu: list[float] = []

    def count(execute, sql, params, many, context):
        # through execute_wrapper: CaptureQueriesContext's log is reset by request_started mid-request
        # (a session request's first queries were lost: the dashboard showed 8 queries for 12)
        executed[0] += 1
        return execute(sql, params, many, context)

    for method, path, headers, body in rows * passes:
        executed = [0]
        with connection.execute_wrapper(count):
            t0, c0 = time.perf_counter(), time.thread_time()
            response = client.generic(method, path, data=body or "", content_type="application/json", **headers)
            times.append((time.perf_counter() - t0) * 1000)
            cpu.append((time.thread_time() - c0) * 1000)
        queries.append(executed[0])
        statuses[response.status_code] = statuses.get(response.status_code, 0) + 1
    _measure.cpu = cpu  # type: ignore[attr-defined]  # the web process's own CPU per request, see _interleaved
    return times, queries, statuses


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("scenario", choices=SCENARIOS)
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--pyinstrument", action="store_true", help="print the call tree over all requests")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--passes", type=int, default=1, help="send the same requests again (GETs: the second pass reads the cache)"
    )
    parser.add_argument("--entries", type=int, default=20, help="entries per offline upload")
    parser.add_argument(
        "--rounds",
        type=int,
        default=0,
        help="interleave with the bare ping: N rounds of (ping, scenario), each --requests; prints the median "
        "of the rounds' medians and the ratio to the ping (host speed cancels)",
    )
    args = parser.parse_args()

    import django

    django.setup()
    from django.core.management import call_command
    from django.test import Client

    call_command("collectstatic", interactive=False, verbosity=0)  # pages name hashed files (DEBUG is off)

    rng = random.Random(args.seed)
    client = Client(raise_request_exception=True)
    if args.rounds:
        return _interleaved(client, args, rng)
    rows = requests_for(args.scenario, args.requests, rng, args.entries)
    method, path, headers, body = rows[0]  # warm-up: imports, connection, template and URL caches
    client.generic(method, path, data=body or "", content_type="application/json", **headers)
    rows = rows[1:]
    profiler = None
    if args.pyinstrument:
        from pyinstrument import Profiler

        profiler = Profiler(interval=0.0005)
        profiler.start()
    times, queries, statuses = _measure(client, rows, args.passes)
    if profiler is not None:
        profiler.stop()
        print(profiler.output_text(unicode=True, color=False, show_all=False))
    for number in range(args.passes):
        part = slice(number * len(rows), (number + 1) * len(rows))
        ms, counts = sorted(times[part]), queries[part]
        print(
            f"{args.scenario} pass {number + 1}: {len(ms)} requests, mean {statistics.fmean(ms):.2f} ms, "
            f"median {statistics.median(ms):.2f} ms, p95 {ms[int(0.95 * (len(ms) - 1))]:.2f} ms, "
            f"queries {min(counts)}–{max(counts)} (mean {statistics.fmean(counts):.1f})"
        )
    print(f"statuses {statuses}")
    return 0


def _interleaved(client, args: argparse.Namespace, rng: random.Random) -> int:
    """Rounds of (ping, scenario) with fresh learners each: medians per round, then the median over rounds."""
    per_round = []
    for number in range(args.rounds):
        ping = requests_for("ping", args.requests + 1, rng)
        rows = requests_for(args.scenario, args.requests + 1, rng, args.entries)
        for warm in (ping[0], rows[0]):
            client.generic(warm[0], warm[1], data=warm[3] or "", content_type="application/json", **warm[2])
        ping_ms, _q, _s = _measure(client, ping[1:])
        ping_cpu = statistics.median(_measure.cpu)  # type: ignore[attr-defined]
        ms, queries, statuses = _measure(client, rows[1:], args.passes)
        cpu = statistics.median(_measure.cpu)  # type: ignore[attr-defined]
        round_ = (statistics.median(ping_ms), statistics.median(ms), statistics.fmean(queries), ping_cpu, cpu)
        per_round.append(round_)
        print(
            f"round {number + 1}: ping median {round_[0]:.2f} ms, {args.scenario} median {round_[1]:.2f} ms "
            f"(× ping {round_[1] / round_[0]:.2f}), web-process CPU {ping_cpu:.2f} / {cpu:.2f} ms "
            f"(× ping {cpu / ping_cpu:.2f}), queries {min(queries)}–{max(queries)}, statuses {statuses}",
            flush=True,
        )
    ping_med = statistics.median(r[0] for r in per_round)
    scen_med = statistics.median(r[1] for r in per_round)
    ratio = statistics.median(r[1] / r[0] for r in per_round)
    cpu_ratio = statistics.median(r[4] / r[3] for r in per_round)
    ping_cpu_med, cpu_med = statistics.median(r[3] for r in per_round), statistics.median(r[4] for r in per_round)
    print(
        f"{args.scenario}: median of {args.rounds} rounds {scen_med:.2f} ms, ping {ping_med:.2f} ms, "
        f"× ping {ratio:.2f} (median of the rounds' ratios); web-process CPU "
        f"{cpu_med:.2f} ms, ping {ping_cpu_med:.2f} ms, "
        f"× ping {cpu_ratio:.2f}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
