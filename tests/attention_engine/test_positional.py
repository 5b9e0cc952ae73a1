"""attention_engine.positional against independent computations: loops over the formulas of the papers,
RoPE as complex multiplication (numpy and PyTorch's torch.polar), ALiBi's slopes from the paper's numbers."""

from __future__ import annotations

import cmath
import itertools
import math
import os

import numpy as np
import pytest

from attention_engine import positional


@pytest.fixture(scope="module")
def torch():
    try:
        import torch
    except ImportError:
        if os.environ.get("CI") == "true":
            pytest.fail("PyTorch is required in CI but is not importable")
        pytest.skip("PyTorch not installed")
    return torch


# --- sinusoidal ---------------------------------------------------------------------------------


@pytest.mark.parametrize(("T", "d_model"), [(1, 2), (7, 8), (50, 64)])
def test_sinusoidal_table_is_the_formula_entry_by_entry(T, d_model):
    pe = positional.sinusoidal_encoding(np.arange(T), d_model)
    assert pe.shape == (T, d_model)
    for pos in range(T):
        for i in range(d_model // 2):
            angle = pos / math.pow(10000, 2 * i / d_model)
            assert pe[pos, 2 * i] == pytest.approx(math.sin(angle), abs=1e-12)
            assert pe[pos, 2 * i + 1] == pytest.approx(math.cos(angle), abs=1e-12)
            assert positional.sinusoid_value(pos, 2 * i, d_model) == pytest.approx(math.sin(angle), abs=1e-12)
            assert positional.sinusoid_value(pos, 2 * i + 1, d_model) == pytest.approx(math.cos(angle), abs=1e-12)


def test_position_zero_is_zeros_and_ones_and_a_shift_is_a_linear_map_of_the_offset_only():
    d = 16
    pe = positional.sinusoidal_encoding(np.arange(40), d)
    assert pe[0].tolist() == [0.0, 1.0] * (d // 2)
    offset = 5
    omega = 1 / 10000 ** (np.arange(0, d, 2) / d)
    # each (sin, cos) pair at pos + offset is the pair at pos turned by offset·ω_i: the same matrix for every pos
    turn = np.zeros((d, d))
    for i, w in enumerate(omega):
        c, s = math.cos(offset * w), math.sin(offset * w)
        turn[2 * i : 2 * i + 2, 2 * i : 2 * i + 2] = [[c, s], [-s, c]]
    np.testing.assert_allclose(pe[:-offset] @ turn.T, pe[offset:], atol=1e-12)


# --- RoPE ---------------------------------------------------------------------------------------


def rope_complex(x: np.ndarray, positions: np.ndarray) -> np.ndarray:
    """x (T, d): pairs (2i, 2i+1) as complex numbers a + ib, multiplied by e^(i m θ_i) (RoFormer's complex form)."""
    d = x.shape[-1]
    out = np.empty_like(x)
    for t, m in enumerate(positions):
        for i in range(d // 2):
            theta = 10000 ** (-2 * i / d)
            w = complex(x[t, 2 * i], x[t, 2 * i + 1]) * cmath.exp(1j * m * theta)
            out[t, 2 * i], out[t, 2 * i + 1] = w.real, w.imag
    return out


def test_rope_theta_is_ten_thousand_to_the_minus_two_i_over_d():
    d = 8
    assert positional.rope_theta(d).tolist() == pytest.approx([1.0, 10000**-0.25, 10000**-0.5, 10000**-0.75])


@pytest.mark.parametrize("d", [2, 4, 8, 16])
def test_rope_is_complex_multiplication_of_the_interleaved_pairs(d):
    rng = np.random.default_rng(d)
    x = rng.standard_normal((5, d))  # (T, d)
    positions = np.array([0, 1, 3, 10, 1000])
    np.testing.assert_allclose(positional.apply_rope(x, positions), rope_complex(x, positions), atol=1e-10)


def test_rope_matches_torch_polar_on_batched_inputs(torch):
    """As Meta's LLaMA reference does it: freqs_cis = polar(1, m·θ), x viewed as complex pairs (2i, 2i+1)."""
    rng = np.random.default_rng(1)
    B, nh, T, d = 2, 3, 6, 8
    x = rng.standard_normal((B, nh, T, d))
    theta = 1.0 / (10000.0 ** (torch.arange(0, d, 2, dtype=torch.float64) / d))  # (d/2,)
    angle = torch.outer(torch.arange(T, dtype=torch.float64), theta)  # (T, d/2)
    freqs_cis = torch.polar(torch.ones_like(angle), angle)  # (T, d/2) complex
    xc = torch.view_as_complex(torch.from_numpy(x).reshape(B, nh, T, d // 2, 2).contiguous())
    expected = torch.view_as_real(xc * freqs_cis).reshape(B, nh, T, d).numpy()
    np.testing.assert_allclose(positional.apply_rope(x, np.arange(T)), expected, atol=1e-12)


def test_rope_keeps_the_length_and_scores_depend_only_on_the_offset():
    rng = np.random.default_rng(7)
    d = 8
    q, k = rng.standard_normal((2, d))
    for m, n in [(0, 0), (3, 1), (2, 9), (100, 37)]:
        score = positional.rope_score(q, k, m, n)
        for shift in (1, 17, 500):
            assert positional.rope_score(q, k, m + shift, n + shift) == pytest.approx(score, abs=1e-9)
        q_m = positional.apply_rope(q[None], [m])[0]
        assert np.linalg.norm(q_m) == pytest.approx(np.linalg.norm(q))
    # ... and it does change with the offset: the property is not a constant
    assert positional.rope_score(q, k, 3, 1) != pytest.approx(positional.rope_score(q, k, 1, 3), abs=1e-6)
    assert positional.rope_score(q, k, 0, 0) == pytest.approx(float(q @ k))


def test_the_half_pairing_is_the_interleaved_one_after_a_fixed_permutation():
    rng = np.random.default_rng(3)
    d, T = 8, 4
    x = rng.standard_normal((T, d))
    perm = np.r_[np.arange(0, d, 2), np.arange(1, d, 2)]  # evens first, then odds
    pos = np.arange(T) * 3
    np.testing.assert_allclose(positional.apply_rope_half(x[:, perm], pos), positional.apply_rope(x, pos)[:, perm])
    assert not np.allclose(positional.apply_rope_half(x, pos), positional.apply_rope(x, pos))
    assert positional.rotate_half(np.array([1.0, 2.0, 3.0, 4.0])).tolist() == [-3.0, -4.0, 1.0, 2.0]


# --- ALiBi --------------------------------------------------------------------------------------


def test_alibi_slopes_for_eight_heads_are_the_papers_one_half_to_one_over_256():
    assert positional.alibi_slopes(8) == [1 / 2**h for h in range(1, 9)]


@pytest.mark.parametrize("n", [1, 2, 4, 16, 32])
def test_alibi_slopes_for_powers_of_two_start_at_two_to_the_minus_8_over_n_with_that_ratio(n):
    slopes = positional.alibi_slopes(n)
    assert slopes[0] == pytest.approx(2 ** (-8 / n))
    assert [b / a for a, b in itertools.pairwise(slopes)] == pytest.approx([2 ** (-8 / n)] * (n - 1))
    assert slopes[-1] == pytest.approx(2**-8)


def test_alibi_slopes_for_other_head_counts_interleave_the_next_power_of_two():
    """The official code for n = 12: the 8 slopes of 8 heads, then slopes 1, 3, 5, 7 (0-based 0, 2, 4, 6) of 16."""
    sixteen = [2 ** (-0.5 * h) for h in range(1, 17)]
    assert positional.alibi_slopes(12) == pytest.approx([2.0**-h for h in range(1, 9)] + sixteen[0:8:2])


def test_alibi_bias_is_minus_slope_times_distance_and_shifts_softmax_by_e_to_the_minus_m():
    n_head, T = 4, 5
    bias = positional.alibi_bias(n_head, T)
    assert bias.shape == (n_head, T, T)
    slopes = [2 ** (-8 / n_head * (h + 1)) for h in range(n_head)]
    for h in range(n_head):
        for i in range(T):
            for j in range(i + 1):
                assert bias[h, i, j] == pytest.approx(-slopes[h] * (i - j))
                assert positional.alibi_head_bias(n_head, h, i - j) == pytest.approx(-slopes[h] * (i - j))
    # equal q·k: the weight of a key one step further back is e^(−m) times smaller
    row = np.exp(bias[0, T - 1])
    assert row[T - 2] / row[T - 1] == pytest.approx(math.exp(-slopes[0]))
