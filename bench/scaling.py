"""Scaling: the due-queue query at 10k cards vs 1M cards, same learners, with its EXPLAIN plan.

    .venv/bin/python bench/scaling.py [--repeat 20] [--markdown]

Two PostgreSQL databases seeded by ``seed_scale`` with the same seed: SMALL (100 learners × 100
cards = 10k cards; BENCH_SMALL_DATABASE_URL, default …/quizsite_bench_small) and LARGE (10,000 × 100
= 1M cards; BENCH_DATABASE_URL, default …/quizsite_bench, the load benchmark's database). Learner k
is the same person in both (same profile, same 100 cards, same logs), so only the table size
differs. Each database is created, migrated and seeded on first use (bench/databases.py, printing each
step); one whose scale learners don't match is re-seeded (``--wipe``); the large one takes about two
minutes. ``--cleanup`` drops both afterwards.

For learners scale-000001 … scale-000100 in each database, the SQL that ``quizzes.reviews.selectors.due.due_cards``
sends for the queue (captured from the real selector, not re-typed here) is executed ``--repeat``
times after a warm-up; reported: median and p95 of the query's wall time on the client, the whole
``due_cards()`` call (Python + its 3 queries), and ``EXPLAIN (ANALYZE, BUFFERS)`` of the queue query
for learner 1. The ratio LARGE ÷ SMALL is the figure to compare with the target (≤ 1.5).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench import databases, tables  # noqa: E402 (after the path)

SMALL = os.environ.get("BENCH_SMALL_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/quizsite_bench_small")
LARGE = os.environ.get("BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/quizsite_bench")
SIZES = {"small": (SMALL, 100, 100), "large": (LARGE, 10000, 100)}
LEARNERS = 100


def django_env(url: str) -> dict[str, str]:
    return databases.django_env(url)


def ensure_seeded(url: str, learners: int, cards: int) -> None:
    databases.ensure(url, learners=learners, cards=cards)


def measure(repeat: int) -> dict:
    """Runs inside a process whose DATABASE_URL is the database to measure."""
    sys.path.insert(0, str(REPO))
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.db import connection
    from django.test.utils import CaptureQueriesContext
    from django.utils import timezone

    from quizzes.reviews.selectors.due import due_cards

    now = timezone.now()
    users = list(get_user_model().objects.filter(username__startswith="scale-").order_by("username")[:LEARNERS])
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM quizzes_reviewcard")
        total_cards = cursor.fetchone()[0]
    queue_sql = {}
    for user in users:
        with CaptureQueriesContext(connection) as ctx:
            due_cards(user=user, now=now)
        queue_sql[user.pk] = next(q["sql"] for q in ctx.captured_queries if "ORDER BY" in q["sql"]
                                  and '"quizzes_reviewcard"."due" <' in q["sql"])  # fmt: skip
    query_ms, call_ms, rows = [], [], []
    with connection.cursor() as cursor:
        for _ in range(2):  # warm-up: the same pages as the timed runs
            for sql in queue_sql.values():
                cursor.execute(sql)
                cursor.fetchall()
        for _ in range(repeat):
            for sql in queue_sql.values():
                t = time.perf_counter()
                cursor.execute(sql)
                rows.append(len(cursor.fetchall()))
                query_ms.append((time.perf_counter() - t) * 1000)
        for _ in range(max(1, repeat // 4)):
            for user in users:
                t = time.perf_counter()
                due_cards(user=user, now=now)
                call_ms.append((time.perf_counter() - t) * 1000)
        cursor.execute("EXPLAIN (ANALYZE, BUFFERS) " + queue_sql[users[0].pk])
        plan = "\n".join(row[0] for row in cursor.fetchall())

    def pct(values: list[float], p: float) -> float:
        values = sorted(values)
        return values[min(len(values) - 1, round(p / 100 * (len(values) - 1)))]

    return {
        "total_cards": total_cards,
        "learners": len(users),
        "rows_per_query_mean": statistics.fmean(rows),
        "query_ms": {"median": statistics.median(query_ms), "p95": pct(query_ms, 95), "n": len(query_ms)},
        "due_cards_call_ms": {"median": statistics.median(call_ms), "p95": pct(call_ms, 95), "n": len(call_ms)},
        "plan": plan,
        "sql": queue_sql[users[0].pk],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--markdown", action="store_true")
    parser.add_argument("--cleanup", action="store_true", help="drop both bench databases afterwards")
    parser.add_argument("--measure", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:
        print("BENCH_JSON " + json.dumps(measure(args.repeat)))
        return 0
    results = {}
    try:
        for label, (url, learners, cards) in SIZES.items():
            ensure_seeded(url, learners, cards)
            out = subprocess.run(
                [sys.executable, __file__, "--measure", "--repeat", str(args.repeat)],
                cwd=REPO, env=django_env(url), capture_output=True, text=True, check=True,
            ).stdout  # fmt: skip
            results[label] = json.loads(next(x for x in out.splitlines() if x.startswith("BENCH_JSON "))[11:])
    finally:
        if args.cleanup:
            for url, _learners, _cards in SIZES.values():
                databases.drop(url)
    small, large = results["small"], results["large"]
    ratio = large["query_ms"]["median"] / small["query_ms"]["median"]
    call_ratio = large["due_cards_call_ms"]["median"] / small["due_cards_call_ms"]["median"]
    index_scan = all("review_card_user_due" in r["plan"] and "Index Scan" in r["plan"] for r in results.values())
    out_dir = REPO / "bench" / "results"
    out_dir.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    (out_dir / f"scaling-{stamp}.json").write_text(json.dumps(
        {**results, "ratio_query_median": ratio, "ratio_call_median": call_ratio, "index_scan": index_scan}, indent=2
    ))  # fmt: skip
    for label, r in results.items():
        print(f"\n--- {label}: {r['total_cards']:,} cards — EXPLAIN (ANALYZE, BUFFERS), learner scale-000001 ---")
        print(r["plan"])
    print()
    rows = [
        (f"{r['total_cards']:,}", f"{r['query_ms']['median']:.3f}", f"{r['query_ms']['p95']:.3f}",
         f"{r['due_cards_call_ms']['median']:.2f}", f"{r['rows_per_query_mean']:.0f}")
        for r in results.values()
    ]  # fmt: skip
    header = ("cards in table", "queue query median ms", "p95 ms", "due_cards() median ms", "rows")
    tables.print_table(header, rows, markdown=args.markdown, width=22)
    print(f"\nratio 1M ÷ 10k: query {ratio:.2f}, due_cards() {call_ratio:.2f}; index scan on review_card_user_due: "
          f"{'yes' if index_scan else 'NO'} (target: ≤ 1.5 with an index scan)")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
