"""The checks a learner can make on an option without computing the answer, as small predicates.

Templates combine them in ``sane(inputs, value)``. A value arrives as shown in an option: a number,
a list, a list of rows, or a numpy array. The predicates take plain python numbers, because they run
for every candidate distractor of every variant, on a handful of numbers each.

Rounding: options are rounded to ``decimals`` places, so each shown number is within half a unit of
the last place of the exact one, and a sum of n shown numbers within n half-units (plus a hair for
binary floats): a row of two 2-dp weights may sum to 1 ± 0.011, a row of four to 1 ± 0.021.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from itertools import pairwise
from typing import Any

import numpy as np


def vector(value: object, n: int | None = None) -> list[float] | None:
    """``value`` as a flat list of n finite numbers (any length if n is None), else None."""
    if isinstance(value, np.ndarray):
        value = value.tolist()
    if not isinstance(value, list | tuple) or not value or (n is not None and len(value) != n):
        return None
    return list(value) if _all_finite(value) else None


def matrix(value: object, n_rows: int, n_cols: int) -> list[list[float]] | None:
    """``value`` as n_rows rows of n_cols finite numbers, else None."""
    if isinstance(value, np.ndarray):
        value = value.tolist()
    if not isinstance(value, list | tuple) or len(value) != n_rows:
        return None
    for r in value:
        if not isinstance(r, list | tuple) or len(r) != n_cols or not _all_finite(r):
            return None
    return value if isinstance(value, list) else [list(r) for r in value]


def scalar(value: object) -> float | None:
    """A single finite number (a one-element list counts), else None."""
    if isinstance(value, np.ndarray):
        value = value.tolist()
    if isinstance(value, list | tuple):
        if len(value) != 1:
            return None
        value = value[0]
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return None
    return float(value)


def _all_finite(xs: Iterable[Any]) -> bool:
    """Finite numbers only (no nested lists, strings or None): one C-level pass for the common case."""
    try:
        return all(map(math.isfinite, xs))
    except TypeError:
        return False


def half_unit(decimals: int) -> float:
    """The largest rounding error of one number shown with ``decimals`` places (plus a hair)."""
    return 0.5 * 10.0**-decimals + 1e-9


def nonnegative(xs: Sequence[float]) -> bool:
    return min(xs) >= 0


def sums_to_one(xs: Sequence[float], decimals: int = 2) -> bool:
    """Weights that sum to 1 up to the rounding of each shown weight."""
    return abs(sum(xs) - 1.0) <= len(xs) * (0.5 * 10.0**-decimals + 1e-9) + 0.001


def probability_row(xs: Sequence[float], decimals: int = 2) -> bool:
    """Non-negative weights summing to 1: what every softmax row looks like."""
    return min(xs) >= 0 and abs(sum(xs) - 1.0) <= len(xs) * (0.5 * 10.0**-decimals + 1e-9) + 0.001


def positive_integers(xs: Iterable[float]) -> bool:
    return all(x > 0 and float(x).is_integer() for x in xs)


def count_ok(value: object) -> bool:
    """A single positive integer: a size or a count."""
    x = scalar(value)
    return x is not None and positive_integers([x])


def within(xs: Iterable[float], lows: Iterable[float], highs: Iterable[float], decimals: int = 2) -> bool:
    """Each x within [low, high] of its column, widened by the rounding of x."""
    eps = half_unit(decimals)
    return all(lo - eps <= x <= hi + eps for x, lo, hi in zip(xs, lows, highs, strict=True))


def order_of(scores: Sequence[float]) -> list[tuple[int, int, bool]]:
    """The checks ``ordered`` makes, worked out once per variant from the scores: pairs (a, b, tied) of
    positions adjacent in the scores' order, scores[a] <= scores[b], tied when the two are equal."""
    idx = sorted(range(len(scores)), key=scores.__getitem__)
    return [(a, b, scores[a] == scores[b]) for a, b in pairwise(idx)]


def ordered(weights: Sequence[float], order: list[tuple[int, int, bool]]) -> bool:
    """Weights in the order of their scores (``order_of``), as a learner sees by eye: softmax is
    increasing, so a larger score never shows a smaller weight, and equal scores show equal weights.
    Not strict: two different scores may give weights that round alike. (A plain loop: it runs for
    every candidate, on a handful of pairs, where a generator costs more than the comparisons.)"""
    for a, b, tied in order:  # noqa: SIM110 (a loop on purpose, see above)
        if not ((weights[a] == weights[b]) if tied else (weights[a] <= weights[b])):
            return False
    return True


def ordered_like(weights: Sequence[float], scores: Sequence[float]) -> bool:
    """``ordered`` for scores given directly (the scores of the keys the weights belong to)."""
    return ordered(weights, order_of(scores))
