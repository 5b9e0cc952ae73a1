"""Lesson 4 (issue 29): numbers from the position schemes of attention_engine.positional.

- ``sinusoidal_value``: one entry PE[pos, dim] of the sinusoidal table (Vaswani et al., 2017, §3.5);
- ``rope_relative_score``: the RoPE score (R_m q)·(R_n k) at large positions m, n, which equals the
  score at the shifted positions (m − n, 0): q·(R_{n−m} k) (RoFormer, Su et al., 2021);
- ``alibi_bias``: the bias head h of n adds for a key d positions back, −m_h·d (ALiBi, Press et al., 2022).

Each answer is one number; its distractors are drawn per seed from a pool of named mistakes (the
misconceptions of lesson 4), all passing the checks a learner makes by eye: a sine or cosine lies in
[−1, 1], a score of rotated vectors within ±‖q‖‖k‖ (rotations keep lengths), an ALiBi bias is a penalty
no larger than the distance (every slope is below 1).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import lru_cache
from typing import Any

import numpy as np

from .. import positional
from .base import Inputs, Params, ParamSpec, Solution, Template, specs, step
from .sanity import scalar

OFFSETS = (-6, -5, -4, -3, -2, -1, 1, 2, 3, 4, 5, 6)  # n − m of the RoPE question: never 0
SOURCE = "issue-29"  # lesson 4 is written from issue 29 and the papers it cites, not from a seed document


@lru_cache(maxsize=8)
def _theta(d: int, two: int = 2) -> tuple[float, ...]:
    """RoPE's θ_i (``two`` = 2) as python floats, once per d; ``two`` = 1 is the exponent without its 2."""
    if two == 2:
        return tuple(positional.rope_theta(d).tolist())
    return tuple(10000.0 ** (-i / d) for i in range(d // 2))


@lru_cache(maxsize=8)
def _half_pairs(d: int) -> tuple[tuple[int, int], ...]:
    return tuple(positional.half_pairs(d))


def _bmatrix(v: list[float]) -> str:
    """A row vector of one-decimal numbers in LaTeX."""
    return r"\begin{bmatrix}" + " & ".join([f"{x:.1f}" for x in v]) + r"\end{bmatrix}"


class PositionTemplate(Template):
    """The three templates of lesson 4: one number each, under the rules of issue 25 from their first version."""

    source = SOURCE
    sane_choices = True
    cue_rules = True
    min_distractors = 3


class SinusoidalValue(PositionTemplate):
    """PE[pos, dim] for a seeded position, model width and dimension, in radians."""

    name = "sinusoidal_value"
    version = 1
    title_zh = "正弦位置编码的一个分量"
    title_en = "One entry of the sinusoidal position encoding"
    params = specs(
        ParamSpec("d_model", None, 8, 1024),
        ParamSpec("pos", None, 1, 4096),
        ParamSpec("dim", None, 0, 1023),
    )
    decimals = 3
    atol = 0.002
    ANSWER_FORMAT = "写出 1 个数，保留三位小数。"

    def check_params(self, p: Params) -> None:
        d, dim = p["d_model"], p["dim"]
        if d is not None and d % 2:
            raise ValueError(f"param 'd_model' must be even, got {d}")
        if d is not None and dim is not None and dim >= d:
            raise ValueError(f"param 'dim' ({dim}) must be below param 'd_model' ({d})")

    def draw(self, rng: np.random.Generator, p: Params) -> Inputs:
        d = self.pick(rng, p, "d_model", options=(16, 32, 64, 128, 256, 512))
        pos = self.pick(rng, p, "pos", options=range(1, 201))
        dim = self.pick(rng, p, "dim", options=range(min(d, 32)))  # the fast half of the table: angles of a few rad
        return {"d_model": d, "pos": pos, "dim": dim}

    @staticmethod
    def angle(pos: float, two_i: float, d: int) -> float:
        return float(pos / 10000.0 ** (two_i / d))  # pos · ω_i, ω_i = 1 / 10000^(2i/d)

    def solve(self, inputs: Inputs) -> Solution:
        d, pos, dim = inputs["d_model"], inputs["pos"], inputs["dim"]
        i, odd = dim // 2, dim % 2
        trig, other = (math.cos, math.sin) if odd else (math.sin, math.cos)
        angle = self.angle(pos, 2 * i, d)
        answer = positional.sinusoid_value(pos, dim, d)
        steps = [
            step("这一维属于第几对", rf"\text{{dim}} = {dim} = 2i + {odd},\ i = {i}", i),
            step("频率", rf"\omega_{{{i}}} = 10000^{{-2 \cdot {i} / {d}}}", 10000.0 ** (-2 * i / d)),
            step("角度（弧度）", rf"{pos} \cdot \omega_{{{i}}}", angle),
            step("取值", rf"\{'cos' if odd else 'sin'}({pos} \cdot \omega_{{{i}}})", answer),
        ]
        wrong = [
            ("sinusoid_sin_cos_swapped", other(angle)),
            ("sinusoid_exponent_missing_two", trig(pos / 10000.0 ** (i / d)) if i else None),
            ("sinusoid_dim_as_pair_index", trig(self.angle(pos, 2 * dim, d)) if dim else None),
            ("sinusoid_multiplied_not_divided", trig(pos * 10000.0 ** (2 * i / d)) if i else None),
            ("trig_in_degrees", trig(math.radians(angle))),
            ("sinusoid_position_from_one", trig(self.angle(pos + 1, 2 * i, d))),
        ]
        return Solution(answer, wrong, steps)

    def acceptable(self, inputs: Inputs, solution: Solution) -> bool:
        """Not a near-zero angle, where every mistake shows the same 0.000 or 1.000."""
        return self.angle(inputs["pos"], inputs["dim"] - inputs["dim"] % 2, inputs["d_model"]) >= 0.3

    def sane(self, inputs: Inputs, value: Any) -> bool:
        """A sine or a cosine: one number in [−1, 1]."""
        x = scalar(value)
        return x is not None and -1.0 <= x <= 1.0

    def prompt(self, inputs: Inputs) -> str:
        d, pos, dim = inputs["d_model"], inputs["pos"], inputs["dim"]
        return (
            f"原始 Transformer 的正弦位置编码，$d_{{model}} = {d}$。位置和维度都从 0 数起，角度以弧度计。"
            f"位置 $pos = {pos}$ 的编码向量里，第 {dim} 维的值 $PE_{{({pos},\\,{dim})}}$ 是多少？"
        )


class RopeRelativeScore(PositionTemplate):
    """(R_m q)·(R_n k) with RoFormer's interleaved pairs, q and k of one decimal, m and n in the hundreds
    or thousands: by hand only through the relative form q·(R_{n−m} k)."""

    name = "rope_relative_score"
    version = 1
    title_zh = "RoPE 之后的分数只看相对位置"
    title_en = "The RoPE score depends on the relative position only"
    params = specs(ParamSpec("d", None, 4, 6))
    decimals = 3
    atol = 0.002
    ANSWER_FORMAT = "写出 1 个数，保留三位小数。"

    def check_params(self, p: Params) -> None:
        if p["d"] is not None and p["d"] % 2:
            raise ValueError(f"param 'd' must be even, got {p['d']}")

    def draw(self, rng: np.random.Generator, p: Params) -> Inputs:
        d = self.pick(rng, p, "d", options=(4, 6))
        qk = [x / 10 for x in rng.integers(-10, 11, 2 * d).tolist()]  # (2d,) one decimal in [−1, 1]
        n = int(rng.integers(100, 3000))  # the key's position
        offset = OFFSETS[int(rng.integers(len(OFFSETS)))]  # n − m
        return {"d": d, "q": qk[:d], "k": qk[d:], "m": n - offset, "n": n}

    def solve(self, inputs: Inputs) -> Solution:
        d, q, k, m, n = inputs["d"], list(inputs["q"]), list(inputs["k"]), inputs["m"], inputs["n"]
        theta = _theta(d)  # (d/2,)  10000^(−2i/d)
        offset = n - m
        answer = positional.relative_score(q, k, offset, theta)
        shift = min(m, n)  # both positions moved back by the same amount: n − m, and so the score, unchanged
        shifted = positional.relative_score(q, k, (n - shift) - (m - shift), theta)
        steps = [
            step("频率", rf"\theta_i = 10000^{{-2i/{d}}},\ i = 0, \dots, {d // 2 - 1}", list(theta), (d // 2,)),
            step("相对位置", rf"n - m = {n} - {m}", offset),
            step(
                "把两个位置同时平移，分数不变",
                rf"(R_{{{m - shift}}}\,q)\cdot(R_{{{n - shift}}}\,k)",
                shifted,
            ),
            step(
                "逐对求和",
                r"\sum_i (q_a k_a + q_b k_b)\cos((n-m)\theta_i) + (q_b k_a - q_a k_b)\sin((n-m)\theta_i)",
                answer,
            ),
        ]
        wrong_theta = _theta(d, two=1)  # the 2 dropped from the exponent: 10000^(−i/d)
        wrong = [
            ("rope_offset_sign", positional.relative_score(q, k, -offset, theta)),
            ("rope_half_pairing_on_interleaved", positional.relative_score(q, k, offset, theta, _half_pairs(d))),
            ("rope_theta_exponent", positional.relative_score(q, k, offset, wrong_theta)),
            ("rope_same_angle_both", positional.relative_score(q, k, 0, theta)),  # q·k
            ("rope_only_q", positional.relative_score(q, k, -m, theta)),  # (R_m q)·k = q·(R_{−m} k)
        ]
        return Solution(answer, wrong, steps)

    @staticmethod
    def bound(inputs: Inputs) -> float:
        """‖q‖·‖k‖: rotations keep lengths, so no score of the rotated vectors exceeds it."""
        return math.sqrt(sum(x * x for x in inputs["q"]) * sum(x * x for x in inputs["k"]))

    def acceptable(self, inputs: Inputs, solution: Solution) -> bool:
        return self.bound(inputs) > 0.5  # a zero q or k would make every option 0

    def sane(self, inputs: Inputs, value: Any) -> bool:
        """One number within ±‖q‖‖k‖ (shown to three decimals)."""
        return self.sane_check(inputs)(value)

    def sane_check(self, inputs: Inputs) -> Callable[[Any], bool]:
        limit = self.bound(inputs) + 0.0005  # worked out once per variant

        def check(value: Any) -> bool:
            x = scalar(value)
            return x is not None and abs(x) <= limit

        return check

    def prompt(self, inputs: Inputs) -> str:
        d, q, k, m, n = inputs["d"], inputs["q"], inputs["k"], inputs["m"], inputs["n"]
        return (
            f"RoPE（RoFormer 的交错配对：维度 $(2i, 2i+1)$ 成对，$\\theta_i = 10000^{{-2i/d}}$），$d = {d}$。"
            f"query 在位置 $m = {m}$，key 在位置 $n = {n}$：\n\n"
            f"$$q = {_bmatrix(q)},\\qquad k = {_bmatrix(k)}$$\n\n"
            "两者旋转之后的点积 $(R_m q)\\cdot(R_n k)$ 是多少（不除以 $\\sqrt{d}$）？"
        )


class AlibiBias(PositionTemplate):
    """The bias head h (of n, a power of two) adds to query i's score for a key d positions back."""

    name = "alibi_bias"
    version = 1
    title_zh = "ALiBi 的一个偏置"
    title_en = "One ALiBi bias"
    params = specs(
        ParamSpec("n_head", None, kind="choice", choices=("4", "8", "16")),
        ParamSpec("distance", None, 1, 9),
    )
    decimals = 4
    atol = 0.0002
    rtol = 0.001
    ANSWER_FORMAT = "写出 1 个数，保留四位小数。"

    def draw(self, rng: np.random.Generator, p: Params) -> Inputs:
        n_head = int(self.pick(rng, p, "n_head"))
        head = int(rng.integers(1, n_head + 1))  # counted from 1, as in the prompt
        distance = self.pick(rng, p, "distance")
        i = int(rng.integers(distance + 1, 40))  # query position, counted from 1
        return {"n_head": n_head, "head": head, "i": i, "j": i - distance}

    def solve(self, inputs: Inputs) -> Solution:
        n, h, i, j = inputs["n_head"], inputs["head"], inputs["i"], inputs["j"]
        dist = i - j
        slope = positional.alibi_slopes(n)[h - 1]
        answer = positional.alibi_head_bias(n, h - 1, dist)
        steps = [
            step("首项与公比", rf"2^{{-8/{n}}}", 2.0 ** (-8 / n)),
            step(f"第 {h} 个头的斜率", rf"m_{{{h}}} = \left(2^{{-8/{n}}}\right)^{{{h}}} = 2^{{-{8 * h}/{n}}}", slope),
            step("距离", rf"i - j = {i} - {j}", dist),
            step("偏置", rf"-m_{{{h}}}\,(i - j)", answer),
        ]
        wrong = [
            ("alibi_slope_from_zero", -(2.0 ** (-8 * (h - 1) / n)) * dist),
            ("alibi_eight_head_slopes", -(2.0**-h) * dist if n != 8 else None),
            ("alibi_heads_reversed", -positional.alibi_slopes(n)[n - h] * dist),
            ("alibi_forgot_slope", -float(dist)),
            ("alibi_distance_off_by_one", -slope * (dist + 1)),
        ]
        return Solution(answer, wrong, steps)

    def sane(self, inputs: Inputs, value: Any) -> bool:
        """A penalty (≤ 0) no larger than the distance: every ALiBi slope is below 1."""
        x = scalar(value)
        return x is not None and -(inputs["i"] - inputs["j"]) <= x <= 0

    def prompt(self, inputs: Inputs) -> str:
        n, h, i, j = inputs["n_head"], inputs["head"], inputs["i"], inputs["j"]
        return (
            f"一个用 ALiBi 的解码器，每层 $n = {n}$ 个头，斜率按论文的取法（头从 1 数起）。"
            f"第 $h = {h}$ 个头里，第 $i = {i}$ 个 token 的 query 对第 $j = {j}$ 个 token 的 key，"
            "softmax 之前的分数要加上的偏置是多少（一个负数）？"
        )
