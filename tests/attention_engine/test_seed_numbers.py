"""Every number the seed documents print that a template computes, checked against the printed value.

Expected values are copied from shared/seeds/*.txt (quoted next to each test), not from our output.
The engine computes at full precision and these tests round as the seed does.
"""

import numpy as np
import pytest

from attention_engine import CausalSelfAttention, generators
from attention_engine.generators import grade

# 001, question 2: "我吃", d_k = 2
WO_CHI = {
    "Q": [[0.6, 0.2], [0.3, 0.9]],
    "K": [[0.4, 0.7], [0.1, 0.5]],
    "V": [[0.8, 0.3], [0.6, 0.2]],
    "query": 1,  # "我"去看"我"和"吃"
    "is_causal": False,
}


def steps(solution) -> dict:
    return {s.name: np.asarray(s.value, dtype=float) for s in solution.steps}


def test_001_two_word_example_scores_weights_and_output():
    """Q我·K我 = 0.38, Q我·K吃 = 0.16; ÷√2 → 0.27 和 0.11; softmax → [0.54, 0.46]; 输出 ≈ [0.71, 0.25]."""
    solution = generators.get("attention_output", version=1).solve(WO_CHI)
    shown = steps(solution)
    assert np.round(shown["点积分数"], 2).tolist() == [0.38, 0.16]
    assert np.round(shown["缩放"], 2).tolist() == [0.27, 0.11]
    assert np.round(shown["softmax"], 2).tolist() == [0.54, 0.46]
    assert np.round(solution.answer, 2).tolist() == [0.71, 0.25]
    # the seed's own hand computation, 0.54×[0.8, 0.3] + 0.46×[0.6, 0.2], is printed in the worked step
    assert r"0.54 \times [0.8,\ 0.3] + 0.46 \times [0.6,\ 0.2]" in solution.steps[-1].formula


def test_001_two_word_example_weights_template():
    solution = generators.get("attention_row_weights").solve({k: WO_CHI[k] for k in ("Q", "K", "query", "is_causal")})
    assert np.round(solution.answer, 2).tolist() == [0.54, 0.46]


# --- version 2: the seed's own numbers as a fixed example (param ``example``) ---------------------


def same_numbers_for_every_seed(name: str, example: str, seeds=range(12), version: int | None = None) -> list:
    """The variants of ``example`` for several seeds: the same inputs, answer, steps and options
    (only the option order may differ), with at least 2 distinct distractors."""
    variants = [generators.generate(name, seed, version=version, example=example) for seed in seeds]
    first = variants[0]
    for v in variants:
        assert (v.given, v.answer, v.solution, v.prompt) == (first.given, first.answer, first.solution, first.prompt)
        options = sorted((c.label_zh, c.misconception or "") for c in v.choices)
        assert options == sorted((c.label_zh, c.misconception or "") for c in first.choices)
        wrong = {c.label_zh for c in v.choices if c.misconception}
        assert len(wrong) >= 2
    assert len({v.correct_choice_index for v in variants}) > 1  # the order still varies
    return variants


def by_name(variant) -> dict:
    return {s.name: np.asarray(s.value, dtype=float) for s in variant.solution if s.value is not None}


@pytest.mark.parametrize("name", ["attention_output", "attention_row_weights"])
def test_001_wo_chi_example(name):
    """ "我"去看"我"和"吃"：0.38 和 0.16，除以 √2 得到 0.27 和 0.11，softmax [0.54, 0.46]，输出 ≈ [0.71, 0.25]."""
    v = same_numbers_for_every_seed(name, "wo_chi")[0]
    assert v.given["Q"] == [[0.6, 0.2], [0.3, 0.9]] and v.given["K"] == [[0.4, 0.7], [0.1, 0.5]]
    assert v.given["query"] == 1 and v.given["is_causal"] is False and "第 1 个 token" in v.prompt
    steps = by_name(v)
    assert np.round(steps["2 打分"], 2).tolist() == [0.38, 0.16]
    assert np.round(steps["3 缩放"], 2).tolist() == [0.27, 0.11]
    assert np.round(steps["4 softmax"], 2).tolist() == [0.54, 0.46]
    if name == "attention_output":
        assert v.given["V"] == [[0.8, 0.3], [0.6, 0.2]]
        assert np.round(v.answer, 2).tolist() == [0.71, 0.25]
        assert np.round(steps["5 加权求和"], 2).tolist() == [0.71, 0.25]
        assert grade(v, "0.71, 0.25").correct
    else:
        assert np.round(v.answer, 2).tolist() == [0.54, 0.46]
        assert grade(v, "0.54, 0.46").correct


WO_AI_NI = [[0.5, 0.9, 0.2], [0.3, 0.7, 0.4], [0.1, 0.3, 0.7]]  # scaled scores reproducing the seed's table


def wo_ai_ni_given(v) -> bool:
    """Version 2 prints the scaled scores; version 3 the raw dot products with d_k = 4, twice as large."""
    if v.version == 2:
        return v.given["scores"] == WO_AI_NI
    return v.given["d_k"] == 4 and np.allclose(np.array(v.given["dots"]) / np.sqrt(4), WO_AI_NI, atol=1e-12)


@pytest.mark.parametrize("version", [2, 3])
def test_001_wo_ai_ni_example_causal_table(version):
    """我 [1.0, 0, 0] / 爱 [0.40, 0.60, 0] / 你 [0.25, 0.30, 0.45]."""
    v = same_numbers_for_every_seed("causal_masked_weights", "wo_ai_ni", version=version)[0]
    assert wo_ai_ni_given(v)
    assert np.round(v.answer, 2).tolist() == [[1.0, 0.0, 0.0], [0.40, 0.60, 0.0], [0.25, 0.30, 0.45]]
    assert grade(v, "1.0, 0, 0; 0.40, 0.60, 0; 0.25, 0.30, 0.45").correct


@pytest.mark.parametrize("version", [2, 3])
def test_001_wo_ai_ni_example_filled_with_zero(version):
    """填 0 的话，softmax 后第一行会变成 [0.45, 0.27, 0.27]."""
    v = same_numbers_for_every_seed("mask_fill_zero_contrast", "wo_ai_ni", version=version)[0]
    assert wo_ai_ni_given(v) and v.given["query"] == 1
    assert np.round(v.answer, 2).tolist() == [0.45, 0.27, 0.27]
    assert np.round(by_name(v)["对照：填 −∞ 的正确权重"], 2).tolist() == [1.0, 0.0, 0.0]
    assert grade(v, "0.45, 0.27, 0.27").correct


def test_001_kv_cache_5_steps_15_vs_5_saves_67_percent():
    """5 步里，不缓存的话累计 (1+2+3+4+5)=15 次，缓存之后只要 5 次，省 67%."""
    v = generators.generate("kv_cache_savings", 0, n_steps=5)
    assert v.answer[:2] == [15, 5] and round(v.answer[2]) == 67
    assert grade(v, "15, 5, 67%").correct
    # and the engine's real KV cache counts the same projections
    attn = CausalSelfAttention(8, 2, rng=np.random.default_rng(0))
    x = np.random.default_rng(1).standard_normal((1, 5, 8))
    assert attn.decode(x, use_cache=False)[1] == 15 and attn.decode(x, use_cache=True)[1] == 5


def test_001_kv_cache_100_steps_saves_98_percent():
    """序列拉长到 100 步，省 98%."""
    v = generators.generate("kv_cache_savings", 0, n_steps=100)
    assert round(v.answer[2]) == 98
    assert grade(v, [5050, 100, 98]).correct


def test_001_bert_6_vs_gpt_39_for_40_tokens():
    """BERT 只遮 15%：40 × 0.15 = 6 个位置；GPT：40 − 1 = 39 个位置."""
    v = generators.generate("bert_gpt_positions", 0, n_tokens=40)
    assert v.params["mask_rate"] == 0.15
    assert np.allclose(v.answer, [6, 39])
    assert grade(v, "6, 39").correct


def test_001_head_dimension_512_over_8_is_64():
    """d_model=512，8 个头，每个头分到 512/8=64 维."""
    v = generators.generate("head_dimension", 0, d_model=512, n_head=8)
    assert v.answer == 64
    assert grade(v, 64).correct


@pytest.mark.parametrize(("n", "printed", "digits"), [(10, 0.35, 2), (50, 0.005, 3)])
def test_001_rnn_gradient_decay(n, printed, digits):
    """0.9¹⁰ ≈ 0.35, 0.9⁵⁰ ≈ 0.005."""
    v = generators.generate("rnn_gradient_decay", 0, factor=0.9, n_steps=n)
    assert round(v.answer, digits) == printed
    assert grade(v, str(printed)).correct  # the seed's own rounding is an accepted answer


def test_001_fill_with_zero_first_row():
    """填 0 的话，softmax 后第一行会变成 [0.45, 0.27, 0.27].

    The seed does not print the "我爱你" scores. Row 1 of the 0-filled matrix depends only on the
    one visible score s₁₁ (the two future scores become 0 whatever they were), and s₁₁ = 0.5 is
    the one-decimal score that gives 0.45; the future entries below are arbitrary on purpose.
    """
    scores = [[0.5, 1.7, -0.9], [0.0, 0.4, 1.1], [0.0, 0.2, 0.6]]
    solution = generators.get("mask_fill_zero_contrast", 2).solve({"scores": scores, "query": 1})
    assert np.round(solution.answer, 2).tolist() == [0.45, 0.27, 0.27]


def test_001_causal_table_for_wo_ai_ni():
    """我 [1.0, 0, 0] / 爱 [0.40, 0.60, 0] / 你 [0.25, 0.30, 0.45].

    Reconstructed scores again (the seed prints only the weights): row 2 needs s₂₂ − s₂₁ = ln 1.5
    ≈ 0.4, row 3 needs s₃₂ − s₃₁ = ln 1.2 ≈ 0.2 and s₃₃ − s₃₁ = ln 1.8 ≈ 0.6.
    """
    scores = [[0.5, 1.7, -0.9], [0.0, 0.4, 1.1], [0.0, 0.2, 0.6]]
    W = generators.get("causal_masked_weights", 2).solve({"scores": scores}).answer
    assert np.round(W, 2).tolist() == [[1.0, 0.0, 0.0], [0.40, 0.60, 0.0], [0.25, 0.30, 0.45]]


def test_000_five_step_shapes_of_the_exercise():
    """T=4, d_model=8, d_k=d_v=16: "Q (4, 16) K (4, 16) V (4, 16)" / "out (4, 16) weights (4, 4)"."""
    v = generators.generate("five_step_shapes", 0, T=4, d_model=8, d_k=16, d_v=16)
    assert v.answer == [[4, 16], [4, 16], [4, 16], [4, 4], [4, 4], [4, 16]]


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize(("d_k", "printed"), [(16, "16.3, 1.02"), (512, "511.0, 1.00")])
def test_000_dot_product_variance(seed, d_k, printed):
    """d_k=16: var(q·k)=16.3, scaled 1.02; d_k=512: 511.0 and 1.00 (10000 samples).

    Our samples come from a different stream than the exercise's, so the values differ in the
    Monte Carlo noise: within 5% of the printed ones, and the printed ones grade as correct.
    """
    v = generators.generate("dot_product_variance", seed, d_k=d_k, n_samples=10000)
    expected = [float(x) for x in printed.split(",")]
    assert np.allclose(v.answer, expected, rtol=0.05)
    assert grade(v, printed).correct


@pytest.mark.parametrize("seed", range(5))
def test_000_softmax_sharpness(seed):
    """未缩放时 8 个 key 中最大的那个权重平均占 0.958，缩放后只有 0.365 (d_k = 512, 1000 rows).

    Same caveat as above: another random stream, so within 0.01 (1000 rows of Monte Carlo).
    """
    v = generators.generate("softmax_sharpness", seed, d_k=512, n_keys=8, n_rows=1000)
    assert np.allclose(v.answer, [0.958, 0.365], atol=0.01)
    assert grade(v, "0.958, 0.365").correct


def test_004_c_attn_is_three_times_as_wide():
    """self.c_attn = nn.Linear(n_embd, 3 * n_embd): "一个矩阵，一次算出 Q、K、V 三样"."""
    v = generators.generate("nanogpt_shapes", 0, B=2, T=8, C=768, n_head=12, ask="c_attn")
    assert v.answer == 3 * 768


def test_004_q_after_view_and_transpose():
    """k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2) # (B, nh, T, hs)."""
    v = generators.generate("nanogpt_shapes", 0, B=2, T=8, C=768, n_head=12, ask="q")
    assert v.answer == [2, 12, 8, 64]
