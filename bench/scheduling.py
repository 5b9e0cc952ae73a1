"""Default vs personal FSRS-6 parameters, measured as the srs-benchmark measures (issue 30).

Usage: python bench/scheduling.py [--learners 100] [--reviews 1000] [--markdown]

Two simulated populations of learners, each reviewing its cards on the schedule *our* code gives
(``quizzes.reviews.scheduling``: the two-day first review, one counted rating per study day, FSRS-6 with the
default parameters, which is how a learner is scheduled until a fit is kept):

* **FSRS-6 learners**: their true memory is FSRS-6 with parameters drawn around the defaults (each weight times
  exp(N(0, 0.35)), clipped to the valid ranges) — the optimiser's own model, so it *can* recover the truth;
* **HLR learners**: their true memory is half-life regression (Settles & Meeder 2016), a different model —
  recall = 2^(−Δ/h), h = 2^(θ₀ + θ₁·√successes + θ₂·√failures + card difficulty), θ per learner — so the
  result is not only the optimiser finding its own model again.

Each review is recalled with the true model's probability at that moment (then rated Good mostly, else Hard or
Easy; Again when forgotten). Then, per learner, the benchmark's measure: fsrs-rs's time-series split (6 segments
of the learner's reviews in time order; each fold fits on the reviews before its test segment), log loss and
RMSE(bins) of the default parameters and of the per-fold fits on the same held-out later reviews
(``quizzes.reviews.optimizer``, whose score a test holds to fsrs-rs's ``evaluate_with_time_series_splits``), and
the share of learners whose personal parameters win. The same at shorter histories (the first N reviews)
justifies the fitting threshold. Finally the CPU time of fitting one learner with ``--reviews`` reviews: the
whole keep-or-not decision (5 fold fits + the final fit, ``optimizer.fit``) and the final fit alone.
"""

from __future__ import annotations

import argparse
import datetime as dt
import math
import platform
import random
import statistics
import sys
import time
from dataclasses import dataclass
from importlib.metadata import version
from pathlib import Path

import fsrs

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from quizzes.reviews import optimizer, scheduling

START = dt.datetime(2024, 1, 1, tzinfo=dt.UTC)
CARDS = 120
NEW_PER_DAY = 5
PREFIXES = (200, 400, 1000)


# --- the two kinds of true memory -------------------------------------------------------------------------


class FSRSMemory:
    def __init__(self, rng: random.Random) -> None:
        self.parameters = tuple(
            min(max(w * math.exp(rng.gauss(0, 0.35)), lo), hi)
            for w, lo, hi in zip(
                scheduling.DEFAULT_PARAMETERS, scheduling.LOWER_BOUNDS, scheduling.UPPER_BOUNDS, strict=True
            )
        )
        self.truth = fsrs.Scheduler(
            parameters=self.parameters, learning_steps=(), relearning_steps=(), enable_fuzzing=False
        )
        self.cards: dict[int, fsrs.Card] = {}

    def recall(self, card: int, moment: dt.datetime) -> float:
        memory = self.cards.get(card)
        return 0.0 if memory is None else self.truth.get_card_retrievability(memory, moment)

    def review(self, card: int, rating: int, moment: dt.datetime) -> None:
        memory = self.cards.get(card) or fsrs.Card(card_id=card, due=moment)
        self.cards[card] = self.truth.review_card(memory, fsrs.Rating(rating), moment)[0]


class HLRMemory:
    """Half-life regression: h = 2^(θ·x) days, x = (1, √successes, √failures) plus a per-card difficulty."""

    def __init__(self, rng: random.Random) -> None:
        self.theta = (rng.gauss(2.2, 0.5), rng.gauss(1.3, 0.3), rng.gauss(-0.5, 0.3))
        self.difficulty = [rng.gauss(0, 0.7) for _ in range(CARDS)]
        self.state: dict[int, tuple[int, int, dt.datetime]] = {}

    def recall(self, card: int, moment: dt.datetime) -> float:
        if card not in self.state:
            return 0.0
        right, wrong, last = self.state[card]
        t0, t1, t2 = self.theta
        half_life = 2 ** (t0 + t1 * math.sqrt(right) + t2 * math.sqrt(wrong) - self.difficulty[card])
        return 2 ** (-((moment - last).total_seconds() / 86400) / half_life)

    def review(self, card: int, rating: int, moment: dt.datetime) -> None:
        right, wrong, _last = self.state.get(card, (0, 0, moment))
        self.state[card] = (right + (rating > 1), wrong + (rating == 1), moment)


# --- a learner's history, scheduled by our code -----------------------------------------------------------


History = dict[int, list[tuple[int, dt.datetime]]]


def history(memory: FSRSMemory | HLRMemory, reviews: int, rng: random.Random) -> History:
    """Counted reviews per card until ``reviews`` of them: due dates from our scheduler (defaults)."""
    schedule = scheduling.schedule(time_zone="UTC", rollover_hour=4, desired_retention=0.9)
    pending = [(START + dt.timedelta(days=i // NEW_PER_DAY, hours=8 + rng.random() * 10), i) for i in range(CARDS)]
    states = dict.fromkeys(range(CARDS), scheduling.EMPTY)
    cards: History = {i: [] for i in range(CARDS)}
    for _ in range(reviews):
        pending.sort()
        moment, card = pending.pop(0)
        first = not cards[card]
        p = 0.7 if first else memory.recall(card, moment)  # a first study: answered from the lesson just read
        if rng.random() >= p:
            rating = 1
        else:
            rating = rng.choices([2, 3, 4], weights=[1, 8, 1])[0]
        memory.review(card, rating, moment)
        states[card] = scheduling.resume(
            states[card], [scheduling.LogEntry(rating, moment)], card_id=card, schedule=schedule
        )
        cards[card].append((rating, moment))
        due = states[card].card.due  # type: ignore[union-attr]
        pending.append((due + dt.timedelta(hours=rng.random() * 10), card))
    return cards


def first_reviews(cards: dict[int, list[tuple[int, dt.datetime]]], count: int) -> dict[int, list]:
    """The history cut at its first ``count`` reviews in time order."""
    moments = sorted(moment for reviews in cards.values() for _r, moment in reviews)
    if count >= len(moments):
        return cards
    cut = moments[count - 1]
    return {card: [(r, m) for r, m in reviews if m <= cut] for card, reviews in cards.items()}


# --- the measure ------------------------------------------------------------------------------------------


@dataclass
class Result:
    reviews: int
    default: optimizer.Score
    personal: optimizer.Score
    oracle: optimizer.Score | None


def evaluate(cards: dict[int, list], truth: tuple[float, ...] | None) -> Result | None:
    items = optimizer.items_from_histories(cards)
    try:
        comparison = optimizer.compare(items, scheduling.DEFAULT_PARAMETERS)
    except ValueError:
        return None
    oracle = None
    if truth is not None:
        tested = [item for start, end in optimizer.time_series_splits(len(items)) for item in items[start:end]]
        oracle = optimizer.score(optimizer.predictions(truth, tested), tested)
    reviews = sum(map(len, cards.values()))
    return Result(reviews=reviews, default=comparison.before, personal=comparison.after, oracle=oracle)


def summary(results: list[Result]) -> dict[str, float]:
    weights = [r.default.reviews for r in results]
    total = sum(weights)

    def mean(values: list[float]) -> float:
        return sum(v * w for v, w in zip(values, weights, strict=True)) / total

    row = {
        "learners": len(results),
        "log_loss_default": mean([r.default.log_loss for r in results]),
        "log_loss_personal": mean([r.personal.log_loss for r in results]),
        "rmse_default": mean([r.default.rmse_bins for r in results]),
        "rmse_personal": mean([r.personal.rmse_bins for r in results]),
        "wins_log_loss": sum(r.personal.log_loss < r.default.log_loss for r in results) / len(results),
        "wins_rmse": sum(r.personal.rmse_bins < r.default.rmse_bins for r in results) / len(results),
    }
    if all(r.oracle for r in results):
        row["log_loss_true"] = mean([r.oracle.log_loss for r in results])  # type: ignore[union-attr]
        row["rmse_true"] = mean([r.oracle.rmse_bins for r in results])  # type: ignore[union-attr]
    return row


def fit_cpu(cards: dict[int, list]) -> tuple[float, float, int]:
    """CPU seconds (every thread of the process) of the keep-or-not decision and of the final fit alone."""
    items = optimizer.items_from_histories(cards)
    started = time.process_time()
    optimizer.fit(items, scheduling.DEFAULT_PARAMETERS)
    decision = time.process_time() - started
    started = time.process_time()
    optimizer.compute_parameters(items)
    return decision, time.process_time() - started, sum(map(len, cards.values()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--learners", type=int, default=100, help="per population")
    parser.add_argument("--reviews", type=int, default=1000, help="counted reviews per learner")
    parser.add_argument("--markdown", action="store_true")
    args = parser.parse_args()
    wall = time.perf_counter()
    rows: list[tuple[str, int, dict[str, float]]] = []
    cpu: list[tuple[float, float, int]] = []
    for name, kind in (("FSRS-6 (parameters around the defaults)", FSRSMemory), ("HLR (another model)", HLRMemory)):
        by_prefix: dict[int, list[Result]] = {n: [] for n in PREFIXES if n <= args.reviews}
        for learner in range(args.learners):
            rng = random.Random(f"{kind.__name__}:{learner}")
            memory = kind(rng)
            cards = history(memory, args.reviews, rng)
            truth = memory.parameters if isinstance(memory, FSRSMemory) else None
            for count in by_prefix:
                result = evaluate(first_reviews(cards, count), truth)
                if result is not None:
                    by_prefix[count].append(result)
            if len(cpu) < 20:
                cpu.append(fit_cpu(cards))
        rows += [(name, count, summary(results)) for count, results in by_prefix.items() if results]
    report(rows, cpu, args, time.perf_counter() - wall)


def report(rows: list, cpu: list[tuple[float, float, int]], args: argparse.Namespace, seconds: float) -> None:
    print(
        f"python {platform.python_version()}, fsrs {version('fsrs')}, fsrs-rs-python {version('fsrs-rs-python')}, "
        f"{args.learners} learners per population, {args.reviews} counted reviews each; {seconds:.0f} s wall"
    )
    header = (
        "| population | reviews per learner | learners | log loss: default → personal | (true parameters) "
        "| RMSE(bins): default → personal | (true) | personal wins: log loss | RMSE(bins) |"
    )
    if args.markdown:
        print(header)
        print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name, count, row in rows:
        true_ll = f"{row['log_loss_true']:.4f}" if "log_loss_true" in row else "—"
        true_rmse = f"{row['rmse_true']:.4f}" if "rmse_true" in row else "—"
        cells = [
            name,
            f"≤ {count}",
            str(row["learners"]),
            f"{row['log_loss_default']:.4f} → {row['log_loss_personal']:.4f}",
            true_ll,
            f"{row['rmse_default']:.4f} → {row['rmse_personal']:.4f}",
            true_rmse,
            f"{row['wins_log_loss']:.0%}",
            f"{row['wins_rmse']:.0%}",
        ]
        print("| " + " | ".join(cells) + " |" if args.markdown else "  ".join(cells))
    decisions = [d for d, _f, _n in cpu]
    finals = [f for _d, f, _n in cpu]
    reviews = statistics.median(n for _d, _f, n in cpu)
    print(
        f"\nCPU of fitting one learner ({reviews:.0f} reviews, {len(cpu)} learners, every thread counted): "
        f"keep-or-not decision (5 fold fits + the final fit) median {statistics.median(decisions):.3f} s, "
        f"max {max(decisions):.3f} s; the final fit alone median {statistics.median(finals):.3f} s, "
        f"max {max(finals):.3f} s (target ≤ 2 s)"
    )


if __name__ == "__main__":
    main()
