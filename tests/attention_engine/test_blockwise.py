"""The online-softmax (FlashAttention-style) variant must equal the naive one."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attention_engine import blockwise_attention, scaled_dot_product_attention


@settings(max_examples=60, deadline=None)
@given(
    L=st.integers(1, 20),
    S=st.integers(1, 40),
    E=st.integers(1, 8),
    Ev=st.integers(1, 8),
    block_size=st.integers(1, 50),
    is_causal=st.booleans(),
    seed=st.integers(0, 2**32 - 1),
)
def test_blockwise_equals_naive_for_random_block_sizes(L, S, E, Ev, block_size, is_causal, seed):
    rng = np.random.default_rng(seed)
    q = rng.standard_normal((2, 3, L, E)) * 3  # (B, nh, L, E), larger scores stress the rescale
    k = rng.standard_normal((2, 3, S, E)) * 3
    v = rng.standard_normal((2, 3, S, Ev))
    naive = scaled_dot_product_attention(q, k, v, is_causal=is_causal)
    blocked = blockwise_attention(q, k, v, is_causal=is_causal, block_size=block_size)
    assert blocked.shape == naive.shape == (2, 3, L, Ev)
    assert np.max(np.abs(blocked - naive)) < 1e-12


def test_blockwise_broadcasts_batch_dims_like_the_naive_version():
    rng = np.random.default_rng(0)
    q = rng.standard_normal((4, 1, 6, 5))
    k, v = rng.standard_normal((2, 3, 9, 5))
    assert np.allclose(blockwise_attention(q, k, v, block_size=4), scaled_dot_product_attention(q, k, v))


def test_blockwise_rejects_bad_block_size():
    with pytest.raises(ValueError, match="block_size"):
        blockwise_attention(np.ones((2, 2)), np.ones((2, 2)), np.ones((2, 2)), block_size=0)
