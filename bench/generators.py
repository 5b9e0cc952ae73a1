"""Variant generation throughput per template, on one core.

Usage: python bench/generators.py [--seconds 1.0] [--markdown] [--all-versions] [--only NAME ...]

For each template's newest version (and, with --all-versions, every older version that stored
questions may still be pinned to): variants per second (numbers + answer + distractors + worked
solution, i.e. a full ``generators.generate`` call with fresh seeds and default params), and the
cost of one variant as a multiple of one bare ``scaled_dot_product_attention`` call on hand-sized
(4, 4) query/key/value — the ratio is the figure that carries across machines. Target: >= 5,000
variants/s for hand-sized templates (all but the two Monte Carlo ones).
"""

from __future__ import annotations

import os

# One core, one BLAS thread: the target is per core, and threads only add noise at these sizes.
for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(var, "1")
if hasattr(os, "sched_setaffinity"):
    os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})

import argparse  # noqa: E402
import platform  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from attention_engine import generators, scaled_dot_product_attention  # noqa: E402

TARGET_PER_SECOND = 5_000
MONTE_CARLO = {"dot_product_variance", "softmax_sharpness"}  # not hand-sized: thousands of samples per variant


def rate(fn, seconds: float) -> float:
    """Calls per second of fn(i) with a fresh i each call, measured for about ``seconds``."""
    fn(0)  # warm up caches and lazy imports
    n, start = 0, time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        for _ in range(50):
            fn(n)
            n += 1
    return n / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=1.0, help="time per template")
    parser.add_argument("--markdown", action="store_true", help="print a Markdown table for bench/README.md")
    parser.add_argument("--all-versions", action="store_true", help="also measure the older versions")
    parser.add_argument("--only", action="append", metavar="NAME", help="measure only this template (repeatable)")
    args = parser.parse_args()

    q, k, v = np.random.default_rng(0).standard_normal((3, 4, 4))
    sdpa_rate = rate(lambda _: scaled_dot_product_attention(q, k, v), args.seconds)
    rows = []
    for name in args.only or generators.names():
        newest = generators.get(name).version
        for version in generators.versions(name) if args.all_versions else [newest]:
            per_second = rate(
                lambda seed, name=name, version=version: generators.generate(name, seed, version=version), args.seconds
            )
            rows.append((name, version, version == newest, per_second, sdpa_rate / per_second))

    print(f"# numpy {np.__version__}, Python {platform.python_version()}, {platform.machine()}, 1 core")
    print(f"# bare scaled_dot_product_attention (4x4): {sdpa_rate:,.0f} calls/s")
    if args.markdown:
        print("| template | version | variants/s | cost (x one SDPA call) | target met |")
        print("|---|---:|---:|---:|:---:|")
    for name, version, is_newest, per_second, ratio in rows:
        label = f"v{version}" + ("" if is_newest else " (older)")
        if name in MONTE_CARLO:
            ok = "n/a (Monte Carlo)"
        else:
            ok = "yes" if per_second >= TARGET_PER_SECOND else "NO"
        if args.markdown:
            print(f"| {name} | {label} | {per_second:,.0f} | {ratio:.1f} | {ok} |")
        else:
            print(f"{name:28s} {label:12s} {per_second:10,.0f}/s  {ratio:6.1f}x sdpa  {ok}")


if __name__ == "__main__":
    main()
