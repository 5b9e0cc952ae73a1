"""Classical test theory over columns (numpy): one row per answered-or-skipped item, grouped by an integer code.

Every function takes flat arrays (one entry per attempt item) and returns one value per group or per attempt;
none loops over rows. Skipped items arrive as 0 (wrong), which is the rule the statistics page states.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

Floats = npt.NDArray[np.float64]
Ints = npt.NDArray[np.int64]


def dense_codes(values: Ints) -> tuple[Ints, Ints]:
    """``np.unique(values, return_inverse=True)`` without sorting when the values span a short range (ids, codes):
    a presence table and its running count number them in order. Over 180,000 ids ≈ 5× faster than the sort."""
    if not values.size:
        return values.astype(np.int64), values.astype(np.int64)
    low, high = int(values.min()), int(values.max())
    if high - low > 8 * values.size + 1024:
        found, inverse = np.unique(values, return_inverse=True)
        return found.astype(np.int64), inverse.reshape(-1).astype(np.int64)
    present = np.zeros(high - low + 1, dtype=bool)  # (span,)
    present[values - low] = True
    number = np.cumsum(present) - 1  # (span,) each present value's rank
    return np.flatnonzero(present).astype(np.int64) + low, number[values - low].astype(np.int64)


def group_order(group: Ints, values: Floats) -> Ints:
    """Indices that sort by group, then value, NaN last within each group (ties in any order).

    One argsort of a float key (group × width + value) instead of ``np.lexsort((values, group))``: ≈ 4× faster
    over 180,000 entries; the 1.0 between one group's NaN slot and the next group keeps groups apart.
    """
    if not values.size:
        return np.zeros(0, dtype=np.int64)
    finite = ~np.isnan(values)
    low = float(values[finite].min()) if finite.any() else 0.0
    width = (float(values[finite].max()) - low if finite.any() else 0.0) + 2.0
    key = group * width + np.where(finite, values - low, width - 1.0)  # (n,)
    return np.argsort(key).astype(np.int64)


def attempt_totals(attempt: Ints, correct: Floats, n_attempts: int) -> Floats:
    """Each attempt's number of correct items."""
    return np.bincount(attempt, weights=correct, minlength=n_attempts).astype(np.float64)  # (n_attempts,)


def grouped_rest_correlation(group: Ints, attempt: Ints, correct: Floats, n_groups: int) -> Floats:
    """Per group: Pearson's r between the item (0/1) and the score on the rest of the same attempt.

    The corrected item-total (point-biserial) correlation: the item itself is taken out of the total, so a
    question is not correlated with itself. NaN where either side does not vary (r is undefined there).
    """
    totals = attempt_totals(attempt, correct, int(attempt.max()) + 1 if attempt.size else 0)
    rest = totals[attempt] - correct  # (rows,)
    n = np.bincount(group, minlength=n_groups).astype(np.float64)  # (G,)

    def s(w: Floats) -> Floats:
        return np.bincount(group, weights=w, minlength=n_groups).astype(np.float64)  # (G,)

    sx, sr = s(correct), s(rest)
    cov = n * s(correct * rest) - sx * sr
    var_x = n * s(correct * correct) - sx * sx
    var_r = n * s(rest * rest) - sr * sr
    with np.errstate(invalid="ignore", divide="ignore"):
        r = cov / np.sqrt(var_x * var_r)
    return np.where((var_x > 1e-12) & (var_r > 1e-12), r, np.nan)


def grouped_median(group: Ints, values: Floats, n_groups: int) -> Floats:
    """Per group: the median of the non-NaN values (NaN for a group with none)."""
    keep = ~np.isnan(values)
    g, v = group[keep], values[keep]
    order = group_order(g, v)
    g, v = g[order], v[order]
    counts = np.bincount(g, minlength=n_groups)  # (G,)
    starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
    low = starts + (counts - 1) // 2
    high = starts + counts // 2
    out = np.full(n_groups, np.nan)
    has = counts > 0
    out[has] = (v[low[has]] + v[high[has]]) / 2.0
    return out


def top_third(totals: Floats, attempt_ids: Ints) -> npt.NDArray[np.bool_]:
    """The attempts in the top third by total score (ties broken by attempt id, so the split is reproducible)."""
    n = totals.size
    order = np.lexsort((attempt_ids, totals))  # ascending score
    top = np.zeros(n, dtype=bool)
    top[order[n - int(np.ceil(n / 3)) :]] = True
    return top


def kr20(matrix: Floats) -> float | None:
    """Kuder–Richardson 20 of a (learners, items) 0/1 matrix; None under 2 items or 2 learners, or no variance."""
    n, k = matrix.shape
    if k < 2 or n < 2:
        return None
    p = matrix.mean(axis=0)  # (k,) facility of each item
    total_var = matrix.sum(axis=1).var()  # population variance of the total score, as p·q is
    if total_var <= 0:
        return None
    return float(k / (k - 1) * (1.0 - float((p * (1.0 - p)).sum()) / total_var))


def two_proportion_z(p1: float, n1: int, p2: float, n2: int) -> float | None:
    """The pooled two-proportion z statistic of p2 − p1; None when the pooled share is 0 or 1 (no spread)."""
    pooled = (p1 * n1 + p2 * n2) / (n1 + n2)
    se = np.sqrt(pooled * (1.0 - pooled) * (1.0 / n1 + 1.0 / n2))
    return float((p2 - p1) / se) if se > 0 else None
