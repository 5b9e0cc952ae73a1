"""Lesson 1's "动手玩" demo: the attention weights of 6 tokens as d_k grows, with and without scaling.

Q and K are fixed-seed N(0,1) draws of shape (6, 64); a view uses their first d_k columns, so
moving the slider adds dimensions without redrawing the ones already there. The numbers come
from attention_engine, the same code the lessons teach. Pure function, no Django: the pages
and the API both call ``demo_matrix``.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from attention_engine import scaled_dot_product_attention

TOKENS = 6
MAX_D_K = 64
MIN_D_K = 1
SEED = 0  # the lesson's exercise uses default_rng(0) as well


@lru_cache(maxsize=1)
def _queries_and_keys() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(SEED)
    q = rng.standard_normal((TOKENS, MAX_D_K))  # (6, 64)
    k = rng.standard_normal((TOKENS, MAX_D_K))  # (6, 64)
    q.setflags(write=False)
    k.setflags(write=False)
    return q, k


def validate_d_k(d_k: object) -> int:
    """d_k as an int in [1, 64], or ValueError with a message a learner can read."""
    if isinstance(d_k, bool):
        raise ValueError(f"d_k must be a whole number from {MIN_D_K} to {MAX_D_K}.")
    try:
        value = int(str(d_k).strip()) if not isinstance(d_k, int) else d_k
    except ValueError:
        raise ValueError(f"d_k must be a whole number from {MIN_D_K} to {MAX_D_K}, got {d_k!r}.") from None
    if not MIN_D_K <= value <= MAX_D_K:
        raise ValueError(f"d_k must be from {MIN_D_K} to {MAX_D_K}, got {value}.")
    return value


def demo_matrix(*, d_k: int, causal: bool, scaled: bool) -> dict:
    """Weights softmax(Q K^T · s [+ mask]) for the first d_k dims; s = 1/√d_k if scaled else 1.

    Returns plain JSON-able data: ``weights`` (6×6, rows sum to 1), ``row_max`` (the largest
    weight per row), ``mean_max_weight`` (their mean: 1/6 ≈ uniform … 1.0 = every row one-hot),
    and ``score_std`` (std of the visible scores: ≈ √d_k unscaled, ≈ 1 scaled).
    """
    d_k = validate_d_k(d_k)
    q_all, k_all = _queries_and_keys()
    q, k = q_all[:, :d_k], k_all[:, :d_k]  # (6, d_k) each
    scale = 1.0 / np.sqrt(d_k) if scaled else 1.0
    _, weights = scaled_dot_product_attention(
        q, k, np.eye(TOKENS), is_causal=causal, scale=scale, return_weights=True
    )  # weights (6, 6)
    scores = (q @ k.T) * scale  # (6, 6), before the mask
    visible = scores[np.tril(np.ones((TOKENS, TOKENS), dtype=bool))] if causal else scores.ravel()
    row_max = weights.max(axis=-1)  # (6,)
    return {
        "d_k": d_k,
        "causal": bool(causal),
        "scaled": bool(scaled),
        "tokens": TOKENS,
        "seed": SEED,
        "weights": weights.tolist(),
        "row_max": row_max.tolist(),
        "mean_max_weight": float(row_max.mean()),
        "score_std": float(visible.std()),
    }
