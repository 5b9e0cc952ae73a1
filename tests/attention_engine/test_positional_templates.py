"""Lesson 4's templates (issue 29): every answer recomputed here from the prompt's numbers, independently of
the engine (complex numbers for RoPE at the absolute positions, the papers' formulas), and the named
mistakes checked to be the mistakes their names say."""

from __future__ import annotations

import cmath
import math

import numpy as np
import pytest

from attention_engine import generators

SEEDS = range(60)


def rope_at(x: list[float], pos: int) -> np.ndarray:
    """RoFormer's rotation as complex multiplication: pair (2i, 2i+1) -> (a + ib)·e^(i·pos·10000^(−2i/d))."""
    d = len(x)
    z = [complex(x[2 * i], x[2 * i + 1]) * cmath.exp(1j * pos * 10000 ** (-2 * i / d)) for i in range(d // 2)]
    return np.array([c for w in z for c in (w.real, w.imag)])


def option(v, misconception: str) -> float | None:
    found = [c.value for c in v.choices if c.misconception == misconception]
    return found[0] if found else None


@pytest.mark.parametrize("seed", SEEDS)
def test_rope_score_is_the_dot_product_of_the_rotated_vectors_at_the_absolute_positions(seed):
    v = generators.generate("rope_relative_score", seed)
    g = v.given
    q, k, m, n = g["q"], g["k"], g["m"], g["n"]
    assert m > 90 and n > 90 and m != n  # positions in the hundreds: by hand only through n − m
    expected = float(rope_at(q, m) @ rope_at(k, n))
    assert v.answer == pytest.approx(expected, abs=1e-9)
    assert float(rope_at(q, m - min(m, n)) @ rope_at(k, n - min(m, n))) == pytest.approx(expected, abs=1e-9)
    assert generators.grade(v, round(expected, 3)).correct
    assert str(m) in v.prompt and str(n) in v.prompt
    same = option(v, "rope_same_angle_both")
    if same is not None:
        assert same == pytest.approx(round(float(np.dot(q, k)), 3))
    only_q = option(v, "rope_only_q")
    if only_q is not None:
        assert only_q == pytest.approx(round(float(rope_at(q, m) @ np.array(k)), 3))
    sign = option(v, "rope_offset_sign")
    if sign is not None:
        assert sign == pytest.approx(round(float(rope_at(q, n) @ rope_at(k, m)), 3))


def test_rope_half_pairing_distractor_is_rotate_half_applied_to_the_same_vectors():
    checked = 0
    for seed in SEEDS:
        v = generators.generate("rope_relative_score", seed)
        half = option(v, "rope_half_pairing_on_interleaved")
        if half is None:
            continue
        g = v.given
        d = len(g["q"])

        def rot(x, pos, d=d):
            x = np.array(x)
            theta = 10000.0 ** (-np.arange(0, d, 2) / d)
            ang = pos * np.concatenate([theta, theta])
            return x * np.cos(ang) + np.concatenate([-x[d // 2 :], x[: d // 2]]) * np.sin(ang)

        assert half == pytest.approx(round(float(rot(g["q"], g["m"]) @ rot(g["k"], g["n"])), 3))
        checked += 1
    assert checked > 10


@pytest.mark.parametrize("seed", SEEDS)
def test_sinusoidal_value_is_the_papers_formula(seed):
    v = generators.generate("sinusoidal_value", seed)
    d, pos, dim = v.given["d_model"], v.given["pos"], v.given["dim"]
    angle = pos / 10000 ** ((dim - dim % 2) / d)
    expected = math.cos(angle) if dim % 2 else math.sin(angle)
    assert v.answer == pytest.approx(expected, abs=1e-12)
    swapped = option(v, "sinusoid_sin_cos_swapped")
    if swapped is not None:
        assert swapped == pytest.approx(round(math.sin(angle) if dim % 2 else math.cos(angle), 3))
    degrees = option(v, "trig_in_degrees")
    if degrees is not None:
        f = math.cos if dim % 2 else math.sin
        assert degrees == pytest.approx(round(f(angle * math.pi / 180), 3))


@pytest.mark.parametrize("seed", SEEDS)
def test_alibi_bias_is_minus_two_to_the_minus_8h_over_n_times_the_distance(seed):
    v = generators.generate("alibi_bias", seed)
    n, h, i, j = (v.given[x] for x in ("n_head", "head", "i", "j"))
    assert n in (4, 8, 16) and 1 <= h <= n and i > j >= 1
    assert v.answer == pytest.approx(-(2 ** (-8 * h / n)) * (i - j))
    assert option(v, "alibi_forgot_slope") in (None, -(i - j))
    if (short := option(v, "alibi_distance_one_short")) is not None:  # i − j − 1: only the tokens between
        assert short == pytest.approx(-(2 ** (-8 * h / n)) * (i - j - 1), abs=0.5e-4 + 1e-12)  # shown to 4 places
    if (later := option(v, "alibi_slope_next_head")) is not None:  # head h + 1's slope
        assert later == pytest.approx(-(2 ** (-8 * (h + 1) / n)) * (i - j), abs=0.5e-4 + 1e-12)
    eight = option(v, "alibi_eight_head_slopes")
    if eight is not None:
        assert n != 8 and eight == pytest.approx(round(-(0.5**h) * (i - j), 4))


def test_the_alibi_prompt_of_eight_heads_matches_the_papers_one_half_to_one_over_256():
    for seed in range(200):
        v = generators.generate("alibi_bias", seed, n_head="8", distance=1)
        assert v.answer == pytest.approx(-(1 / 2 ** v.given["head"]))
