"""softmax, causal_mask and scaled_dot_product_attention: the properties a learner relies on."""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from attention_engine import causal_mask, scaled_dot_product_attention, softmax

finite = st.floats(-50, 50, allow_nan=False, allow_infinity=False)
matrices = arrays(np.float64, st.tuples(st.integers(1, 6), st.integers(1, 8)), elements=finite)


@given(matrices, finite)
def test_softmax_rows_sum_to_one_and_ignore_a_constant_shift(x, c):
    w = softmax(x)
    assert np.allclose(w.sum(axis=-1), 1.0)
    assert np.all(w >= 0)
    assert np.allclose(softmax(x + c), w, atol=1e-12)


@given(
    arrays(np.float64, st.tuples(st.integers(1, 5), st.integers(1, 8)), elements=finite),
    st.lists(finite, min_size=1, max_size=5),
)
def test_softmax_is_invariant_to_a_different_constant_per_row(x, shifts):
    shift = np.resize(np.array(shifts), x.shape[0])[:, None]  # (rows, 1), one constant per row
    assert np.allclose(softmax(x + shift), softmax(x), atol=1e-12)


def test_softmax_does_not_overflow_on_huge_scores():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        w = softmax(np.array([1000.0, 999.0, -1000.0]))
    assert np.allclose(w, [1 / (1 + np.exp(-1)), np.exp(-1) / (1 + np.exp(-1)), 0.0])


def test_fully_masked_row_gives_zeros_without_warnings_or_nan():
    x = np.array([[0.5, -np.inf, -np.inf], [-np.inf, -np.inf, -np.inf]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        w = softmax(x)
    assert np.array_equal(w, [[1.0, 0.0, 0.0], [0.0, 0.0, 0.0]])


def test_softmax_along_another_axis():
    x = np.array([[1.0, 2.0], [3.0, 4.0]])
    assert np.allclose(softmax(x, axis=0).sum(axis=0), 1.0)
    assert np.allclose(softmax(x, axis=0), softmax(x.T).T)


def test_causal_mask_allows_the_past_and_the_present_only():
    m = causal_mask(4)
    assert m.dtype == bool
    assert m.tolist() == [[j <= i for j in range(4)] for i in range(4)]
    assert causal_mask(2, 3).tolist() == [[True, False, False], [True, True, False]]
    with pytest.raises(ValueError, match="L >= 1"):
        causal_mask(0)


@settings(max_examples=50)
@given(st.integers(1, 7), st.integers(1, 6), st.integers(0, 2**32 - 1))
def test_causal_weights_are_zero_above_the_diagonal(T, E, seed):
    rng = np.random.default_rng(seed)
    q, k, v = rng.standard_normal((3, 2, T, E))  # 3 x (B=2, T, E)
    _, w = scaled_dot_product_attention(q, k, v, is_causal=True, return_weights=True)
    assert np.all(w[..., np.triu_indices(T, 1)[0], np.triu_indices(T, 1)[1]] == 0.0)
    assert np.allclose(w.sum(-1), 1.0)


def test_boolean_and_additive_masks_agree():
    rng = np.random.default_rng(7)
    q, k, v = rng.standard_normal((3, 3, 5, 4))
    allowed = rng.random((5, 5)) > 0.4
    allowed[:, 0] = True  # every query sees something
    additive = np.where(allowed, 0.0, -np.inf)
    a = scaled_dot_product_attention(q, k, v, attn_mask=allowed)
    b = scaled_dot_product_attention(q, k, v, attn_mask=additive)
    assert np.allclose(a, b, atol=1e-14)


def test_default_scale_is_one_over_sqrt_e_and_scale_can_be_overridden():
    rng = np.random.default_rng(3)
    q, k, v = rng.standard_normal((3, 4, 16))
    _, w_default = scaled_dot_product_attention(q, k, v, return_weights=True)
    _, w_explicit = scaled_dot_product_attention(q, k, v, scale=0.25, return_weights=True)
    _, w_unscaled = scaled_dot_product_attention(q, k, v, scale=1.0, return_weights=True)
    assert np.allclose(w_default, w_explicit)
    assert not np.allclose(w_default, w_unscaled)


def test_float32_in_float32_out_and_ints_promote_to_float64():
    q = np.ones((2, 3), dtype=np.float32)
    assert scaled_dot_product_attention(q, q, q).dtype == np.float32
    assert scaled_dot_product_attention([[1, 0]], [[1, 0], [0, 1]], [[1, 2], [3, 4]]).dtype == np.float64


def test_shape_errors_name_the_dims():
    with pytest.raises(ValueError, match="share the last dim E"):
        scaled_dot_product_attention(np.ones((2, 3)), np.ones((2, 4)), np.ones((2, 4)))
    with pytest.raises(ValueError, match="share the sequence dim S"):
        scaled_dot_product_attention(np.ones((2, 3)), np.ones((2, 3)), np.ones((5, 3)))
    with pytest.raises(ValueError, match="not both"):
        scaled_dot_product_attention(
            np.ones((2, 3)), np.ones((2, 3)), np.ones((2, 3)), attn_mask=np.ones((2, 2), bool), is_causal=True
        )


@given(
    arrays(
        np.float64,
        st.integers(0, 130),  # both sides of the 64-element switch to numpy
        elements=st.sampled_from([0.0, -1.5, 2.0, np.inf, -np.inf, np.nan, -0.0]),
    )
)
@settings(max_examples=300, deadline=None)
def test_has_neginf_agrees_with_numpy(x):
    from attention_engine.core import has_neginf

    assert has_neginf(x) == bool(np.isneginf(x).any())
    assert has_neginf(x.reshape(1, -1)) == has_neginf(x)
