"""Scaled dot-product attention in plain numpy.

Everything here mirrors ``torch.nn.functional.scaled_dot_product_attention`` (without dropout) so a
learner can move between this file and PyTorch: the same argument names, the same boolean-mask
convention (True = may attend), the same default scale 1/sqrt(E).
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Any, Literal, TypeAlias, overload

import numpy as np
import numpy.typing as npt

FloatArray: TypeAlias = npt.NDArray[np.floating[Any]]  # float32 or float64: the engine keeps what it is given
BoolArray: TypeAlias = npt.NDArray[np.bool_]


def as_float_array(x: npt.ArrayLike) -> FloatArray:
    """Keep float32/float64 as given; promote ints and lists to float64 (our default precision)."""
    x = np.asarray(x)
    if x.dtype.kind != "f":  # cheaper than np.issubdtype on hot paths
        x = x.astype(np.float64)
    return x


def has_neginf(x: npt.NDArray[Any]) -> bool:
    """Whether x holds a -inf. Hand-sized arrays are scanned as python floats: one numpy call costs
    about a microsecond there, more than the whole scan."""
    if x.size <= 64:
        return -math.inf in x.ravel().tolist()
    return bool(np.isneginf(x).any())


def softmax(x: npt.ArrayLike, axis: int = -1) -> FloatArray:
    """Numerically stable softmax along ``axis``.

    Subtracting the max leaves the result unchanged (softmax is shift-invariant) but keeps exp()
    from overflowing. A slice that is entirely -inf (a query allowed to see nothing) returns all
    zeros, silently: the same "safe softmax" PyTorch's SDPA uses for fully masked rows, instead of
    0/0 = NaN spreading into every later computation.
    """
    x = as_float_array(x)
    x_max: FloatArray = x.max(axis=axis, keepdims=True)  # (..., 1, ...)
    if has_neginf(x_max):  # some slice has nothing to attend to
        x_max = np.where(np.isneginf(x_max), 0.0, x_max)  # shift those by 0, not by -inf (-inf - -inf = nan)
        e = np.exp(x - x_max)  # exp(-inf) = 0 for masked entries
        denom: FloatArray = e.sum(axis=axis, keepdims=True)  # 0 exactly for the fully masked slices
        return np.divide(e, denom, out=np.zeros_like(e), where=denom > 0)
    e = np.exp(x - x_max)  # largest entry -> e^0 = 1, no overflow
    sums: FloatArray = e.sum(axis=axis, keepdims=True)  # (..., 1, ...), each >= 1
    return e / sums


def causal_mask(L: int, S: int | None = None) -> BoolArray:
    """Boolean (L, S) mask, True where query i may attend to key j, i.e. j <= i.

    Top-left aligned like PyTorch's ``is_causal=True`` (``ones(L, S).tril()``), so for L == S it is
    the lower triangle including the diagonal: position i sees positions 0..i, never the future.
    """
    return shared_causal_mask(L, L if S is None else S).copy()


@lru_cache(maxsize=256)
def shared_causal_mask(L: int, S: int) -> BoolArray:
    """Shared, read-only masks: building a tril costs more than the attention itself at hand sizes."""
    if L < 1 or S < 1:
        raise ValueError(f"causal_mask needs L >= 1 and S >= 1, got L={L}, S={S}")
    mask = np.tril(np.ones((L, S), dtype=bool))  # (L, S)
    mask.flags.writeable = False
    return mask


@overload
def scaled_dot_product_attention(
    query: npt.ArrayLike,
    key: npt.ArrayLike,
    value: npt.ArrayLike,
    attn_mask: npt.ArrayLike | None = None,
    is_causal: bool = False,
    scale: float | None = None,
    return_weights: Literal[False] = False,
) -> FloatArray: ...
@overload
def scaled_dot_product_attention(
    query: npt.ArrayLike,
    key: npt.ArrayLike,
    value: npt.ArrayLike,
    attn_mask: npt.ArrayLike | None = None,
    is_causal: bool = False,
    scale: float | None = None,
    *,
    return_weights: Literal[True],
) -> tuple[FloatArray, FloatArray]: ...
def scaled_dot_product_attention(
    query: npt.ArrayLike,
    key: npt.ArrayLike,
    value: npt.ArrayLike,
    attn_mask: npt.ArrayLike | None = None,
    is_causal: bool = False,
    scale: float | None = None,
    return_weights: bool = False,
) -> FloatArray | tuple[FloatArray, FloatArray]:
    """softmax(Q K^T * scale + M) V over any number of leading batch dims.

    query (..., L, E), key (..., S, E), value (..., S, Ev) -> output (..., L, Ev).
    ``attn_mask`` is boolean (True = attend) or additive float, broadcastable to (..., L, S).
    With ``return_weights=True`` returns ``(output, weights)``, weights (..., L, S).
    """
    q, k, v = as_float_array(query), as_float_array(key), as_float_array(value)
    if q.ndim < 2 or k.ndim < 2 or v.ndim < 2:
        raise ValueError("query, key and value need at least 2 dims: (..., L, E), (..., S, E), (..., S, Ev)")
    L, E = q.shape[-2:]
    S = k.shape[-2]
    if k.shape[-1] != E:
        raise ValueError(f"query and key must share the last dim E: got {E} and {k.shape[-1]}")
    if v.shape[-2] != S:
        raise ValueError(f"key and value must share the sequence dim S: got {S} and {v.shape[-2]}")
    if is_causal and attn_mask is not None:
        raise ValueError("pass either attn_mask or is_causal=True, not both (as in PyTorch)")
    scale = 1.0 / float(np.sqrt(E)) if scale is None else float(scale)  # a python float keeps float32 inputs float32

    att = (q @ np.swapaxes(k, -2, -1)) * scale  # (..., L, E) @ (..., E, S) -> (..., L, S)
    if is_causal:
        att = np.where(shared_causal_mask(L, S), att, -np.inf)  # future keys -> -inf -> weight exactly 0
    elif attn_mask is not None:
        mask = np.asarray(attn_mask)
        if mask.dtype == bool:
            att = np.where(mask, att, -np.inf)  # (..., L, S), False = not allowed
        else:
            att = att + mask.astype(att.dtype, copy=False)  # additive bias, e.g. 0 / -inf
    weights = softmax(att, axis=-1)  # (..., L, S), each row sums to 1 (or is all 0)
    out = weights @ v  # (..., L, S) @ (..., S, Ev) -> (..., L, Ev)
    return (out, weights) if return_weights else out
