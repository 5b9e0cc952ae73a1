"""An offline upload of 30 heavy code entries (issue 25) through the whole API, with the real sandbox worker.

Usage: python bench/grading_budget.py [--runs 5] [--entries 30] [--markdown]

The issue's measurement: one 5.6 kB upload of 30 code entries held a gunicorn worker for 55 s (and a value
repeating one 256 x 256 array a thousand times ended in a worker timeout or internal_error). Each run here
makes a learner with ``--entries`` due code cards (lesson 1's three lines, studied a week ago), issues them a
pack, and uploads one heavy submission per pack item in one ``POST /api/v1/reviews/offline/`` (Django's test
client: the whole middleware + DRF stack, without gunicorn and the network). The heavy submissions are the
ones tests/quizzes/packs/test_grading_budget.py uses: the issue's list of arrays, numpy work up to a run's
budget, comprehensions heavy per iteration, long or nested, einsum's index space.

Per run: the request's wall time, the sandbox worker's CPU time during it (``/proc/<pid>/stat``: the grader
CPU the per-request budget bounds), the web process's own CPU, and how many entries were graded or refused
``grading_budget_exceeded``. Target: the request answers within the budget (2 s of grading, the Procfile's
gunicorn ``--timeout 30`` far away), every entry with a reason, none ``internal_error``/``timeout``.

Database: BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/h3; it must exist, it is migrated on
start), Redis BENCH_REDIS_URL (default db 3). The script runs unchanged over an export of older code (it
uses only the API, the factories and the sandbox), which is how bench/README.md compares before and after.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import statistics
import sys
import time
import uuid
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
os.environ.update(
    {
        "DJANGO_SETTINGS_MODULE": "quizsite.settings",
        "DATABASE_URL": os.environ.get("BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/h3"),
        "REDIS_URL": os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/3"),
        "DEBUG": "false",
        "SECRET_KEY": "bench-only-secret-key-" + "x" * 40,
        "ALLOWED_HOSTS": "testserver,127.0.0.1",
        "SECURE_SSL_REDIRECT": "false",
        "LOG_LEVEL": "WARNING",
        "OPENBLAS_NUM_THREADS": "1",
    }
)
sys.path.insert(0, str(REPO))

SCORES = "scores = Q @ K.swapaxes(-2, -1) / np.sqrt(d_k)\n"
MASK = "mask = np.triu(np.ones((T, T), dtype=bool), k=1)\n"
HEAVY = [
    "a = np.ones((256, 256))\n" + SCORES + MASK + "weights = [a] * 1000",
    "a = np.arange(65536) * 1.1\n" + "b = np.exp(a)\n" * 16 + SCORES + MASK + "weights = softmax(scores)",
    "a = np.ones(60000)\nx = [np.tanh(a) for i in range(100)]\n" + SCORES + MASK + "weights = softmax(scores)",
    "a = 1\nx = [0 for i in range(4096) if " + " and ".join(["a"] * 100) + " and 0]\n" + SCORES + MASK + "weights = x",
    "x = [0 for i in range(1000) for j in range(1000) if 0]\n" + SCORES + MASK + "weights = softmax(scores)",
    "a = np.ones((200, 200))\nb = np.einsum('ij,jk,kl->il', a, a, a)\n" + SCORES + MASK + "weights = softmax(scores)",
]


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime


def _learner_with_due_code_cards(n: int):
    import time_machine
    from django.utils import timezone

    from quizzes.content.code import spec_from_field
    from quizzes.practice.services import attempt_start, item_answer
    from tests import factories

    with time_machine.travel(timezone.now() - dt.timedelta(days=7), tick=False):
        user = factories.UserFactory(username=f"bench-budget-{uuid.uuid4().hex[:12]}")
        lesson = factories.LessonFactory(key=f"bench-budget-{uuid.uuid4().hex[:12]}")
        for i in range(n):
            factories.CodeQuestionFactory(lesson=lesson, order=i, key=f"bench-budget-{uuid.uuid4().hex[:12]}")
        attempt = attempt_start(user=user, lesson=lesson)
        for item in attempt.items.select_related("question"):
            item_answer(user=user, item=item, code=spec_from_field(item.question.code_spec).misconceptions[0].code)
    return user


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--entries", type=int, default=30)
    parser.add_argument("--markdown", action="store_true")
    parser.add_argument(
        "--value-only", action="store_true", help="every entry the issue's list of arrays (its 55 s upload)"
    )
    args = parser.parse_args()

    import django

    django.setup()
    from django.conf import settings
    from django.core.management import call_command
    from django.utils import timezone
    from knox.models import get_token_model
    from rest_framework.test import APIClient

    from attention_engine.codecheck import sandbox, specs

    call_command("migrate", verbosity=0)
    box = sandbox()
    box.grade_code(specs.get("sdpa_three_lines"), "x = 1")  # started and warm before the first run
    restarts = box.restarts
    rows = []
    heavy = HEAVY[:1] if args.value_only else HEAVY
    for run in range(args.runs):
        user = _learner_with_due_code_cards(args.entries)
        client = APIClient()
        token = get_token_model().objects.create(user=user, expiry=dt.timedelta(hours=1))[1]
        client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
        pack = client.post("/api/v1/packs/", {}, format="json").json()
        items = [i for i in pack["items"] if i["question"]["kind"] == "code"]
        at = timezone.now().isoformat()
        entries = [
            {
                "client_uuid": str(uuid.uuid4()),
                "pack_item_id": it["id"],
                "reviewed_at": at,
                "code": heavy[k % len(heavy)],
            }
            for k, it in enumerate(items)
        ]
        body_bytes = len(str(entries).encode())
        pid = box.pid
        worker_before, web_before = _cpu_seconds(pid), time.process_time()
        start = time.perf_counter()
        response = client.post("/api/v1/reviews/offline/", {"entries": entries}, format="json")
        wall = time.perf_counter() - start
        web_cpu = time.process_time() - web_before
        worker_cpu = _cpu_seconds(pid) - worker_before if box.pid == pid else float("nan")  # nan: it was replaced
        assert response.status_code == 200, response.content[:300]
        outcomes = response.json()["entries"]
        graded = [o for o in outcomes if o["status"] == "applied"]
        refused = [o for o in outcomes if o["reason"] == "grading_budget_exceeded"]
        kinds = Counter(o["graded"]["check"]["code"] if o["graded"] else o["reason"] for o in outcomes)
        broken = sum(n for kind, n in kinds.items() if kind in ("internal_error", "timeout", "worker_crashed"))
        unexplained = len(outcomes) - len(graded) - len(refused)
        rows.append((wall, worker_cpu, web_cpu, len(graded), len(refused), broken, unexplained))
        print(
            f"run {run + 1}: {len(outcomes)} entries ({body_bytes / 1024:.1f} kB): {wall * 1e3:.0f} ms wall, "
            f"worker CPU {worker_cpu * 1e3:.0f} ms, web CPU {web_cpu * 1e3:.0f} ms; graded {len(graded)}, "
            f"refused grading_budget_exceeded {len(refused)}; outcomes {dict(kinds)}",
            flush=True,
        )
    met = all(r[5] == 0 and r[6] == 0 for r in rows) and box.restarts == restarts
    budget = getattr(settings, "CODECHECK_REQUEST_GRADING_SECONDS", float("inf"))
    med = [statistics.median(r[i] for r in rows) for i in range(5)]
    print(
        f"\nmedian of {args.runs}: {med[0] * 1e3:.0f} ms wall, worker CPU {med[1] * 1e3:.0f} ms (budget "
        f"{budget * 1e3:.0f} ms of grading per request), web CPU {med[2] * 1e3:.0f} ms, graded {med[3]:.0f} / "
        f"refused {med[4]:.0f}; worst wall {max(r[0] for r in rows) * 1e3:.0f} ms; worker restarts "
        f"{box.restarts - restarts}; every entry graded or refused for the budget, none internal_error/timeout/"
        f"crashed: {'yes' if met else 'NO'}"
    )
    if args.markdown:
        print("| run | wall (ms) | worker CPU (ms) | web CPU (ms) | graded | refused (budget) |")
        print("|---:|---:|---:|---:|---:|---:|")
        for i, r in enumerate(rows, 1):
            print(f"| {i} | {r[0] * 1e3:.0f} | {r[1] * 1e3:.0f} | {r[2] * 1e3:.0f} | {r[3]} | {r[4]} |")
    return 0 if met else 1


if __name__ == "__main__":
    raise SystemExit(main())
