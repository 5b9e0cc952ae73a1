"""FlashAttention-style attention: an online softmax over key blocks.

The naive version builds the whole (L, S) score matrix; for long sequences that matrix is what
runs out of memory. Here the keys are visited block by block while three running quantities per
query are kept: the max score seen so far ``m``, the softmax denominator ``denom`` and the unnormalised
output ``acc``. When a new block raises the max, the old sums are rescaled by exp(m_old - m_new),
so the final acc / denom equals softmax(scores) @ V exactly (up to rounding).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from .core import FloatArray, as_float_array, shared_causal_mask


def blockwise_attention(
    query: npt.ArrayLike,
    key: npt.ArrayLike,
    value: npt.ArrayLike,
    is_causal: bool = False,
    block_size: int = 64,
    scale: float | None = None,
) -> FloatArray:
    """Same result as ``scaled_dot_product_attention`` without materialising the (L, S) matrix.

    query (..., L, E), key (..., S, E), value (..., S, Ev) -> (..., L, Ev). Peak extra memory is
    one (..., L, block_size) score block.
    """
    q, k, v = as_float_array(query), as_float_array(key), as_float_array(value)
    if block_size < 1:
        raise ValueError(f"block_size must be >= 1, got {block_size}")
    L, E = q.shape[-2:]
    S, Ev = v.shape[-2:]
    if k.shape[-1] != E or k.shape[-2] != S:
        raise ValueError(f"key must be (..., S={S}, E={E}), got {k.shape}")
    scale = 1.0 / float(np.sqrt(E)) if scale is None else float(scale)  # a python float keeps float32 inputs float32
    batch = np.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2])
    dtype = np.result_type(q, k, v)
    allowed = shared_causal_mask(L, S) if is_causal else None  # (L, S) booleans only, no scores

    m = np.full((*batch, L, 1), -np.inf, dtype=dtype)  # running max score per query
    denom = np.zeros((*batch, L, 1), dtype=dtype)  # running sum of exp(score - m)
    acc = np.zeros((*batch, L, Ev), dtype=dtype)  # running sum of exp(score - m) * v
    for start in range(0, S, block_size):
        stop = min(start + block_size, S)
        kb, vb = k[..., start:stop, :], v[..., start:stop, :]  # (..., Bk, E), (..., Bk, Ev)
        s = (q @ np.swapaxes(kb, -2, -1)) * scale  # (..., L, Bk)
        if allowed is not None:
            s = np.where(allowed[:, start:stop], s, -np.inf)  # (..., L, Bk)
        m_new = np.maximum(m, s.max(axis=-1, keepdims=True))  # (..., L, 1)
        m_ref = np.where(np.isneginf(m_new), 0.0, m_new)  # rows with nothing visible yet
        p = np.exp(s - m_ref)  # (..., L, Bk)
        rescale = np.exp(m - m_ref)  # (..., L, 1), old sums to the new max
        denom = denom * rescale + p.sum(axis=-1, keepdims=True)  # (..., L, 1)
        acc = acc * rescale + p @ vb  # (..., L, Ev)
        m = m_new
    return np.divide(acc, denom, out=np.zeros_like(acc), where=denom > 0)  # (..., L, Ev); fully masked rows -> 0
