"""What a desired retention costs a learner: reviews a day over the next 30 days and what they would remember,
simulated from their own cards and parameters; and the retention fsrs-rs suggests (issue 30).

**The simulator** is fsrs-rs's (``fsrs::simulate``), restated over numpy for what its Python binding cannot
take: the learner's *existing* cards (the binding's ``simulate`` starts every card new). The same loop: each study
day, the cards due are reviewed most-overdue first up to the daily review limit (the rest wait a day), new cards
are introduced up to the daily new limit, a review is recalled with the card's retrievability and then rated
with fsrs-rs's default rating shares (``SimulatorConfig.first_rating_prob`` / ``review_rating_prob``), and the
next interval is FSRS-6's for the desired retention. Ours on top: a first study's review is two days later (the
seed's rule), intervals are whole days ≥ 1, elapsed time counts study days. The memory model is py-fsrs's
formulas, vectorised (a test holds each step to py-fsrs's Scheduler, and the loop to fsrs-rs's simulate).
Runs are seeded: the same cards and settings give the same figures.

**The suggestion** is fsrs-rs's ``optimal_retention``: the retention that minimises study time per card
remembered over a year of this deck (its size, the learner's daily limits, fsrs-rs's default review costs).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import fsrs_rs_python as rs
import numpy as np

from quizzes.reviews.scheduling import FIRST_REVIEW_DELAY

DAYS = 30
RUNS = 16
MAX_INTERVAL = 36500
_CONFIG = rs.default_simulator_config()
FIRST_RATING_SHARES = np.array(_CONFIG.first_rating_prob, dtype=np.float64) / sum(_CONFIG.first_rating_prob)
REVIEW_RATING_SHARES = np.array(_CONFIG.review_rating_prob, dtype=np.float64) / sum(_CONFIG.review_rating_prob)


@dataclass(frozen=True)
class CardState:
    """A studied card on day 0 (today): its memory, days since its last counted review, days until it is due."""

    stability: float
    difficulty: float
    elapsed: int
    due_in: int


@dataclass(frozen=True)
class Workload:
    desired_retention: float
    reviews: list[float]  # reviews per study day, day 0 = today (mean over runs)
    new: list[float]  # first studies per day
    expected_recall: float  # the share of studied cards recalled on an average day of the period
    days: int

    @property
    def reviews_per_day(self) -> float:
        return sum(self.reviews) / self.days

    @property
    def peak(self) -> float:
        return max(self.reviews, default=0.0)


# --- FSRS-6, vectorised (py-fsrs's Scheduler, formula by formula) ---------------------------------------------


def _curve(w: np.ndarray) -> tuple[float, float]:
    decay = -float(w[20])
    return decay, 0.9 ** (1 / decay) - 1


def retrievability(w: np.ndarray, elapsed: np.ndarray, stability: np.ndarray) -> np.ndarray:
    decay, factor = _curve(w)
    return np.power(1 + factor * elapsed / stability, decay)


def initial_difficulty(w: np.ndarray, rating: np.ndarray) -> np.ndarray:
    return w[4] - np.exp(w[5] * (rating - 1)) + 1


def next_difficulty(w: np.ndarray, difficulty: np.ndarray, rating: np.ndarray) -> np.ndarray:
    delta = -(w[6] * (rating - 3))
    damped = difficulty + (10.0 - difficulty) * delta / 9.0
    easy = w[4] - math.exp(w[5] * 3) + 1
    return np.clip(w[7] * easy + (1 - w[7]) * damped, 1.0, 10.0)


def next_stability(
    w: np.ndarray, difficulty: np.ndarray, stability: np.ndarray, recall: np.ndarray, rating: np.ndarray
) -> np.ndarray:
    """After a review a day or more since the last (the only kind the simulator makes)."""
    hard = np.where(rating == 2, w[15], 1.0)
    easy = np.where(rating == 4, w[16], 1.0)
    success = stability * (
        1 + math.exp(w[8]) * (11 - difficulty) * stability ** -w[9] * (np.exp((1 - recall) * w[10]) - 1) * hard * easy
    )
    long_term = w[11] * difficulty ** -w[12] * ((stability + 1) ** w[13] - 1) * np.exp((1 - recall) * w[14])
    failure = np.minimum(long_term, stability / math.exp(w[17] * w[18]))
    return np.maximum(np.where(rating == 1, failure, success), 0.001)


def next_interval(w: np.ndarray, stability: np.ndarray, desired_retention: float) -> np.ndarray:
    decay, factor = _curve(w)
    days = np.rint(stability / factor * (desired_retention ** (1 / decay) - 1))
    return np.clip(days, 1, MAX_INTERVAL)


# --- the simulation ----------------------------------------------------------------------------------------


def simulate(
    *,
    parameters: Sequence[float],
    desired_retention: float,
    cards: Sequence[CardState],
    unseen: int,
    new_per_day: int,
    reviews_per_day: int,
    days: int = DAYS,
    runs: int = RUNS,
    seed: int = 0,
    first_delay: int | None = FIRST_REVIEW_DELAY.days,
) -> Workload:
    """``runs`` seeded simulations of the next ``days`` study days (see the module docstring). ``first_delay``:
    days from a first study to its review (None: FSRS's interval, as fsrs-rs simulates)."""
    w = np.array(parameters, dtype=np.float64)  # (21,)
    rng = np.random.default_rng(seed)
    new_count = min(unseen, new_per_day * days) if new_per_day > 0 else 0
    n = len(cards) + new_count
    shape = (runs, n)
    if n == 0:
        return Workload(desired_retention, [0.0] * days, [0.0] * days, 1.0, days)
    stability = np.full(shape, np.nan)
    difficulty = np.full(shape, np.nan)
    last = np.zeros(shape)
    due = np.full(shape, np.iinfo(np.int64).max, dtype=np.int64)
    if cards:
        stability[:, : len(cards)] = [c.stability for c in cards]
        difficulty[:, : len(cards)] = [c.difficulty for c in cards]
        last[:, : len(cards)] = [-c.elapsed for c in cards]
        due[:, : len(cards)] = [max(0, c.due_in) for c in cards]
    introduce = np.full(n, -1, dtype=np.int64)  # the day each new card is first studied
    introduce[len(cards) :] = np.arange(new_count) // max(1, new_per_day)
    first_rating = rng.choice(4, size=shape, p=FIRST_RATING_SHARES) + 1
    order = np.arange(n)
    reviews = np.zeros((runs, days))
    recall_sum = np.zeros(runs)
    recall_days = np.zeros(runs)
    for day in range(days):
        studied = ~np.isnan(stability)
        if studied.any():
            now = np.where(studied, retrievability(w, day - last, np.where(studied, stability, 1.0)), 0.0)
            counts = studied.sum(axis=1)
            has = counts > 0
            recall_sum[has] += now.sum(axis=1)[has] / counts[has]
            recall_days[has] += 1
        waiting = studied & (due <= day)
        for run in np.flatnonzero(waiting.sum(axis=1) > reviews_per_day):  # over the limit: most overdue first
            queue = order[waiting[run]][np.argsort(due[run, waiting[run]], kind="stable")]
            later = queue[reviews_per_day:]
            due[run, later] = day + 1
            waiting[run, later] = False
        if waiting.any():
            s, d = stability[waiting], difficulty[waiting]
            r = retrievability(w, day - last[waiting], s)
            recalled = rng.random(r.shape) < r
            rating = np.where(recalled, rng.choice(3, size=r.shape, p=REVIEW_RATING_SHARES) + 2, 1)
            new_s = next_stability(w, d, s, r, rating)
            stability[waiting] = new_s
            difficulty[waiting] = next_difficulty(w, d, rating)
            last[waiting] = day
            due[waiting] = day + next_interval(w, new_s, desired_retention).astype(np.int64)
            reviews[:, day] = waiting.sum(axis=1)
        fresh = np.broadcast_to(introduce == day, shape)
        if fresh.any():
            g = first_rating[fresh]
            s0 = np.maximum(w[g - 1], 0.001)
            stability[fresh] = s0
            difficulty[fresh] = np.clip(initial_difficulty(w, g), 1.0, 10.0)
            last[fresh] = day
            if first_delay is None:
                due[fresh] = day + next_interval(w, s0, desired_retention).astype(np.int64)
            else:
                due[fresh] = day + first_delay
    new_daily = np.bincount(introduce[introduce >= 0], minlength=days)[:days].astype(np.float64)
    recall = float(np.mean(np.where(recall_days > 0, recall_sum / np.maximum(recall_days, 1), 1.0)))
    return Workload(
        desired_retention=desired_retention,
        reviews=[float(x) for x in reviews.mean(axis=0)],
        new=[float(x) for x in new_daily],
        expected_recall=recall,
        days=days,
    )


@functools.lru_cache(maxsize=256)
def suggested_retention(
    *, parameters: tuple[float, ...], deck_size: int, new_per_day: int, reviews_per_day: int
) -> float:
    """fsrs-rs's optimal_retention for a year of a deck this size under these daily limits (cached per process:
    0.1–0.8 s of CPU; the deck size comes rounded up to 50)."""
    config = rs.SimulatorConfig(
        deck_size=max(1, deck_size),
        learn_span=365,
        max_cost_perday=math.inf,
        max_ivl=MAX_INTERVAL,
        first_rating_prob=_CONFIG.first_rating_prob,
        review_rating_prob=_CONFIG.review_rating_prob,
        learn_limit=max(1, new_per_day),
        review_limit=max(1, reviews_per_day),
        new_cards_ignore_review_limit=True,
        learning_step_transitions=_CONFIG.learning_step_transitions,
        relearning_step_transitions=_CONFIG.relearning_step_transitions,
        state_rating_costs=_CONFIG.state_rating_costs,
        learning_step_count=0,
        relearning_step_count=0,
    )
    return round(float(rs.optimal_retention(config, list(parameters))), 2)


def deck_bucket(size: int) -> int:
    return max(50, -(-size // 50) * 50)
