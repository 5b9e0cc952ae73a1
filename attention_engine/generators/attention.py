"""Hand-sized attention: one query row, its output, the causal mask and the "fill with 0" contrast.

The numbers are small enough for a calculator, as in the seeds' "我吃" (001, question 2) and
"我爱你" (001, question 3) examples. Every input has one decimal, so the prompt shows exactly
the numbers the answer is computed from.
"""

from __future__ import annotations

import math
from functools import partial

import numpy as np

from ..core import shared_causal_mask, softmax
from ..misconceptions import get as misconception
from .base import ParamSpec, Solution, Template, specs, step
from .display import fmt_many, latex_matrix, latex_row

SCALE_BUGS = ("missing_scale", "divide_by_dk", "softmax_wrong_axis", "missing_softmax")
MASK_BUGS = ("mask_fill_zero", "mask_after_softmax", "missing_causal_mask")
# |q|, |k| <= 1.5: still hand-sized, and large enough that forgetting the scale visibly changes the answer
QK_LIMIT = 15
MIN_SPREAD = 0.05   # a row whose visible weights all lie within this of each other is trivial


def tenths(rng: np.random.Generator, shape: tuple, limit: int = 9) -> np.ndarray:
    """Entries k/10 with |k| <= limit: exactly the one-decimal numbers the prompt prints."""
    return rng.integers(-limit, limit + 1, size=shape) / 10


def spread_ok(weights: list, visible: int) -> bool:
    """The first ``visible`` weights of a row are not (nearly) uniform, so the softmax matters."""
    w = weights[:visible]
    return visible > 1 and max(w) - min(w) >= MIN_SPREAD


def row_steps(Q: np.ndarray, K: np.ndarray, i: int, is_causal: bool) -> tuple[np.ndarray, list]:
    """The weights of query row i (0-based) computed the way a learner does it, with the steps."""
    T, d_k = K.shape
    s = K @ Q[i]                                          # (T,)  s_j = q_i · k_j
    scaled = s / math.sqrt(d_k)                           # (T,)
    steps = [
        step("点积分数", rf"s_j = q_{{{i + 1}}} \cdot k_j", s),
        step("缩放", rf"\tilde s_j = s_j / \sqrt{{{d_k}}}", scaled),
    ]
    if is_causal:
        scaled = np.where(shared_causal_mask(T, T)[i], scaled, -np.inf)   # (T,)  future keys -> -inf
        steps.append(step("因果掩码", rf"\tilde s_j = -\infty \quad (j > {i + 1})", scaled))
    e = np.exp(scaled - scaled.max())                     # (T,)  minus the max: same result, no overflow
    w = e / e.sum()                                       # (T,)  sums to 1; e^-inf = 0 for masked keys
    steps.append(step("softmax", r"w_j = \frac{e^{\tilde s_j}}{\sum_k e^{\tilde s_k}}", w))
    return w, steps


def wrong_row(bug: str, dots: np.ndarray, d_k: int, i: int, is_causal: bool, V=None) -> np.ndarray:
    """Row i of the weights (or, given V, of the output) with the misconception ``bug`` in place.

    ``dots`` is Q Kᵀ (T, T), computed once per variant: each bug only changes what comes after it.
    """
    weights = misconception(bug).weights_from_dots(dots, d_k, is_causal)   # (T, T)
    return weights[i] if V is None else (weights @ V)[i]                    # (T,) or (T, T) @ (T, d_v) -> (d_v,)


def wrong_score_row(bug: str, S, i: int) -> np.ndarray:
    """Row i of the causal weights of the score matrix S with the misconception ``bug`` in place."""
    return misconception(bug).weights_from_scores(S, True)[i]


class QueryRow(Template):
    """Shared by the two one-query templates: draw Q, K (and V), pick the query, reject flat rows."""

    source = "001"
    decimals = 2

    def draw(self, rng, p):
        T, d_k, causal = self.pick(rng, p, "T"), self.pick(rng, p, "d_k"), p["is_causal"]
        Q, K = tenths(rng, (2, T, d_k), QK_LIMIT)          # (T, d_k) each
        inputs = {"Q": Q, "K": K}
        if "d_v" in self.params:
            inputs["V"] = tenths(rng, (T, self.pick(rng, p, "d_v")))
        inputs["query"] = int(rng.integers(2 if causal else 1, T + 1))  # causal row 1 is always [1, 0, ...]
        inputs["is_causal"] = causal
        return inputs

    def row(self, inputs) -> tuple[np.ndarray, int, int, np.ndarray, list]:
        """(Q Kᵀ for the misconceptions, d_k, query index, its weights, the steps so far)."""
        Q, K = np.asarray(inputs["Q"], dtype=float), np.asarray(inputs["K"], dtype=float)  # (T, d_k)
        i = inputs["query"] - 1
        w, steps = row_steps(Q, K, i, inputs["is_causal"])
        return Q @ K.T, K.shape[1], i, w, steps           # (T, d_k) @ (d_k, T) -> (T, T)

    def bugs(self, inputs) -> tuple[str, ...]:
        return SCALE_BUGS + MASK_BUGS if inputs["is_causal"] else SCALE_BUGS

    def acceptable(self, inputs, solution):
        w = next(s.value for s in solution.steps if s.name == "softmax")
        return spread_ok(w, inputs["query"] if inputs["is_causal"] else len(w))

    def intro(self, inputs) -> str:
        shown = [f"{name} = {latex_matrix(inputs[name], 1)}" for name in ("Q", "K", "V") if name in inputs]
        T, d_k = np.shape(inputs["K"])
        mask = ("使用因果掩码：第 $i$ 个 token 只能看到第 $1..i$ 个 token。" if inputs["is_causal"]
                else "不使用掩码。")
        return (f"一个长度 $T = {T}$ 的序列，每行对应一个 token（$d_k = {d_k}$）：\n\n"
                "$$" + r",\qquad ".join(shown) + "$$\n\n" + mask)


class AttentionRowWeights(QueryRow):
    name = "attention_row_weights"
    version = 1
    title_zh = "一个 query 的注意力权重"
    title_en = "Attention weights of one query"
    params = specs(
        ParamSpec("T", None, 2, 4),
        ParamSpec("d_k", None, 2, 4),
        ParamSpec("is_causal", False, kind="bool"),
    )
    atol = 0.01

    def solve(self, inputs):
        dots, d_k, i, w, steps = self.row(inputs)
        causal = inputs["is_causal"]
        wrong = [(m, partial(wrong_row, m, dots, d_k, i, causal)) for m in self.bugs(inputs)]
        return Solution(w, wrong, steps)

    def prompt(self, inputs):
        i, T = inputs["query"], len(inputs["K"])
        return (self.intro(inputs) + f"\n\n求第 {i} 个 token 的注意力权重 "
                rf"$w = \mathrm{{softmax}}\left(q_{{{i}}} K^\top / \sqrt{{d_k}}\right)$，"
                f"按 key 的顺序写出 {T} 个数，保留两位小数。")


class AttentionOutput(QueryRow):
    name = "attention_output"
    version = 1
    title_zh = "一个 query 的注意力输出"
    title_en = "Attention output of one query"
    params = specs(   # defaults: the shape of the seed's two-word "我吃" example
        ParamSpec("T", 2, 2, 4),
        ParamSpec("d_k", 2, 2, 4),
        ParamSpec("d_v", 2, 2, 3),
        ParamSpec("is_causal", False, kind="bool"),
    )
    # weights rounded to 2 decimals by hand move the output by up to ~0.005 * sum|v_j| <= 0.02
    atol = 0.02

    def solve(self, inputs):
        dots, d_k, i, w, steps = self.row(inputs)
        V = np.asarray(inputs["V"], dtype=float)           # (T, d_v)
        out = w @ V                                        # (T,) @ (T, d_v) -> (d_v,)
        terms = r" + ".join(rf"{wj} \times {latex_row(vj, 1)}"
                            for wj, vj in zip(fmt_many(w.tolist(), 2), V.tolist(), strict=True))
        steps.append(step("加权求和", rf"o = \sum_j w_j v_j = {terms}", out))
        causal = inputs["is_causal"]
        wrong = [(m, partial(wrong_row, m, dots, d_k, i, causal, V)) for m in self.bugs(inputs)]
        return Solution(out, wrong, steps)

    def prompt(self, inputs):
        i, d_v = inputs["query"], np.shape(inputs["V"])[1]
        return (self.intro(inputs) + f"\n\n求第 {i} 个 token 的注意力输出 "
                rf"$o = \mathrm{{softmax}}\left(q_{{{i}}} K^\top / \sqrt{{d_k}}\right) V$，"
                f"写出 {d_v} 个数，保留两位小数。")


class ScoreMatrix(Template):
    """Shared by the two templates that start from an already-scaled T×T score matrix."""

    source = "001"
    decimals = 2
    atol = 0.01

    def scores(self, rng, p) -> np.ndarray:
        T = self.pick(rng, p, "T")
        return tenths(rng, (T, T), limit=20)              # (T, T) scores in [-2, 2]

    def intro(self, inputs) -> str:
        return ("下面是已经除以 $\\sqrt{d_k}$ 的注意力分数（行 = query，列 = key）：\n\n"
                f"$$S = {latex_matrix(inputs['scores'], 1)}$$\n\n")


class CausalMaskedWeights(ScoreMatrix):
    name = "causal_masked_weights"
    version = 1
    title_zh = "因果掩码后的注意力权重"
    title_en = "Causally masked attention weights"
    params = specs(ParamSpec("T", None, 2, 4))

    def draw(self, rng, p):
        return {"scores": self.scores(rng, p)}

    def solve(self, inputs):
        S = np.asarray(inputs["scores"], dtype=float)       # (T, T)
        masked = np.where(shared_causal_mask(len(S), len(S)), S, -np.inf)  # (T, T)  j > i -> -inf
        W = softmax(masked, axis=-1)                        # (T, T)  each row sums to 1, zeros above the diagonal
        steps = [
            step("因果掩码", r"\tilde S_{ij} = -\infty \quad (j > i)", masked),
            step("逐行 softmax", r"W_{ij} = \frac{e^{\tilde S_{ij}}}{\sum_k e^{\tilde S_{ik}}}", W),
        ]
        bugs = (*MASK_BUGS, "softmax_wrong_axis", "missing_softmax")
        return Solution(W, [(m, partial(misconception(m).weights_from_scores, S, True)) for m in bugs], steps)

    def acceptable(self, inputs, solution):
        W = solution.answer.tolist()
        return all(spread_ok(W[i], i + 1) for i in range(1, len(W)))

    def prompt(self, inputs):
        T = len(inputs["scores"])
        return (self.intro(inputs) + "加上因果掩码（把列号大于行号的分数换成 $-\\infty$）后对每一行做 softmax。"
                f"写出 ${T} \\times {T}$ 的权重矩阵，保留两位小数，行与行之间用分号隔开。")


class MaskFillZeroContrast(ScoreMatrix):
    name = "mask_fill_zero_contrast"
    version = 1
    title_zh = "掩码填 0 而不是 −∞ 会怎样"
    title_en = "Masking with 0 instead of −∞"
    params = specs(ParamSpec("T", 3, 2, 4))

    def draw(self, rng, p):
        S = self.scores(rng, p)
        return {"scores": S, "query": int(rng.integers(1, len(S)))}  # the last row has no future to mask

    def solve(self, inputs):
        S = np.asarray(inputs["scores"], dtype=float)       # (T, T)
        i = inputs["query"] - 1
        visible = np.arange(len(S)) <= i                    # (T,)
        filled = np.where(visible, S[i], 0.0)               # (T,)  the bug: 0, not -inf
        w = softmax(filled)                                 # (T,)  e^0 = 1: the future keeps a share
        right = softmax(np.where(visible, S[i], -np.inf))   # (T,)  what -inf gives
        steps = [
            step("填 0 后的分数", rf"\tilde s_j = 0 \quad (j > {i + 1})", filled),
            step("softmax", r"w_j = \frac{e^{\tilde s_j}}{\sum_k e^{\tilde s_k}}", w),
            step("对照：填 −∞ 的正确权重", rf"\tilde s_j = -\infty \quad (j > {i + 1})", right),
            step("泄漏到未来位置的权重", rf"\sum_{{j > {i + 1}}} w_j", w[~visible].sum()),
        ]
        wrong = [
            ("zero_means_masked", right),
            *((m, partial(wrong_score_row, m, S, i)) for m in ("missing_causal_mask", "mask_after_softmax")),
        ]
        return Solution(w, wrong, steps)

    def prompt(self, inputs):
        i, T = inputs["query"], len(inputs["scores"])
        return ("有人实现因果掩码时，把未来位置（列号大于行号）的分数填成了 0，而不是 $-\\infty$。"
                + self.intro(inputs)
                + f"这样做之后，第 {i} 个 token 那一行的 softmax 权重是多少？"
                f"按 key 的顺序写出 {T} 个数，保留两位小数。")
