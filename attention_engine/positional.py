"""Position information for attention: sinusoidal encodings, RoPE and ALiBi, in plain numpy.

- ``sinusoidal_encoding``: Vaswani et al. (2017) §3.5, a (T, d_model) table added to the embeddings:
  PE[pos, 2i] = sin(pos / 10000^(2i/d)), PE[pos, 2i+1] = cos(pos / 10000^(2i/d));
- ``rope_theta`` / ``apply_rope``: RoFormer (Su et al., 2021): coordinates (2i, 2i+1) form pair i, and
  at position m pair i turns by the angle m·θ_i, θ_i = 10000^(−2i/d). Only q and k are rotated, so
  (R_m q)·(R_n k) = q·(R_{n−m} k): the score depends on the offset n − m, not on m and n;
- ``rotate_half`` / ``apply_rope_half``: the GPT-NeoX / Hugging Face pairing (i, i + d/2), the same
  angles on other coordinates (lesson 4 teaches how the two relate);
- ``alibi_slopes`` / ``alibi_bias``: ALiBi (Press, Smith & Lewis, ICLR 2022): each head adds
  −m·(i − j) to the score of query i and key j; for n heads (a power of two) the slopes are the
  geometric sequence 2^(−8/n), 2^(−16/n), ..., 2^(−8) (the official ``get_slopes``, which also
  covers other head counts).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from .core import FloatArray, as_float_array

BASE = 10000.0  # the 10000 of every formula above


def frequencies(d: int, base: float = BASE) -> FloatArray:
    """ω_i = θ_i = base^(−2i/d) for i = 0 .. d/2 − 1: one angular speed per pair of coordinates."""
    assert d > 0 and d % 2 == 0, f"the dimension must be even, got {d}"
    two_i = np.arange(0, d, 2, dtype=np.float64)  # (d/2,)  0, 2, 4, ..., d − 2
    return base ** (-two_i / d)  # (d/2,)  1 down to base^(−(d−2)/d)


def sinusoidal_encoding(positions: npt.ArrayLike, d_model: int, base: float = BASE) -> FloatArray:
    """The sinusoidal table for ``positions`` (T,): (T, d_model), sin at even columns, cos at odd ones."""
    pos = as_float_array(positions)  # (T,)
    angle = pos[:, None] * frequencies(d_model, base)[None, :]  # (T, 1) * (1, d/2) -> (T, d/2)
    pe = np.empty((pos.shape[0], d_model))  # (T, d_model)
    pe[:, 0::2] = np.sin(angle)  # (T, d/2)  columns 2i
    pe[:, 1::2] = np.cos(angle)  # (T, d/2)  columns 2i + 1
    return pe


def rope_theta(d: int, base: float = BASE) -> FloatArray:
    """RoFormer's θ_i = base^(−2i/d), i = 0 .. d/2 − 1 (the paper counts i from 1: base^(−2(i−1)/d))."""
    return frequencies(d, base)  # (d/2,)


def apply_rope(x: npt.ArrayLike, positions: npt.ArrayLike, base: float = BASE) -> FloatArray:
    """RoPE with RoFormer's interleaved pairs: x (..., T, d) at ``positions`` (T,) -> (..., T, d).

    Pair i is (x[..., 2i], x[..., 2i+1]); at position m it turns by m·θ_i:
    (a, b) -> (a cos − b sin, a sin + b cos).
    """
    x = as_float_array(x)  # (..., T, d)
    d = x.shape[-1]
    angle = as_float_array(positions)[:, None] * rope_theta(d, base)[None, :]  # (T, 1) * (1, d/2) -> (T, d/2)
    cos, sin = np.cos(angle), np.sin(angle)  # (T, d/2) each
    a, b = x[..., 0::2], x[..., 1::2]  # (..., T, d/2) each: the pairs' first and second coordinates
    out = np.empty_like(x)  # (..., T, d)
    out[..., 0::2] = a * cos - b * sin  # (..., T, d/2)
    out[..., 1::2] = a * sin + b * cos  # (..., T, d/2)
    return out


def rotate_half(x: npt.ArrayLike) -> FloatArray:
    """(x_1, x_2) -> (−x_2, x_1) on the two halves of the last axis: (..., d) -> (..., d)."""
    x = as_float_array(x)  # (..., d)
    h = x.shape[-1] // 2
    return np.concatenate([-x[..., h:], x[..., :h]], axis=-1)  # (..., d)


def apply_rope_half(x: npt.ArrayLike, positions: npt.ArrayLike, base: float = BASE) -> FloatArray:
    """RoPE with the GPT-NeoX / Hugging Face pairing (i, i + d/2): x (..., T, d) -> (..., T, d)."""
    x = as_float_array(x)  # (..., T, d)
    theta = rope_theta(x.shape[-1], base)  # (d/2,)
    angle = as_float_array(positions)[:, None] * np.concatenate([theta, theta])[None, :]  # (T, d)
    out: FloatArray = x * np.cos(angle) + rotate_half(x) * np.sin(angle)  # (..., T, d)
    return out


def rope_score(q: npt.ArrayLike, k: npt.ArrayLike, m: int, n: int, base: float = BASE) -> float:
    """(R_m q)·(R_n k) for one query q (d,) at position m and one key k (d,) at position n (unscaled)."""
    q_m = apply_rope(as_float_array(q)[None, :], [m], base)[0]  # (d,)
    k_n = apply_rope(as_float_array(k)[None, :], [n], base)[0]  # (d,)
    return float(q_m @ k_n)


def interleaved_pairs(d: int) -> list[tuple[int, int]]:
    """RoFormer's pairs: (0, 1), (2, 3), ..., (d − 2, d − 1); pair i turns with θ_i."""
    return [(2 * i, 2 * i + 1) for i in range(d // 2)]


def half_pairs(d: int) -> list[tuple[int, int]]:
    """rotate_half's pairs: (0, d/2), (1, d/2 + 1), ..., (d/2 − 1, d − 1); pair i turns with θ_i."""
    return [(i, i + d // 2) for i in range(d // 2)]


def relative_score(
    q: Sequence[float],
    k: Sequence[float],
    offset: int,
    theta: Sequence[float],
    pairs: Sequence[tuple[int, int]] | None = None,
) -> float:
    """q·(R_offset k) = (R_m q)·(R_n k) for offset = n − m, by hand: per pair (a, b) turned by φ = offset·θ_i,
    (q_a k_a + q_b k_b) cos φ + (q_b k_a − q_a k_b) sin φ. Plain python: q, k are a handful of numbers."""
    total = 0.0
    for (a, b), t in zip(pairs or interleaved_pairs(len(q)), theta, strict=True):
        phi = offset * t
        total += (q[a] * k[a] + q[b] * k[b]) * math.cos(phi) + (q[b] * k[a] - q[a] * k[b]) * math.sin(phi)
    return total


def alibi_slopes(n_head: int) -> list[float]:
    """The per-head slopes of ALiBi, as the paper's official ``get_slopes``: for n a power of two, the
    geometric sequence whose first term and ratio are both 2^(−8/n); otherwise the slopes of the
    largest power of two below n, then every other slope of twice that power."""
    assert n_head >= 1, f"n_head must be >= 1, got {n_head}"
    if n_head & (n_head - 1) == 0:  # a power of two
        start = 2.0 ** (-8.0 / n_head)
        return [start ** (h + 1) for h in range(n_head)]
    below = 1 << (n_head.bit_length() - 1)  # the largest power of two below n_head
    return alibi_slopes(below) + alibi_slopes(2 * below)[0::2][: n_head - below]


def alibi_bias(n_head: int, T: int) -> FloatArray:
    """The biases ALiBi adds to the scores: (n_head, T, T), −m_h·(i − j) for key j ≤ query i.

    Above the diagonal (j > i, the future) the value is m_h·(j − i) > 0; the causal mask hides those
    keys anyway, so only j ≤ i matters.
    """
    m = np.asarray(alibi_slopes(n_head))  # (nh,)
    i = np.arange(T)[:, None]  # (T, 1)  query positions
    j = np.arange(T)[None, :]  # (1, T)  key positions
    distance = (i - j).astype(np.float64)  # (T, T)  i − j, 0 on the diagonal
    return -m[:, None, None] * distance[None, :, :]  # (nh, 1, 1) * (1, T, T) -> (nh, T, T)


def alibi_head_bias(n_head: int, head: int, distance: int) -> float:
    """The bias head ``head`` (counted from 0) adds for a key ``distance`` positions back: −m_h·distance."""
    assert 0 <= head < n_head, f"head {head} is not among {n_head} heads"
    return -alibi_slopes(n_head)[head] * distance


def sinusoid_value(pos: int, dim: int, d_model: int, base: float = BASE) -> float:
    """PE[pos, dim] alone: sin(pos·ω_i) for dim = 2i, cos(pos·ω_i) for dim = 2i + 1."""
    assert 0 <= dim < d_model, f"dimension {dim} is outside 0 .. {d_model - 1}"
    omega = base ** (-(dim - dim % 2) / d_model)  # ω_i with 2i = dim rounded down to even
    return math.sin(pos * omega) if dim % 2 == 0 else math.cos(pos * omega)


#: YaRN's NTK-by-parts thresholds in turns within the training length (the defaults of the authors' scaled_rope
#: code, beta_fast and beta_slow): a pair turning more than 32 times keeps its angle, less than once is interpolated.
YARN_BETA_FAST = 32.0
YARN_BETA_SLOW = 1.0


def rope_turns(d: int, L: int, base: float = BASE) -> FloatArray:
    """How many full turns each pair makes over a training length ``L``: L·θ_i / 2π, (d/2,), fastest first."""
    return L * rope_theta(d, base) / (2 * math.pi)  # (d/2,)
