"""nanoGPT's CausalSelfAttention in numpy, with a KV cache for token-by-token decoding.

Weights use PyTorch's ``nn.Linear`` layout, (out_features, in_features), and the same names
(``c_attn``, ``c_proj``), so ``model.transformer.h[i].attn.state_dict()`` from a real nanoGPT
block loads directly once its tensors are turned into numpy arrays.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal, overload

import numpy as np
import numpy.typing as npt

from .core import FloatArray, as_float_array, scaled_dot_product_attention


def linear(x: FloatArray, weight: FloatArray, bias: FloatArray | None) -> FloatArray:
    """nn.Linear: x @ W^T + b, with W stored as (out_features, in_features)."""
    y = x @ weight.T  # (..., in) @ (in, out) -> (..., out)
    return y if bias is None else y + bias


@dataclass
class AttentionIntermediates:
    """Every tensor a worked solution shows, named as in nanoGPT's forward()."""

    qkv: FloatArray  # (B, T, 3C)  c_attn(x)
    q: FloatArray  # (B, nh, T, hs)
    k: FloatArray  # (B, nh, T, hs)
    v: FloatArray  # (B, nh, T, hs)
    att: FloatArray  # (B, nh, T, T)  softmax weights after the causal mask
    y_heads: FloatArray  # (B, nh, T, hs)  att @ v
    y_merged: FloatArray  # (B, T, C)  heads side by side, before c_proj


@dataclass
class KVCache:
    """Keys and values of the tokens decoded so far, so each step projects only its new token.

    ``kv_projections`` counts how many token positions had their K/V computed: the number the
    "15 without a cache vs 5 with" comparison is about.
    """

    k: FloatArray  # (B, nh, max_len, hs)
    v: FloatArray  # (B, nh, max_len, hs)
    length: int = 0
    kv_projections: int = 0

    @property
    def max_len(self) -> int:
        return int(self.k.shape[2])


class CausalSelfAttention:
    """Multi-head causal self-attention: fused qkv projection, head split, SDPA, re-assembly, c_proj."""

    def __init__(
        self,
        n_embd: int,
        n_head: int,
        bias: bool = True,
        rng: np.random.Generator | None = None,
        dtype: npt.DTypeLike = np.float64,
    ) -> None:
        if n_embd % n_head != 0:
            raise ValueError(f"n_embd ({n_embd}) must be divisible by n_head ({n_head})")
        rng = np.random.default_rng(0) if rng is None else rng
        bound = 1.0 / np.sqrt(n_embd)  # nn.Linear's default init range
        self.n_embd, self.n_head = n_embd, n_head
        self.c_attn_weight = rng.uniform(-bound, bound, (3 * n_embd, n_embd)).astype(dtype)  # (3C, C)
        self.c_attn_bias = rng.uniform(-bound, bound, 3 * n_embd).astype(dtype) if bias else None  # (3C,)
        self.c_proj_weight = rng.uniform(-bound, bound, (n_embd, n_embd)).astype(dtype)  # (C, C)
        self.c_proj_bias = rng.uniform(-bound, bound, n_embd).astype(dtype) if bias else None  # (C,)

    @classmethod
    def from_state_dict(cls, state_dict: Mapping[str, npt.ArrayLike], n_head: int) -> CausalSelfAttention:
        """Load ``c_attn.weight``, ``c_proj.weight`` and the optional biases of a nanoGPT block.

        nanoGPT's slow path also registers a ``bias`` buffer (the tril mask); it carries no
        parameters, so it is accepted and ignored.
        """
        known = {"c_attn.weight", "c_attn.bias", "c_proj.weight", "c_proj.bias", "bias"}
        unknown = sorted(set(state_dict) - known)
        if unknown:
            raise ValueError(f"unexpected keys in state dict: {unknown}; expected {sorted(known - {'bias'})}")
        missing = sorted({"c_attn.weight", "c_proj.weight"} - set(state_dict))
        if missing:
            raise ValueError(f"state dict is missing {missing}")
        w_attn = as_float_array(state_dict["c_attn.weight"])
        C = w_attn.shape[1]
        expected = {"c_attn.weight": (3 * C, C), "c_attn.bias": (3 * C,), "c_proj.weight": (C, C), "c_proj.bias": (C,)}
        for name, shape in expected.items():
            if name in state_dict and np.shape(state_dict[name]) != shape:
                raise ValueError(f"{name} must have shape {shape} for n_embd={C}, got {np.shape(state_dict[name])}")
        attn = cls.__new__(cls)
        if C % n_head != 0:
            raise ValueError(f"n_embd ({C}) must be divisible by n_head ({n_head})")
        attn.n_embd, attn.n_head = C, n_head
        attn.c_attn_weight = w_attn
        attn.c_proj_weight = as_float_array(state_dict["c_proj.weight"])
        attn.c_attn_bias = as_float_array(state_dict["c_attn.bias"]) if "c_attn.bias" in state_dict else None
        attn.c_proj_bias = as_float_array(state_dict["c_proj.bias"]) if "c_proj.bias" in state_dict else None
        return attn

    def state_dict(self) -> dict[str, FloatArray]:
        sd = {"c_attn.weight": self.c_attn_weight, "c_proj.weight": self.c_proj_weight}
        if self.c_attn_bias is not None:
            sd["c_attn.bias"] = self.c_attn_bias
        if self.c_proj_bias is not None:
            sd["c_proj.bias"] = self.c_proj_bias
        return sd

    @property
    def head_size(self) -> int:
        return self.n_embd // self.n_head

    def _qkv_heads(self, x: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray]:
        """c_attn(x) split into q, k, v and each reshaped to put the heads next to the batch."""
        B, T, _ = x.shape
        nh, hs = self.n_head, self.head_size
        qkv = linear(x, self.c_attn_weight, self.c_attn_bias)  # (B, T, 3C)
        q, k, v = np.split(qkv, 3, axis=2)  # 3 x (B, T, C)
        q = q.reshape(B, T, nh, hs).transpose(0, 2, 1, 3)  # (B, T, nh, hs) -> (B, nh, T, hs)
        k = k.reshape(B, T, nh, hs).transpose(0, 2, 1, 3)  # (B, nh, T, hs)
        v = v.reshape(B, T, nh, hs).transpose(0, 2, 1, 3)  # (B, nh, T, hs)
        return qkv, q, k, v

    def _merge_heads_and_project(self, y: FloatArray) -> tuple[FloatArray, FloatArray]:
        B, nh, T, hs = y.shape
        y_merged = y.transpose(0, 2, 1, 3).reshape(B, T, nh * hs)  # (B, nh, T, hs) -> (B, T, C)
        return y_merged, linear(y_merged, self.c_proj_weight, self.c_proj_bias)  # (B, T, C)

    def _check_input(self, x: npt.ArrayLike) -> FloatArray:
        x = as_float_array(x)
        if x.ndim != 3 or x.shape[2] != self.n_embd:
            raise ValueError(f"expected x of shape (B, T, {self.n_embd}), got {x.shape}")
        return x

    @overload
    def __call__(self, x: npt.ArrayLike, return_intermediates: Literal[False] = False) -> FloatArray: ...
    @overload
    def __call__(
        self, x: npt.ArrayLike, return_intermediates: Literal[True]
    ) -> tuple[FloatArray, AttentionIntermediates]: ...
    def __call__(
        self, x: npt.ArrayLike, return_intermediates: bool = False
    ) -> FloatArray | tuple[FloatArray, AttentionIntermediates]:
        """x (B, T, C) -> y (B, T, C); optionally also the intermediates for a worked solution."""
        x = self._check_input(x)
        qkv, q, k, v = self._qkv_heads(x)
        # (B, nh, T, hs) x (B, nh, hs, T) -> (B, nh, T, T) -> (B, nh, T, hs)
        y_heads, att = scaled_dot_product_attention(q, k, v, is_causal=True, return_weights=True)
        y_merged, y = self._merge_heads_and_project(y_heads)
        if return_intermediates:
            return y, AttentionIntermediates(qkv, q, k, v, att, y_heads, y_merged)
        return y

    # --- decoding ----------------------------------------------------------------------------
    def new_cache(self, batch_size: int, max_len: int) -> KVCache:
        shape = (batch_size, self.n_head, max_len, self.head_size)  # (B, nh, max_len, hs)
        dtype = self.c_attn_weight.dtype
        return KVCache(k=np.zeros(shape, dtype=dtype), v=np.zeros(shape, dtype=dtype))

    def step(self, x_t: npt.ArrayLike, cache: KVCache) -> FloatArray:
        """Decode one token: x_t (B, 1, C) -> (B, 1, C), appending its k and v to the cache.

        The new token may look at every cached position (all are in its past), so no mask is needed.
        """
        x_t = self._check_input(x_t)
        if x_t.shape[1] != 1:
            raise ValueError(f"step() takes one token at a time: x_t must be (B, 1, C), got {x_t.shape}")
        if x_t.shape[0] != cache.k.shape[0]:
            raise ValueError(f"cache was made for batch size {cache.k.shape[0]}, got {x_t.shape[0]}")
        if cache.length >= cache.max_len:
            raise ValueError(f"KV cache is full (max_len={cache.max_len})")
        _, q, k, v = self._qkv_heads(x_t)  # (B, nh, 1, hs) each
        t = cache.length
        cache.k[:, :, t] = k[:, :, 0]  # (B, nh, hs) into slot t
        cache.v[:, :, t] = v[:, :, 0]
        cache.length += 1
        cache.kv_projections += 1
        k_past, v_past = cache.k[:, :, : t + 1], cache.v[:, :, : t + 1]  # (B, nh, t+1, hs)
        y_heads = scaled_dot_product_attention(q, k_past, v_past)  # (B, nh, 1, hs)
        return self._merge_heads_and_project(y_heads)[1]  # (B, 1, C)

    def decode(self, x: npt.ArrayLike, use_cache: bool = True) -> tuple[FloatArray, int]:
        """Feed x (B, T, C) one position at a time, as generation does; returns (y, K/V projections).

        Without a cache every step re-projects the whole prefix (1 + 2 + ... + T projections);
        with one, each token is projected once (T). Both give the full causal pass's output.
        """
        x = self._check_input(x)
        B, T, _ = x.shape
        outputs = []
        if use_cache:
            cache = self.new_cache(B, T)
            for t in range(T):
                outputs.append(self.step(x[:, t : t + 1], cache))  # (B, 1, C)
            return np.concatenate(outputs, axis=1), cache.kv_projections
        projections = 0
        for t in range(T):
            prefix = x[:, : t + 1]  # (B, t+1, C)
            projections += t + 1  # K/V of the whole prefix again
            outputs.append(self(prefix)[:, -1:])  # (B, 1, C), the newest position
        return np.concatenate(outputs, axis=1), projections
