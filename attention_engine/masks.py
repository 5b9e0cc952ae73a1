"""Lesson 5: the whole multi-head attention module and its masks, in plain numpy.

- ``padding_mask``: (B, T) True where a position is padding, from the lengths and the padding side;
- ``combined_hide``: the causal mask | the padding mask, (B, 1, T, T) True = blocked (one boolean
  mask, filled once);
- ``rows_without_key``: (B, T) the query rows with no visible key (left padding under a causal mask);
- ``nan_rows``: the rows that hold NaN after ``n_layer`` layers that fill the blocked scores with −∞:
  a fully blocked row is 0/0 in layer 1, and in layer 2 every row of that sample takes 0 x NaN = NaN
  from it in the weighted sum (the blocked key's weight is exactly 0, its value NaN);
- ``mha_forward``: the lesson's whole module: fused c_attn, heads split, scores / √hs, the combined
  mask filled with ``np.finfo(dtype).min`` (finite: a fully blocked row gives a uniform average, not
  NaN), softmax, heads merged, c_proj. The reference of the ``mha_forward`` code card;
- ``mha_param_count``: ``nn.MultiheadAttention``'s parameters with ``kdim`` / ``vdim`` (three separate
  input projections, one packed bias);
- ``cross_mask_count``: the cells of cross-attention's (B, nh, T_q, T_k) scores that a key padding
  mask blocks.

The counting helpers take plain python ints (the question templates call them per variant, on a
handful of numbers); the tests check them against the numpy masks above.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from .core import BoolArray, FloatArray, as_float_array

SIDES = ("left", "right")


def padding_mask(lengths: Sequence[int], T: int, side: str = "right") -> BoolArray:
    """(B, T) True at padding: sample b holds lengths[b] real tokens, padded on ``side`` up to T."""
    assert side in SIDES, f"side must be 'left' or 'right', got {side!r}"
    n = np.asarray(lengths)[:, None]  # (B, 1)
    pos = np.arange(T)[None, :]  # (1, T)
    pad: BoolArray = pos < T - n if side == "left" else pos >= n  # (B, T)
    return pad


def combined_hide(pad: npt.ArrayLike, causal: bool = True) -> BoolArray:
    """The one boolean mask of the module: True = blocked, (B, 1, T, T) from the padding mask (B, T)."""
    pad = np.asarray(pad, dtype=bool)  # (B, T)
    B, T = pad.shape
    hide = np.zeros((B, 1, T, T), dtype=bool)  # (B, 1, T, T)
    if causal:
        hide = hide | np.triu(np.ones((T, T), dtype=bool), k=1)  # (T, T) the future, broadcast
    out: BoolArray = hide | pad[:, None, None, :]  # (B, 1, 1, T): padding keys blocked in every row
    return out


def rows_without_key(hide: npt.ArrayLike) -> BoolArray:
    """(B, T): the query rows of a (B, 1, T, T) mask in which every key is blocked."""
    full = np.asarray(np.asarray(hide, dtype=bool).all(axis=-1))  # (B, 1, T)
    return full[:, 0]  # (B, T)


def softmax(x: FloatArray) -> FloatArray:
    """Over the last axis, shifted by the row max (a row of −∞ gives NaN: −∞ − (−∞))."""
    with np.errstate(invalid="ignore"):
        e = np.exp(x - x.max(axis=-1, keepdims=True))  # (..., n)
        p: FloatArray = e / e.sum(axis=-1, keepdims=True)  # (..., n)
        return p


def nan_rows(pad: npt.ArrayLike, causal: bool = True, n_layer: int = 2, C: int = 4, seed: int = 0) -> BoolArray:
    """(B, T): which rows hold NaN after ``n_layer`` single-head layers filling blocked scores with −∞.

    Random weights (``default_rng(seed)``); what becomes NaN depends only on the masks, not on them.
    """
    pad = np.asarray(pad, dtype=bool)  # (B, T)
    hide = combined_hide(pad, causal)[:, 0]  # (B, T, T)
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((*pad.shape, C))  # (B, T, C)
    with np.errstate(invalid="ignore"):
        for _ in range(n_layer):
            wq, wk, wv = rng.standard_normal((3, C, C))  # (C, C) each
            q, k, v = x @ wq, x @ wk, x @ wv  # (B, T, C)
            scores = np.where(hide, -np.inf, q @ k.swapaxes(-2, -1) / np.sqrt(C))  # (B, T, T)
            x = x + softmax(scores) @ v  # (B, T, C), with the residual
    rows: BoolArray = np.asarray(np.isnan(x).any(axis=-1))  # (B, T)
    return rows


def mha_forward(
    x: npt.ArrayLike,
    w_attn: npt.ArrayLike,
    b_attn: npt.ArrayLike,
    w_proj: npt.ArrayLike,
    b_proj: npt.ArrayLike,
    n_head: int,
    pad: npt.ArrayLike | None = None,
    causal: bool = True,
) -> FloatArray:
    """Multi-head self-attention of x (B, T, C); ``pad`` (B, T) True at padding; weights as ``x @ w``.

    w_attn (C, 3C) holds q, k, v side by side; w_proj (C, C). The blocked scores get the finite
    ``finfo.min``: a row with no visible key averages every value uniformly instead of giving NaN.
    """
    x = as_float_array(x)  # (B, T, C)
    B, T, C = x.shape
    hs = C // n_head
    qkv = x @ as_float_array(w_attn) + as_float_array(b_attn)  # (B, T, 3C)
    q, k, v = np.split(qkv, 3, axis=-1)  # (B, T, C) each
    q, k, v = (t.reshape(B, T, n_head, hs).transpose(0, 2, 1, 3) for t in (q, k, v))  # (B, nh, T, hs)
    scores = q @ k.swapaxes(-2, -1) / np.sqrt(hs)  # (B, nh, T, T)
    hide = combined_hide(np.zeros((B, T), dtype=bool) if pad is None else pad, causal)  # (B, 1, T, T)
    scores = np.where(hide, np.finfo(scores.dtype).min, scores)  # (B, nh, T, T)
    att = softmax(scores)  # (B, nh, T, T)
    y = (att @ v).transpose(0, 2, 1, 3).reshape(B, T, C)  # (B, nh, T, hs) -> (B, T, nh, hs) -> (B, T, C)
    return y @ as_float_array(w_proj) + as_float_array(b_proj)  # (B, T, C)


# --------------------------------------------------------------------------- counts, in plain python


def hidden_row_count(lengths: Sequence[int], T: int, side: str, causal: bool = True) -> int:
    """How many query rows of the batch see no key: under a causal mask, the left padding's rows
    (each sees only earlier positions, all padding); right padding and no causal mask leave none."""
    if not causal or side == "right":
        return sum(1 for n in lengths if n == 0) * T
    return sum(T - n for n in lengths)


def nan_row_count(lengths: Sequence[int], T: int, side: str, causal: bool = True, n_layer: int = 2) -> int:
    """The rows holding NaN after ``n_layer`` layers of −∞ fill: layer 1's fully blocked rows, and from
    layer 2 on every row of a sample that had one (0 x NaN in its weighted sum)."""
    if n_layer <= 1:
        return hidden_row_count(lengths, T, side, causal)
    return T * sum(1 for n in lengths if hidden_row_count([n], T, side, causal))


def mha_param_count(E: int, kdim: int, vdim: int, bias: bool = True) -> int:
    """sum(p.numel()) of nn.MultiheadAttention(E, h, kdim=kdim, vdim=vdim, bias=bias): q (E, E), k (E, kdim),
    v (E, vdim), one in_proj_bias (3E), out_proj (E, E) and its bias (E); the head count changes none."""
    return E * E + E * kdim + E * vdim + E * E + (4 * E if bias else 0)


def cross_mask_count(enc_lengths: Sequence[int], T_k: int, T_q: int, n_head: int) -> int:
    """Cells of the (B, nh, T_q, T_k) cross-attention scores blocked by a key padding mask (B, T_k)
    broadcast as (B, 1, 1, T_k): every decoder row of every head blocks the encoder's padding columns."""
    return n_head * T_q * sum(T_k - n for n in enc_lengths)
