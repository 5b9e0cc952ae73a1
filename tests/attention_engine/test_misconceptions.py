"""Each misconception is the correct attention with exactly one named step replaced by the bug."""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from attention_engine import misconceptions, scaled_dot_product_attention, softmax
from attention_engine.misconceptions import ATTENTION_IDS, MISCONCEPTIONS, correct_weights

REQUIRED = {
    "missing_scale",
    "divide_by_dk",
    "softmax_wrong_axis",
    "mask_fill_zero",
    "mask_after_softmax",
    "no_max_subtraction",
}
SCORE_BUGS = [m for m in ATTENTION_IDS if MISCONCEPTIONS[m].normalise is not None]

small = st.floats(-3, 3, allow_nan=False, allow_infinity=False)


def qkv(T: int, d: int, seed: int = 0, batch: tuple = ()):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((3, *batch, T, d))


def test_the_contract_ids_exist_with_both_languages():
    assert set(ATTENTION_IDS) >= REQUIRED
    for m in MISCONCEPTIONS.values():
        assert m.id and m.title_zh and m.title_en and m.explanation_zh and m.explanation_en
        assert "\n" not in m.explanation_zh + m.explanation_en  # one line each
        assert misconceptions.get(m.id) is m


def test_unknown_id_names_the_known_ones():
    with pytest.raises(KeyError, match="missing_scale"):
        misconceptions.get("nope")


def test_correct_weights_match_the_core_attention():
    q, k, v = qkv(4, 3, batch=(2,))
    _, expected = scaled_dot_product_attention(q, k, v, is_causal=True, return_weights=True)
    assert np.allclose(correct_weights(q @ k.swapaxes(-2, -1) / np.sqrt(3), is_causal=True), expected)


@pytest.mark.parametrize(("bug", "scale"), [("missing_scale", lambda d: 1.0), ("divide_by_dk", lambda d: 1.0 / d)])
@pytest.mark.parametrize("is_causal", [False, True])
def test_scale_bugs_are_attention_with_another_scale(bug, scale, is_causal):
    q, k, v = qkv(5, 4, batch=(2, 3))
    out, w = misconceptions.get(bug).attention(q, k, v, is_causal)
    ref_out, ref_w = scaled_dot_product_attention(q, k, v, is_causal=is_causal, scale=scale(4), return_weights=True)
    assert out.shape == (2, 3, 5, 4) and w.shape == (2, 3, 5, 5)
    assert np.allclose(out, ref_out) and np.allclose(w, ref_w)


def test_scale_bugs_do_not_act_on_given_scores():
    with pytest.raises(ValueError, match="missing_scale"):
        misconceptions.get("missing_scale").weights_from_scores(np.zeros((2, 2)))


def test_arithmetic_misconceptions_have_no_attention_computation():
    m = misconceptions.get("kv_count_attention_scores")
    assert not m.is_attention
    with pytest.raises(ValueError, match="not a bug in the attention"):
        m.weights(np.zeros((2, 2)), np.zeros((2, 2)))


@given(arrays(np.float64, st.tuples(st.integers(2, 5), st.integers(2, 5)), elements=small))
def test_wrong_axis_normalises_columns(scores):
    w = misconceptions.get("softmax_wrong_axis").weights_from_scores(scores)
    assert np.allclose(w.sum(axis=0), 1.0)
    assert np.allclose(w, softmax(scores, axis=0))


@given(arrays(np.float64, st.tuples(st.integers(2, 5), st.just(5)), elements=small).map(lambda a: a[:, : a.shape[0]]))
def test_fill_zero_keeps_weight_on_the_future(scores):
    T = len(scores)
    w = misconceptions.get("mask_fill_zero").weights_from_scores(scores, is_causal=True)
    future = np.triu(np.ones((T, T), dtype=bool), k=1)
    assert np.allclose(w.sum(axis=-1), 1.0)
    assert np.all(w[future] > 0)  # e^0 = 1: never ignored
    expected = softmax(np.where(future, 0.0, scores))
    assert np.allclose(w, expected)


@given(arrays(np.float64, st.tuples(st.integers(2, 5), st.just(5)), elements=small).map(lambda a: a[:, : a.shape[0]]))
def test_mask_after_softmax_leaves_rows_summing_to_less_than_one(scores):
    T = len(scores)
    w = misconceptions.get("mask_after_softmax").weights_from_scores(scores, is_causal=True)
    sums = w.sum(axis=-1)
    assert np.all(sums[:-1] < 1.0) and np.isclose(sums[-1], 1.0)  # only the last row has nothing masked
    assert np.allclose(w, np.tril(softmax(scores)))
    assert np.all(w[np.triu(np.ones((T, T), dtype=bool), k=1)] == 0.0)


def test_missing_causal_mask_and_missing_softmax():
    s = np.array([[0.5, 1.0], [0.2, -0.4]])
    assert np.allclose(misconceptions.get("missing_causal_mask").weights_from_scores(s, True), softmax(s))
    assert np.allclose(misconceptions.get("missing_softmax").weights_from_scores(s, True), [[0.5, 0.0], [0.2, -0.4]])


def test_no_max_subtraction_overflows_to_nan_quietly():
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the bug must not spam warnings either
        w = misconceptions.get("no_max_subtraction").weights_from_scores(np.array([[1000.0, 999.0, 0.0]]))
    assert np.isnan(w).any()
    assert np.allclose(correct_weights(np.array([[1000.0, 999.0, 0.0]])).sum(), 1.0)


# bugs that are not about the mask, so they change the weights with or without one
NOT_MASK_BUGS = (
    "softmax_wrong_axis",
    "missing_softmax",
    "scores_transposed",
    "softmax_wrong_axis_renormalised",
    "unneeded_causal_mask",
    "softmax_as_argmax",
)


@settings(max_examples=50)
@given(
    st.sampled_from([m for m in SCORE_BUGS if m not in NOT_MASK_BUGS]),
    arrays(np.float64, st.tuples(st.integers(1, 4), st.integers(1, 4)), elements=small),
)
def test_mask_bugs_change_nothing_without_a_mask(bug, scores):
    """Without causality there is nothing to mask (and small scores cannot overflow)."""
    w = misconceptions.get(bug).weights_from_scores(scores, is_causal=False)
    assert np.allclose(w, softmax(scores))


square = st.integers(2, 5).flatmap(lambda T: arrays(np.float64, (T, T), elements=small))


def looks_like_causal_weights(w: np.ndarray) -> bool:
    """What a learner checks without computing: non-negative, rows sum to 1, zeros above the diagonal."""
    T = len(w)
    future = np.triu(np.ones((T, T), dtype=bool), 1)
    return bool((w >= 0).all() and np.allclose(w.sum(-1), 1) and (w[future] == 0).all())


@given(square)
def test_roles_swapped_is_the_masked_softmax_of_the_transposed_scores(scores):
    w = misconceptions.get("scores_transposed").weights_from_scores(scores, is_causal=True)
    assert np.allclose(w, correct_weights(scores.T, is_causal=True))
    assert looks_like_causal_weights(w)


@given(square)
def test_wrong_axis_renormalised_sums_to_one_per_row_and_keeps_the_mask(scores):
    w = misconceptions.get("softmax_wrong_axis_renormalised").weights_from_scores(scores, is_causal=True)
    column_softmax = misconceptions.get("softmax_wrong_axis").weights_from_scores(scores, is_causal=True)
    assert np.allclose(w, column_softmax / column_softmax.sum(-1, keepdims=True))
    assert looks_like_causal_weights(w)


@given(square)
def test_mask_hiding_the_diagonal_zeros_the_token_itself(scores):
    w = misconceptions.get("mask_hides_diagonal").weights_from_scores(scores, is_causal=True)
    T = len(scores)
    assert np.all(w[np.triu(np.ones((T, T), dtype=bool))] == 0)  # j >= i hidden, the diagonal too
    assert np.all(w[0] == 0) and np.allclose(w[1:].sum(-1), 1)  # row 1 sees nothing at all
    assert np.allclose(w[1:], correct_weights(np.where(np.eye(T, dtype=bool), -np.inf, scores), True)[1:])


@given(square)
def test_argmax_gives_one_hot_rows_at_the_largest_visible_score(scores):
    w = misconceptions.get("softmax_as_argmax").weights_from_scores(scores, is_causal=True)
    assert looks_like_causal_weights(w) and set(np.unique(w)) <= {0.0, 1.0}
    masked = np.where(np.tril(np.ones_like(scores, dtype=bool)), scores, -np.inf)
    assert np.array_equal(w.argmax(-1), masked.argmax(-1))


def test_a_mask_nobody_asked_for_is_the_causal_weights():
    s = np.array([[0.5, 1.0], [0.2, -0.4]])
    assert np.allclose(
        misconceptions.get("unneeded_causal_mask").weights_from_scores(s, False), correct_weights(s, is_causal=True)
    )


def test_tile_not_block_size_in_the_blockwise_explanation():
    m = misconceptions.get("blockwise_materialises_full")
    assert "tile" in m.explanation_zh and "tile_size" in m.explanation_en
    assert "block_size" not in m.explanation_zh + m.explanation_en


@pytest.mark.parametrize("bug", ATTENTION_IDS)
def test_every_attention_bug_keeps_the_shapes_of_the_real_thing(bug):
    q, k, v = qkv(4, 2, seed=3, batch=(2,))
    out, w = misconceptions.get(bug).attention(q, k, v, is_causal=True)
    assert out.shape == (2, 4, 2) and w.shape == (2, 4, 4)


def test_describe_gives_texts_for_known_ids_and_keeps_unknown_ids_displayable():
    from attention_engine.misconceptions import describe

    known = describe("missing_scale")
    assert known["id"] == "missing_scale" and "√d_k" in known["title_zh"] and known["explanation_en"]
    assert describe("retired_in_a_later_version") == {"id": "retired_in_a_later_version"}
    assert describe(None) is None and describe("") is None
