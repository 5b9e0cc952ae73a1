"""Softmax rows and attention rows in plain python, for the speed versions of issue 25.

A hand-sized variant computes a few dozen numbers; each numpy call costs more than the arithmetic it
does, so the speed versions work on python lists. These helpers are the one place that arithmetic
lives: the templates compose them, and ``row_with_bug`` mirrors ``attention_engine.misconceptions``
(its numpy ``weights_from_dots``) for one query row. The numbers equal numpy's up to the last bits
of e^x (``math.exp`` against ``np.exp``): tests/attention_engine/test_templates_speed.py checks both
against numpy.

Rows are lists of floats, matrices lists of rows; a masked score is left out of the softmax, its
weight an exact 0.0 (numpy's e^-inf).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

Row = list[float]
Matrix = list[list[float]]


def softmax_list(xs: Sequence[float]) -> Row:
    """Softmax of a few python floats, max subtracted (same weights, no overflow)."""
    m = max(xs)
    e = [math.exp(x - m) for x in xs]  # (n,) the largest is e^0 = 1
    total = sum(e)
    return [v / total for v in e]


def softmax_seen(xs: Sequence[float], seen: Sequence[bool]) -> Row:
    """Softmax over the entries where ``seen`` is True, 0.0 elsewhere (their scores were -inf); all 0.0 when
    nothing is seen, as ``core.softmax`` gives for a fully masked row."""
    if not any(seen):
        return [0.0] * len(xs)
    m = max(x for x, s in zip(xs, seen, strict=True) if s)
    e = [math.exp(x - m) if s else 0.0 for x, s in zip(xs, seen, strict=True)]
    total = sum(e)
    return [v / total for v in e]


def softmax_prefix(xs: Sequence[float], visible: int) -> Row:
    """Softmax over the first ``visible`` entries (a causal row: keys 1..i), 0.0 after."""
    return [*softmax_list(xs[:visible]), *([0.0] * (len(xs) - visible))]


def causal_seen(T: int, i: int, causal: bool) -> list[bool]:
    """The keys query i (0-based) sees: j <= i with a causal mask, all of them without."""
    return [j <= i or not causal for j in range(T)]


def column_softmax_row(S: Matrix, i: int, causal: bool) -> Row:
    """Row i of the softmax taken down each key column of S (T, T) instead of along the row (the wrong
    axis), the causal mask applied first (key j seen by the queries r >= j)."""
    T = len(S)
    out = []
    for j in range(T):
        rows = range(j, T) if causal else range(T)  # the queries that see key j
        if causal and j > i:
            out.append(0.0)
            continue
        m = max(S[r][j] for r in rows)
        total = sum(math.exp(S[r][j] - m) for r in rows)
        out.append(math.exp(S[i][j] - m) / total)
    return out


def renormalised(w: Sequence[float]) -> Row:
    """A row divided by its sum, so that it sums to 1 again."""
    total = sum(w)
    return [x / total for x in w]


def matvec(M: Matrix, x: Sequence[float]) -> Row:
    """M @ x for a few rows: each row's dot product with x."""
    return [sum([a * b for a, b in zip(row, x, strict=True)]) for row in M]


def weighted_sum(w: Sequence[float], V: Matrix) -> Row:
    """w @ V: the rows of V weighted by w, summed (an attention output)."""
    return [sum([wj * row[c] for wj, row in zip(w, V, strict=True)]) for c in range(len(V[0]))]


def transposed(M: Matrix) -> Matrix:
    return [list(col) for col in zip(*M, strict=True)]


# The temperature mistakes (misconceptions.py's ``scale``): the factor the dot products are multiplied by.
WRONG_SCALES: dict[str, Callable[[int], float]] = {
    "missing_scale": lambda d_k: 1.0,
    "divide_by_dk": lambda d_k: 1.0 / d_k,
    "scale_inverted": lambda d_k: math.sqrt(d_k),
}


def _future_zero(scores: Row, i: int, causal: bool) -> Row:
    return softmax_list([x if j <= i or not causal else 0.0 for j, x in enumerate(scores)])


def _zeroed_after(scores: Row, i: int, causal: bool) -> Row:
    return [w if j <= i or not causal else 0.0 for j, w in enumerate(softmax_list(scores))]


# The mask mistakes on row i (0-based) of the scaled scores, as misconceptions.py's ``normalise`` does them.
MASK_MISTAKES: dict[str, Callable[[Row, int, bool], Row]] = {
    # the token itself hidden too (causal); without a mask asked for, the right row
    "mask_hides_diagonal": lambda s, i, causal: softmax_seen(s, [j < i or not causal for j in range(len(s))]),
    "unneeded_causal_mask": lambda s, i, causal: softmax_prefix(s, i + 1),
    "mask_fill_zero": _future_zero,  # future scores 0, not -inf: e^0 = 1 keeps a share
    "mask_after_softmax": _zeroed_after,  # the future took its share before it was zeroed
    "missing_causal_mask": lambda s, i, causal: softmax_list(s),
}


def row_with_bug(bug: str, dots: Matrix, d_k: int, i: int, causal: bool) -> Row:
    """Row i (0-based) of the attention weights from the raw dot products Q Kᵀ (T, T) with the misconception
    ``bug`` in place: what ``misconceptions.get(bug).weights_from_dots(dots, d_k, causal)[i]`` gives, for the
    attention mistakes the query-row templates offer, plus ``wrong_query_row`` (the neighbouring query's
    correct row) and ``scale_uses_seq_len`` (÷√T instead of ÷√d_k)."""
    T = len(dots)
    if bug == "scale_uses_seq_len":
        root = math.sqrt(T)
        return softmax_seen([x / root for x in dots[i]], causal_seen(T, i, causal))
    factor = WRONG_SCALES[bug](d_k) if bug in WRONG_SCALES else 1.0 / math.sqrt(d_k)
    if bug == "wrong_query_row":
        r = (i - 1 if causal or i == T - 1 else i + 1) % T  # causal: the previous token, whose row has its zeros
        return softmax_seen([x * factor for x in dots[r]], causal_seen(T, r, causal))
    if bug == "scores_transposed":  # row i holds k_i·q_j
        return softmax_seen([dots[j][i] * factor for j in range(T)], causal_seen(T, i, causal))
    if bug in ("softmax_wrong_axis", "softmax_wrong_axis_renormalised"):
        row = column_softmax_row([[x * factor for x in r] for r in dots], i, causal)
        return renormalised(row) if bug == "softmax_wrong_axis_renormalised" else row
    scores = [x * factor for x in dots[i]]
    if bug in MASK_MISTAKES:
        return MASK_MISTAKES[bug](scores, i, causal)
    if bug in WRONG_SCALES:
        return softmax_seen(scores, causal_seen(T, i, causal))
    raise ValueError(f"no plain-python row for misconception {bug!r}")
