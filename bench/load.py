"""Load benchmark: the production stack on loopback, driven by wrk, eight scenarios in one run.

    .venv/bin/python bench/load.py [--duration 20] [--warmup 3] [--connections 32] [--only NAME ...] [--markdown]
                                   [--instances 1] [--workers 2]

1. Data: the bench database (BENCH_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/quizsite_bench)
   is created if missing, migrated, loaded with the lessons and, if it has no scale learners yet, seeded with
   ``seed_scale --learners 10000 --cards 100`` (1M review cards; bench/databases.py, printing each step).
   Redis: BENCH_REDIS_URL (default db 5), emptied before the run so no learner's due queue is cached at the
   start. ``--cleanup`` drops the database and empties Redis afterwards.
2. Fixtures for this run, made before the server starts: knox tokens for 1,000 random learners (repeat
   fetches) and for 6,000 others (first fetches, each used once), logged-in sessions for 1,000 more,
   fresh study attempts (every choice item is answered exactly once during the run), and the question
   list for offline batches.
3. The stack: gunicorn with 2 workers (as ``make serve``; no access log, CONN_MAX_AGE=60 — see
   bench/README.md), DEBUG off, PostgreSQL, Redis cache. Celery worker and beat are not started:
   none of these requests enqueues work, and on 2 cores they would only take CPU from gunicorn.
   ``--instances N --workers W``: N gunicorns of W workers each behind haproxy (Debian's package) on the
   same port, the web tier scaled out as on several machines sharing PostgreSQL and Redis.
4. Scenarios (``SCENARIOS`` below; each: warm-up, then the measured window; wrk -t1, one thread is
   plenty and leaves the CPU to gunicorn). Six at saturation — 32 connections sending back to back,
   for throughput and its ratio to the bare endpoint: bare GET /api/v1/ping/ (token auth + JSON, the
   ceiling), GET /api/v1/reviews/due/ by the same 1,000 learners again and again (cached) and by
   learners fetching it for the first time (a cache miss each), GET / (dashboard HTML), POST
   /api/v1/items/<id>/answer/ (a fresh item each request), POST /api/v1/reviews/offline/ (20 entries,
   fresh UUIDs). Two with 32 learners who think 0.5–1.5 s between clicks, for latency: the due queue
   (first fetches) and the answer POST.

Prints a table (req/s, p50/p95/p99, errors, throughput ÷ bare) and writes bench/results/load-*.json.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import http.client
import itertools
import json
import os
import random
import shutil
import signal
import statistics
import subprocess
import sys
import threading
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
RESULTS = REPO / "bench" / "results"
WRK_DIR = REPO / "bench" / "wrk"
HOST, PORT = "127.0.0.1", int(os.environ.get("BENCH_PORT", "8765"))
BASE = f"http://{HOST}:{PORT}"

BENCH_ENV = {
    "DJANGO_SETTINGS_MODULE": "quizsite.settings",
    "DATABASE_URL": os.environ.get("BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/quizsite_bench"),
    "REDIS_URL": os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/5"),
    "DEBUG": "false",
    "SECRET_KEY": os.environ.get("BENCH_SECRET_KEY", "bench-only-secret-key-" + "x" * 40),
    "ALLOWED_HOSTS": f"{HOST},localhost",
    "SECURE_SSL_REDIRECT": "false",
    "SESSION_COOKIE_SECURE": "false",
    "CSRF_COOKIE_SECURE": "false",
    "SECURE_HSTS_SECONDS": "0",
    "CONN_MAX_AGE": os.environ.get("BENCH_CONN_MAX_AGE", "60"),
    "LOG_LEVEL": "WARNING",
    "WEB_CONCURRENCY": "2",
}
os.environ.update(BENCH_ENV)
sys.path.insert(0, str(REPO))

from bench import databases  # noqa: E402 (after the path)


@dataclass(frozen=True)
class Scenario:
    """One wrk run. ``data``: the prepared request list it draws from; ``mode``: "random" (any entry,
    repeats allowed) or "sequential" (each entry once, continuing where the last run on that list
    stopped); ``think_ms``: each client waits uniformly this long between its requests (None: closed
    loop at saturation; with think time the client is ``think_client`` — wrk's ``delay()`` miscounts
    latency when the server closes each connection, as gunicorn's sync workers do)."""

    title: str
    data: str
    mode: str = "random"
    think_ms: tuple[int, int] | None = None
    prime: bool = False  # send every entry of ``data`` once before the window (fills the learners' caches)


THINK_MS = (500, 1500)  # a learner reading a card between two clicks, kept short: mean 1 s
SCENARIOS = {
    "bare": Scenario("GET /api/v1/ping/ (bare: token auth + JSON)", "bare"),
    "due": Scenario("GET /api/v1/reviews/due/ (repeat fetches: cached)", "due", prime=True),
    "due_cold": Scenario("GET /api/v1/reviews/due/ (first fetch: cache miss)", "due_cold", "sequential"),
    "dashboard": Scenario("GET / (dashboard HTML, session)", "dashboard"),
    "answer": Scenario("POST /api/v1/items/<id>/answer/ (fresh item)", "answer", "sequential"),
    "offline": Scenario("POST /api/v1/reviews/offline/ (20 reviews)", "offline"),
    "due_cold_think": Scenario(
        "GET /api/v1/reviews/due/ (first fetch, cache miss), think 0.5–1.5 s", "due_cold", "sequential", THINK_MS
    ),
    "answer_think": Scenario(
        "POST /api/v1/items/<id>/answer/ (fresh item), think 0.5–1.5 s", "answer", "sequential", THINK_MS
    ),
}


def lua_string(value: str) -> str:
    return json.dumps(value, ensure_ascii=True)  # a JSON string literal is a valid Lua string literal here


def lua_requests(rows: list[tuple[str, str, dict[str, str], str | None]]) -> str:
    lines = ["return {"]
    for method, path, headers, body in rows:
        header_lua = ", ".join(f"[{lua_string(k)}] = {lua_string(v)}" for k, v in headers.items())
        body_lua = lua_string(body) if body is not None else "nil"
        lines.append(f"  {{{lua_string(method)}, {lua_string(path)}, {{{header_lua}}}, {body_lua}}},")
    lines.append("}")
    return "\n".join(lines) + "\n"


# --- data ------------------------------------------------------------------------------------------


def prepare(answer_items: int, seed: int) -> dict[str, Path | int]:
    """Migrate/seed if needed and write the wrk data files; returns their paths and counts."""
    import django

    django.setup()
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY, get_user_model
    from django.contrib.sessions.backends.db import SessionStore
    from django.core.cache import cache
    from django.core.management import call_command
    from django.db import connection
    from knox.models import get_token_model

    from quizzes.models import Lesson, Question
    from quizzes.practice.presenter import option_handle
    from quizzes.practice.services import attempt_start

    t0 = time.perf_counter()
    call_command("migrate", verbosity=0)  # main() created, migrated and seeded it (bench/databases.py)
    User = get_user_model()
    scale = User.objects.filter(username__startswith="scale-")
    ids = list(scale.order_by("id").values_list("id", flat=True))
    rng = random.Random(seed)
    rng.shuffle(ids)
    # Separate learners per use; the answering learners never fetch the queue, so they may also be cold ones
    # (all 8,000 of them: the first fetches and their think-time run now use more than 6,000 in 23 s).
    token_ids, session_ids, attempt_ids, cold_ids = ids[:1000], ids[1000:2000], ids[2000:], ids[2000:]

    token_model = get_token_model()
    token_model.objects.filter(user__username__startswith="scale-").delete()
    tokens = []
    for user in User.objects.filter(pk__in=token_ids):
        _, token = token_model.objects.create(user=user, expiry=dt.timedelta(days=1))
        tokens.append((user.pk, token))
    token_of = dict(tokens)

    # Cold: learners whose queue nobody fetched yet in this run (the cache is emptied below).
    cold = [
        {"Authorization": f"Token {token_model.objects.create(user=user, expiry=dt.timedelta(days=1))[1]}"}
        for user in User.objects.filter(pk__in=cold_ids)
    ]
    rng.shuffle(cold)

    cookies = []
    for user in User.objects.filter(pk__in=session_ids):
        session = SessionStore()
        session[SESSION_KEY] = str(user.pk)
        session[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
        session[HASH_SESSION_KEY] = user.get_session_auth_hash()
        session.set_expiry(86400)
        session.save()
        cookies.append(session.session_key)

    # Fresh attempts: the answering learners also need tokens (made here, not counted above).
    lesson = Lesson.objects.published().order_by("order", "key").first()
    answer_rows = []
    users = iter(User.objects.filter(pk__in=attempt_ids[:5000]))
    while len(answer_rows) < answer_items:
        user = next(users)
        _, token = token_model.objects.create(user=user, expiry=dt.timedelta(days=1))
        attempt = attempt_start(user=user, lesson=lesson, mode="study")
        for item in attempt.items.select_related("question").order_by("position"):
            if item.question.kind != Question.Kind.CHOICE or not item.option_order:
                continue
            handle = option_handle(item_id=item.pk, option_id=rng.choice(item.option_order))
            body = json.dumps({"option_id": handle, "duration_ms": rng.randint(2000, 30000)})
            headers = {"Authorization": f"Token {token}", "Content-Type": "application/json"}
            answer_rows.append(("POST", f"/api/v1/items/{item.pk}/answer/", headers, body))

    questions = list(Question.objects.published().values_list("pk", "kind", "created_at"))
    newest = max(created for _, _, created in questions)
    reviewed_at = max(dt.datetime.now(dt.UTC) - dt.timedelta(minutes=5), newest + dt.timedelta(seconds=1))
    connection.close()
    cache.clear()  # Redis db of the bench only: no learner's queue is cached when the run starts

    RESULTS.mkdir(parents=True, exist_ok=True)
    files = {
        "bare": RESULTS / "wrk-bare.lua",
        "due": RESULTS / "wrk-due.lua",
        "due_cold": RESULTS / "wrk-due-cold.lua",
        "dashboard": RESULTS / "wrk-dashboard.lua",
        "answer": RESULTS / "wrk-answer.lua",
        "offline": RESULTS / "wrk-offline.lua",
    }
    auth = [{"Authorization": f"Token {token}"} for _, token in tokens]
    rows = {
        "bare": [("GET", "/api/v1/ping/", h, None) for h in auth],
        "due": [("GET", "/api/v1/reviews/due/", h, None) for h in auth],
        "due_cold": [("GET", "/api/v1/reviews/due/", h, None) for h in cold],
        "dashboard": [("GET", "/", {"Cookie": f"sessionid={key}", "Accept-Language": "en"}, None) for key in cookies],
        "answer": answer_rows,
    }
    for name, entries in rows.items():
        files[name].write_text(lua_requests(entries))
    quiz = {Question.Kind.CHOICE, Question.Kind.NUMERIC}
    question_lua = ", ".join(f'{{{pk}, "{"quiz" if kind in quiz else "rated"}"}}' for pk, kind, _ in questions)
    files["offline"].write_text(
        "return {\n  tokens = {"
        + ", ".join(lua_string(t) for t in token_of.values())
        + "},\n  questions = {"
        + question_lua
        + "},\n  reviewed_at = "
        + lua_string(reviewed_at.isoformat().replace("+00:00", "Z"))
        + ",\n}\n"
    )
    print(
        f"prepared in {time.perf_counter() - t0:.1f} s: {len(tokens)} tokens, {len(cold)} cold learners, "
        f"{len(cookies)} sessions, "
        f"{len(answer_rows)} fresh answer items, {len(questions)} questions for offline batches",
        flush=True,
    )
    return {**files, "rows": rows, "answer_items": len(answer_rows), "cold_learners": len(cold)}


# --- server ----------------------------------------------------------------------------------------


def _wait_healthy(base: str, procs: list[subprocess.Popen], what: str) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"{base}/healthz", timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            time.sleep(0.3)
    stop_servers(procs)
    raise SystemExit(f"{what} did not answer {base}/healthz within 30 s")


def _gunicorn(port: int, workers: int) -> subprocess.Popen:
    cmd = [
        sys.executable, "-m", "gunicorn", "quizsite.wsgi:application",
        "--bind", f"{HOST}:{port}", "--workers", str(workers), "--log-level", "warning",
    ]  # fmt: skip
    return subprocess.Popen(cmd, cwd=REPO, env={**os.environ}, start_new_session=True)


HAPROXY_CONFIG = """global
    maxconn 4096
defaults
    mode http
    option http-server-close
    timeout connect 5s
    timeout client 30s
    timeout server 30s
frontend web
    bind {host}:{port}
    default_backend app
backend app
    balance roundrobin
{servers}
"""


def start_servers(instances: int, workers: int) -> list[subprocess.Popen]:
    """One gunicorn on PORT (as ``make serve``), or ``instances`` gunicorns on the next ports behind haproxy on
    PORT (round robin): the web tier scaled out, sharing PostgreSQL and Redis, as on several machines."""
    subprocess.run(
        [sys.executable, "manage.py", "collectstatic", "--noinput", "--verbosity", "0"],
        cwd=REPO, env={**os.environ}, check=True,
    )  # fmt: skip
    if instances == 1:
        procs = [_gunicorn(PORT, workers)]
        _wait_healthy(BASE, procs, "gunicorn")
        return procs
    if shutil.which("haproxy") is None:
        raise SystemExit("--instances > 1 needs haproxy: apt-get install -y haproxy")
    ports = [PORT + 1 + i for i in range(instances)]
    procs = [_gunicorn(port, workers) for port in ports]
    for port in ports:
        _wait_healthy(f"http://{HOST}:{port}", procs, f"gunicorn on {port}")
    servers = "\n".join(f"    server web{i} {HOST}:{port}" for i, port in enumerate(ports))
    config = RESULTS / "haproxy.cfg"
    RESULTS.mkdir(parents=True, exist_ok=True)
    config.write_text(HAPROXY_CONFIG.format(host=HOST, port=PORT, servers=servers))
    procs.append(subprocess.Popen(["haproxy", "-db", "-f", str(config)], start_new_session=True))
    _wait_healthy(BASE, procs, "haproxy")
    return procs


def stop_servers(procs: list[subprocess.Popen]) -> None:
    for proc in procs:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
    for proc in procs:
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)


# --- wrk -------------------------------------------------------------------------------------------


def wrk(script: str, args: list[str], *, seconds: float, connections: int) -> dict:
    cmd = [
        "wrk", "-t1", f"-c{connections}", f"-d{max(1, round(seconds))}s", "--timeout", "10s",
        "-s", str(WRK_DIR / script), BASE, "--", *args,
    ]  # fmt: skip
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    line = next(line for line in out.splitlines() if line.startswith("BENCH_JSON "))
    return json.loads(line.removeprefix("BENCH_JSON "))


def send(request: tuple[str, str, dict[str, str], str | None]) -> int:
    """One request on a fresh connection (as wrk's against sync workers); returns the status."""
    method, path, headers, body = request
    connection = http.client.HTTPConnection(HOST, PORT, timeout=10)
    try:
        connection.request(method, path, body=body, headers=headers)
        response = connection.getresponse()
        response.read()
        return response.status
    finally:
        connection.close()


def prime(requests: list, *, threads: int = 4) -> None:
    with ThreadPoolExecutor(threads) as pool:
        statuses = list(pool.map(send, requests))
    bad = sum(1 for status in statuses if status >= 400)
    print(f"  primed {len(statuses)} learners ({bad} errors)", flush=True)


def think_client(
    requests: list, *, start: int, seconds: float, clients: int, think_ms: tuple[int, int], seed: int
) -> tuple[dict, int]:
    """``clients`` threads, each: think (uniform in ``think_ms``), send the next request, time it.

    Returns (the wrk-shaped summary, requests sent). Latency is send → full response, think excluded.
    """
    cursor = itertools.count(start - 1)
    deadline = time.monotonic() + seconds
    lock = threading.Lock()
    latencies: list[float] = []
    errors = {"connect": 0, "read": 0, "write": 0, "status": 0, "timeout": 0}

    def learner(number: int) -> None:
        rng = random.Random(seed * 1000 + number)
        while True:
            time.sleep(rng.uniform(*think_ms) / 1000)
            if time.monotonic() >= deadline:
                return
            request = requests[next(cursor) % len(requests)]
            t0 = time.perf_counter()
            try:
                status = send(request)
            except TimeoutError:
                status = None
            elapsed = time.perf_counter() - t0
            with lock:
                latencies.append(elapsed)
                if status is None:
                    errors["timeout"] += 1
                elif status >= 400:
                    errors["status"] += 1

    t0 = time.perf_counter()
    workers = [threading.Thread(target=learner, args=(n,)) for n in range(clients)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    duration = time.perf_counter() - t0
    us = sorted(x * 1e6 for x in latencies) or [0.0]
    percentiles = {f"p{q}": us[min(len(us) - 1, int(q / 100 * len(us)))] for q in (50, 95, 99)}
    summary = {
        "requests": len(latencies),
        "duration_us": duration * 1e6,
        "errors": errors,
        "latency_us": {"mean": statistics.fmean(us), **percentiles, "max": us[-1]},
    }
    return summary, next(cursor) - (start - 1)


def run_scenario(scenario: Scenario, files: dict, *, seconds: float, warmup: float, connections: int, cursors: dict):
    """Warm-up, then the measured window; returns the measured window's summary plus req/s and errors."""
    if scenario.prime:
        prime(files["rows"][scenario.data])
    results = []
    for window in (warmup, seconds):
        start = cursors.setdefault(scenario.data, 1)
        if scenario.think_ms:
            result, sent = think_client(
                files["rows"][scenario.data],
                start=start,
                seconds=window,
                clients=connections,
                think_ms=scenario.think_ms,
                seed=start,
            )
            cursors[scenario.data] += sent
            results.append(result)
            continue
        if scenario.data == "offline":
            script, args = "offline.lua", [str(files["offline"]), "20"]
        else:
            script, args = "list.lua", [str(files[scenario.data]), scenario.mode, str(start)]
        result = wrk(script, args, seconds=window, connections=connections)
        if scenario.mode == "sequential":
            cursors[scenario.data] += result["requests"] + connections  # in-flight requests at the end were sent too
        results.append(result)
    measured = results[-1]
    measured["rps"] = measured["requests"] / (measured["duration_us"] / 1e6)
    errors = measured["errors"]
    measured["error_count"] = sum(errors.values())
    measured["error_rate"] = measured["error_count"] / max(1, measured["requests"])
    return measured


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--duration", type=float, default=20.0, help="measured seconds per scenario")
    parser.add_argument("--warmup", type=float, default=3.0, help="warm-up seconds per scenario (not counted)")
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--answer-items", type=int, default=12000, help="fresh attempt items to prepare")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--only", nargs="*", choices=SCENARIOS, help="run only these (bare always runs)")
    parser.add_argument("--markdown", action="store_true", help="print the README table")
    parser.add_argument("--cleanup", action="store_true", help="drop the bench database and empty Redis afterwards")
    parser.add_argument("--instances", type=int, default=1, help="gunicorn instances; > 1: behind haproxy")
    parser.add_argument("--workers", type=int, default=2, help="sync workers per gunicorn instance")
    args = parser.parse_args()
    if shutil.which("wrk") is None:
        raise SystemExit("wrk is not installed: sudo apt-get install -y wrk")
    databases.ensure(BENCH_ENV["DATABASE_URL"], learners=10_000, cards=100)
    try:
        return run(args)
    finally:
        if args.cleanup:
            databases.drop(BENCH_ENV["DATABASE_URL"])
            databases.flush_redis(BENCH_ENV["REDIS_URL"])


def run(args: argparse.Namespace) -> int:
    files = prepare(args.answer_items, args.seed)
    names = [name for name in SCENARIOS if not args.only or name == "bare" or name in args.only]
    servers = start_servers(args.instances, args.workers)
    measured: dict[str, dict] = {}
    cursors: dict[str, int] = {}
    try:
        for name in names:
            print(f"{name}: {args.warmup:g} s warm-up + {args.duration:g} s …", flush=True)
            measured[name] = run_scenario(
                SCENARIOS[name],
                files,
                seconds=args.duration,
                warmup=args.warmup,
                connections=args.connections,
                cursors=cursors,
            )
    finally:
        stop_servers(servers)
    bare = measured["bare"]["rps"]
    for result in measured.values():
        result["ratio_to_bare"] = result["rps"] / bare
    for data, prepared in (("answer", files["answer_items"]), ("due_cold", files["cold_learners"])):
        used = cursors.get(data, 1) - 1
        if used > prepared:
            print(f"WARNING: {used} requests from the {data} list but only {prepared} prepared; "
                  f"the last {used - prepared} repeated earlier ones", flush=True)  # fmt: skip
    stamp = dt.datetime.now(dt.UTC).strftime("%Y%m%dT%H%M%SZ")
    report = {
        "when": stamp,
        "connections": args.connections,
        "instances": args.instances,
        "workers_per_instance": args.workers,
        "duration_s": args.duration,
        "machine": machine(),
        "env": {k: v for k, v in BENCH_ENV.items() if k != "SECRET_KEY"},
        "scenarios": measured,
    }
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / f"load-{stamp}.json").write_text(json.dumps(report, indent=2))
    print(f"web tier: {args.instances} gunicorn instance(s) × {args.workers} sync worker(s)"
          + (" behind haproxy (round robin)" if args.instances > 1 else ""))  # fmt: skip
    print_table(measured, markdown=args.markdown, connections=args.connections)
    return 0


def machine() -> str:
    import platform

    cpu = ""
    with contextlib.suppress(OSError, StopIteration):
        lines = Path("/proc/cpuinfo").read_text().splitlines()
        cpu = next(line.split(":", 1)[1].strip() for line in lines if line.startswith("model name"))
    return f"{os.cpu_count()} cores {platform.machine()} {cpu}; Python {platform.python_version()}"


def print_table(measured: dict[str, dict], *, markdown: bool, connections: int) -> None:
    ms = lambda us: us / 1000  # noqa: E731
    header = ["scenario", "clients", "req/s", "× bare", "p50 ms", "p95 ms", "p99 ms", "errors"]
    rows = []
    for name, r in measured.items():
        lat = r["latency_us"]
        rows.append([
            SCENARIOS[name].title, str(connections), f"{r['rps']:,.0f}", f"{r['ratio_to_bare']:.2f}",
            f"{ms(lat['p50']):.1f}", f"{ms(lat['p95']):.1f}", f"{ms(lat['p99']):.1f}",
            f"{r['error_count']} / {r['requests']:,}",
        ])  # fmt: skip
    if markdown:
        print("| " + " | ".join(header) + " |")
        print("|---|" + "---:|" * (len(header) - 1))
        for row in rows:
            print("| " + " | ".join(row) + " |")
    else:
        widths = [max(len(str(x)) for x in col) for col in zip(header, *rows, strict=True)]
        for row in [header, *rows]:
            print("  ".join(str(x).ljust(w) for x, w in zip(row, widths, strict=True)))


if __name__ == "__main__":
    sys.exit(main())
