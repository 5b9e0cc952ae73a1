"""CausalSelfAttention: shapes, loading a state dict, and KV-cache decoding."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attention_engine import CausalSelfAttention, scaled_dot_product_attention


def test_output_has_the_input_shape_and_intermediates_have_head_shapes():
    attn = CausalSelfAttention(n_embd=12, n_head=3, rng=np.random.default_rng(0))
    x = np.random.default_rng(1).standard_normal((2, 5, 12))
    y, mid = attn(x, return_intermediates=True)
    assert y.shape == (2, 5, 12)
    assert mid.qkv.shape == (2, 5, 36)
    assert mid.q.shape == mid.k.shape == mid.v.shape == (2, 3, 5, 4)
    assert mid.att.shape == (2, 3, 5, 5)
    assert np.all(np.triu(mid.att[0, 0], 1) == 0)


def test_heads_are_independent_attention_over_their_own_slice_of_c():
    """Recompute head h by hand from the fused projection: columns [h*hs, (h+1)*hs) of q, k and v."""
    attn = CausalSelfAttention(n_embd=8, n_head=2, rng=np.random.default_rng(2))
    x = np.random.default_rng(3).standard_normal((1, 4, 8))
    _, mid = attn(x, return_intermediates=True)
    qkv = x[0] @ attn.c_attn_weight.T + attn.c_attn_bias  # (T, 3C)
    q, k, v = qkv[:, :8], qkv[:, 8:16], qkv[:, 16:]
    for h in range(2):
        cols = slice(4 * h, 4 * h + 4)
        expected = scaled_dot_product_attention(q[:, cols], k[:, cols], v[:, cols], is_causal=True)
        assert np.allclose(mid.y_heads[0, h], expected)


def test_from_state_dict_round_trips_and_accepts_the_tril_buffer():
    attn = CausalSelfAttention(n_embd=6, n_head=2, bias=False, rng=np.random.default_rng(4))
    sd = attn.state_dict() | {"bias": np.tril(np.ones((1, 1, 8, 8)))}
    loaded = CausalSelfAttention.from_state_dict(sd, n_head=2)
    x = np.random.default_rng(5).standard_normal((1, 3, 6))
    assert np.array_equal(loaded(x), attn(x))
    assert loaded.c_attn_bias is None


@pytest.mark.parametrize(
    ("sd", "message"),
    [
        ({"c_attn.weight": np.ones((18, 6))}, "missing"),
        (
            {"c_attn.weight": np.ones((18, 6)), "c_proj.weight": np.ones((6, 5))},
            r"c_proj.weight must have shape \(6, 6\)",
        ),
        ({"c_attn.weight": np.ones((18, 6)), "c_proj.weight": np.ones((6, 6)), "lm_head.weight": 1}, "unexpected keys"),
    ],
)
def test_from_state_dict_explains_what_is_wrong(sd, message):
    with pytest.raises(ValueError, match=message):
        CausalSelfAttention.from_state_dict(sd, n_head=2)


def test_n_embd_must_divide_into_heads():
    with pytest.raises(ValueError, match="divisible"):
        CausalSelfAttention(n_embd=10, n_head=3)


@settings(max_examples=30, deadline=None)
@given(
    st.integers(1, 3),
    st.integers(1, 9),
    st.sampled_from([(4, 1), (8, 2), (12, 3)]),
    st.booleans(),
    st.integers(0, 2**32 - 1),
)
def test_kv_cache_decoding_equals_one_full_causal_pass(B, T, shape, bias, seed):
    C, nh = shape
    rng = np.random.default_rng(seed)
    attn = CausalSelfAttention(n_embd=C, n_head=nh, bias=bias, rng=rng)
    x = rng.standard_normal((B, T, C))
    full = attn(x)
    cached, projections = attn.decode(x, use_cache=True)
    assert np.max(np.abs(cached - full)) < 1e-10
    assert projections == T


def test_kv_cache_counts_fifteen_without_and_five_with_for_five_steps():
    """The "six questions" lesson: 1+2+3+4+5 = 15 K/V projections without a cache, 5 with."""
    attn = CausalSelfAttention(n_embd=8, n_head=2)
    x = np.random.default_rng(0).standard_normal((1, 5, 8))
    y_plain, without = attn.decode(x, use_cache=False)
    y_cached, with_cache = attn.decode(x, use_cache=True)
    assert (without, with_cache) == (15, 5)
    assert round(100 * (1 - with_cache / without)) == 67
    assert np.allclose(y_plain, y_cached)


def test_kv_cache_saves_98_percent_at_100_steps():
    attn = CausalSelfAttention(n_embd=4, n_head=1)
    x = np.random.default_rng(0).standard_normal((1, 100, 4))
    _, without = attn.decode(x, use_cache=False)
    _, with_cache = attn.decode(x, use_cache=True)
    assert round(100 * (1 - with_cache / without)) == 98


def test_step_refuses_a_full_cache_and_wrong_shapes():
    attn = CausalSelfAttention(n_embd=4, n_head=2)
    cache = attn.new_cache(batch_size=1, max_len=1)
    attn.step(np.zeros((1, 1, 4)), cache)
    with pytest.raises(ValueError, match="full"):
        attn.step(np.zeros((1, 1, 4)), cache)
    with pytest.raises(ValueError, match="one token at a time"):
        attn.step(np.zeros((1, 2, 4)), attn.new_cache(1, 4))
    with pytest.raises(ValueError, match=r"\(B, T, 4\)"):
        attn(np.zeros((1, 2, 5)))
