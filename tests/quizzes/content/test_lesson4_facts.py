"""Lesson 4 (fixtures/lessons/04-positional.yaml) says true things: every computable claim is recomputed here.

numpy for the math, PyTorch where it has the operation (marked ``torch``). Each test names the section or
question whose statement it holds, and checks that the fixture still says what was verified.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pytest
import yaml

LESSON = yaml.safe_load(
    (Path(__file__).resolve().parents[3] / "fixtures" / "lessons" / "04-positional.yaml").read_text(encoding="utf-8")
)
SECTIONS = {s["key"]: s for s in LESSON["teaching"]}
QUESTIONS = {q["key"]: q for q in LESSON["questions"]}


def correct(key: str) -> str:
    return next(o["text"] for o in QUESTIONS[key]["options"] if o.get("correct"))


def checkpoint_answer(section: str) -> str:
    return next(o["text"] for o in SECTIONS[section]["checkpoint"]["options"] if o.get("correct"))


def softmax(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def attention(x: np.ndarray, w: np.ndarray, causal: bool = False) -> np.ndarray:
    q, k, v = x @ w[0], x @ w[1], x @ w[2]  # (T, d) each
    scores = q @ k.T / math.sqrt(q.shape[-1])  # (T, T)
    if causal:
        scores = np.where(np.triu(np.ones(scores.shape, dtype=bool), k=1), -np.inf, scores)
    return softmax(scores) @ v  # (T, d)


def sinusoid(pos: np.ndarray, d_model: int) -> np.ndarray:
    """Vaswani et al. §3.5: PE(pos, 2i) = sin(pos·ω_i), PE(pos, 2i+1) = cos(pos·ω_i), ω_i = 10000^(−2i/d)."""
    omega = 10000.0 ** (-np.arange(0, d_model, 2) / d_model)  # (d/2,)
    angle = np.asarray(pos, dtype=float)[..., None] * omega  # (..., d/2)
    pe = np.empty((*angle.shape[:-1], d_model))
    pe[..., 0::2], pe[..., 1::2] = np.sin(angle), np.cos(angle)
    return pe


def rope_theta(d: int, base: float = 10000.0) -> np.ndarray:
    return base ** (-np.arange(0, d, 2) / d)  # θ_i = base^(−2i/d), i = 0 … d/2 − 1


# The two pairings exactly as the teaching text shows them (section rope-pairing), executed from the fixture.
_code = re.search(r"```python\n(.*?)```", SECTIONS["rope-pairing"]["body"], re.DOTALL).group(1)
_namespace: dict = {"np": np}
exec(compile(_code, "04-positional.yaml#rope-pairing", "exec"), _namespace)  # our own fixture's code
rope_interleaved = _namespace["rope_interleaved"]
rope_half = _namespace["rope_half"]
rotate_half = _namespace["rotate_half"]


# --------------------------------------------------------------------------- no-order


def test_without_mask_attention_ignores_key_value_order_and_is_permutation_equivariant():
    rng = np.random.default_rng(40)
    x, w = rng.standard_normal((5, 8)), rng.standard_normal((3, 8, 8))
    out = attention(x, w)
    swapped = x[[0, 2, 1, 3, 4]]  # tokens 2 and 3 trade places (their keys and values with them)
    assert np.allclose(attention(swapped, w)[0], out[0])  # token 1's output: every number the same
    perm = rng.permutation(5)
    assert np.allclose(attention(x[perm], w), out[perm])  # Attention(PX) = P Attention(X)
    causal = attention(x, w, causal=True)
    assert not np.allclose(attention(x[perm], w, causal=True), causal[perm])  # the causal mask breaks it
    assert checkpoint_answer("no-order") == "输出的每个数都与原来相同"


# --------------------------------------------------------------------------- sinusoidal


def test_a_shift_of_the_sinusoid_is_a_block_rotation_that_depends_only_on_the_offset():
    d_model, k = 16, 7
    omega = 10000.0 ** (-np.arange(0, d_model, 2) / d_model)
    m_k = np.zeros((d_model, d_model))
    for i, w in enumerate(omega):  # one 2×2 block per pair (sin, cos) of one frequency
        c, s = math.cos(k * w), math.sin(k * w)
        m_k[2 * i : 2 * i + 2, 2 * i : 2 * i + 2] = [[c, s], [-s, c]]
    pos = np.arange(200)
    assert np.allclose(sinusoid(pos, d_model) @ m_k.T, sinusoid(pos + k, d_model))  # PE(pos+k) = M_k PE(pos), ∀ pos
    assert np.allclose(m_k @ m_k.T, np.eye(d_model))  # each block is a rotation
    assert 512 // 2 == 256 and checkpoint_answer("sinusoidal") == "256"  # blocks of M_k for d_model = 512


def test_sin_alone_gives_no_linear_shift_map():
    d_model, k, pos = 16, 7, np.arange(400)
    sin_only = sinusoid(pos, d_model)[:, 0::2]  # (400, 8): drop the cos half
    shifted = sinusoid(pos + k, d_model)[:, 0::2]
    w, *_ = np.linalg.lstsq(sin_only, shifted, rcond=None)
    assert np.abs(sin_only @ w - shifted).max() > 0.1  # no linear map from sin(pos ω) to sin((pos+k) ω)
    full = sinusoid(pos, d_model)
    w_full, *_ = np.linalg.lstsq(full, sinusoid(pos + k, d_model), rcond=None)
    assert np.abs(full @ w_full - sinusoid(pos + k, d_model)).max() < 1e-8  # with the cos half there is one


def test_position_vectors_dot_only_depends_on_the_offset_and_are_not_orthogonal():
    d_model = 64
    omega = 10000.0 ** (-np.arange(0, d_model, 2) / d_model)
    for k in (1, 5, 40):
        dots = [sinusoid(p, d_model) @ sinusoid(p + k, d_model) for p in (0, 13, 999)]
        assert np.allclose(dots, np.cos(k * omega).sum())  # Σ_i cos(k ω_i), whatever pos
        assert abs(dots[0]) > 1  # far from orthogonal (option c of l4-sinusoid-pairs is false)
    assert "只依赖 $k$ 的旋转" in correct("l4-sinusoid-pairs")


def test_wavelengths_run_from_2pi_to_just_under_10000_times_2pi():
    d_model = 512
    omega = 10000.0 ** (-np.arange(0, d_model, 2) / d_model)
    wavelength = 2 * np.pi / omega
    assert wavelength[0] == pytest.approx(2 * np.pi)
    assert wavelength[-1] < 10000 * 2 * np.pi
    assert wavelength[-1] / (10000 * 2 * np.pi) == pytest.approx(0.9647, abs=1e-4)  # "约为它的 96%"
    assert np.allclose(wavelength[1:] / wavelength[:-1], wavelength[1] / wavelength[0])  # a geometric progression
    assert omega.min() == pytest.approx(1 / 10000 ** (510 / 512)) and omega.max() == 1  # option d is ω's range
    assert "96%" in QUESTIONS["l4-sinusoid-wavelengths"]["explanation"]


# --------------------------------------------------------------------------- learned absolute positions


@pytest.mark.torch
def test_a_learned_position_table_has_block_size_rows_and_nothing_beyond(torch):
    wpe = torch.nn.Embedding(1024, 768)  # GPT-2 small: block_size 1024, n_embd 768
    assert wpe.weight.numel() == 786_432 == 1024 * 768
    assert checkpoint_answer("learned") == "786,432"
    assert 50257 * 768 == 38_597_376  # the wte distractor
    assert wpe(torch.arange(1024)).shape == (1024, 768)
    with pytest.raises(IndexError):
        wpe(torch.arange(1025))  # position 1025 has no row: nothing to extrapolate from
    assert "t <= self.config.block_size" in QUESTIONS["l4-learned-too-long"]["explanation"]


# --------------------------------------------------------------------------- RoPE


@pytest.mark.parametrize("rope", [rope_interleaved, rope_half], ids=["interleaved", "rotate_half"])
def test_rope_scores_depend_on_content_and_relative_position_only(rope):
    rng = np.random.default_rng(4)
    d = 16
    theta = rope_theta(d)
    for _ in range(20):
        q, k = rng.standard_normal((2, d))
        m, n, c = rng.integers(0, 500, size=3)
        score = rope(q, m, theta) @ rope(k, n, theta)
        assert score == pytest.approx(rope(q, m + c, theta) @ rope(k, n + c, theta))  # both shifted: unchanged
        assert np.linalg.norm(rope(q, m, theta)) == pytest.approx(np.linalg.norm(q))  # a rotation keeps the length
        q2 = rng.standard_normal(d)  # other content, same distance: another score (option b is false)
        assert rope(q2, m, theta) @ rope(k, n, theta) != pytest.approx(score)
    q, k = rng.standard_normal((2, d))
    same_place = rope(q, 3, theta) @ rope(k, 3, theta)
    assert same_place != pytest.approx(rope(q, 3, theta) @ rope(k, 9, theta))  # the distance matters
    assert "相对位置" in correct("l4-rope-depends")
    assert checkpoint_answer("rope") == "与 $\\lVert q\\rVert$ 相同"


def test_rope_is_a_block_diagonal_rotation_with_r_m_transpose_r_n_equal_r_n_minus_m():
    d, theta = 8, rope_theta(8)

    def r(m: float) -> np.ndarray:  # R_m as a matrix: column j is the rotated unit vector e_j
        return np.stack([rope_interleaved(e, m, theta) for e in np.eye(d)], axis=1)

    assert np.allclose(r(5).T @ r(3), r(3 - 5))  # R_mᵀ R_n = R_{n−m}
    assert np.allclose(r(7).T @ r(7), np.eye(d))  # orthogonal
    roformer = 10000.0 ** (-2 * (np.arange(1, d // 2 + 1) - 1) / d)  # RoFormer counts i from 1
    assert theta[0] == 1 and np.allclose(theta, roformer)


def test_the_two_pairings_differ_on_the_same_vectors_and_agree_after_a_fixed_permutation():
    rng = np.random.default_rng(5)
    d = 8
    theta = rope_theta(d)
    q, k = rng.standard_normal((2, d))
    perm = np.concatenate([np.arange(0, d, 2), np.arange(1, d, 2)])  # even indices first, then odd
    assert rope_interleaved(q, 5, theta) @ rope_interleaved(k, 3, theta) != pytest.approx(
        rope_half(q, 5, theta) @ rope_half(k, 3, theta)
    )  # the same q, k: other vectors and another score
    for m in (0, 1, 5, 77):
        assert np.allclose(rope_half(q[perm], m, theta), rope_interleaved(q, m, theta)[perm])
    assert rope_half(q[perm], 5, theta) @ rope_half(k[perm], 3, theta) == pytest.approx(
        rope_interleaved(q, 5, theta) @ rope_interleaved(k, 3, theta)
    )  # coordinates re-ordered by P: the same scores
    # rotate_half pairs index i with i + d/2: index 1 with index 5 when d = 8 (checkpoint of rope-pairing)
    x = np.zeros(d)
    x[1] = 1.0
    assert np.flatnonzero(rotate_half(x)).tolist() == [5]
    assert checkpoint_answer("rope-pairing") == "下标 5"


@pytest.mark.torch
def test_hugging_faces_sliced_rotary_permute_makes_rotate_half_compute_what_the_interleaved_weights_did(torch):
    n_heads, head_dim = 2, 8
    dim = n_heads * head_dim
    g = torch.Generator().manual_seed(6)
    # weights trained with the interleaved (2i, 2i+1) pairing
    w_q, w_k = torch.randn(2, dim, dim, generator=g, dtype=torch.float64)
    x_m, x_n = torch.randn(2, dim, generator=g, dtype=torch.float64)

    def permute(w):  # convert_llama_weights_to_hf.py, "permute for sliced rotary"
        return w.view(n_heads, dim // n_heads // 2, 2, dim).transpose(1, 2).reshape(dim, dim)

    theta = rope_theta(head_dim)

    def scores(rope, wq, wk):
        q = (wq @ x_m).numpy().reshape(n_heads, head_dim)
        k = (wk @ x_n).numpy().reshape(n_heads, head_dim)
        return [rope(q[h], 6, theta) @ rope(k[h], 2, theta) for h in range(n_heads)]

    reference = scores(rope_interleaved, w_q, w_k)
    assert np.allclose(scores(rope_half, permute(w_q), permute(w_k)), reference)  # permuted: identical scores
    assert not np.allclose(scores(rope_half, w_q, w_k), reference)  # loaded as is: silently different
    assert "permute for sliced rotary" in SECTIONS["rope-pairing"]["body"]
    assert "悄悄出错" in correct("l4-rope-pairing-load")


def test_the_slowest_rope_pairs_never_finish_a_turn_within_the_training_length():
    d, length = 128, 4096
    theta = rope_theta(d)
    turns = length * theta / (2 * np.pi)
    assert round(turns[0]) == 652  # "约 652 圈"
    assert theta[-1] == pytest.approx(1.2e-4, rel=0.05) and turns[-1] < 0.1  # "连十分之一圈都没转完"
    body = SECTIONS["extrapolation"]["body"]
    assert "约 652 圈" in body and "1.2\\times10^{-4}" in body


# --------------------------------------------------------------------------- ALiBi


def alibi_slopes(n: int) -> list[float]:
    """The official get_slopes_power_of_2 (ofirpress/attention_with_linear_biases): start 2^(−8/n), ratio the same."""
    start = 2 ** (-(2 ** -(math.log2(n) - 3)))
    return [start * start**i for i in range(n)]


def test_alibi_slopes_are_a_geometric_sequence_starting_at_two_to_the_minus_eight_over_n():
    assert alibi_slopes(8) == [1 / 2**i for i in range(1, 9)]  # 1/2, 1/4, …, 1/256
    assert np.allclose(np.log2(alibi_slopes(16)), -0.5 * np.arange(1, 17))  # 2^(−8/16) = 2^(−0.5), …, 2^(−8)
    assert correct("l4-alibi-slopes") == "$1/2,\\ 1/4,\\ \\dots,\\ 1/256$"


def test_alibi_bias_only_counts_distance_and_multiplies_the_weight_by_e_to_the_minus_m_per_step():
    m, i, j = 1 / 4, 6, 2
    assert -m * (i - j) == -1 and checkpoint_answer("alibi") == "$-1$"
    scores = np.zeros(8)  # the same q·k for every key: only the bias differs
    distance = 7 - np.arange(8)  # query at position 8 (0-based 7), keys at positions 1 … 8
    w = softmax(scores - m * distance)
    assert np.allclose(w[:-1] / w[1:], np.exp(-m))  # one step further: × e^(−m)
    assert np.allclose(softmax(scores - m * distance + 123.0), w)  # only differences count
    # defined for any length: the bias of a given distance is the same in a longer sequence
    longer = softmax(np.zeros(20) - m * (19 - np.arange(20)))
    assert np.allclose(longer[-8:] / longer[-1], w / w[-1])


# --------------------------------------------------------------------------- NoPE


def test_a_causal_mask_alone_lets_a_layer_count_positions():
    t_len = 6
    scores = np.zeros((t_len, t_len))  # every score equal (e.g. q = 0)
    scores = np.where(np.triu(np.ones((t_len, t_len), dtype=bool), k=1), -np.inf, scores)
    v = np.zeros((t_len, 1))
    v[0] = 1.0  # only <bos> carries a 1
    out = softmax(scores) @ v
    assert np.allclose(out[:, 0], 1 / np.arange(1, t_len + 1))  # position t gets 1/t
    assert out[3, 0] == pytest.approx(1 / 4) and checkpoint_answer("nope") == "$1/4$"
    bidirectional = softmax(np.zeros((t_len, t_len))) @ v  # no mask: every row the same, no position at all
    assert np.allclose(bidirectional, bidirectional[0])


def test_a_bidirectional_encoder_without_positions_is_permutation_equivariant_layer_after_layer():
    rng = np.random.default_rng(7)
    x, layers = rng.standard_normal((5, 8)), rng.standard_normal((3, 3, 8, 8)) / 3
    perm = rng.permutation(5)

    def encoder(h):
        for w in layers:
            h = h + attention(h, w)  # residual per position: adds nothing about order
        return h

    assert np.allclose(encoder(x[perm]), encoder(x)[perm])
    assert "词袋" in correct("l4-nope-encoder")


# --------------------------------------------------------------------------- PI, NTK-aware, YaRN


def test_position_interpolation_divides_positions_by_the_extension_factor():
    length, target = 2048, 8192
    assert 6000 * length / target == 1500 and checkpoint_answer("extrapolation") == "1500"
    theta = rope_theta(128)
    positions = np.arange(target)
    assert (positions * length / target).max() < length  # every angle back inside the trained range
    assert np.allclose(np.diff(positions * length / target) * theta[0], theta[0] / 4)  # neighbours 1/s apart
    assert correct("l4-pi-what") == "把位置编号乘以 $L/L'$"


def test_ntk_aware_keeps_the_fastest_pair_and_slows_the_slowest_by_exactly_s():
    d, s = 128, 8.0
    theta = rope_theta(d)
    ntk = rope_theta(d, base=10000.0 * s ** (d / (d - 2)))  # jquesnelle/yarn LlamaNTKScaledRotaryEmbedding
    ratio = ntk / theta
    assert ratio[0] == pytest.approx(1.0)  # highest frequency: unchanged
    assert ratio[-1] == pytest.approx(1 / s)  # lowest frequency: exactly like PI
    assert np.allclose(ratio, s ** (-2 * np.arange(d // 2) / (d - 2)))  # geometric in between
    assert correct("l4-ntk-lowest") == "缩小为原来的 $1/s$"


def test_yarn_leaves_fast_pairs_alone_interpolates_slow_ones_and_scales_the_logits():
    d, base, length, s = 128, 10000.0, 4096, 16.0
    theta = rope_theta(d, base)

    def correction_dim(rotations: float) -> float:  # jquesnelle/yarn find_correction_dim
        return (d * math.log(length / (rotations * 2 * math.pi))) / (2 * math.log(base))

    low, high = max(math.floor(correction_dim(32)), 0), min(math.ceil(correction_dim(1)), d - 1)
    ramp = np.clip((np.arange(d // 2) - low) / (high - low), 0, 1)  # linear_ramp_mask
    yarn = (theta / s) * ramp + theta * (1 - ramp)
    turns = length * theta / (2 * np.pi)
    assert np.allclose(yarn[turns > 32], theta[turns > 32])  # many turns within L: not interpolated
    assert np.allclose(yarn[turns < 1], theta[turns < 1] / s)  # less than one turn: interpolated as PI
    mscale = 0.1 * math.log(s) + 1  # get_mscale, multiplied into cos and sin, i.e. into q and k
    q, k = np.array([1.0, 2.0]), np.array([0.5, -1.0])
    assert (mscale * q) @ (mscale * k) == pytest.approx(mscale**2 * (q @ k))  # logits × (0.1 ln s + 1)²
    assert "(0.1\\ln s+1)^2" in QUESTIONS["l4-yarn-extra"]["explanation"]


# --- phase 2: the numeric questions -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("key", "template"),
    [
        ("l4-num-sinusoid-value", "sinusoidal_value"),
        ("l4-num-rope-score", "rope_relative_score"),
        ("l4-num-alibi-bias", "alibi_bias"),
    ],
)
def test_the_numeric_questions_use_lesson_4s_templates(key, template):
    from attention_engine import generators

    q = QUESTIONS[key]
    assert q["kind"] == "numeric" and q["template"] == template
    assert template in generators.names()


def test_the_rope_question_explains_the_pair_formula_the_engine_grades():
    """(q_a k_a + q_b k_b) cos φ + (q_b k_a − q_a k_b) sin φ per pair, φ = (n − m) θ_i, summed: q·(R_{n−m} k)."""
    assert r"(q_b k_a-q_a k_b)\sin((n-m)\theta_i)" in QUESTIONS["l4-num-rope-score"]["explanation"]
    rng = np.random.default_rng(4)
    d, m, n = 6, 1234, 1230
    q, k = rng.standard_normal((2, d))
    theta = rope_theta(d)
    by_pairs = sum(
        (q[2 * i] * k[2 * i] + q[2 * i + 1] * k[2 * i + 1]) * math.cos((n - m) * theta[i])
        + (q[2 * i + 1] * k[2 * i] - q[2 * i] * k[2 * i + 1]) * math.sin((n - m) * theta[i])
        for i in range(d // 2)
    )

    def rotate(x, pos):  # complex form of RoFormer's interleaved rotation
        z = (x[0::2] + 1j * x[1::2]) * np.exp(1j * pos * theta)
        return np.stack([z.real, z.imag], axis=-1).ravel()

    assert by_pairs == pytest.approx(float(rotate(q, m) @ rotate(k, n)))


def test_the_alibi_question_states_the_eight_head_slopes():
    assert r"\tfrac12,\tfrac14,\dots,\tfrac1{256}" in QUESTIONS["l4-num-alibi-bias"]["explanation"]
    assert alibi_slopes(8) == [2.0**-h for h in range(1, 9)]
