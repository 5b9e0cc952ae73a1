"""Fitting FSRS-6 to one learner's reviews, and scoring parameters as the srs-benchmark scores them (issue 30).

Pure functions over plain data (no Django): ``quizzes.reviews.fitting`` feeds them a learner's logs, and
``bench/scheduling.py`` simulated learners. fsrs-rs (``fsrs_rs_python``, the optimiser Anki ships) does the
fitting; py-fsrs schedules with the result. Both use FSRS-6's 21 weights in the same order, and the same
elapsed time: py-fsrs counts whole days between two counted reviews (``(t - last_review).days``), so that is
the ``delta_t`` every item here carries (0: the first study, or a counted review less than a day after the
previous one, which both libraries treat as short-term).

**Items.** A card with counted reviews r1 … rn gives n - 1 items: the reviews up to rk, predicting rk (k ≥ 2),
kept only where rk is a day or more after r(k-1) (fsrs-rs trains and scores only those). Items are in the order
of their predicted review's time.

**Scoring (the benchmark's).** fsrs-rs's time-series split (``evaluate_with_time_series_splits``): the items cut
into 6 equal segments; fold i trains on segments 0…i and predicts segment i + 1. The predictions of all folds
are scored together: log loss (binary cross-entropy of recall = rating > Again) and RMSE(bins), the srs-benchmark's
calibration error: reviews grouped by elapsed days, review count and lapses (each on a log scale), the squared
gap between mean predicted and mean actual recall per group, weighted by the group's size. ``score`` is fsrs-rs's
own arithmetic (a test holds ours to ``evaluate_with_time_series_splits``), so parameters that are *not* refitted
per fold — the ones in use — are scored on exactly the same predicted reviews.
"""

from __future__ import annotations

import datetime as dt
import math
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import fsrs_rs_python as rs
import numpy as np

from quizzes.reviews.scheduling import Parameters, valid_parameters

N_SPLITS = 5  # fsrs-rs's evaluate_with_time_series_splits
DECIMALS = 6  # fsrs-rs computes in f32: 0.8 comes back as 0.800000011920929, past py-fsrs's bound


@dataclass(frozen=True)
class Item:
    """One predicted review: ``reviews`` are (rating, delta_t) up to and including it."""

    at: dt.datetime  # when the predicted review happened
    card: int
    reviews: tuple[tuple[int, int], ...]

    @property
    def fsrs_item(self) -> rs.FSRSItem:
        return rs.FSRSItem([rs.FSRSReview(rating, delta) for rating, delta in self.reviews])

    @property
    def history(self) -> rs.FSRSItem:
        return rs.FSRSItem([rs.FSRSReview(rating, delta) for rating, delta in self.reviews[:-1]])


def items_from_histories(histories: Mapping[int, Sequence[tuple[int, dt.datetime]]]) -> list[Item]:
    """Every card's counted reviews, (rating, moment) oldest first → the items, in time order."""
    items = []
    for card, reviews in histories.items():
        steps: list[tuple[int, int]] = []
        previous: dt.datetime | None = None
        for rating, moment in reviews:
            delta = 0 if previous is None else max(0, (moment - previous).days)
            steps.append((rating, delta))
            previous = moment
            if len(steps) > 1 and delta > 0:
                items.append(Item(at=moment, card=card, reviews=tuple(steps)))
    items.sort(key=lambda item: (item.at, item.card, len(item.reviews)))
    return items


def time_series_splits(count: int, n_splits: int = N_SPLITS) -> list[tuple[int, int]]:
    """fsrs-rs's TimeSeriesSplit over ``count`` items in time order: each fold's (test start, test end); it trains
    on the items before its test start. Empty when there are fewer than n_splits + 1 items."""
    segment = count // (n_splits + 1)
    if segment == 0:
        return []
    return [((i + 1) * segment, count if i == n_splits - 1 else (i + 2) * segment) for i in range(n_splits)]


def rounded(parameters: Sequence[float]) -> Parameters:
    return tuple(round(float(w), DECIMALS) for w in parameters)


def compute_parameters(items: Sequence[Item]) -> Parameters:
    """fsrs-rs's optimiser on these items (FSRS-6, short-term reviews on), rounded; raises ValueError when it fails."""
    fitted = rs.FSRS(rs.DEFAULT_PARAMETERS).compute_parameters([item.fsrs_item for item in items])
    return rounded(fitted)


def predictions(parameters: Sequence[float], items: Sequence[Item]) -> np.ndarray:
    """Each item's predicted recall (FSRS-6's forgetting curve at the item's delta_t, from the memory state its
    history leaves), computed by fsrs-rs with these parameters."""
    if not items:
        return np.zeros(0)
    states = rs.FSRS(list(parameters)).memory_state_batch([item.history for item in items])
    stability = np.array([state.stability for state in states], dtype=np.float64)  # (n,)
    elapsed = np.array([item.reviews[-1][1] for item in items], dtype=np.float64)  # (n,)
    decay = -float(parameters[20])
    factor = 0.9 ** (1 / decay) - 1
    return np.power(1 + factor * elapsed / stability, decay)


def _bin(value: float, scale: float, base: float) -> float:
    return round(scale * base ** math.floor(math.log(value) / math.log(base)), 2)


def rmse_bin(item: Item) -> tuple[float, float, float]:
    """The srs-benchmark's RMSE(bins) group of a review (fsrs-rs: ``FSRSItem::r_matrix_index``)."""
    delta = item.reviews[-1][1]
    length = sum(1 for _r, d in item.reviews if d > 0) + 1
    lapses = sum(1 for r, d in item.reviews[:-1] if r == 1 and d > 0)
    return (
        _bin(delta, 2.48, 3.62),
        round(_bin(length, 1.99, 1.89)),
        round(_bin(lapses, 1.65, 1.73)) if lapses else 0,
    )


@dataclass(frozen=True)
class Score:
    log_loss: float
    rmse_bins: float
    reviews: int  # how many predicted reviews


def score(predicted: np.ndarray, items: Sequence[Item]) -> Score:
    """Log loss and RMSE(bins) of predicted recall against what happened (recall = any rating but Again)."""
    recalled = np.array([item.reviews[-1][0] > 1 for item in items], dtype=np.float64)  # (n,)
    p = np.clip(predicted, 1e-7, 1 - 1e-7)
    log_loss = float(-np.mean(recalled * np.log(p) + (1 - recalled) * np.log(1 - p)))
    groups: dict[tuple[float, float, float], list[int]] = defaultdict(list)
    for index, item in enumerate(items):
        groups[rmse_bin(item)].append(index)
    squared = sum(len(ix) * (predicted[ix].mean() - recalled[ix].mean()) ** 2 for ix in groups.values())
    return Score(log_loss=log_loss, rmse_bins=float(math.sqrt(squared / len(items))), reviews=len(items))


@dataclass(frozen=True)
class Comparison:
    """The parameters in use against fitting, on the same held-out later reviews (the time-series folds)."""

    before: Score  # the parameters in use
    after: Score  # each fold's parameters fitted on the reviews before it

    @property
    def better(self) -> bool:
        return self.after.log_loss < self.before.log_loss


def compare(items: Sequence[Item], current: Sequence[float]) -> Comparison:
    """Score the parameters in use and the optimiser on the time-series folds; raises ValueError when there are
    too few items for the folds or the optimiser fails."""
    folds = time_series_splits(len(items))
    if not folds:
        raise ValueError(f"{len(items)} predicted reviews: too few for {N_SPLITS} time-series folds")
    tested: list[Item] = []
    fitted: list[np.ndarray] = []
    for start, end in folds:
        test = items[start:end]
        fitted.append(predictions(compute_parameters(items[:start]), test))
        tested.extend(test)
    before = score(predictions(current, tested), tested)
    after = score(np.concatenate(fitted), tested)
    return Comparison(before=before, after=after)


@dataclass(frozen=True)
class Fit:
    """A fit's result: ``parameters`` when they should replace the ones in use, else ``refused`` says why."""

    comparison: Comparison | None
    parameters: Parameters | None
    refused: str  # "" when kept
    kind: str  # "kept", "not_better", "failed", "out_of_range"


def fit(items: Sequence[Item], current: Sequence[float]) -> Fit:
    """Fit one learner: keep new parameters (fitted on every item) only when fitting predicts their later reviews
    better than the parameters in use, by log loss on the time-series folds, and they are in the valid ranges."""
    try:
        comparison = compare(items, current)
    except (ValueError, RuntimeError) as exc:
        return Fit(comparison=None, parameters=None, refused=str(exc), kind="failed")
    if not comparison.better:
        return Fit(comparison=comparison, parameters=None, refused="no better", kind="not_better")
    try:
        parameters = compute_parameters(items)
    except (ValueError, RuntimeError) as exc:
        return Fit(comparison=comparison, parameters=None, refused=str(exc), kind="failed")
    invalid = valid_parameters(parameters)
    if invalid:
        return Fit(comparison=comparison, parameters=parameters, refused=invalid, kind="out_of_range")
    return Fit(comparison=comparison, parameters=parameters, refused="", kind="kept")
