"""Why divide by √d_k: the two Monte Carlo experiments at the end of the lesson-1 exercise (seed 000).

The learner cannot reproduce the samples, so these questions test the concept: the tolerance
accepts the theoretical value as well as the simulated one, and the options differ by far more.
"""

from __future__ import annotations

from functools import partial
from typing import Any

import numpy as np
import numpy.typing as npt

from ..core import softmax
from ..misconceptions import correct_scale
from ..misconceptions import get as misconception
from .base import Distractor, Inputs, Params, ParamSpec, Solution, Template, specs, step
from .sanity import vector


class DotProductVariance(Template):
    name = "dot_product_variance"
    version = 1
    title_zh = "q·k 的方差：缩放前后"
    title_en = "Variance of q·k before and after scaling"
    source = "000"
    params = specs(
        ParamSpec("d_k", None, 2, 1024),
        ParamSpec("n_samples", 2000, 100, 20000),
    )
    hidden = ("dots",)
    decimals = 2
    rtol = 0.15  # 2000 samples: the sample variance is within ~3% (1 sd) of d_k; d_k itself must pass

    def draw(self, rng: np.random.Generator, p: Params) -> Inputs:
        d_k, n = self.pick(rng, p, "d_k", options=(4, 8, 16, 32, 64, 128, 256, 512)), p["n_samples"]
        q, k = rng.standard_normal((2, n, d_k))  # (n, d_k) each, entries N(0, 1)
        return {"d_k": d_k, "n_samples": n, "dots": (q * k).sum(-1)}  # (n,)  q·k per sample

    def solve(self, inputs: Inputs) -> Solution:
        d_k, dots = inputs["d_k"], inputs["dots"]  # dots (n,)
        var = dots.var()  # ≈ d_k: a sum of d_k unit-variance terms
        var_scaled = (dots * correct_scale(d_k)).var()  # ≈ 1
        steps = [
            step("未缩放的方差", r"\operatorname{Var}(q\cdot k) \approx d_k", var),
            step(
                "缩放后的方差",
                r"\operatorname{Var}(q\cdot k/\sqrt{d_k}) = \operatorname{Var}(q\cdot k)/d_k",
                var_scaled,
            ),
            step("理论值", rf"[d_k,\ 1] = [{d_k},\ 1]", np.array([d_k, 1.0])),
        ]
        wrong = [
            (m, [var, (dots * misconception(m).wrong_scale(d_k)).var()]) for m in ("missing_scale", "divide_by_dk")
        ] + [("std_for_variance", [dots.std(), var_scaled])]
        return Solution(np.array([var, var_scaled]), wrong, steps)

    def sane(self, inputs: Inputs, value: Any) -> bool:
        """Two variances: positive, and dividing by √d_k (d_k >= 2) can only shrink the second."""
        pair = vector(value, 2)
        return pair is not None and pair[1] > 0 and pair[0] >= pair[1]

    def prompt(self, inputs: Inputs) -> str:
        d_k, n = inputs["d_k"], inputs["n_samples"]
        return (
            f"$q, k \\in \\mathbb{{R}}^{{{d_k}}}$ 的每个分量独立采样自 $\\mathcal{{N}}(0, 1)$（$d_k = {d_k}$）。"
            f"用 {n} 对样本估计 $\\operatorname{{Var}}(q\\cdot k)$ 和 "
            "$\\operatorname{Var}(q\\cdot k/\\sqrt{d_k})$，写成两个数，保留两位小数"
            "（与模拟值相差 15% 以内都算对）。"
        )


class SoftmaxSharpness(Template):
    name = "softmax_sharpness"
    version = 1
    title_zh = "softmax 有多尖：缩放前后的平均最大权重"
    title_en = "Softmax sharpness: average max weight unscaled vs scaled"
    source = "000"
    params = specs(
        ParamSpec("d_k", None, 4, 4096),
        ParamSpec("n_keys", 8, 2, 64),
        ParamSpec("n_rows", 1000, 100, 10000),
    )
    hidden = ("S",)
    decimals = 3
    atol = 0.05  # a learner estimates the trend; the options are further apart than this
    TYPING = "写成两个数（未缩放, 缩放后），保留三位小数。"

    def draw(self, rng: np.random.Generator, p: Params) -> Inputs:
        d_k = self.pick(rng, p, "d_k", options=(16, 64, 256, 512, 1024))
        n_rows, n_keys = p["n_rows"], p["n_keys"]
        S = rng.standard_normal((n_rows, n_keys)) * np.sqrt(d_k)  # (n_rows, n_keys) unscaled scores, sd √d_k
        return {"d_k": d_k, "n_keys": n_keys, "n_rows": n_rows, "S": S}

    @staticmethod
    def avg_max(S: npt.NDArray[np.float64], scale: float) -> float:
        avg: float = softmax(S * scale).max(-1).mean()  # (n_rows, n_keys) -> (n_rows,) -> scalar
        return avg

    def solve(self, inputs: Inputs) -> Solution:
        d_k, S = inputs["d_k"], inputs["S"]
        unscaled = self.avg_max(S, 1.0)  # close to 1: nearly one-hot
        scaled = self.avg_max(S, correct_scale(d_k))  # independent of d_k
        steps = [
            step("未缩放", r"\overline{\max_j \mathrm{softmax}(s)_j}", unscaled),
            step("缩放后", r"\overline{\max_j \mathrm{softmax}(s/\sqrt{d_k})_j}", scaled),
        ]
        wrong = [
            ("missing_scale", [unscaled, self.avg_max(S, misconception("missing_scale").wrong_scale(d_k))]),
            ("divide_by_dk", [unscaled, self.avg_max(S, misconception("divide_by_dk").wrong_scale(d_k))]),
            ("scaling_sharpens", [scaled, unscaled]),
        ]
        return Solution(np.array([unscaled, scaled]), wrong, steps)

    def sane(self, inputs: Inputs, value: Any) -> bool:
        """Two averages of a row's largest weight: each between 1 / n_keys (uniform) and 1 (one-hot)."""
        pair = vector(value, 2)
        low = 1 / inputs["n_keys"] - 10.0**-self.decimals  # shown to 3 decimals
        return pair is not None and all(low <= x <= 1 for x in pair)

    def prompt(self, inputs: Inputs) -> str:
        d_k, n_keys, n_rows = inputs["d_k"], inputs["n_keys"], inputs["n_rows"]
        return (
            f"{n_rows} 行未缩放的注意力分数，每行 {n_keys} 个 key，每个分数采样自 "
            f"$\\mathcal{{N}}(0, d_k)$，$d_k = {d_k}$（即 $q\\cdot k$ 的分布）。"
            "分别对未缩放的分数和除以 $\\sqrt{d_k}$ 后的分数逐行做 softmax，"
            "每行最大的权重平均约是多少？" + self.TYPING
        )


# --- version 2 ---------------------------------------------------------------------------------


class DotProductVarianceV2(DotProductVariance):
    version = 2
    sane_choices = True
    ANSWER_FORMAT = "按缩放前、缩放后的顺序写出 2 个数，保留两位小数（与模拟值相差 15% 以内都算对）。"

    def prompt(self, inputs: Inputs) -> str:
        d_k, n = inputs["d_k"], inputs["n_samples"]
        return (
            f"$q, k \\in \\mathbb{{R}}^{{{d_k}}}$ 的每个分量独立采样自 $\\mathcal{{N}}(0, 1)$（$d_k = {d_k}$）。"
            f"用 {n} 对样本估计，$\\operatorname{{Var}}(q\\cdot k)$ 和 "
            "$\\operatorname{Var}(q\\cdot k/\\sqrt{d_k})$ 大约各是多少？"
        )


class SoftmaxSharpnessV2(SoftmaxSharpness):
    version = 2
    sane_choices = True
    TYPING = ""
    ANSWER_FORMAT = "按未缩放、缩放后的顺序写出 2 个数，保留三位小数。"


# --- version 3 (issue 25) ----------------------------------------------------------------------


class DotProductVarianceV3(DotProductVarianceV2):
    """Two parts, before and after the scale. Each variant's distractors change the same part, so the
    other reads the same in every option and no vote on the parts finds the answer: either the first
    (the standard deviation, the belief that q·k keeps unit variance, the standard deviations added)
    or the second (no scale, ÷d_k, the variance divided by √d_k only). All from the same samples."""

    version = 3
    cue_rules = True

    def solve(self, inputs: Inputs) -> Solution:
        d_k, dots = inputs["d_k"], inputs["dots"]  # dots (n,)
        solution = super().solve(inputs)
        var, var_scaled = solution.answer.tolist()
        wrong = [  # the first part wrong, the second as computed
            ("std_for_variance", [float(dots.std()), var_scaled]),
            ("dot_unit_variance", [var / d_k, var_scaled]),  # the variance of one product q_i k_i
            ("stds_added", [var * d_k, var_scaled]),  # sd d_k·1 instead of √d_k: (d_k)² = d_k · Var
        ] + [  # the second part wrong
            (m, [var, float((dots * misconception(m).wrong_scale(d_k)).var())])
            for m in ("missing_scale", "divide_by_dk")
        ]
        wrong.append(("variance_scales_linearly", [var, var / np.sqrt(d_k)]))
        return solution._replace(distractors=wrong)

    def parts(self, inputs: Inputs, value: Any) -> tuple[Any, ...]:
        return tuple(value)


class SoftmaxSharpnessV3(SoftmaxSharpnessV2):
    """The prompt says what the scores are: q·k has mean 0 and variance d_k, and is only approximately
    normal; the samples are drawn from N(0, d_k) as that approximation. Two parts, unscaled and scaled:
    a variant's distractors either change the scaled part only (no scale, ÷d_k, ×√d_k, ÷√n_keys) or
    both parts, each differently (scores of standard deviation d_k, or of variance 1)."""

    version = 3
    cue_rules = True

    def solve(self, inputs: Inputs) -> Solution:
        d_k, S, n_keys = inputs["d_k"], inputs["S"], inputs["n_keys"]  # S (n_rows, n_keys), sd √d_k
        solution = super().solve(inputs)
        unscaled, scaled = solution.answer.tolist()
        sqrt_dk = float(np.sqrt(d_k))

        def second(scale: float) -> list[float]:  # the scaled part with another scale
            return [unscaled, self.avg_max(S, scale)]

        wrong: list[Distractor] = [
            (m, partial(second, misconception(m).wrong_scale(d_k)))
            for m in ("missing_scale", "divide_by_dk", "scale_inverted")
        ]
        wrong += [
            ("scale_uses_seq_len", partial(second, 1 / np.sqrt(n_keys)) if n_keys != d_k else None),
            # sd d_k instead of √d_k (the variance taken for the sd): S·√d_k, then scaled by 1/√d_k
            ("std_for_variance", lambda: [self.avg_max(S, sqrt_dk), unscaled]),
            # variance 1 instead of d_k: S / √d_k, then scaled by 1/√d_k
            ("dot_unit_variance", lambda: [scaled, self.avg_max(S, 1 / d_k)]),
        ]
        return solution._replace(distractors=wrong)

    def parts(self, inputs: Inputs, value: Any) -> tuple[Any, ...]:
        return tuple(value)

    def prompt(self, inputs: Inputs) -> str:
        d_k, n_keys, n_rows = inputs["d_k"], inputs["n_keys"], inputs["n_rows"]
        return (
            f"$q, k$ 的 $d_k = {d_k}$ 个分量独立取自 $\\mathcal{{N}}(0, 1)$ 时，未缩放的分数 $q\\cdot k$ 均值为 0、"
            "方差为 $d_k$，只是近似正态（$d_k$ 个乘积之和，$d_k$ 越大越接近）。"
            f"按这个近似，从 $\\mathcal{{N}}(0, d_k)$ 采样 {n_rows} 行分数，每行 {n_keys} 个 key。"
            "分别对未缩放的分数和除以 $\\sqrt{d_k}$ 后的分数逐行做 softmax，每行最大的权重平均约是多少？"
        )
