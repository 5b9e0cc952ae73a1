"""attention_engine.serving against independent references: cache bytes from PyTorch meta tensors of the
cache's shape, the GQA decode step against torch's scaled_dot_product_attention over the whole sequence,
paged blocks by allocating token by token, speculative decoding by simulating the accept / reject chain."""

from __future__ import annotations

import numpy as np
import pytest

from attention_engine import serving
from attention_engine.core import scaled_dot_product_attention


def meta_bytes(torch, shape: tuple[int, ...], dtype) -> int:
    t = torch.empty(shape, dtype=dtype, device="meta")  # nothing is allocated
    return t.numel() * t.element_size()


@pytest.mark.torch
@pytest.mark.parametrize(("n_kv", "nbytes", "dtype"), [(32, 2, "float16"), (8, 2, "bfloat16"), (1, 4, "float32")])
def test_kv_cache_bytes_are_those_of_the_cache_tensor(torch, n_kv, nbytes, dtype):
    L, B, T, hs = 32, 4, 4096, 128
    shape = (L, 2, B, n_kv, T, hs)  # per layer: K and V, each (B, n_kv_head, T, hs)
    assert serving.kv_cache_bytes(L, B, T, n_kv, hs, nbytes) == meta_bytes(torch, shape, getattr(torch, dtype))


@pytest.mark.torch
def test_mla_cache_at_deepseek_v2_shapes(torch):
    """DeepSeek-V2: 60 layers, 128 heads of 128, d_c = 512, d_h^R = 64; the cache is (L, B, T, d_c + d_h^R)."""
    L, B, T = 60, 1, 1
    mla = serving.mla_cache_bytes(L, B, T, 512, 64, 2)
    assert mla == meta_bytes(torch, (L, B, T, 512 + 64), torch.bfloat16) == 69_120  # 67.5 KiB per token
    mha = serving.kv_cache_bytes(L, B, T, 128, 128, 2)
    assert mha / mla == pytest.approx(32768 / 576)  # about 57 times smaller
    assert 512 + 64 == 2 * 2.25 * 128  # "GQA with 2.25 groups"


def test_decode_bound_is_batch_over_the_step_time():
    # 13e9 bf16 parameters, 2 TB/s, B = 16 sequences of 2048 tokens at 160 KiB per token
    weights, kv = 26e9, 16 * 2048 * 160 * 1024
    bound = serving.decode_tokens_per_second(16, 2e12, weights, kv)
    step = (weights + kv) / 2e12  # seconds to read the weights once and every sequence's cache
    assert bound == pytest.approx(16 / step)
    assert round(bound) == 1020
    assert serving.decode_tokens_per_second(1, 2e12, 26e9, 0) == pytest.approx(1 / 0.013)


@pytest.mark.parametrize("block_size", [1, 4, 16])
def test_paged_blocks_by_allocating_token_by_token(block_size):
    for n in range(1, 70):
        blocks: list[int] = []  # the block table: slots filled in each block
        for _ in range(n):
            if not blocks or blocks[-1] == block_size:
                blocks.append(0)  # a new block only when the last one is full
            blocks[-1] += 1
        assert serving.paged_blocks(n, block_size) == (len(blocks), block_size - blocks[-1])


def simulated_tokens_per_call(alpha: float, gamma: int, rng: np.random.Generator, calls: int) -> float:
    """Each draft accepted with probability alpha until the first rejection; +1 for the target's own token."""
    accepted = rng.random((calls, gamma)) < alpha  # (calls, gamma)
    run = np.where(accepted.all(axis=1), gamma, np.argmin(accepted, axis=1))  # drafts kept before a rejection
    return float((run + 1).mean())


@pytest.mark.parametrize(("alpha", "gamma"), [(0.0, 3), (0.6, 3), (0.8, 4), (0.95, 8), (1.0, 4)])
def test_expected_tokens_match_the_simulated_chain_and_the_closed_form(alpha, gamma):
    expected = serving.speculative_expected_tokens(alpha, gamma)
    rng = np.random.default_rng(7)
    assert simulated_tokens_per_call(alpha, gamma, rng, 200_000) == pytest.approx(expected, abs=0.02)
    if alpha < 1:
        assert expected == pytest.approx((1 - alpha ** (gamma + 1)) / (1 - alpha))
    assert serving.speculative_expected_tokens(1.0, gamma) == gamma + 1
    assert serving.speculative_expected_tokens(0.0, gamma) == 1


def gqa_inputs(rng, B, n_head, n_kv, t, hs):
    q = rng.normal(size=(B, n_head, 1, hs))  # (B, nh, 1, hs)
    k, v = rng.normal(size=(2, B, n_kv, 1, hs))  # (B, n_kv, 1, hs) each
    k_cache, v_cache = rng.normal(size=(2, B, n_kv, t, hs))  # (B, n_kv, t, hs) each
    return q, k, v, k_cache, v_cache


@pytest.mark.torch
@pytest.mark.parametrize(("n_head", "n_kv", "t"), [(8, 2, 5), (4, 4, 3), (6, 1, 4), (4, 2, 0)])
def test_gqa_decode_step_equals_torch_sdpa_with_shared_kv_heads(torch, rng, n_head, n_kv, t):
    q, k, v, k_cache, v_cache = gqa_inputs(rng, 2, n_head, n_kv, t, 8)
    y, k_new, v_new = serving.gqa_decode_step(q, k, v, k_cache, v_cache)
    assert k_new.shape == v_new.shape == (2, n_kv, t + 1, 8)
    K, V = (torch.from_numpy(np.concatenate([c, x], axis=-2)) for c, x in ((k_cache, k), (v_cache, v)))
    group = n_head // n_kv
    expected = torch.nn.functional.scaled_dot_product_attention(
        torch.from_numpy(q), K.repeat_interleave(group, dim=-3), V.repeat_interleave(group, dim=-3)
    )
    np.testing.assert_allclose(y, expected.numpy(), atol=1e-12)
    also = torch.nn.functional.scaled_dot_product_attention(torch.from_numpy(q), K, V, enable_gqa=True)
    np.testing.assert_allclose(y, also.numpy(), atol=1e-12)


def test_gqa_decode_step_is_the_last_row_of_full_causal_attention_per_group(rng):
    """Query head h of the step equals causal attention of head h over the whole sequence with K/V head h // group."""
    n_head, n_kv, t, hs = 6, 3, 4, 4
    q, k, v, k_cache, v_cache = gqa_inputs(rng, 1, n_head, n_kv, t, hs)
    y, K, V = serving.gqa_decode_step(q, k, v, k_cache, v_cache)
    for h in range(n_head):
        g = h // (n_head // n_kv)
        Q = np.concatenate([rng.normal(size=(t, hs)), q[0, h]], axis=0)  # any earlier queries; the last is ours
        full = scaled_dot_product_attention(Q, K[0, g], V[0, g], is_causal=True)
        np.testing.assert_allclose(y[0, h, 0], full[-1], atol=1e-12)
    tiled = np.tile(K, (1, n_head // n_kv, 1, 1))  # head h -> K/V head h % n_kv: a different mapping
    assert not np.allclose(tiled, np.repeat(K, n_head // n_kv, axis=1))


def test_streaming_cache_keeps_the_sinks_and_the_recent_window():
    kept = serving.streaming_cache(10, n_sink=4, window=3)
    assert kept == [0, 1, 2, 3, 7, 8, 9]
    assert serving.streaming_cache(5, n_sink=4, window=3) == [0, 1, 2, 3, 4]
    # the lesson's example: positions 0..3 and 6..8 cached, the next token's in-cache position is 7
    assert len(serving.streaming_cache(9, n_sink=4, window=3)) == 7
