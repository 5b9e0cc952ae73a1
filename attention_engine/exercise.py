"""The lesson-1 exercise (fill in the three blanks), solved with the engine.

With seed 0 the output must match, line for line, the expected output printed in the lesson, so
the draws below happen in exactly the lesson's order: X, W_q, W_k, W_v, then the two variance
experiments, then the 1000 unscaled score rows.
"""

from __future__ import annotations

import io
from typing import TextIO

import numpy as np

from .core import FloatArray, scaled_dot_product_attention, softmax

#: The exercise's sizes: sequence length, model width, key and value width.
T, D_MODEL, D_K, D_V = 4, 8, 16, 16


def exercise_tensors(rng: np.random.Generator) -> dict[str, FloatArray]:
    """X, Q, K, V and the causal attention (output, weights) of the exercise, drawn from ``rng`` in the
    lesson's order; the lesson's heatmap of the causal weights is drawn from these very numbers."""
    X = rng.standard_normal((T, D_MODEL))  # (T, d_model)
    W_q, W_k, W_v = (rng.standard_normal((D_MODEL, d)) / np.sqrt(D_MODEL) for d in (D_K, D_K, D_V))
    Q, K, V = X @ W_q, X @ W_k, X @ W_v  # (T, d_k), (T, d_k), (T, d_v)
    out, w = scaled_dot_product_attention(Q, K, V, is_causal=True, return_weights=True)  # (T, d_v), (T, T)
    return {"X": X, "Q": Q, "K": K, "V": V, "out": out, "weights": w}


def run_exercise(seed: int = 0, out: TextIO | None = None) -> str:
    """Print the exercise's output to ``out`` (and return it) for ``default_rng(seed)``."""
    buf = io.StringIO()
    rng = np.random.default_rng(seed)
    tensors = exercise_tensors(rng)
    Q, K, V, out_, w = (tensors[name] for name in ("Q", "K", "V", "out", "weights"))
    print("Q", Q.shape, "K", K.shape, "V", V.shape, file=buf)
    print("out", out_.shape, "weights", w.shape, file=buf)
    print("row sums:", w.sum(axis=-1).round(3), file=buf)
    print("causal weights:\n", w.round(2), file=buf)

    # why divide by sqrt(d_k): var(q.k) grows like d_k, scaling brings it back to ~1
    for d in (16, 512):
        q, k = rng.standard_normal((2, 10000, d))  # 2 x (10000, d)
        dots = (q * k).sum(-1)  # (10000,)
        print(f"d_k={d:4d}  var(q·k)={dots.var():7.1f}  var(q·k/sqrt(d_k))={(dots / np.sqrt(d)).var():.2f}", file=buf)
    S = rng.standard_normal((1000, 8)) * np.sqrt(512)  # (1000, 8) unscaled scores
    print(
        "avg max weight  unscaled:",
        softmax(S).max(-1).mean().round(3),
        " scaled:",
        softmax(S / np.sqrt(512)).max(-1).mean().round(3),
        file=buf,
    )

    text = buf.getvalue()
    if out is not None:
        out.write(text)
    return text
