"""The speed versions (issue 25's 5,000 variants/s): the same questions as the version before, computed in
plain python instead of numpy on their handful of numbers.

For every seed the new version shows what the old one showed (the same inputs, prompt and options), and
its numbers (answer, worked steps, distractors) agree with numpy recomputing them here from the shown
inputs, to float precision: math.exp and np.exp may differ in the last bit.
"""

import math
from functools import cache

import numpy as np
import pytest

from attention_engine import generators

SEEDS = range(300)
TIGHT = 1e-12  # float precision on numbers of order 1 (the l_1 of online_softmax is exact: shown to 3 dp)
# (template, the version it speeds up, the speed version, params as the lessons give them)
SPEED_VERSIONS = [
    ("stable_softmax", 2, 3, ()),
    ("online_softmax", 2, 3, ()),
    ("attention_row_weights", 3, 4, ()),
    ("attention_row_weights", 3, 4, (("is_causal", True),)),
    ("attention_output", 2, 3, ()),
    ("attention_output", 2, 3, (("is_causal", True),)),
    ("attention_output", 2, 3, (("example", "wo_chi"),)),
    ("causal_masked_weights", 3, 4, ()),
    ("causal_masked_weights", 3, 4, (("T", 3),)),
    ("causal_masked_weights", 3, 4, (("example", "wo_ai_ni"),)),
    ("mask_fill_zero_contrast", 3, 4, ()),
    ("mask_fill_zero_contrast", 3, 4, (("T", 4),)),
    ("mask_fill_zero_contrast", 3, 4, (("example", "wo_ai_ni"),)),
    ("five_step_shapes", 3, 4, ()),
]
IDS = [f"{name}-v{new}" + "".join(f"-{k}={v}" for k, v in params) for name, _, new, params in SPEED_VERSIONS]


@cache
def variants(name: str, version: int, params: tuple = ()) -> tuple:
    return tuple(generators.generate(name, seed, version=version, **dict(params)) for seed in SEEDS)


def close(a, b) -> bool:
    """Equal to float precision; a masked score (None, numpy's -inf) only where the other has one too."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return a.shape == b.shape and np.allclose(a, b, rtol=TIGHT, atol=TIGHT, equal_nan=True)


@pytest.mark.parametrize(("name", "old", "new", "params"), SPEED_VERSIONS, ids=IDS)
def test_the_speed_version_shows_what_the_version_before_showed(name, old, new, params):
    assert generators.get(name).version == new  # the default for new questions
    for before, after in zip(variants(name, old, params), variants(name, new, params), strict=True):
        assert after.version == new and after.seed == before.seed
        assert after.given == before.given and after.prompt == before.prompt
        assert after.answer_format == before.answer_format
        assert [c.to_dict() for c in after.choices] == [c.to_dict() for c in before.choices]
        assert close(after.answer, before.answer)
        for s_after, s_before in zip(after.solution, before.solution, strict=True):
            assert (s_after.name, s_after.formula, s_after.shape) == (s_before.name, s_before.formula, s_before.shape)
            assert s_after.misconception == s_before.misconception
            assert (s_after.value is None) == (s_before.value is None)
            if s_after.value is not None:
                assert close(s_after.value, s_before.value)


def softmax(x):
    e = np.exp(x - x.max())
    return e / e.sum()


def test_stable_softmax_v3_numbers_are_numpys():
    for v in variants("stable_softmax", 3):
        x = np.array(v.given["x"])  # (n,)
        e = np.exp(x - x.max())
        shifted, exps, total, weights = (s.value for s in v.solution[1:])
        assert close(shifted, x - x.max()) and close(exps, e) and close(total, e.sum()) and close(weights, e / e.sum())
        assert close(v.answer, softmax(x))
        limit = math.log(np.finfo(v.given["dtype"]).max)
        clamp = math.floor(limit)
        expected = {
            "clamp_logits": softmax(np.minimum(x, clamp)),
            "standardised_logits": softmax((x - x.mean()) / x.std()),
            "minmax_scaled_logits": softmax((x - x.min()) / (x.max() - x.min())),
        }
        for c in v.choices:
            shown = np.round(expected[c.misconception], 2) if c.misconception else np.round(softmax(x), 2)
            assert np.allclose(c.value, shown, atol=0.005 + 1e-9), (v.seed, c.misconception)


def test_online_softmax_v3_numbers_are_numpys():
    for v in variants("online_softmax", 3):
        g = v.given
        t1, t2 = np.array(g["tile_1"]), np.array(g["tile_2"])  # (n,) each
        assert g["m_1"] == t1.max() and g["l_1"] == round(float(np.exp(t1 - t1.max()).sum()), 3)
        m_2 = max(g["m_1"], t2.max())
        new = np.exp(t2 - m_2)  # (n,)
        l_2 = g["l_1"] * np.exp(g["m_1"] - m_2) + new.sum()
        w = np.exp(t1[g["key"] - 1] - m_2) / l_2
        values = [s.value for s in v.solution]
        assert close(values[0], [g["m_1"], g["l_1"]]) and values[1] == m_2
        assert close(values[2], g["l_1"] * np.exp(g["m_1"] - m_2)) and close(values[3], new)
        assert close(values[4], l_2) and close(values[5], w)
        assert close(v.answer, [m_2, l_2, w])


# --- the weight-table templates: their numbers against numpy's own softmax and misconceptions ----------


def np_softmax_rows(scores, visible):
    """Row softmax (numpy) of scores (T, T) over the keys where ``visible`` is True, 0 elsewhere."""
    z = np.where(visible, scores, -np.inf)
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


ROW_BUGS = [
    "missing_scale",
    "divide_by_dk",
    "scale_inverted",
    "scores_transposed",
    "softmax_wrong_axis",
    "softmax_wrong_axis_renormalised",
    "mask_hides_diagonal",
    "unneeded_causal_mask",
    "mask_fill_zero",
    "mask_after_softmax",
    "missing_causal_mask",
]


@pytest.mark.parametrize("causal", [False, True])
def test_the_plain_rows_are_the_misconceptions_numpy_rows(causal):
    """rows.row_with_bug against misconceptions.py (numpy) on random dot products, every bug, every row."""
    from attention_engine import misconceptions
    from attention_engine.generators.rows import row_with_bug

    rng = np.random.default_rng(25)
    for _ in range(200):
        T, d_k = int(rng.integers(2, 5)), int(rng.integers(2, 5))
        dots = rng.integers(-30, 31, size=(T, T)) / 10  # (T, T)
        for bug in ROW_BUGS:
            table = misconceptions.get(bug).weights_from_dots(dots, d_k, causal)  # (T, T)
            for i in range(T):
                assert close(row_with_bug(bug, dots.tolist(), d_k, i, causal), table[i]), (bug, T, d_k, i)
        right = np_softmax_rows(dots / np.sqrt(d_k), np.tril(np.ones((T, T), bool)) | (not causal))
        for i in range(T):
            r = i - 1 if causal or i == T - 1 else i + 1
            assert close(row_with_bug("wrong_query_row", dots.tolist(), d_k, i, causal), right[r])
            seen = np.arange(T) <= i if causal else np.ones(T, bool)
            by_seq_len = np_softmax_rows(dots[i] / np.sqrt(T), seen)
            assert close(row_with_bug("scale_uses_seq_len", dots.tolist(), d_k, i, causal), by_seq_len)


@pytest.mark.parametrize("params", [(), (("T", 3),)])
def test_causal_masked_weights_v4_numbers_are_numpys(params):
    for v in variants("causal_masked_weights", 4, params):
        dots, d_k = np.array(v.given["dots"]), v.given["d_k"]  # (T, T)
        T = len(dots)
        lower = np.tril(np.ones((T, T), bool))
        S = dots / np.sqrt(d_k)
        assert close(v.answer, np_softmax_rows(S, lower))
        assert close(v.solution[0].value, S)
        by_column = np_softmax_rows(S.T, lower.T).T  # softmax down each key column of the masked S
        expected = {
            "missing_scale": np_softmax_rows(dots, lower),
            "divide_by_dk": np_softmax_rows(dots / d_k, lower),
            "scale_inverted": np_softmax_rows(dots * np.sqrt(d_k), lower),
            "scale_uses_seq_len": np_softmax_rows(dots / np.sqrt(T), lower),
            "scores_transposed": np_softmax_rows(S.T, lower),
            "softmax_wrong_axis_renormalised": by_column / by_column.sum(axis=-1, keepdims=True),
            None: np_softmax_rows(S, lower),
        }
        for c in v.choices:
            assert np.allclose(c.value, np.round(expected[c.misconception], 2), atol=0.005 + 1e-9), (v.seed, c)


@pytest.mark.parametrize("params", [(), (("is_causal", True),)])
def test_attention_output_v3_numbers_are_numpys(params):
    for v in variants("attention_output", 3, params):
        Q, K, V = (np.array(v.given[n]) for n in ("Q", "K", "V"))
        T, d_k = K.shape
        i = v.given["query"] - 1
        seen = np.arange(T) <= i if v.given["is_causal"] else np.ones(T, bool)
        w = np_softmax_rows(K @ Q[i] / np.sqrt(d_k), seen)  # (T,)
        assert close(v.solution[-2].value, w) and close(v.answer, w @ V)


def test_mask_fill_zero_contrast_v4_numbers_are_numpys():
    for v in variants("mask_fill_zero_contrast", 4):
        dots, d_k, i = np.array(v.given["dots"]), v.given["d_k"], v.given["query"] - 1
        T = len(dots)
        S = dots / np.sqrt(d_k)
        filled = np.where(np.arange(T) <= i, S[i], 0.0)
        w = np.exp(filled - filled.max()) / np.exp(filled - filled.max()).sum()
        assert close(v.answer, w) and close(v.solution[-1].value, w[i + 1 :].sum())


def test_five_step_shapes_v4_shapes():
    for v in variants("five_step_shapes", 4):
        T, d_k, d_v = v.given["T"], v.given["d_k"], v.given["d_v"]
        assert v.answer == [[T, d_k], [T, d_k], [T, d_v], [T, T], [T, T], [T, d_v]]
