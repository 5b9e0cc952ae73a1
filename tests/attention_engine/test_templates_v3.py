"""What the versions of issue 25 offer, template by template: every distractor is the named mistake,
recomputed here in plain numpy (or arithmetic) from the numbers the variant shows.

(How the options avoid the cues is tested in test_choice_cues.py.)
"""

import math
from functools import cache

import numpy as np
import pytest

from attention_engine import generators
from attention_engine.misconceptions import MISCONCEPTIONS

SEEDS = range(150)


@cache
def variants(name: str, **params) -> tuple:
    return tuple(generators.generate(name, seed, **params) for seed in SEEDS)


def offered(v) -> dict:
    return {c.misconception: c.value for c in v.choices if c.misconception}


def shown(x, decimals=2):
    """A value as an option shows it: rounded like the answer."""
    return np.round(np.asarray(x, dtype=float), decimals)


def assert_offered(v, expected: dict, decimals=2):
    """Every offered distractor is one of ``expected`` (misconception -> value) and shows that value."""
    for m, value in offered(v).items():
        assert m in expected, (v.seed, m)
        assert m in MISCONCEPTIONS
        assert np.allclose(value, shown(expected[m], decimals), atol=0.5 * 10.0**-decimals + 1e-9), (v.seed, m)


def softmax_rows(s):
    s = np.asarray(s, dtype=float)
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def causal(s):
    T = len(s)
    return np.where(np.arange(T)[None, :] <= np.arange(T)[:, None], s, -np.inf)


def seen_by_all(vs) -> set:
    return {m for v in vs for m in offered(v)}


# --- attention_row_weights v3 --------------------------------------------------------------------


@pytest.mark.parametrize("is_causal", [False, True])
def test_row_weights_distractors(is_causal):
    vs = variants("attention_row_weights", is_causal=is_causal)
    for v in vs:
        Q, K = np.array(v.given["Q"]), np.array(v.given["K"])
        T, d = K.shape
        i = v.given["query"] - 1
        mask = causal if is_causal else (lambda s: s)

        def row(scores, i=i, mask=mask):
            return softmax_rows(mask(scores))[i]

        dots = Q @ K.T
        by_cols = np.exp(mask(dots / math.sqrt(d)) - mask(dots / math.sqrt(d)).max(axis=0))
        by_cols = by_cols / by_cols.sum(axis=0)  # each column sums to 1 ...
        expected = {
            "scores_transposed": row(dots.T / math.sqrt(d)),
            "missing_scale": row(dots),
            "divide_by_dk": row(dots / d),
            "scale_inverted": row(dots * math.sqrt(d)),
            "scale_uses_seq_len": row(dots / math.sqrt(T)),
            "softmax_wrong_axis_renormalised": (by_cols / by_cols.sum(axis=1, keepdims=True))[i],  # ... then rows
        }
        if not is_causal:
            expected["wrong_query_row"] = softmax_rows(dots / math.sqrt(d))[i + 1 if i < T - 1 else i - 1]
        assert_offered(v, expected)
        assert np.allclose(v.answer, row(dots / math.sqrt(d)))
    assert seen_by_all(vs) == set(expected)  # every one of them offered somewhere, nothing else


# --- causal_masked_weights and mask_fill_zero_contrast v3: raw dot products and d_k ---------------


def test_causal_weights_scale_the_raw_dot_products_first():
    vs = variants("causal_masked_weights")
    for v in vs:
        dots, d = np.array(v.given["dots"]), v.given["d_k"]
        T = len(dots)
        assert d in (4, 9, 16) and "还没有除以" in v.prompt and f"d_k = {d}" in v.prompt
        assert np.allclose(dots * 10 / math.sqrt(d), np.round(dots * 10 / math.sqrt(d)))  # scaled: tenths
        cols = np.exp(causal(dots / math.sqrt(d)) - causal(dots / math.sqrt(d)).max(axis=0))
        cols = cols / cols.sum(axis=0)
        expected = {
            "missing_scale": softmax_rows(causal(dots)),
            "divide_by_dk": softmax_rows(causal(dots / d)),
            "scale_inverted": softmax_rows(causal(dots * math.sqrt(d))),
            "scale_uses_seq_len": softmax_rows(causal(dots / math.sqrt(T))),
            "scores_transposed": softmax_rows(causal(dots.T / math.sqrt(d))),
            "softmax_wrong_axis_renormalised": cols / cols.sum(axis=1, keepdims=True),
        }
        assert_offered(v, expected)
        assert np.allclose(v.answer, softmax_rows(causal(dots / math.sqrt(d))))
    assert seen_by_all(vs) == set(expected)


def test_mask_fill_zero_keeps_a_share_for_every_filled_key():
    vs = variants("mask_fill_zero_contrast")
    for v in vs:
        dots, d, i = np.array(v.given["dots"]), v.given["d_k"], v.given["query"] - 1
        T = len(dots)

        def filled(row, last, T=T):  # the 0-fill after key ``last`` (0-based), then the softmax
            return softmax_rows(np.where(np.arange(T) <= last, row, 0.0))

        expected = {
            "missing_scale": filled(dots[i], i),
            "divide_by_dk": filled(dots[i] / d, i),
            "scale_inverted": filled(dots[i] * math.sqrt(d), i),
            "scale_uses_seq_len": filled(dots[i] / math.sqrt(T), i),
            "scores_transposed": filled(dots[:, i] / math.sqrt(d), i),
            "wrong_query_row": filled(dots[i - 1] / math.sqrt(d), i - 1),
        }
        assert_offered(v, expected)
        assert np.allclose(v.answer, filled(dots[i] / math.sqrt(d), i))
        assert "zero_means_masked" not in offered(v)  # the -inf row: 0.00 where e^0 = 1 gives a share
    assert seen_by_all(vs) >= {"missing_scale", "divide_by_dk", "scale_inverted", "scale_uses_seq_len"}


# --- the Monte Carlo pair: the mistakes change one part, the other equals the answer's --------------


def test_dot_product_variance_distractors():
    for v in variants("dot_product_variance", n_samples=100):
        var, var_s = v.answer  # the simulated variances, unscaled and scaled
        d = v.given["d_k"]
        first = {"std_for_variance": math.sqrt(var), "dot_unit_variance": var / d, "stds_added": var * d}
        second = {"missing_scale": var, "divide_by_dk": var_s / d, "variance_scales_linearly": var / math.sqrt(d)}
        for m, (a, b) in offered(v).items():
            if m in first:  # the first part wrong, the second as simulated
                assert b == round(var_s, 2) and a == pytest.approx(first[m], rel=0.01, abs=0.006)
            else:
                assert a == round(var, 2) and b == pytest.approx(second[m], rel=0.01, abs=0.006)
        groups = {m in first for m in offered(v)}
        assert len(groups) == 1  # one group per variant: the other part reads the same in every option


def test_softmax_sharpness_distractors():
    for v in variants("softmax_sharpness", n_rows=100):
        unscaled, scaled = v.answer
        for m, (a, b) in offered(v).items():
            if m == "std_for_variance":  # sd d_k: scaled by 1/√d_k it is the answer's unscaled case
                assert b == round(unscaled, 3) and a >= round(unscaled, 3)
            elif m == "dot_unit_variance":  # variance 1: unscaled it is the answer's scaled case
                assert a == round(scaled, 3) and b <= round(scaled, 3)
            else:  # another scale for the second part
                assert m in ("missing_scale", "divide_by_dk", "scale_inverted", "scale_uses_seq_len")
                assert a == round(unscaled, 3)
                if m == "missing_scale":
                    assert b == round(unscaled, 3)


# --- counts ---------------------------------------------------------------------------------------


def test_bert_gpt_positions_distractors():
    vs = variants("bert_gpt_positions")
    for v in vs:
        n, r = v.given["n_tokens"], v.given["mask_rate"]
        bert = {"bert_all_positions": n, "bert_unmasked_positions": n * (1 - r), "bert_mask_token_only": 0.8 * n * r}
        gpt = {"gpt_all_positions": n, "gpt_last_position_only": 1}
        expected = {**{m: [b, n - 1] for m, b in bert.items()}, **{m: [n * r, g] for m, g in gpt.items()}}
        assert_offered(v, expected, decimals=0)
        assert len({m in bert for m in offered(v)}) == 1  # all about BERT, or all about GPT
    assert seen_by_all(vs) == set(expected)


def test_kv_cache_savings_distractors():
    vs = variants("kv_cache_savings")
    for v in vs:
        n = v.given["n_steps"]
        w = n * (n + 1) // 2

        def row(without, with_cache):
            return [without, with_cache, 100 * (1 - with_cache / without)]

        expected = {
            "kv_count_attention_scores": row(sum(t * t for t in range(1, n + 1)), w),
            "kv_count_n_squared": row(n * n, n),
            "kv_counted_twice": row(2 * w, 2 * n),
            "triangular_not_halved": row(n * (n + 1), n),
            "kv_steps_off_by_one": row(n * (n - 1) // 2, n - 1),
        }
        assert_offered(v, expected, decimals=0)
    assert seen_by_all(vs) >= set(expected) - {"kv_counted_twice"}


def test_nanogpt_param_count_distractors_change_both_counts():
    vs = variants("nanogpt_param_count")
    for v in vs:
        C, nh, b = v.given["C"], v.given["n_head"], int(v.given["bias"])
        right = [3 * C * C + 3 * C * b, C * C + C * b]
        expected = {
            "bias_miscount": [3 * C * C + 3 * C * (1 - b), C * C + C * (1 - b)],
            "params_scale_with_heads": [nh * x for x in right],
            "one_head_only": [x / nh for x in right],
        }
        assert v.answer == right
        assert_offered(v, expected, decimals=0)
    assert seen_by_all(vs) == set(expected)


def test_rnn_gradient_decay_distractors():
    vs = variants("rnn_gradient_decay")
    for v in vs:
        f, n = v.given["factor"], v.given["n_steps"]
        expected = {
            "exponent_off_by_one": f ** (n - 1),
            "exponent_counts_the_start": f ** (n + 1),
            "gradient_linear_decay": 1 - n * (1 - f),
            "gradient_lost_fraction": 1 - f**n,
            "gradient_factor_as_loss": (1 - f) ** n,  # version 4: the factor taken as the part lost per step
        }
        for m, value in offered(v).items():
            assert value == pytest.approx(expected[m], rel=0.005)
        assert len(v.choices) == 3
    assert seen_by_all(vs) == set(expected)


def test_attention_matrix_memory_counts_elements_as_one_more_mistake():
    vs = variants("attention_matrix_memory")
    assert "memory_counts_elements" in seen_by_all(vs)
    for v in vs:
        nbytes = {"float16": 2, "bfloat16": 2, "float32": 4, "float64": 8}[v.given["dtype"]]
        if "memory_counts_elements" in offered(v):
            full = v.given["B"] * v.given["n_head"] * v.given["T"] ** 2 / 2**20  # elements, in Mi
            assert offered(v)["memory_counts_elements"][0] == pytest.approx(full, rel=0.01, abs=0.006)
            assert v.answer[0] == pytest.approx(full * nbytes)


def test_kv_cache_memory_of_a_70b_sized_model_always_offers_n_head():
    """80 layers, 64 query heads sharing 8 K/V heads, head size 128, 4096 tokens, float16, B = 1: 1.25 GiB."""
    params = {"n_layer": 80, "n_head": 64, "n_kv_head": 8, "head_size": 128, "T": 4096, "B": 1, "dtype": "float16"}
    seen = set()
    for seed in range(40):
        v = generators.generate("kv_cache_memory", seed, version=2, **params)
        assert v.answer == [1.25, 8]
        wrong = offered(v)
        assert wrong["kv_ignores_gqa"] == [10.0, 8]  # 64 K/V heads instead of 8
        # 0.625 GiB shows as 0.62 (K or V only, and elements not bytes: the same number, one of them kept);
        # 1.34 "GiB" is 1.25 · 2^30 / 10^9; 0.02 GiB one layer; B = 1, so no "forgot the batch"
        expected = {
            "kv_ignores_gqa": [10.0, 8],
            "kv_forgot_two": [0.62, 8],
            "memory_counts_elements": [0.62, 8],
            "mib_as_mb": [1.34, 8],
            "kv_forgot_layers": [0.02, 8],
            "dtype_bits_as_bytes": [10.0, 8],
        }
        assert all(expected[m] == value for m, value in wrong.items())
        seen |= set(wrong)
    assert seen == {"kv_ignores_gqa", "kv_forgot_two", "mib_as_mb", "kv_forgot_layers"} | (
        seen & {"memory_counts_elements"}
    )


# --- softmax ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("version", [2, 3])  # 3: version 2 in plain python (issue 25, speed)
def test_online_softmax_rescaled_new_tile(version):
    vs = variants("online_softmax", version=version)
    assert "online_rescaled_new_tile" in seen_by_all(vs)
    for v in vs:
        g = v.given
        m_1, l_1, s_j = g["m_1"], g["l_1"], g["tile_1"][g["key"] - 1]
        m_2 = max(g["tile_2"])
        new = sum(math.exp(s - m_2) for s in g["tile_2"])
        ell = l_1 + math.exp(m_1 - m_2) * new
        wrong = offered(v)
        if "online_rescaled_new_tile" in wrong:
            assert wrong["online_rescaled_new_tile"] == pytest.approx(
                [m_2, ell, math.exp(s_j - m_2) / ell], abs=0.005001
            )


@pytest.mark.parametrize("version", [2, 3])  # 3: version 2 in plain python (issue 25, speed)
def test_stable_softmax_overflows_at_one_logit_and_scales_the_logits_in_its_mistakes(version):
    limit = {"float32": math.log(np.finfo(np.float32).max), "float64": math.log(np.finfo(np.float64).max)}
    vs = variants("stable_softmax", version=version)
    for v in vs:
        x = np.array(v.given["x"])
        clamp = math.floor(limit[v.given["dtype"]])
        assert (x > limit[v.given["dtype"]]).sum() == 1 and np.sort(x)[-2] < clamp
        c = np.minimum(x, clamp)
        expected = {
            "clamp_logits": softmax_rows(c),
            "standardised_logits": softmax_rows((x - x.mean()) / x.std()),
            "minmax_scaled_logits": softmax_rows((x - x.min()) / (x.max() - x.min())),
        }
        assert_offered(v, expected)
        assert len(v.choices) == 3
    assert seen_by_all(vs) == set(expected)


# --- shapes -----------------------------------------------------------------------------------------


def test_five_step_shapes_pairs_mistakes_that_change_the_same_shapes():
    vs = variants("five_step_shapes")
    for v in vs:
        T, dm, dk, dv = (v.given[k] for k in ("T", "d_model", "d_k", "d_v"))
        right = [[T, dk], [T, dk], [T, dv], [T, T], [T, T], [T, dv]]

        def but(right=right, **changed):
            names = ("Q", "K", "V", "S", "W", "O")
            return [changed.get(n, r) for n, r in zip(names, right, strict=True)]

        expected = {
            "transposed_product": but(S=[dk, dk], W=[dk, dk]),
            "elementwise_scores": but(S=[T, dk], W=[T, dk]),
            "dv_equals_dk": but(V=[T, dk], O=[T, dk]),
            "value_is_input": but(V=[T, dm], O=[T, dm]),
            "output_width_d_model": but(O=[T, dm]),
            "output_is_weights": but(O=[T, T]),
            "shape_keeps_d_model": but(Q=[T, dm], K=[T, dm], V=[T, dm], O=[T, dm]),
        }
        assert v.answer == right
        assert_offered(v, expected, decimals=0)
        a, b = offered(v).values()
        assert [x != r for x, r in zip(a, right, strict=True)] == [x != r for x, r in zip(b, right, strict=True)]
    assert seen_by_all(vs) >= set(expected) - {"shape_keeps_d_model"}


def test_nanogpt_shapes_new_mistakes():
    for ask in ("hs", "q", "att", "y", "c_attn"):
        for v in variants("nanogpt_shapes", ask=ask):
            B, T, C, nh = (v.given[k] for k in ("B", "T", "C", "n_head"))
            hs = C // nh
            new = {
                "hs": {"qkv_split_forgotten": 3 * hs},
                "q": {"split_wrong_order": [B, hs, T, nh], "qkv_split_forgotten": [B, nh, T, 3 * hs]},
                "att": {"split_wrong_order": [B, hs, T, T]},
                "y": {"qkv_split_forgotten": [B, T, 3 * C]},
                "c_attn": {"one_head_only": 3 * hs},
            }[ask]
            for m, value in offered(v).items():
                if m in new:
                    assert value == new[m], (ask, v.seed, m)
            assert len(v.choices) == 3


def test_nanogpt_shapes_version_4_mistakes_and_block_size():
    """Version 4 (the options balanced on their sizes) adds the mask buffer's size, one table shared by
    the heads and one head of width C; the prompt gives block_size, always larger than T."""
    seen = set()
    for ask in ("q", "att"):
        for v in variants("nanogpt_shapes", ask=ask):
            B, T, C, nh, bs = (v.given[k] for k in ("B", "T", "C", "n_head", "block_size"))
            assert bs > T and f"`block_size` $= {bs}$" in v.prompt
            new = {
                "q": {"single_head_of_width_c": [B, 1, T, C]},
                "att": {"att_block_size": [B, nh, bs, bs], "heads_share_weights": [B, 1, T, T]},
            }[ask]
            for m, value in offered(v).items():
                if m in new:
                    assert value == new[m], (ask, v.seed, m)
                    seen.add(m)
    assert seen == {"single_head_of_width_c", "att_block_size", "heads_share_weights"}
