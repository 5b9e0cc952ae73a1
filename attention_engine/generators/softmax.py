"""Softmax by hand where the naive formula fails: FlashAttention's online softmax, and large logits.

- ``online_softmax`` (seed 004, FlashAttention): one query's scores arrive in two key tiles; after
  tile 1 only the running max m₁ and the running sum ℓ₁ = Σ e^(s − m₁) are kept. Tile 2 raises the
  max, so the old sum must be moved to the new max: ℓ₂ = ℓ₁·e^(m₁ − m₂) + Σ e^(s − m₂), exactly what
  ``attention_engine.blockwise`` does with ``denom * rescale``.
- ``stable_softmax`` (seed 000, "数值稳定：先减最大值"): logits so large that e^x overflows
  (float64 past ln(max) ≈ 709.78, float32 past ≈ 88.72); softmax is shift-invariant, so subtracting
  the max gives the same weights without overflow. The worked solution shows the overflow first.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, ClassVar

import numpy as np

from ..core import FloatArray
from .base import Distractor, Inputs, Params, ParamSpec, Solution, Step, Template, shuffled, specs, step
from .display import fmt, fmt_many, latex_row
from .rows import softmax_list
from .sanity import half_unit, order_of, ordered, probability_row, vector


class OnlineSoftmax(Template):
    name = "online_softmax"
    version = 1
    title_zh = "在线 softmax：跨 tile 更新运行最大值和运行和"
    title_en = "Online softmax: updating the running max and sum across tiles"
    source = "004"
    params = specs(ParamSpec("tile_size", None, 2, 3))
    decimals = 2
    atol = 0.01
    sane_choices = True

    def draw(self, rng: np.random.Generator, p: Params) -> Inputs:
        n = self.pick(rng, p, "tile_size")
        s = rng.integers(-10, 26, size=2 * n) / 10  # (2n,) one-decimal scores in [-1.0, 2.5]
        if s[:n].max() > s[n:].max():  # the tile with the larger max comes second:
            s = np.concatenate([s[n:], s[:n]])  # the case where the old sum needs rescaling
        tile_1, tile_2 = s[:n], s[n:]  # (n,) each
        m_1 = float(tile_1.max())
        l_1 = round(float(np.exp(tile_1 - m_1).sum()), 3)  # shown with 3 decimals, used as shown
        return {
            "tile_1": tile_1,
            "tile_2": tile_2,
            "m_1": m_1,
            "l_1": l_1,
            "key": int(rng.integers(1, n + 1)),
        }  # a key of tile 1, counted from 1

    def acceptable(self, inputs: Inputs, solution: Solution) -> bool:
        return float(np.max(inputs["tile_2"])) > float(inputs["m_1"])  # a tie leaves nothing to rescale: redraw

    def solve(self, inputs: Inputs) -> Solution:
        t1, t2 = np.asarray(inputs["tile_1"], dtype=float), np.asarray(inputs["tile_2"], dtype=float)  # (n,)
        m_1, l_1, j = inputs["m_1"], inputs["l_1"], inputs["key"]
        s_j = float(t1[j - 1])
        top_2 = float(t2.max())  # tile 2's largest score
        m_2 = max(m_1, top_2)  # running max after tile 2
        rescale = math.exp(m_1 - m_2)  # <= 1: the old terms e^(s - m_1) -> e^(s - m_2)
        new = np.exp(t2 - m_2)  # (n,) tile 2's terms, relative to m_2
        new_sum = float(new.sum())  # tile 2's sum relative to m_2
        l_2 = l_1 * rescale + new_sum
        w_j = math.exp(s_j - m_2) / l_2  # the final weight of key j
        steps = self.steps(j, s_j, m_1, l_1, top_2, m_2, new.tolist(), l_2, w_j)
        return Solution([m_2, l_2, w_j], self.wrong(m_1, m_2, l_1, new_sum, s_j), steps)

    @staticmethod
    def steps(
        j: int, s_j: float, m_1: float, l_1: float, top_2: float, m_2: float, new: list[float], l_2: float, w_j: float
    ) -> list[Step]:
        """The worked update from the values ``solve`` computed (with numpy or, version 3, plain python)."""
        return [
            step(
                "tile 1 之后",
                rf"m_1 = \max(s^{{(1)}}) = {fmt(m_1, 1)},\ "
                rf"\ell_1 = \sum_j e^{{s_j - m_1}} = {fmt(l_1, 3)}",
                [m_1, l_1],
                (2,),
            ),
            step("新的运行最大值", rf"m_2 = \max(m_1, \max s^{{(2)}}) = \max({fmt(m_1, 1)}, {fmt(top_2, 1)})", m_2, ()),
            step(
                "旧的和换算到 m_2",
                rf"\ell_1 \cdot e^{{m_1 - m_2}} = {fmt(l_1, 3)} \cdot e^{{{fmt(m_1 - m_2, 1)}}}",
                l_1 * math.exp(m_1 - m_2),  # the old sum rescaled, as solve() computes it
                (),
            ),
            step("tile 2 的项", r"e^{s_j - m_2},\ s_j \in s^{(2)}", new, (len(new),)),
            step("新的运行和", r"\ell_2 = \ell_1 e^{m_1 - m_2} + \sum_{j \in \text{tile 2}} e^{s_j - m_2}", l_2, ()),
            step(
                "最终权重", rf"w_{{{j}}} = e^{{s_{{{j}}} - m_2}} / \ell_2 = e^{{{fmt(s_j - m_2, 1)}}} / \ell_2", w_j, ()
            ),
        ]

    def wrong(self, m_1: float, m_2: float, l_1: float, new_sum: float, s_j: float) -> list[Distractor]:
        """The mistaken updates: (m₂, ℓ, w_j) from the maxima, ℓ₁, tile 2's sum relative to m₂ and s_j."""

        def state(ell: float, w_numerator: float) -> list[float]:  # (m_2, ℓ, w_j) of a mistaken update
            return [m_2, ell, w_numerator / ell]

        rescale = math.exp(m_1 - m_2)  # <= 1
        no_rescale = l_1 + new_sum
        return [
            ("online_no_rescale", state(no_rescale, math.exp(s_j - m_2))),
            ("online_rescale_inverted", state(l_1 / rescale + new_sum, math.exp(s_j - m_2))),
            ("online_tile_local_max", state(no_rescale, math.exp(s_j - m_1))),  # tile 1 stays at m_1
            ("online_dropped_old_sum", state(new_sum, math.exp(s_j - m_2))),
        ]

    def sane(self, inputs: Inputs, value: Any) -> bool:
        """m₂ is the largest score; ℓ₂ sums one term e^(s − m₂) <= 1 per key, the largest exactly 1, so
        1 <= ℓ₂ <= number of keys; the weight is positive and w·ℓ₂ = e^(s − m₂) <= 1."""
        return self.sane_check(inputs)(value)

    def sane_check(self, inputs: Inputs) -> Callable[[Any], bool]:
        n_keys = len(inputs["tile_1"]) + len(inputs["tile_2"])
        top = max(max(inputs["tile_1"]), max(inputs["tile_2"]))
        eps = half_unit(self.decimals)

        def check(value: Any) -> bool:
            x = vector(value, 3)
            if x is None:
                return False
            m, ell, w = x
            return (
                abs(m - top) <= eps
                and 1 - eps <= ell <= n_keys + eps
                and 0 < w <= 1
                and w * ell <= 1 + eps * (ell + w + 1)
            )

        return check

    def label(self, value: Any) -> tuple[str, str]:
        m, ell, w = fmt_many(value, self.decimals)
        return f"m₂ = {m}，ℓ₂ = {ell}，w = {w}", f"m₂ = {m}, ℓ₂ = {ell}, w = {w}"

    def prompt(self, inputs: Inputs) -> str:
        n, j = len(inputs["tile_1"]), inputs["key"]
        return (
            "FlashAttention 按 tile 处理 key：对一个 query，它只记下已处理 key 的运行最大值 $m$ 和运行和 "
            r"$\ell = \sum_j e^{s_j - m}$，每处理一个 tile 更新一次。"
            f"这个 query 的 {2 * n} 个分数分成两个 tile，每个 {n} 个 key：\n\n"
            f"$$s^{{(1)}} = {latex_row(inputs['tile_1'], 1)},"
            f"\\qquad s^{{(2)}} = {latex_row(inputs['tile_2'], 1)}$$\n\n"
            f"处理完 tile 1 后 $m_1 = {fmt(inputs['m_1'], 1)}$，$\\ell_1 = {fmt(inputs['l_1'], 3)}$。"
            f"处理完 tile 2 后，$m_2$ 和 $\\ell_2$ 各是多少？第 {j} 个 key（在 tile 1 中）的最终 softmax 权重 "
            f"$w_{{{j}}}$ 是多少？"
        )

    def answer_format(self, inputs: Inputs) -> str:
        return f"按 m₂、ℓ₂、w_{inputs['key']} 的顺序写出 3 个数，保留两位小数。"


def sci(x: float) -> str:
    r"""3.4 \times 10^{38} for 3.4e+38."""
    mantissa, exponent = f"{x:.1e}".split("e")
    return rf"{mantissa} \times 10^{{{int(exponent)}}}"


# ln of the largest finite value: e^x overflows to inf beyond it
OVERFLOW = {"float32": float(np.log(np.finfo(np.float32).max)), "float64": float(np.log(np.finfo(np.float64).max))}
TOPS = {"float32": (89.0, 89.5, 90.0, 91.0, 100.0, 120.0), "float64": (710.0, 710.5, 711.0, 712.0, 750.0, 1000.0)}


class StableSoftmax(Template):
    name = "stable_softmax"
    version = 1
    title_zh = "大 logit 的 softmax：先减最大值"
    title_en = "Softmax of large logits: subtract the max first"
    source = "000"
    params = specs(
        ParamSpec("dtype", None, kind="choice", choices=tuple(OVERFLOW)),
        ParamSpec("n", None, 3, 4),
    )
    decimals = 2
    atol = 0.01
    sane_choices = True

    def draw(self, rng: np.random.Generator, p: Params) -> Inputs:
        dtype, n = self.pick(rng, p, "dtype"), self.pick(rng, p, "n")
        top = TOPS[dtype][int(rng.integers(len(TOPS[dtype])))]
        gaps = (rng.permutation(30)[: n - 1] + 1) / 10  # (n-1,) distinct gaps 0.1..3.0 below the top
        x = np.round(np.concatenate([[top], top - gaps]), 1)  # (n,)
        return {"x": x[rng.permutation(n)], "dtype": dtype}  # the largest logit anywhere

    def acceptable(self, inputs: Inputs, solution: Solution) -> bool:
        w = solution.answer
        return bool(w.max() <= 0.9 and w.max() - w.min() >= 0.05)  # neither one-hot nor flat

    def solve(self, inputs: Inputs) -> Solution:
        x = np.asarray(inputs["x"], dtype=float)  # (n,)
        limit = OVERFLOW[inputs["dtype"]]
        m = float(x.max())
        shifted = x - m  # (n,) <= 0: e^shifted <= 1, no overflow
        e = np.exp(shifted)  # (n,) the largest is e^0 = 1
        total = e.sum()
        w = e / total  # (n,) unchanged by the shift: e^-m cancels
        over = [j + 1 for j in range(len(x)) if x[j] > limit]
        steps = [
            step(
                "直接算 e^x（不减最大值）",
                rf"e^{{x_j}} > e^{{{limit:.2f}}} \approx {sci(float(np.finfo(inputs['dtype']).max))}"
                rf"\ (j = {', '.join(map(str, over))})：\text{{{inputs['dtype']} 溢出为 inf，}}"
                r"\ \infty / \infty = \text{nan}",
                shape=(len(x),),
                misconception="no_max_subtraction",
            ),
            step("减去最大值", rf"x_j - \max_k x_k = x_j - {fmt(m, 1)}", shifted),
            step("取指数", r"e^{x_j - \max_k x_k}", e),
            step("求和", r"\sum_j e^{x_j - \max_k x_k}", float(total)),
            step("归一化", r"w_j = e^{x_j - \max_k x_k} / \sum_k e^{x_k - \max x}", w),
        ]
        return Solution(w, self.wrong(x, limit), steps)

    def wrong(self, x: FloatArray, limit: float) -> list[Distractor]:
        """The distractors for the logits x (n,) in a dtype whose e^x overflows past ``limit``."""
        m = float(x.max())
        clamp = math.floor(limit)  # the largest whole logit whose e^x is finite
        clamped = np.exp(np.minimum(x, clamp) - min(m, clamp))  # (n,)
        return [
            ("linear_normalisation", x / x.sum()),
            ("shifted_linear_normalisation", (x - x.min()) / (x - x.min()).sum()),
            ("softmax_as_argmax", (x == m).astype(float)),
            ("clamp_logits", clamped / clamped.sum()),
        ]

    def sane(self, inputs: Inputs, value: Any) -> bool:
        """n weights, non-negative, summing to 1, and in the logits' order: a larger logit never gets
        a smaller weight."""
        x = inputs["x"].tolist() if isinstance(inputs["x"], np.ndarray) else inputs["x"]
        w = vector(value, len(x))
        if w is None or not probability_row(w):
            return False
        return all(w[i] >= w[j] for i in range(len(x)) for j in range(len(x)) if x[i] > x[j])

    def prompt(self, inputs: Inputs) -> str:
        return (
            f"在 `{inputs['dtype']}` 中计算 $\\mathrm{{softmax}}(x)$，其中 "
            f"$x = {latex_row(inputs['x'], 1)}$。softmax 的结果是多少？"
        )

    def answer_format(self, inputs: Inputs) -> str:
        return f"按 $x$ 的顺序写出 {len(inputs['x'])} 个数，保留两位小数。"


# --- issue 25 ------------------------------------------------------------------------------------


class OnlineSoftmaxV2(OnlineSoftmax):
    """The answer has three parts, (m₂, ℓ₂, w): m₂ reads the same in every option (the largest score,
    which a learner sees), and the options are chosen so that every option shares equally many parts
    with the others (tile_local_max has the same ℓ₂ as online_no_rescale: the two come together only
    where another pair of options shares a part too). One more named mistake: the factor applied to the
    new tile instead of the old sum."""

    version = 2
    cue_rules = True

    def wrong(self, m_1: float, m_2: float, l_1: float, new_sum: float, s_j: float) -> list[Distractor]:
        ell = l_1 + math.exp(m_1 - m_2) * new_sum  # <- the factor on the new tile, not on l_1
        return [
            *super().wrong(m_1, m_2, l_1, new_sum, s_j),
            ("online_rescaled_new_tile", [m_2, ell, math.exp(s_j - m_2) / ell]),
        ]

    def parts(self, inputs: Inputs, value: Any) -> tuple[Any, ...]:
        return tuple(value)  # (m₂, ℓ₂, w) as shown


class StableSoftmaxV2(StableSoftmax):
    """Options judged as displayed: every weight positive and never 0.00 (so not the argmax, nor the
    min-shifted linear normalisation, whose smallest logit gets 0), the weights in the order of the
    logits. Linear normalisation is dropped too: at logits near 710 it shows [0.25, 0.25, 0.25, 0.25]
    whatever the gaps, an option nobody who has seen a softmax would pick. Softmax is invariant to
    shifts only, and every shift that does not overflow gives the answer exactly; what is left of the
    real mistakes are those that scale the logits (standardised, min-max scaled) or clamp them. Three
    options, drawn from these three.

    The largest logit is the only one past the overflow limit (the others lie below the clamp at
    ⌊limit⌋), so clamping keeps the order of the logits and is a mistake a learner cannot rule out by
    eye; version 1's clamp mostly tied several logits at the limit."""

    version = 2
    cue_rules = True
    max_distractors = 2
    TOPS: ClassVar[dict[str, tuple[float, ...]]] = {
        "float32": (89.0, 89.5, 90.0, 90.5),
        "float64": (710.0, 710.5, 711.0, 711.5),
    }

    def draw(self, rng: np.random.Generator, p: Params) -> Inputs:
        dtype, n = self.pick(rng, p, "dtype"), self.pick(rng, p, "n")
        top = self.TOPS[dtype][int(rng.integers(len(self.TOPS[dtype])))]
        first = round(10 * (top - math.floor(OVERFLOW[dtype]))) + 1  # the smallest gap that ends below the clamp
        gaps = rng.permutation(np.arange(first, 31))[: n - 1] / 10  # (n-1,) distinct gaps up to 3.0
        x = np.round(np.concatenate([[top], top - gaps]), 1)  # (n,)
        return {"x": x[rng.permutation(n)], "dtype": dtype}  # the largest logit anywhere

    def wrong(self, x: FloatArray, limit: float) -> list[Distractor]:
        clamp = math.floor(limit)  # the largest whole logit whose e^x is finite; only the max is above it
        centred = x - x.sum() / len(x)  # (n,) x minus its mean
        z = centred / math.sqrt((centred * centred).sum() / len(x))  # (n,) <- standardised: divided by the std
        r = (x - x.min()) / (x.max() - x.min())  # (n,) <- min-max scaled to [0, 1]
        e = np.exp(np.stack([np.minimum(x, clamp) - clamp, z - z.max(), r - r.max()]))  # (3, n) each <= 1
        w = e / e.sum(axis=-1, keepdims=True)  # (3, n)
        return [("clamp_logits", w[0]), ("standardised_logits", w[1]), ("minmax_scaled_logits", w[2])]

    def positive(self, inputs: Inputs) -> list[bool]:
        return [True] * len(inputs["x"])

    def sane(self, inputs: Inputs, value: Any) -> bool:
        """n weights, non-negative, summing to 1, in the order of the logits (equal logits, equal weights)."""
        return self.sane_check(inputs)(value)

    def sane_check(self, inputs: Inputs) -> Callable[[Any], bool]:
        x = inputs["x"].tolist() if isinstance(inputs["x"], np.ndarray) else inputs["x"]
        n, order = len(x), order_of(x)

        def check(value: Any) -> bool:
            w = vector(value, n)
            return w is not None and probability_row(w) and ordered(w, order)

        return check


# --- issue 25, speed -----------------------------------------------------------------------------


# the largest finite value of each dtype, for the overflow step
FINFO_MAX = {"float32": float(np.finfo(np.float32).max), "float64": float(np.finfo(np.float64).max)}


class StableSoftmaxV3(StableSoftmaxV2):
    """Version 2's question, numbers and mistakes, computed in plain python on the n logits (numpy's
    per-call cost dominated the generation time): the same logits for the same seed, the weights
    equal to version 2's up to the last bits of e^x (math.exp instead of np.exp)."""

    version = 3

    def draw(self, rng: np.random.Generator, p: Params) -> Inputs:
        dtype, n = self.pick(rng, p, "dtype"), self.pick(rng, p, "n")
        top = self.TOPS[dtype][int(rng.integers(len(self.TOPS[dtype])))]
        first = round(10 * (top - math.floor(OVERFLOW[dtype]))) + 1  # the smallest gap that ends below the clamp
        gaps = shuffled(rng, 31 - first)[: n - 1]  # (n-1,) distinct gaps first..30 tenths, less first
        tenths = [round(10 * top), *(round(10 * top) - first - g for g in gaps)]  # (n,) the logits in tenths
        order = shuffled(rng, n)
        return {"x": [tenths[i] / 10 for i in order], "dtype": dtype}  # (n,) the largest logit anywhere

    def acceptable(self, inputs: Inputs, solution: Solution) -> bool:
        w: list[float] = solution.answer  # (n,)
        return max(w) <= 0.9 and max(w) - min(w) >= 0.05  # neither one-hot nor flat

    def solve(self, inputs: Inputs) -> Solution:
        x = [float(v) for v in inputs["x"]]  # (n,)
        n, dtype = len(x), inputs["dtype"]
        limit = OVERFLOW[dtype]
        m = max(x)
        shifted = [v - m for v in x]  # (n,) <= 0: e^shifted <= 1, no overflow
        e = [math.exp(v) for v in shifted]  # (n,) the largest is e^0 = 1
        total = sum(e)
        w = [v / total for v in e]  # (n,) unchanged by the shift: e^-m cancels
        over = [j + 1 for j in range(n) if x[j] > limit]
        steps = [
            step(
                "直接算 e^x（不减最大值）",
                rf"e^{{x_j}} > e^{{{limit:.2f}}} \approx {sci(FINFO_MAX[dtype])}"
                rf"\ (j = {', '.join(map(str, over))})：\text{{{dtype} 溢出为 inf，}}"
                r"\ \infty / \infty = \text{nan}",
                shape=(n,),
                misconception="no_max_subtraction",
            ),
            step("减去最大值", rf"x_j - \max_k x_k = x_j - {fmt(m, 1)}", shifted, (n,)),
            step("取指数", r"e^{x_j - \max_k x_k}", e, (n,)),
            step("求和", r"\sum_j e^{x_j - \max_k x_k}", total, ()),
            step("归一化", r"w_j = e^{x_j - \max_k x_k} / \sum_k e^{x_k - \max x}", w, (n,)),
        ]
        return Solution(w, self.wrong_list(x, limit), steps)

    def wrong_list(self, x: list[float], limit: float) -> list[Distractor]:
        """Version 2's three mistakes for the logits x (n,): clamped, standardised, min-max scaled."""
        n = len(x)
        clamp = math.floor(limit)  # the largest whole logit whose e^x is finite; only the max is above it
        mean = sum(x) / n
        centred = [v - mean for v in x]  # (n,) x minus its mean
        std = math.sqrt(sum(c * c for c in centred) / n)
        lo, hi = min(x), max(x)
        return [
            ("clamp_logits", softmax_list([min(v, clamp) for v in x])),
            ("standardised_logits", softmax_list([c / std for c in centred])),  # <- divided by the std
            ("minmax_scaled_logits", softmax_list([(v - lo) / (hi - lo) for v in x])),  # <- scaled to [0, 1]
        ]


class OnlineSoftmaxV3(OnlineSoftmaxV2):
    """Version 2's question, numbers and mistakes, computed in plain python on the 2n scores (numpy's
    per-call cost dominated the generation time): the same scores for the same seed."""

    version = 3

    def draw(self, rng: np.random.Generator, p: Params) -> Inputs:
        n = self.pick(rng, p, "tile_size")
        s = [k / 10 for k in rng.integers(-10, 26, size=2 * n).tolist()]  # (2n,) one-decimal scores in [-1.0, 2.5]
        if max(s[:n]) > max(s[n:]):  # the tile with the larger max comes second:
            s = s[n:] + s[:n]  # the case where the old sum needs rescaling
        tile_1, tile_2 = s[:n], s[n:]  # (n,) each
        m_1 = max(tile_1)
        l_1 = round(sum(math.exp(t - m_1) for t in tile_1), 3)  # shown with 3 decimals, used as shown
        return {"tile_1": tile_1, "tile_2": tile_2, "m_1": m_1, "l_1": l_1, "key": int(rng.integers(1, n + 1))}

    def acceptable(self, inputs: Inputs, solution: Solution) -> bool:
        return bool(max(inputs["tile_2"]) > inputs["m_1"])  # a tie leaves nothing to rescale: redraw

    def solve(self, inputs: Inputs) -> Solution:
        t1, t2 = [float(s) for s in inputs["tile_1"]], [float(s) for s in inputs["tile_2"]]  # (n,) each
        m_1, l_1, j = inputs["m_1"], inputs["l_1"], inputs["key"]
        s_j = t1[j - 1]
        top_2 = max(t2)  # tile 2's largest score
        m_2 = max(m_1, top_2)  # running max after tile 2
        rescale = math.exp(m_1 - m_2)  # <= 1: the old terms e^(s - m_1) -> e^(s - m_2)
        new = [math.exp(s - m_2) for s in t2]  # (n,) tile 2's terms, relative to m_2
        new_sum = sum(new)  # tile 2's sum relative to m_2
        l_2 = l_1 * rescale + new_sum
        w_j = math.exp(s_j - m_2) / l_2  # the final weight of key j
        steps = self.steps(j, s_j, m_1, l_1, top_2, m_2, new, l_2, w_j)
        return Solution([m_2, l_2, w_j], self.wrong(m_1, m_2, l_1, new_sum, s_j), steps)
