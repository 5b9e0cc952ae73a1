"""Grading time of code questions (issue 15): parse + K = 5 seeded runs + misconception matching.

Usage: python bench/codecheck.py [--rounds 30] [--markdown]

For each built-in spec, every submission it knows — the reference, each equivalent spelling, each
misconception's buggy code — plus a syntax error and a disallowed construct, graded ``--rounds``
times each, one core (the process pins itself and the worker it starts to one CPU; BLAS threads
= 1). Three figures per spec, median and 95th percentile of single gradings:

- worker: ``Sandbox.grade_code``, the production path (request and answer as JSON through a pipe to
  the pre-started, rlimited worker process);
- in process: ``grade_code``, reference and misconception outputs cached for the seed;
- new seed: in process with a fresh seed every time, so the reference (and, for a wrong
  submission, every misconception) is recomputed: the cost of per-attempt inputs.

Target: median <= 5 ms per submission on one core for hand-sized inputs.

Then the worst cases the limits allow: submissions to stable_softmax that spend a run's whole work
budget on the slowest operations we know (float power, tanh, exp, fancy indexing, np.where,
np.triu, @, einsum's index space), and — since issue 25 — on the interpreter's own steps in list
comprehensions (a long filter, nested loops, a call per element, a tuple per element) and on a value
too big to compare (a list repeating one 65,536-element array a thousand times), graded in the
worker; the slowest is what one hostile submission can cost, and so how many of them the per-request
grading budget (2 s, quizzes.practice.grading_budget) lets through before it refuses the rest.
"""

from __future__ import annotations

import os

for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(var, "1")
if hasattr(os, "sched_setaffinity"):
    os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})

import argparse  # noqa: E402
import platform  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from attention_engine.codecheck import QuestionSpec, Sandbox, grade_code, specs  # noqa: E402

TARGET_MS = 5.0
HEAVY = [
    "b = a ** a",
    "b = np.tanh(a)",
    "b = np.exp(a)",
    "b = a[np.arange(65536) % 7]",
    "b = np.sign(a) @ a",
    "b = np.triu(np.ones((256, 256)))",
    "b = np.where(a > 3, a, -a)",
    "b = a.sum(0) + a",
]
# Whole submissions (issue 25): comprehensions spending the budget on interpreter steps, einsum's loop, a huge value.
HEAVY_PROGRAMS = {
    "a comprehension with a 150-name filter": "c = 1\nb = [0 for i in range(4096) if "
    + " and ".join(["c"] * 150)
    + " and 0]\np = x",
    "nested comprehensions, 10^6 iterations asked": "b = [0 for i in range(1000) for j in range(1000) if 0]\np = x",
    "a call per element, 4,096 elements": "c = 1.0\nb = [np.exp(c) + abs(c) for i in range(4096)]\np = x",
    "a 120-item tuple per element": "c = 1.0\nb = [(" + ", ".join(["x.sum()"] * 120) + ") for i in range(4096)]\np = x",
    "einsum over 200^4 indices": "c = np.ones((200, 200))\nb = np.einsum('ij,jk,kl->il', c, c, c)\np = x",
    "a list repeating a 65,536-element array 1,000 times": "c = np.ones((256, 256))\np = [c] * 1000",
}


def submissions(spec: QuestionSpec) -> list[str]:
    first = spec.required_names[0]
    return [
        spec.reference,
        *spec.equivalents,
        *(m.code for m in spec.misconceptions),
        f"{first} = (",
        f"for i in range(3):\n    {first} = i",
    ]


def timings(fn: Callable[[str, int], object], codes: list[str], rounds: int, fresh_seed: bool) -> list[float]:
    for code in codes:  # warm caches and lazy imports
        fn(code, 0)
    out = []
    seed = 1000
    for _ in range(rounds):
        for code in codes:
            seed += 1
            start = time.perf_counter()
            fn(code, seed if fresh_seed else 0)
            out.append((time.perf_counter() - start) * 1e3)
    return out


def summary(ms: list[float]) -> tuple[float, float]:
    ms = sorted(ms)
    return statistics.median(ms), ms[min(len(ms) - 1, int(0.95 * len(ms)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=30, help="gradings of each submission")
    parser.add_argument("--markdown", action="store_true", help="print a Markdown table for bench/README.md")
    args = parser.parse_args()

    rows = []
    everything: dict[str, list[float]] = {"worker": [], "in process": [], "new seed": []}
    with Sandbox() as box:
        for key, spec in specs.SPECS.items():
            codes = submissions(spec)
            measured = {
                "worker": timings(lambda c, s, spec=spec: box.grade_code(spec, c, seed=s), codes, args.rounds, False),
                "in process": timings(lambda c, s, spec=spec: grade_code(spec, c, seed=s), codes, args.rounds, False),
                "new seed": timings(lambda c, s, spec=spec: grade_code(spec, c, seed=s), codes, args.rounds, True),
            }
            for k, v in measured.items():
                everything[k] += v
            rows.append((key, len(codes), {k: summary(v) for k, v in measured.items()}))
        heavy = []
        softmax = specs.get("stable_softmax")
        for body in HEAVY:
            code = "a = np.arange(65536) * 1.1\n" + (body + "\n") * 20 + "p = x"
            ms = timings(lambda c, s: box.grade_code(softmax, c, seed=s), [code], 5, False)
            heavy.append((max(ms), f"20 x `{body}` on 65,536 elements"))
        for name, code in HEAVY_PROGRAMS.items():
            ms = timings(lambda c, s: box.grade_code(softmax, c, seed=s), [code], 5, False)
            heavy.append((max(ms), name))
        assert box.restarts == 0, "the worker died during the benchmark"
    rows.append(("all specs", sum(r[1] for r in rows), {k: summary(v) for k, v in everything.items()}))

    print(
        f"# numpy {np.__version__}, Python {platform.python_version()}, {platform.machine()}, 1 core, "
        f"{args.rounds} rounds"
    )
    if args.markdown:
        print(
            "| spec | submissions | worker median / p95 (ms) | in process median / p95 | new seed median / p95 "
            "| target met (worker median <= 5 ms) |"
        )
        print("|---|---:|---:|---:|---:|:---:|")
    for key, n, s in rows:
        ok = "yes" if s["worker"][0] <= TARGET_MS else "NO"
        cells = [f"{s[k][0]:.2f} / {s[k][1]:.2f}" for k in ("worker", "in process", "new seed")]
        if args.markdown:
            print(f"| {key} | {n} | " + " | ".join(cells) + f" | {ok} |")
        else:
            print(
                f"{key:18s} n={n:3d}  worker {cells[0]:>13s}  in process {cells[1]:>13s}  "
                f"new seed {cells[2]:>13s}  target {ok}"
            )
    print(f"\nWorst cases within the limits (worker, {len(softmax.cases)} inputs, slowest of 5 gradings):")
    for ms, name in sorted(heavy, reverse=True):
        print(f"  {ms:7.1f} ms  {name}")
    worst, name = max(heavy)
    print(f"Worst: {worst:.1f} ms ({name}): a 2 s request budget grades at least {int(2000 // worst) + 1} of them.")


if __name__ == "__main__":
    main()
