"""Inference serving in numbers: KV-cache bytes, decode's bandwidth bound, paged blocks, speculative decoding.

- ``kv_cache_bytes``: K and V for every layer, sequence, token and K/V head: 2·L·B·T·n_kv·hs elements.
  MHA has n_kv = n_head, MQA (Shazeer, 2019) n_kv = 1, GQA (Ainslie et al., EMNLP 2023) 1 < n_kv < n_head;
- ``mla_cache_bytes``: MLA (DeepSeek-V2, 2024) caches one latent c^KV of d_c numbers and one RoPE key k^R of
  d_h^R numbers, shared by all heads, per token per layer: (d_c + d_h^R)·L·B·T elements (DeepSeek-V2:
  d_c = 512, d_h^R = 64, 128 heads of d_h = 128, 60 layers);
- ``decode_tokens_per_second``: an upper bound on decode throughput. One decode step moves every sequence of
  the batch one token and reads all the weights once (shared by the batch) and every sequence's own KV
  cache: tokens/s ≤ B × bandwidth / (weight bytes + the batch's KV-cache bytes);
- ``paged_blocks``: PagedAttention (Kwon et al., SOSP 2023) gives a sequence fixed-size blocks, a new one
  only when the last is full: ⌈n / block_size⌉ blocks, the empty slots all in the last one;
- ``speculative_expected_tokens``: Leviathan, Kalman & Matias (ICML 2023) with i.i.d. acceptance of mean α
  and γ draft tokens: 1 + α + … + α^γ = (1 − α^(γ+1)) / (1 − α) tokens per target call, γ + 1 at α = 1;
- ``gqa_decode_step``: one decode step with a GQA cache: append the new k, v of the n_kv_head K/V heads, and
  let each group of n_head / n_kv_head consecutive query heads attend to its shared K/V head;
- ``streaming_cache``: which positions StreamingLLM (Xiao et al., ICLR 2024) keeps: the first n_sink tokens
  (the attention sinks) and the most recent window, with their positions inside the cache.
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from .core import FloatArray, as_float_array, softmax

BYTES = {"float32": 4, "float16": 2, "bfloat16": 2, "float8": 1, "int8": 1}


def kv_cache_bytes(n_layer: int, B: int, T: int, n_kv_head: int, head_size: int, nbytes: int) -> int:
    """Bytes of a (n_layer, 2, B, n_kv_head, T, head_size) cache: the 2 is K and V."""
    return 2 * n_layer * B * n_kv_head * T * head_size * nbytes


def mla_cache_bytes(n_layer: int, B: int, T: int, d_c: int, d_rope: int, nbytes: int) -> int:
    """Bytes of MLA's cache: per layer and token one c^KV (d_c,) and one shared k^R (d_rope,), no factor 2."""
    return n_layer * B * T * (d_c + d_rope) * nbytes


def decode_tokens_per_second(B: int, bandwidth: float, weight_bytes: float, kv_bytes: float) -> float:
    """The memory-bound ceiling of decode: B tokens per step, a step reads the weights once and the batch's cache.

    An upper bound: it assumes the whole bandwidth is used and ignores activations, kernel launches and the
    compute itself (past the roofline's ridge the FLOPs, not the bytes, set the step time).
    """
    step_seconds = (weight_bytes + kv_bytes) / bandwidth  # bytes read per step / (bytes/s)
    return B / step_seconds


def paged_blocks(n_tokens: int, block_size: int) -> tuple[int, int]:
    """(blocks in use, empty slots in the last block) for a sequence of ``n_tokens``."""
    assert n_tokens >= 1 and block_size >= 1
    blocks = -(-n_tokens // block_size)  # ⌈n / block_size⌉
    return blocks, blocks * block_size - n_tokens


def speculative_expected_tokens(alpha: float, gamma: int) -> float:
    """E[tokens per target call] = Σ_{i=0..γ} α^i: the i-th draft survives if the first i are all accepted,
    and every call adds one token of the target's own (resampled, or the bonus after γ acceptances).
    Summed rather than (1 − α^(γ+1)) / (1 − α), which is 0/0 at α = 1 (where the sum is γ + 1)."""
    assert 0.0 <= alpha <= 1.0 and gamma >= 0
    return math.fsum(alpha**i for i in range(gamma + 1))


def gqa_decode_step(
    q: npt.ArrayLike, k: npt.ArrayLike, v: npt.ArrayLike, k_cache: npt.ArrayLike, v_cache: npt.ArrayLike
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """One decode step with a grouped-query cache: (y, k_cache, v_cache) after appending k and v.

    q (B, n_head, 1, hs); k, v (B, n_kv_head, 1, hs); caches (B, n_kv_head, t, hs). Query head h reads
    K/V head h // (n_head // n_kv_head): consecutive query heads share one K/V head, which is what
    torch's repeat_interleave (np.repeat) along the head axis gives, not np.tile.
    """
    q, k, v = as_float_array(q), as_float_array(k), as_float_array(v)
    n_head, n_kv_head, hs = q.shape[-3], k.shape[-3], q.shape[-1]
    assert n_head % n_kv_head == 0, "n_kv_head must divide n_head"
    group = n_head // n_kv_head  # query heads per K/V head
    k_cache = np.concatenate([as_float_array(k_cache), k], axis=-2)  # (B, n_kv_head, t + 1, hs)
    v_cache = np.concatenate([as_float_array(v_cache), v], axis=-2)  # (B, n_kv_head, t + 1, hs)
    k_all = np.repeat(k_cache, group, axis=-3)  # (B, n_head, t + 1, hs): heads 0..group-1 read K/V head 0, ...
    v_all = np.repeat(v_cache, group, axis=-3)  # (B, n_head, t + 1, hs)
    scores = (
        q @ k_all.swapaxes(-2, -1) / math.sqrt(hs)
    )  # (B, n_head, 1, hs) @ (B, n_head, hs, t+1) -> (B, n_head, 1, t+1)
    # no mask: the one new query is the last position and may see every cached key
    y = softmax(scores, axis=-1) @ v_all  # (B, n_head, 1, t + 1) @ (B, n_head, t + 1, hs) -> (B, n_head, 1, hs)
    return y, k_cache, v_cache


def streaming_cache(t: int, n_sink: int = 4, window: int = 1020) -> list[int]:
    """The original positions StreamingLLM keeps after ``t`` tokens: the first n_sink and the last ``window``;
    a token's position inside the cache is its index in this list."""
    if t <= n_sink + window:
        return list(range(t))
    return [*range(n_sink), *range(t - window, t)]
