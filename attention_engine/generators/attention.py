"""Hand-sized attention: one query row, its output, the causal mask and the "fill with 0" contrast.

The numbers are small enough for a calculator, as in the seeds' "我吃" (001, question 2) and
"我爱你" (001, question 3) examples. Every input has one decimal, so the prompt shows exactly
the numbers the answer is computed from.

Version 2 of each template asks the question without typing instructions (``answer_format``),
offers only distractors that pass the checks a learner can make without computing (``sane``),
can fix the seed's own numbers (param ``example``) and, for a causal single row, asks about a
query whose row the mask really shapes: neither the first token nor the last.

Version 3 (issue 25) judges the options as displayed (no 0.00 at a visible key, the weights in the
order of the printed scores) and draws them from at least five named mistakes; the score-matrix
templates then print the raw dot products and d_k, so that the scale is part of the computation.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from functools import lru_cache, partial
from typing import Any, ClassVar

import numpy as np

from ..core import BoolArray, FloatArray, shared_causal_mask, softmax
from ..misconceptions import correct_scale, correct_weights
from ..misconceptions import get as misconception
from .base import Distractor, Inputs, Params, ParamSpec, Solution, Step, Template, specs, step
from .display import fmt_many, latex_matrix, latex_row
from .rows import (
    WRONG_SCALES,
    Row,
    causal_seen,
    column_softmax_row,
    matvec,
    renormalised,
    row_with_bug,
    softmax_list,
    softmax_prefix,
    softmax_seen,
    transposed,
    weighted_sum,
)
from .sanity import half_unit, order_of, ordered, probability_row, vector
from .shapes import FIVE_STEPS

SCALE_BUGS = ("missing_scale", "divide_by_dk", "softmax_wrong_axis", "missing_softmax")
MASK_BUGS = ("mask_fill_zero", "mask_after_softmax", "missing_causal_mask")
# Version 2: mistakes whose weights pass ``sane`` (non-negative, rows summing to 1, zeros under the
# mask). Not all of them pass a look at the displayed numbers: the argmax, the mask that hides the
# diagonal and a causal query's neighbouring row show 0.00 at a visible key, which a softmax never
# gives (e^x > 0); version 3 rules those out too.
ROW_BUGS_V2 = ("scores_transposed", "missing_scale", "divide_by_dk", "softmax_wrong_axis_renormalised")
SCORE_BUGS_V2 = ("scores_transposed", "softmax_wrong_axis_renormalised", "softmax_as_argmax")

# The names of the worked steps: version 1 as it was, version 2 the five steps of lesson 1.
STEP_NAMES_V1 = {
    "dots": "点积分数",
    "scale": "缩放",
    "mask": "因果掩码",
    "softmax": "softmax",
    "row_softmax": "逐行 softmax",
    "sum": "加权求和",
    "fill": "填 0 后的分数",
}
_, _SCORE, _SCALE, _SOFTMAX, _SUM = (s.label for s in FIVE_STEPS)
STEP_NAMES_V2 = {
    "dots": _SCORE,
    "scale": _SCALE,
    "mask": f"{_SCALE}（加因果掩码）",
    "softmax": _SOFTMAX,
    "row_softmax": _SOFTMAX,
    "sum": _SUM,
    "fill": f"{_SCALE}（掩码错填 0）",
}

# The seeds' own numbers (param ``example``). 001, question 2, "我吃": 我 looks at 我 and 吃.
QUERY_EXAMPLES: dict[str, dict[str, Any]] = {
    "wo_chi": {
        "Q": ((0.6, 0.2), (0.3, 0.9)),
        "K": ((0.4, 0.7), (0.1, 0.5)),
        "V": ((0.8, 0.3), (0.6, 0.2)),
        "query": 1,
        "is_causal": False,
    },
}
# 001, question 3, "我爱你": the seed prints only the weights. These scaled scores reproduce its
# table to 2 dp ([1, 0, 0], [0.40, 0.60, 0], [0.25, 0.30, 0.45]) and, filled with 0 instead of
# -inf, its first row [0.45, 0.27, 0.27].
SCORE_EXAMPLES: dict[str, dict[str, Any]] = {
    "wo_ai_ni": {"scores": ((0.5, 0.9, 0.2), (0.3, 0.7, 0.4), (0.1, 0.3, 0.7)), "query": 1},
}
# How to type a row of weights over the T keys, and the T×T matrix of weights (str.format with T)
KEY_WEIGHTS_FORMAT = "按 key 的顺序写出 {T} 个数，保留两位小数。"
WEIGHT_MATRIX_FORMAT = "写出 ${T} \\times {T}$ 的权重矩阵，保留两位小数，每行的数用逗号隔开，行与行之间用分号隔开。"
# |q|, |k| <= 1.5: still hand-sized, and large enough that forgetting the scale visibly changes the answer
QK_LIMIT = 15
MIN_SPREAD = 0.05  # a row whose visible weights all lie within this of each other is trivial


def tenths(rng: np.random.Generator, shape: tuple[int, ...], limit: int = 9) -> FloatArray:
    """Entries k/10 with |k| <= limit: exactly the one-decimal numbers the prompt prints."""
    return rng.integers(-limit, limit + 1, size=shape) / 10


def spread_ok(weights: Sequence[float], visible: int) -> bool:
    """The first ``visible`` weights of a row are not (nearly) uniform, so the softmax matters."""
    w = weights[:visible]
    return visible > 1 and max(w) - min(w) >= MIN_SPREAD


def row_steps(
    Q: FloatArray, K: FloatArray, i: int, is_causal: bool, names: dict[str, str] = STEP_NAMES_V1
) -> tuple[FloatArray, list[Step]]:
    """The weights of query row i (0-based) computed the way a learner does it, with the steps."""
    T, d_k = K.shape
    s = K @ Q[i]  # (T,)  s_j = q_i · k_j
    scaled = s / math.sqrt(d_k)  # (T,)
    steps = [
        step(names["dots"], rf"s_j = q_{{{i + 1}}} \cdot k_j", s),
        step(names["scale"], rf"\tilde s_j = s_j / \sqrt{{{d_k}}}", scaled),
    ]
    if is_causal:
        scaled = np.where(shared_causal_mask(T, T)[i], scaled, -np.inf)  # (T,)  future keys -> -inf
        steps.append(step(names["mask"], rf"\tilde s_j = -\infty \quad (j > {i + 1})", scaled))
    e = np.exp(scaled - scaled.max())  # (T,)  minus the max: same result, no overflow
    w = e / e.sum()  # (T,)  sums to 1; e^-inf = 0 for masked keys
    steps.append(step(names["softmax"], r"w_j = \frac{e^{\tilde s_j}}{\sum_k e^{\tilde s_k}}", w))
    return w, steps


def wrong_row(bug: str, dots: FloatArray, d_k: int, i: int, is_causal: bool, V: FloatArray | None = None) -> FloatArray:
    """Row i of the weights (or, given V, of the output) with the misconception ``bug`` in place.

    ``dots`` is Q Kᵀ (T, T), computed once per variant: each bug only changes what comes after it.
    """
    weights = misconception(bug).weights_from_dots(dots, d_k, is_causal)  # (T, T)
    row: FloatArray = weights[i] if V is None else (weights @ V)[i]  # (T,) or (T, T) @ (T, d_v) -> (d_v,)
    return row


def wrong_score_row(bug: str, S: FloatArray, i: int) -> FloatArray:
    """Row i of the causal weights of the score matrix S with the misconception ``bug`` in place."""
    row: FloatArray = misconception(bug).weights_from_scores(S, True)[i]  # (T,)
    return row


def neighbour_row(dots: FloatArray, d_k: int, i: int, is_causal: bool, V: FloatArray | None = None) -> FloatArray:
    """The correct weights (or output) of the neighbouring query: the ``wrong_query_row`` slip.

    Causal: the previous token, whose row still has zeros under the mask (the next token's row would
    show a weight where this query's mask demands 0, which the learner sees without computing).
    """
    T = len(dots)
    r = i - 1 if is_causal or i == T - 1 else i + 1
    weights = correct_weights(dots * correct_scale(d_k), is_causal)  # (T, T)
    row: FloatArray = weights[r] if V is None else (weights @ V)[r]  # (T,) or (d_v,)
    return row


def fill_zero_softmax(scores_row: FloatArray, last_visible: int) -> FloatArray:
    """softmax of a score row (T,) whose keys after ``last_visible`` (0-based) were filled with 0."""
    return softmax(np.where(np.arange(len(scores_row)) <= last_visible, scores_row, 0.0))  # (T,)


def weights_of(i: int) -> str:
    """softmax(q_i Kᵀ / √d_k) in LaTeX: the weights of query i, as the one-query prompts write them."""
    return rf"\mathrm{{softmax}}\left(q_{{{i}}} K^\top / \sqrt{{d_k}}\right)"


def causal_weights_ok(value: Any, T: int, tol: float, orders: list[list[tuple[int, int, bool]]] | None = None) -> bool:
    """T rows of T weights: non-negative, each summing to 1 within ``tol``, 0 above the diagonal (the causal
    mask); with ``orders``, each row's visible weights in the order of its scores. NaN and inf fail the sum
    or the sign. A plain loop: this runs for every candidate."""
    if not isinstance(value, list | tuple) or len(value) != T:
        return False
    try:
        for i, w in enumerate(value):
            if not (
                isinstance(w, list | tuple)
                and len(w) == T
                and min(w) >= 0
                and abs(sum(w) - 1.0) <= tol
                and not any(w[i + 1 :])
                and (orders is None or ordered(w, orders[i]))
            ):
                return False
        return True
    except TypeError:  # not numbers
        return False


def check_example(p: Params, fixed: dict[str, Any]) -> None:
    """ValueError when a param given by the author contradicts the fixed example's value."""
    for name, value in fixed.items():
        if p.get(name) is not None and p[name] != value:
            raise ValueError(
                f"param {name!r} ({p[name]!r}) contradicts param 'example' ({p['example']!r}), "
                f"which has {name} = {value!r}"
            )


def example_param(*names: str) -> ParamSpec:
    return ParamSpec("example", None, kind="choice", choices=names)


class QueryRow(Template):
    """Shared by the two one-query templates: draw Q, K (and V), pick the query, reject flat rows."""

    source = "001"
    decimals = 2
    STEP_NAMES: ClassVar[dict[str, str]] = STEP_NAMES_V1

    def draw(self, rng: np.random.Generator, p: Params) -> Inputs:
        T, d_k, causal = self.pick(rng, p, "T"), self.pick(rng, p, "d_k"), p["is_causal"]
        Q, K = tenths(rng, (2, T, d_k), QK_LIMIT)  # (T, d_k) each
        inputs: Inputs = {"Q": Q, "K": K}
        if "d_v" in self.params:
            inputs["V"] = tenths(rng, (T, self.pick(rng, p, "d_v")))
        inputs["query"] = int(rng.integers(2 if causal else 1, T + 1))  # causal row 1 is always [1, 0, ...]
        inputs["is_causal"] = causal
        return inputs

    def row(self, inputs: Inputs) -> tuple[FloatArray, int, int, FloatArray, list[Step]]:
        """(Q Kᵀ for the misconceptions, d_k, query index, its weights, the steps so far)."""
        Q, K = np.asarray(inputs["Q"], dtype=float), np.asarray(inputs["K"], dtype=float)  # (T, d_k)
        i = inputs["query"] - 1
        w, steps = row_steps(Q, K, i, inputs["is_causal"], self.STEP_NAMES)
        return Q @ K.T, K.shape[1], i, w, steps  # (T, d_k) @ (d_k, T) -> (T, T)

    def bugs(self, inputs: Inputs) -> tuple[str, ...]:
        return SCALE_BUGS + MASK_BUGS if inputs["is_causal"] else SCALE_BUGS

    def candidates(
        self, inputs: Inputs, dots: FloatArray, d_k: int, i: int, V: FloatArray | None = None
    ) -> list[Distractor]:
        """(misconception, lazily computed row) for each bug; ``V`` given: the output row instead."""
        causal = inputs["is_causal"]
        return [(m, partial(wrong_row, m, dots, d_k, i, causal, V)) for m in self.bugs(inputs)]

    def acceptable(self, inputs: Inputs, solution: Solution) -> bool:
        w = next(s.value for s in solution.steps if s.name == self.STEP_NAMES["softmax"])
        return spread_ok(w, inputs["query"] if inputs["is_causal"] else len(w))

    def intro(self, inputs: Inputs) -> str:
        shown = [f"{name} = {latex_matrix(inputs[name], 1)}" for name in ("Q", "K", "V") if name in inputs]
        T, d_k = len(inputs["K"]), len(inputs["K"][0])  # an array or rows (the plain versions)
        mask = "使用因果掩码：第 $i$ 个 token 只能看到第 $1..i$ 个 token。" if inputs["is_causal"] else "不使用掩码。"
        return (
            f"一个长度 $T = {T}$ 的序列，每行对应一个 token（$d_k = {d_k}$）：\n\n"
            "$$" + r",\qquad ".join(shown) + "$$\n\n" + mask
        )


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

    def solve(self, inputs: Inputs) -> Solution:
        dots, d_k, i, w, steps = self.row(inputs)
        return Solution(w, self.candidates(inputs, dots, d_k, i), steps)

    def prompt(self, inputs: Inputs) -> str:
        i, T = inputs["query"], len(inputs["K"])
        return (
            self.intro(inputs)
            + f"\n\n求第 {i} 个 token 的注意力权重 $w = {weights_of(i)}$，"
            + KEY_WEIGHTS_FORMAT.format(T=T)
        )

    def sane(self, inputs: Inputs, value: Any) -> bool:
        """Weights of one query: T of them, non-negative, summing to 1, 0 where the mask hides a key."""
        w = vector(value, len(inputs["K"]))
        if w is None or not probability_row(w):
            return False
        return not inputs["is_causal"] or all(x == 0 for x in w[inputs["query"] :])


class AttentionOutput(QueryRow):
    name = "attention_output"
    version = 1
    title_zh = "一个 query 的注意力输出"
    title_en = "Attention output of one query"
    params = specs(  # defaults: the shape of the seed's two-word "我吃" example
        ParamSpec("T", 2, 2, 4),
        ParamSpec("d_k", 2, 2, 4),
        ParamSpec("d_v", 2, 2, 3),
        ParamSpec("is_causal", False, kind="bool"),
    )
    # weights rounded to 2 decimals by hand move the output by up to ~0.005 * sum|v_j| <= 0.02
    atol = 0.02

    def solve(self, inputs: Inputs) -> Solution:
        dots, d_k, i, w, steps = self.row(inputs)
        V = np.asarray(inputs["V"], dtype=float)  # (T, d_v)
        out = w @ V  # (T,) @ (T, d_v) -> (d_v,)
        terms = r" + ".join(
            rf"{wj} \times {latex_row(vj, 1)}" for wj, vj in zip(fmt_many(w.tolist(), 2), V.tolist(), strict=True)
        )
        steps.append(step(self.STEP_NAMES["sum"], rf"o = \sum_j w_j v_j = {terms}", out))
        return Solution(out, self.candidates(inputs, dots, d_k, i, V), steps)

    def prompt(self, inputs: Inputs) -> str:
        i, d_v = inputs["query"], np.shape(inputs["V"])[1]
        return (
            self.intro(inputs)
            + f"\n\n求第 {i} 个 token 的注意力输出 $o = {weights_of(i)} V$，写出 {d_v} 个数，保留两位小数。"
        )

    def sane(self, inputs: Inputs, value: Any) -> bool:
        """A weighted average of the visible value rows: each component within their column's range."""
        return self.sane_check(inputs)(value)

    def sane_check(self, inputs: Inputs) -> Callable[[Any], bool]:
        V = inputs["V"].tolist() if isinstance(inputs["V"], np.ndarray) else inputs["V"]  # (T, d_v) as rows
        columns = list(zip(*(V[: inputs["query"]] if inputs["is_causal"] else V), strict=True))  # d_v x (visible,)
        eps = half_unit(self.decimals)  # the option is rounded
        bounds = [(min(c) - eps, max(c) + eps) for c in columns]

        def check(value: Any) -> bool:  # NaN and inf fail the bounds too
            if not isinstance(value, list | tuple) or len(value) != len(bounds):
                return False
            try:
                return all(lo <= x <= hi for x, (lo, hi) in zip(value, bounds, strict=True))
            except TypeError:  # not numbers
                return False

        return check


class ScoreMatrix(Template):
    """Shared by the two templates that start from an already-scaled T×T score matrix."""

    source = "001"
    decimals = 2
    atol = 0.01
    STEP_NAMES: ClassVar[dict[str, str]] = STEP_NAMES_V1

    def scores(self, rng: np.random.Generator, p: Params) -> FloatArray:
        T = self.pick(rng, p, "T")
        return tenths(rng, (T, T), limit=20)  # (T, T) scores in [-2, 2]

    def n_tokens(self, inputs: Inputs) -> int:
        """T: the score matrix is T×T."""
        return len(inputs["scores"])

    def answer_format(self, inputs: Inputs) -> str:
        return self.ANSWER_FORMAT.format(T=self.n_tokens(inputs))  # "" for version 1: its prompt says it

    def intro(self, inputs: Inputs) -> str:
        return (
            "下面是已经除以 $\\sqrt{d_k}$ 的注意力分数（行 = query，列 = key）：\n\n"
            f"$$S = {latex_matrix(inputs['scores'], 1)}$$\n\n"
        )


class CausalMaskedWeights(ScoreMatrix):
    name = "causal_masked_weights"
    version = 1
    title_zh = "因果掩码后的注意力权重"
    title_en = "Causally masked attention weights"
    params = specs(ParamSpec("T", None, 2, 4))

    def draw(self, rng: np.random.Generator, p: Params) -> Inputs:
        return {"scores": self.scores(rng, p)}

    BUGS: ClassVar[tuple[str, ...]] = (*MASK_BUGS, "softmax_wrong_axis", "missing_softmax")

    def solve(self, inputs: Inputs) -> Solution:
        S = np.asarray(inputs["scores"], dtype=float)  # (T, T)
        masked = np.where(shared_causal_mask(len(S), len(S)), S, -np.inf)  # (T, T)  j > i -> -inf
        W = softmax(masked, axis=-1)  # (T, T)  each row sums to 1, zeros above the diagonal
        steps = [
            step(self.STEP_NAMES["mask"], r"\tilde S_{ij} = -\infty \quad (j > i)", masked),
            step(self.STEP_NAMES["row_softmax"], r"W_{ij} = \frac{e^{\tilde S_{ij}}}{\sum_k e^{\tilde S_{ik}}}", W),
        ]
        wrong = [(m, partial(misconception(m).weights_from_scores, S, True)) for m in self.BUGS]
        return Solution(W, wrong, steps)

    def sane(self, inputs: Inputs, value: Any) -> bool:
        """T×T weights: non-negative rows summing to 1, exactly 0 above the diagonal (the mask)."""
        return self.sane_check(inputs)(value)

    def sane_check(self, inputs: Inputs) -> Callable[[Any], bool]:
        T = len(inputs["scores"])
        tol = T * half_unit(self.decimals) + 0.001  # a row of T rounded weights
        return partial(causal_weights_ok, T=T, tol=tol)

    def acceptable(self, inputs: Inputs, solution: Solution) -> bool:
        W = solution.answer.tolist()
        return all(spread_ok(W[i], i + 1) for i in range(1, len(W)))

    def prompt(self, inputs: Inputs) -> str:
        T = len(inputs["scores"])
        return (
            self.intro(inputs) + "加上因果掩码（把列号大于行号的分数换成 $-\\infty$）后对每一行做 softmax。"
            f"写出 ${T} \\times {T}$ 的权重矩阵，保留两位小数，行与行之间用分号隔开。"
        )


class MaskFillZeroContrast(ScoreMatrix):
    name = "mask_fill_zero_contrast"
    version = 1
    title_zh = "掩码填 0 而不是 −∞ 会怎样"
    title_en = "Masking with 0 instead of −∞"
    params = specs(ParamSpec("T", 3, 2, 4))

    def draw(self, rng: np.random.Generator, p: Params) -> Inputs:
        S = self.scores(rng, p)
        return {"scores": S, "query": int(rng.integers(1, len(S)))}  # the last row has no future to mask

    def solve(self, inputs: Inputs) -> Solution:
        S = np.asarray(inputs["scores"], dtype=float)  # (T, T)
        i = inputs["query"] - 1
        visible = np.arange(len(S)) <= i  # (T,)
        filled = np.where(visible, S[i], 0.0)  # (T,)  the bug: 0, not -inf
        w = softmax(filled)  # (T,)  e^0 = 1: the future keeps a share
        right = softmax(np.where(visible, S[i], -np.inf))  # (T,)  what -inf gives
        steps = [
            step(self.STEP_NAMES["fill"], rf"\tilde s_j = 0 \quad (j > {i + 1})", filled),
            step(self.STEP_NAMES["softmax"], r"w_j = \frac{e^{\tilde s_j}}{\sum_k e^{\tilde s_k}}", w),
            step("对照：填 −∞ 的正确权重", rf"\tilde s_j = -\infty \quad (j > {i + 1})", right),
            step("泄漏到未来位置的权重", rf"\sum_{{j > {i + 1}}} w_j", w[~visible].sum()),
        ]
        return Solution(w, self.candidates(S, i, right), steps)

    def candidates(self, S: FloatArray, i: int, right: FloatArray) -> list[Distractor]:
        return [
            ("zero_means_masked", right),
            *((m, partial(wrong_score_row, m, S, i)) for m in ("missing_causal_mask", "mask_after_softmax")),
        ]

    def sane(self, inputs: Inputs, value: Any) -> bool:
        """The row of a 0-filled softmax: T weights summing to 1, the future (0-filled) keys all alike."""
        w = vector(value, len(inputs["scores"]))
        return w is not None and probability_row(w) and len(set(w[inputs["query"] :])) <= 1

    def prompt(self, inputs: Inputs) -> str:
        i, T = inputs["query"], len(inputs["scores"])
        return (
            "有人实现因果掩码时，把未来位置（列号大于行号）的分数填成了 0，而不是 $-\\infty$。"
            + self.intro(inputs)
            + f"这样做之后，第 {i} 个 token 那一行的 softmax 权重是多少？"
            + KEY_WEIGHTS_FORMAT.format(T=T)
        )


# --- version 2 ---------------------------------------------------------------------------------


class QueryRowV2(QueryRow):
    """Version 2 of the one-query templates, mixed in before the version-1 class.

    Causal: T >= 3 and the query is neither the first token (its row is always [1, 0, ...]) nor
    the last (it sees every key, so the mask changes nothing). The distractors are the weights a
    real slip produces and that pass ``sane`` (version 3 also judges them as displayed: the last
    three below show 0.00 at a visible key, a missing scale sometimes does): roles of q and k swapped, no or
    the wrong scale, softmax over the wrong axis then rows renormalised, the neighbouring query's
    row, and the mask hiding the diagonal (causal) or a mask that was not asked for (non-causal).
    """

    version = 2
    sane_choices = True
    STEP_NAMES: ClassVar[dict[str, str]] = STEP_NAMES_V2

    def check_params(self, p: Params) -> None:
        if p["example"] is not None:
            ex = QUERY_EXAMPLES[p["example"]]
            fixed = {"T": len(ex["K"]), "d_k": len(ex["K"][0]), "d_v": len(ex["V"][0]), "is_causal": ex["is_causal"]}
            check_example(p, {k: v for k, v in fixed.items() if k in self.params})
        elif p["is_causal"] and p["T"] is not None and p["T"] < 3:
            raise ValueError(
                f"param 'T' ({p['T']}) must be at least 3 when 'is_causal' is true: the query is "
                "neither the first token nor the last, so the mask shapes its row"
            )

    def draw(self, rng: np.random.Generator, p: Params) -> Inputs:
        names = ("Q", "K", "V") if "d_v" in self.params else ("Q", "K")
        if p["example"] is not None:
            ex = QUERY_EXAMPLES[p["example"]]
            inputs: Inputs = {name: self.matrix(ex[name]) for name in names}
            return {**inputs, "query": ex["query"], "is_causal": ex["is_causal"]}
        causal = p["is_causal"]
        T_max = self.params["T"].max
        assert T_max is not None  # an int param: it has a range
        T = self.pick(rng, p, "T", options=range(3 if causal else 2, int(T_max) + 1))
        d_k = self.pick(rng, p, "d_k")
        d_v = self.pick(rng, p, "d_v") if "d_v" in self.params else 0
        inputs = self.draw_qkv(rng, T, d_k, d_v)
        inputs["query"] = int(rng.integers(2, T)) if causal else int(rng.integers(1, T + 1))
        inputs["is_causal"] = causal
        return inputs

    def matrix(self, rows: Sequence[Sequence[float]]) -> Any:
        """An example's matrix as the inputs hold it: an array (the plain versions: rows)."""
        return np.array(rows)

    def draw_qkv(self, rng: np.random.Generator, T: int, d_k: int, d_v: int) -> Inputs:
        """Q, K (T, d_k) and, when d_v, V (T, d_v): tenths, from one draw."""
        x = tenths(rng, (T * (2 * d_k + d_v),), QK_LIMIT)  # one draw for Q, K and V
        inputs = {"Q": x[: T * d_k].reshape(T, d_k), "K": x[T * d_k : 2 * T * d_k].reshape(T, d_k)}  # (T, d_k)
        if d_v:
            inputs["V"] = x[2 * T * d_k :].reshape(T, d_v)  # (T, d_v)
        return inputs

    def bugs(self, inputs: Inputs) -> tuple[str, ...]:
        return ROW_BUGS_V2 + (("mask_hides_diagonal",) if inputs["is_causal"] else ("unneeded_causal_mask",))

    def candidates(
        self, inputs: Inputs, dots: FloatArray, d_k: int, i: int, V: FloatArray | None = None
    ) -> list[Distractor]:
        slip = partial(neighbour_row, dots, d_k, i, inputs["is_causal"], V)
        wrong = [*super().candidates(inputs, dots, d_k, i, V), ("wrong_query_row", slip)]
        if i == len(dots) - 1:  # the last token sees every key: a causal mask changes nothing
            wrong = [(m, None if m == "unneeded_causal_mask" else value) for m, value in wrong]
        return wrong


class AttentionRowWeightsV2(QueryRowV2, AttentionRowWeights):
    params = specs(
        ParamSpec("T", None, 2, 4),
        ParamSpec("d_k", None, 2, 4),
        ParamSpec("is_causal", False, kind="bool"),
        example_param(*QUERY_EXAMPLES),
    )

    def prompt(self, inputs: Inputs) -> str:
        i = inputs["query"]
        return self.intro(inputs) + f"\n\n第 {i} 个 token 的注意力权重 $w = {weights_of(i)}$ 是多少？"

    def answer_format(self, inputs: Inputs) -> str:
        return KEY_WEIGHTS_FORMAT.format(T=len(inputs["K"]))


class AttentionOutputV2(QueryRowV2, AttentionOutput):
    """Three options, not four: the outputs of different mistakes crowd within the 0.02 tolerance of
    each other, and three well-separated options beat four with a near-duplicate (Rodriguez 2005,
    on the number of options). It also keeps generation above 5,000 variants/s."""

    max_distractors = 2
    params = specs(  # T drawn: 2-4 keys, 3-4 when causal; d_k = d_v = 2 by default, as in "我吃"
        ParamSpec("T", None, 2, 4),
        ParamSpec("d_k", 2, 2, 4),
        ParamSpec("d_v", 2, 2, 3),
        ParamSpec("is_causal", False, kind="bool"),
        example_param(*QUERY_EXAMPLES),
    )

    def bugs(self, inputs: Inputs) -> tuple[str, ...]:
        """The weight bugs of version 2, then version-1 bugs whose weights do not sum to 1 or leak past
        the mask: an output hides its weights, so such a bug is offered whenever its output still lies
        within the range of the visible values, which is all a learner can check without computing.
        (Not missing_softmax: raw scores as weights leave that range four times in five.)"""
        return (*super().bugs(inputs), "softmax_wrong_axis", *(MASK_BUGS if inputs["is_causal"] else ()))

    def prompt(self, inputs: Inputs) -> str:
        i = inputs["query"]
        return self.intro(inputs) + f"\n\n第 {i} 个 token 的注意力输出 $o = {weights_of(i)} V$ 是多少？"

    def answer_format(self, inputs: Inputs) -> str:
        return f"按 $o$ 的分量顺序写出 {len(inputs['V'][0])} 个数，保留两位小数。"  # V: an array or rows


class ScoreExampleV2(ScoreMatrix):
    """Version 2 of the two score-matrix templates: the seed's "我爱你" scores as an example."""

    version = 2
    sane_choices = True
    STEP_NAMES: ClassVar[dict[str, str]] = STEP_NAMES_V2

    def check_params(self, p: Params) -> None:
        if p["example"] is not None:
            check_example(p, {"T": len(SCORE_EXAMPLES[p["example"]]["scores"])})

    def draw(self, rng: np.random.Generator, p: Params) -> Inputs:
        if p["example"] is None:
            return super().draw(rng, p)  # type: ignore[safe-super]  # the version-1 class next in the MRO draws
        return self.example_inputs(SCORE_EXAMPLES[p["example"]])

    def example_inputs(self, ex: dict[str, Any]) -> Inputs:
        return {"scores": np.array(ex["scores"])}


class CausalMaskedWeightsV2(ScoreExampleV2, CausalMaskedWeights):
    params = specs(ParamSpec("T", None, 2, 4), example_param(*SCORE_EXAMPLES))
    BUGS = SCORE_BUGS_V2
    ANSWER_FORMAT = WEIGHT_MATRIX_FORMAT

    def prompt(self, inputs: Inputs) -> str:
        return (
            self.intro(inputs) + "加上因果掩码（把列号大于行号的分数换成 $-\\infty$）后对每一行做 softmax，"
            "得到的权重矩阵是什么？"
        )


class MaskFillZeroContrastV2(ScoreExampleV2, MaskFillZeroContrast):
    params = specs(ParamSpec("T", 3, 2, 4), example_param(*SCORE_EXAMPLES))
    ANSWER_FORMAT = KEY_WEIGHTS_FORMAT

    def example_inputs(self, ex: dict[str, Any]) -> Inputs:
        return {**super().example_inputs(ex), "query": ex["query"]}  # the seed's row: 我, the first token

    def candidates(self, S: FloatArray, i: int, right: FloatArray) -> list[Distractor]:
        """Rows that still look 0-filled (summing to 1, the future keys sharing one weight)."""
        return [
            ("zero_means_masked", right),
            ("wrong_query_row", partial(fill_zero_softmax, S[i - 1], i - 1) if i > 0 else None),
            ("scores_transposed", partial(fill_zero_softmax, S[:, i], i)),  # row i of Sᵀ: k_i·q_j
            ("mask_hides_diagonal", partial(fill_zero_softmax, S[i], i - 1)),  # the diagonal filled too
        ]

    def prompt(self, inputs: Inputs) -> str:
        i = inputs["query"]
        return (
            "有人实现因果掩码时，把未来位置（列号大于行号）的分数填成了 0，而不是 $-\\infty$。"
            + self.intro(inputs)
            + f"这样做之后，第 {i} 个 token 那一行的 softmax 权重是多少？"
        )


# --- version 3 (issue 25) ----------------------------------------------------------------------
#
# Options are judged as displayed: a softmax weight at a visible key is never 0 (e^x > 0), so no
# option may show 0.00 there and a variant whose answer would is redrawn; where the scores are
# shown, a larger score may not show a smaller weight. That rules out the argmax, the mask that hides
# the diagonal and the neighbouring row of a causal query (a 0 at the query's own key). What is left
# are mistakes in the scale and in which score goes where, drawn per seed from at least five.

ROW_BUGS_V3 = (
    "scores_transposed",
    "missing_scale",
    "divide_by_dk",
    "scale_inverted",
    "softmax_wrong_axis_renormalised",
)
SCALE_BUGS_V3 = ("missing_scale", "divide_by_dk", "scale_inverted")  # the temperature bugs: order kept
# d_k of the score-matrix templates: perfect squares, so the raw dot products are one-decimal numbers
# (k/10 · √d_k) and their scaled values tenths, within ±1 (version 2: ±2): a forgotten or inverted
# scale then still leaves every visible key a weight that shows (not 0.00) in most variants
SQUARE_DK = (4, 9)
SCALED_LIMIT = 10  # |k| <= 10: scaled scores in [-1, 1]


def seq_len_row(dots: FloatArray, i: int, is_causal: bool) -> FloatArray:
    """Row i of the weights scaled by 1/√T instead of 1/√d_k (``scale_uses_seq_len``)."""
    T = len(dots)
    row: FloatArray = correct_weights(dots / math.sqrt(T), is_causal)[i]  # (T, T) -> (T,)
    return row


class AttentionRowWeightsV3(AttentionRowWeightsV2):
    """Every query row weight is shown positive where the key is visible; distractors from six named
    mistakes (seven without a mask): q/k roles swapped, no scale, ÷d_k, ×√d_k, ÷√T, softmax over the
    wrong axis then rows renormalised, and (no mask) the neighbouring query's row."""

    version = 3
    cue_rules = True

    def positive(self, inputs: Inputs) -> list[bool]:
        T = len(inputs["K"])
        return [j < inputs["query"] for j in range(T)] if inputs["is_causal"] else [True] * T

    def candidates(
        self, inputs: Inputs, dots: FloatArray, d_k: int, i: int, V: FloatArray | None = None
    ) -> list[Distractor]:
        causal = inputs["is_causal"]
        wrong: list[Distractor] = [(m, partial(wrong_row, m, dots, d_k, i, causal)) for m in ROW_BUGS_V3]
        wrong.append(("scale_uses_seq_len", partial(seq_len_row, dots, i, causal) if len(dots) != d_k else None))
        if not causal:  # causal: the previous query's row has a 0 at this query's own key
            wrong.append(("wrong_query_row", partial(neighbour_row, dots, d_k, i, causal)))
        return wrong


class RawScoresV3(ScoreMatrix):
    """Version 3 of the two score-matrix templates: the prompt shows the raw dot products Q Kᵀ and d_k,
    and the learner scales them (step 3) before the mask and the softmax, so that the scale mistakes,
    which keep the order of the weights, are among the distractors. The scaled scores are the tenths
    of version 2; the seed's "我爱你" example is its scores times √4 with d_k = 4."""

    version = 3
    sane_choices = True
    cue_rules = True
    STEP_NAMES: ClassVar[dict[str, str]] = STEP_NAMES_V2

    def check_params(self, p: Params) -> None:
        if p["example"] is not None:
            check_example(p, {"T": len(SCORE_EXAMPLES[p["example"]]["scores"])})

    def raw(self, rng: np.random.Generator, p: Params, spread: int = 0) -> Inputs:
        """{"dots": (T, T) raw scores, "d_k": d_k}, from the example or drawn. ``spread`` > 0: the visible
        scores of every row but the first span at least that many tenths once scaled (the scores are
        redrawn, a few times at most): closer rows give near-equal weights, and ``acceptable`` would
        redraw the whole variant, which costs far more."""
        if p["example"] is not None:
            scaled = np.array(SCORE_EXAMPLES[p["example"]]["scores"])  # (T, T)
            return {"dots": np.round(scaled * 2, 1), "d_k": 4}
        T = self.pick(rng, p, "T")
        d_k = SQUARE_DK[int(rng.integers(len(SQUARE_DK)))]
        for _ in range(16):
            k = rng.integers(-SCALED_LIMIT, SCALED_LIMIT + 1, size=(T, T))  # (T, T) the scaled scores, in tenths
            rows = k.tolist()
            if all(max(r[: i + 1]) - min(r[: i + 1]) >= spread for i, r in enumerate(rows) if i):
                break
        return {"dots": k * math.isqrt(d_k) / 10, "d_k": d_k}  # (T, T) one decimal, exactly as printed

    def n_tokens(self, inputs: Inputs) -> int:
        return len(inputs["dots"])

    def scaled(self, inputs: Inputs) -> tuple[FloatArray, int]:
        """(the scaled scores (T, T) from the displayed dot products, d_k)."""
        d_k = int(inputs["d_k"])
        return np.asarray(inputs["dots"], dtype=float) / math.sqrt(d_k), d_k  # (T, T)

    def intro(self, inputs: Inputs) -> str:
        return (
            "下面是点积分数 $QK^\\top$（行 = query，列 = key），还没有除以 $\\sqrt{d_k}$，"
            f"$d_k = {inputs['d_k']}$：\n\n"
            f"$$QK^\\top = {latex_matrix(inputs['dots'], 1)}$$\n\n"
        )

    def scale_step(self, inputs: Inputs, S: FloatArray) -> Step:
        return step(self.STEP_NAMES["scale"], rf"S = QK^\top / \sqrt{{{inputs['d_k']}}}", S)


@lru_cache(maxsize=8)
def _table_masks(T: int) -> BoolArray:
    """(6, T, T) read-only: the causal mask for the five row softmaxes of ``wrong_weight_tables``, its
    transpose for the sixth (a softmax down the columns, done on the transposed scores)."""
    visible = shared_causal_mask(T, T)  # (T, T)
    masks = np.stack([visible] * 5 + [visible.T])  # (6, T, T)
    masks.flags.writeable = False
    return masks


def wrong_weight_tables(dots: FloatArray, d_k: int, faint: float = 0.0) -> dict[str, FloatArray | None]:
    """The causal weights (T, T) of each mistake in the scale and in which score goes where, from the raw
    dot products (T, T): one masked softmax over all of them at once, because they are tried on every
    variant and numpy's cost per call, not per element, dominates at these sizes. (The diagonal is
    always visible, so no row is all -inf.) A table with a visible weight below ``faint`` is None:
    rounded, it would show 0 where a softmax never gives 0, and the check as displayed refuses it."""
    T = len(dots)
    S = dots / math.sqrt(d_k)  # (T, T) the right scale
    scales = np.array([1.0, 1.0 / d_k, math.sqrt(d_k), 1.0 / math.sqrt(T)])[:, None, None]  # (4, 1, 1)
    # four wrong scales; row i = k_i·q_j (q and k swapped); Sᵀ, whose rows are the key columns of S
    scores = np.concatenate([scales * dots, S.T[None], S.T[None]])  # (6, T, T)
    z = np.where(_table_masks(T), scores, -np.inf)  # (6, T, T)
    e = np.exp(z - z.max(axis=-1, keepdims=True))  # (6, T, T) e^-inf = 0 where masked
    W = e / e.sum(axis=-1, keepdims=True)  # (6, T, T) rows sum to 1
    by_column = W[5].T  # (T, T) the softmax down each key column of the masked S: columns sum to 1 ...
    renormalised = by_column / by_column.sum(axis=-1, keepdims=True)  # (T, T) ... then rows are made to
    tables = np.concatenate([W[:5], renormalised[None]])  # (6, T, T)
    shows_zero = ((tables < faint) & _table_masks(T)[0]).any(axis=(-2, -1)).tolist()  # (6,)
    names = (*SCALE_BUGS_V3, "scale_uses_seq_len", "scores_transposed", "softmax_wrong_axis_renormalised")
    return {m: None if zero else w for m, w, zero in zip(names, tables, shows_zero, strict=True)}


REORDERING_BUGS = ("scores_transposed", "softmax_wrong_axis_renormalised")  # the others keep each row's order


def roughly_ordered(rows: list[list[float]], orders: list[list[tuple[int, int, bool]]], slack: float) -> bool:
    """Whether each row's weights could still show in the order of its scores (``sanity.order_of``) once
    rounded: no pair out of order, or unequal for equal scores, by more than ``slack``."""
    for w, order in zip(rows, orders, strict=True):
        for a, b, tied in order:
            if (abs(w[a] - w[b]) > slack) if tied else (w[a] > w[b] + slack):
                return False
    return True


@lru_cache(maxsize=8)
def _lower_triangle(T: int) -> tuple[bool, ...]:
    return tuple(j <= i for i in range(T) for j in range(T))


def lower_triangle(T: int) -> list[bool]:
    """(T·T,) flattened: True where key j is visible to query i (j <= i), the diagonal included."""
    return list(_lower_triangle(T))


class CausalMaskedWeightsV3(RawScoresV3, CausalMaskedWeights):
    params = specs(ParamSpec("T", None, 2, 4), example_param(*SCORE_EXAMPLES))
    BUGS = (*SCALE_BUGS_V3, "scale_uses_seq_len", "scores_transposed", "softmax_wrong_axis_renormalised")
    ANSWER_FORMAT = WEIGHT_MATRIX_FORMAT

    def draw(self, rng: np.random.Generator, p: Params) -> Inputs:
        return self.raw(rng, p, spread=3)

    def solve(self, inputs: Inputs) -> Solution:
        S, d_k = self.scaled(inputs)  # (T, T) scaled scores
        dots = np.asarray(inputs["dots"], dtype=float)  # (T, T)
        T = len(S)
        masked = np.where(shared_causal_mask(T, T), S, -np.inf)  # (T, T)  j > i -> -inf
        W = softmax(masked, axis=-1)  # (T, T)  rows sum to 1, zeros above the diagonal
        steps = [
            self.scale_step(inputs, S),
            step(self.STEP_NAMES["mask"], r"\tilde S_{ij} = -\infty \quad (j > i)", masked),
            step(self.STEP_NAMES["row_softmax"], r"W_{ij} = \frac{e^{\tilde S_{ij}}}{\sum_k e^{\tilde S_{ik}}}", W),
        ]
        tables: dict[str, FloatArray | None] = {}  # all the mistakes' weights, computed when the first is needed
        orders = [order_of(row[: i + 1]) for i, row in enumerate(dots.tolist())]  # per row: its scores' order

        def table(bug: str) -> FloatArray | None:
            """The weights of ``bug``; None, before any rounding, for a table whose weights are out of
            the scores' order by more than rounding could hide (most of scores_transposed and
            softmax_wrong_axis_renormalised): the check as displayed would refuse them anyway."""
            if not tables:
                tables.update(wrong_weight_tables(dots, d_k, faint=half_unit(self.decimals) - 2e-9))
            W = tables[bug]
            slack = 2 * half_unit(self.decimals)
            if W is None or (bug in REORDERING_BUGS and not roughly_ordered(W.tolist(), orders, slack)):
                return None
            return W

        wrong: list[Distractor] = [
            (m, None if m == "scale_uses_seq_len" and d_k == T else partial(table, m)) for m in self.BUGS
        ]
        return Solution(W, wrong, steps)

    def positive(self, inputs: Inputs) -> list[bool]:
        return lower_triangle(len(inputs["dots"]))

    def sane_check(self, inputs: Inputs) -> Callable[[Any], bool]:
        """Version 2's checks (T×T, non-negative rows summing to 1, 0 above the diagonal), and each row's
        visible weights in the order of its scores."""
        rows = inputs["dots"].tolist() if isinstance(inputs["dots"], np.ndarray) else inputs["dots"]  # (T, T)
        T = len(rows)
        tol = T * half_unit(self.decimals) + 0.001  # a row of T rounded weights
        orders = [order_of(row[: i + 1]) for i, row in enumerate(rows)]  # per row: its visible scores' order
        return partial(causal_weights_ok, T=T, tol=tol, orders=orders)

    def prompt(self, inputs: Inputs) -> str:
        return (
            self.intro(inputs) + "先除以 $\\sqrt{d_k}$，再加因果掩码（把列号大于行号的分数换成 $-\\infty$），"
            "然后对每一行做 softmax。得到的权重矩阵是什么？"
        )


class MaskFillZeroContrastV3(RawScoresV3, MaskFillZeroContrast):
    """The 0-filled row: every key has a finite score, so every weight is positive (zero_means_masked,
    the −∞ row, shows 0 at the filled keys and is out by eye); the filled keys share one weight and the
    others are in the order of their scores. Distractors: the scale mistakes, ÷√T, the transposed scores
    and the neighbouring query's 0-filled row, where they keep that order."""

    params = specs(ParamSpec("T", 3, 2, 4), example_param(*SCORE_EXAMPLES))
    ANSWER_FORMAT = KEY_WEIGHTS_FORMAT

    def draw(self, rng: np.random.Generator, p: Params) -> Inputs:
        inputs = self.raw(rng, p)
        T = len(inputs["dots"])
        query = SCORE_EXAMPLES[p["example"]]["query"] if p["example"] is not None else int(rng.integers(1, T))
        return {**inputs, "query": query}  # the last row has no future to fill

    def solve(self, inputs: Inputs) -> Solution:
        S, d_k = self.scaled(inputs)  # (T, T)
        dots = np.asarray(inputs["dots"], dtype=float)  # (T, T)
        T, i = len(S), inputs["query"] - 1
        mask = shared_causal_mask(T, T)  # (T, T) j <= i
        visible = mask[i]  # (T,)
        filled = np.where(visible, S[i], 0.0)  # (T,)  the bug: 0, not -inf
        w = softmax(filled)  # (T,)  e^0 = 1: the future keeps a share
        right = softmax(np.where(visible, S[i], -np.inf))  # (T,)  what -inf gives
        steps = [
            self.scale_step(inputs, S),
            step(self.STEP_NAMES["fill"], rf"\tilde s_j = 0 \quad (j > {i + 1})", filled),
            step(self.STEP_NAMES["softmax"], r"w_j = \frac{e^{\tilde s_j}}{\sum_k e^{\tilde s_k}}", w),
            step("对照：填 −∞ 的正确权重", rf"\tilde s_j = -\infty \quad (j > {i + 1})", right),
            step("泄漏到未来位置的权重", rf"\sum_{{j > {i + 1}}} w_j", w[~visible].sum()),
        ]

        # the mistakes, each a 0-filled row: one softmax for all of them (they are tried on every variant)
        rows = np.stack(  # (6, T) scores before the fill
            [
                dots[i],  # missing_scale
                dots[i] / d_k,  # divide_by_dk
                dots[i] * math.sqrt(d_k),  # scale_inverted
                dots[i] / math.sqrt(T),  # scale_uses_seq_len
                S[:, i],  # scores_transposed: row i of Sᵀ, k_i·q_j
                S[i - 1],  # wrong_query_row: the previous query, filled after its own key
            ]
        )
        # (6, T) the keys each row sees, the neighbour's ending one sooner (i = 0: not offered, see below)
        seen = mask[[i, i, i, i, i, i - 1]]
        W = softmax(np.where(seen, rows, 0.0), axis=-1)  # (6, T)
        # a row with a weight that rounds to 0 is refused by the check as displayed: None, before rounding
        below = half_unit(self.decimals) - 2e-9  # a weight under this rounds to 0
        faint = (W.min(axis=-1) < below).tolist()  # (6,)
        w_m = [None if faint[r] else W[r] for r in range(6)]
        wrong: list[Distractor] = [
            ("missing_scale", w_m[0]),
            ("divide_by_dk", w_m[1]),
            ("scale_inverted", w_m[2]),
            ("scale_uses_seq_len", w_m[3] if d_k != T else None),
            ("scores_transposed", w_m[4]),
            ("wrong_query_row", w_m[5] if i > 0 else None),
        ]
        return Solution(w, wrong, steps)

    def positive(self, inputs: Inputs) -> list[bool]:
        return [True] * len(inputs["dots"])  # every key has a finite score after the fill

    def sane(self, inputs: Inputs, value: Any) -> bool:
        return self.sane_check(inputs)(value)

    def sane_check(self, inputs: Inputs) -> Callable[[Any], bool]:
        """T weights summing to 1, in the order of the 0-filled scores (the filled keys alike)."""
        rows = inputs["dots"].tolist() if isinstance(inputs["dots"], np.ndarray) else inputs["dots"]
        i = inputs["query"] - 1
        filled = [s if j <= i else 0.0 for j, s in enumerate(rows[i])]  # the sign and order survive the scale
        T, order = len(filled), order_of(filled)

        def check(value: Any) -> bool:
            w = vector(value, T)
            return w is not None and probability_row(w) and ordered(w, order)

        return check

    def prompt(self, inputs: Inputs) -> str:
        i = inputs["query"]
        return (
            "有人实现因果掩码时，把未来位置（列号大于行号）的分数填成了 0，而不是 $-\\infty$。"
            + self.intro(inputs)
            + f"他先除以 $\\sqrt{{d_k}}$，再这样填 0，然后做 softmax。第 {i} 个 token 那一行的权重是多少？"
        )


# --- issue 25, speed ---------------------------------------------------------------------------
#
# The questions of the versions above, computed in plain python on their handful of numbers
# (``rows``): for the same seed the same inputs, prompt and options, the numbers equal up to the last
# bits of e^x and of BLAS's dot products.


def tenths_list(rng: np.random.Generator, n: int, limit: int = 9) -> list[float]:
    """``tenths`` as a python list: n entries k/10 with |k| <= limit, the same draw."""
    return [k / 10 for k in rng.integers(-limit, limit + 1, size=n).tolist()]


def output_with_bug(bug: str, dots: list[list[float]], d_k: int, i: int, causal: bool, V: list[list[float]]) -> Row:
    """The output row of query i with ``bug`` in its weights: those weights times V (T, d_v)."""
    return weighted_sum(row_with_bug(bug, dots, d_k, i, causal), V)


class PlainQueryRow(QueryRowV2):
    """The one-query templates' draw, weights and worked steps in plain python (mixed in first)."""

    def matrix(self, rows: Sequence[Sequence[float]]) -> Any:
        return [list(r) for r in rows]

    def draw_qkv(self, rng: np.random.Generator, T: int, d_k: int, d_v: int) -> Inputs:
        x = tenths_list(rng, T * (2 * d_k + d_v), QK_LIMIT)  # one draw for Q, K and V
        inputs = {
            "Q": [x[r * d_k : (r + 1) * d_k] for r in range(T)],  # (T, d_k)
            "K": [x[(T + r) * d_k : (T + r + 1) * d_k] for r in range(T)],  # (T, d_k)
        }
        if d_v:
            start = 2 * T * d_k
            inputs["V"] = [x[start + r * d_v : start + (r + 1) * d_v] for r in range(T)]  # (T, d_v)
        return inputs

    def row(self, inputs: Inputs) -> tuple[Any, int, int, Any, list[Step]]:
        """(Q Kᵀ as rows, d_k, query index, its weights, the steps so far), as ``row_steps`` computes them."""
        Q, K = inputs["Q"], inputs["K"]  # (T, d_k) each, as rows
        T, d_k, i, causal = len(K), len(K[0]), inputs["query"] - 1, inputs["is_causal"]
        names = self.STEP_NAMES
        dots = [matvec(K, q) for q in Q]  # (T, T) Q Kᵀ: row r holds q_r · k_j
        s = dots[i]  # (T,) s_j = q_i · k_j
        root = math.sqrt(d_k)
        scaled = [x / root for x in s]  # (T,)
        steps = [
            step(names["dots"], rf"s_j = q_{{{i + 1}}} \cdot k_j", s, (T,)),
            step(names["scale"], rf"\tilde s_j = s_j / \sqrt{{{d_k}}}", scaled, (T,)),
        ]
        seen = causal_seen(T, i, causal)
        if causal:  # future keys -> -inf, shown as None
            masked = [x if s_ else None for x, s_ in zip(scaled, seen, strict=True)]
            steps.append(step(names["mask"], rf"\tilde s_j = -\infty \quad (j > {i + 1})", masked, (T,)))
        w = softmax_seen(scaled, seen)  # (T,) sums to 1, 0 for masked keys
        steps.append(step(names["softmax"], r"w_j = \frac{e^{\tilde s_j}}{\sum_k e^{\tilde s_k}}", w, (T,)))
        return dots, d_k, i, w, steps


class AttentionRowWeightsV4(PlainQueryRow, AttentionRowWeightsV3):
    """Version 3's question, numbers and mistakes in plain python (``rows``)."""

    version = 4

    def candidates(self, inputs: Inputs, dots: Any, d_k: int, i: int, V: Any = None) -> list[Distractor]:
        causal, T = inputs["is_causal"], len(dots)
        wrong: list[Distractor] = [(m, partial(row_with_bug, m, dots, d_k, i, causal)) for m in ROW_BUGS_V3]
        seq_len = partial(row_with_bug, "scale_uses_seq_len", dots, d_k, i, causal) if d_k != T else None
        wrong.append(("scale_uses_seq_len", seq_len))
        if not causal:  # causal: the previous query's row has a 0 at this query's own key
            wrong.append(("wrong_query_row", partial(row_with_bug, "wrong_query_row", dots, d_k, i, causal)))
        return wrong


class AttentionOutputV3(PlainQueryRow, AttentionOutputV2):
    """Version 2's question, numbers and mistakes in plain python (``rows``)."""

    version = 3

    def solve(self, inputs: Inputs) -> Solution:
        dots, d_k, i, w, steps = self.row(inputs)
        V = inputs["V"]  # (T, d_v) as rows
        out = weighted_sum(w, V)  # (d_v,)
        terms = r" + ".join(rf"{wj} \times {latex_row(vj, 1)}" for wj, vj in zip(fmt_many(w, 2), V, strict=True))
        steps.append(step(self.STEP_NAMES["sum"], rf"o = \sum_j w_j v_j = {terms}", out, (len(out),)))
        return Solution(out, self.candidates(inputs, dots, d_k, i, V), steps)

    def candidates(self, inputs: Inputs, dots: Any, d_k: int, i: int, V: Any = None) -> list[Distractor]:
        causal = inputs["is_causal"]
        wrong: list[Distractor] = [
            (m, partial(output_with_bug, m, dots, d_k, i, causal, V)) for m in (*self.bugs(inputs), "wrong_query_row")
        ]
        if i == len(dots) - 1:  # the last token sees every key: a causal mask changes nothing
            wrong = [(m, None if m == "unneeded_causal_mask" else value) for m, value in wrong]
        return wrong


# the seed's "我爱你" example as raw dot products: version 3's np.round(scores * 2, 1), d_k = 4
EXAMPLE_DOTS = {name: np.round(np.array(ex["scores"]) * 2, 1).tolist() for name, ex in SCORE_EXAMPLES.items()}


class PlainRawScores(RawScoresV3):
    """The score-matrix templates' draw and scale in plain python (mixed in first)."""

    def raw(self, rng: np.random.Generator, p: Params, spread: int = 0) -> Inputs:
        if p["example"] is not None:
            return {"dots": [list(r) for r in EXAMPLE_DOTS[p["example"]]], "d_k": 4}
        T = self.pick(rng, p, "T")
        d_k = SQUARE_DK[int(rng.integers(len(SQUARE_DK)))]
        for _ in range(16):
            rows = rng.integers(-SCALED_LIMIT, SCALED_LIMIT + 1, size=(T, T)).tolist()  # scaled scores, in tenths
            if all(max(r[: i + 1]) - min(r[: i + 1]) >= spread for i, r in enumerate(rows) if i):
                break
        root = math.isqrt(d_k)
        return {"dots": [[k * root / 10 for k in r] for r in rows], "d_k": d_k}  # (T, T) one decimal, as printed

    def scaled(self, inputs: Inputs) -> tuple[Any, int]:
        """(the scaled scores (T, T) as rows, from the displayed dot products, d_k)."""
        d_k = int(inputs["d_k"])
        root = math.sqrt(d_k)
        return [[x / root for x in r] for r in inputs["dots"]], d_k

    def scale_step(self, inputs: Inputs, S: Any) -> Step:
        return step(self.STEP_NAMES["scale"], rf"S = QK^\top / \sqrt{{{inputs['d_k']}}}", S, (len(S), len(S)))


def causal_table(rows: list[list[float]]) -> list[list[float]]:
    """The causal row softmax of a T×T score table: row i over keys 1..i+1, zeros after."""
    return [softmax_prefix(r, i + 1) for i, r in enumerate(rows)]


def plain_weight_rows(bug: str, dots: list[list[float]], d_k: int) -> Iterator[Row]:
    """The rows, one by one, of one table of ``wrong_weight_tables`` (the causal weights of ``bug`` from the
    raw dot products), in plain python: the wrong scales as factors on the dot products, or the right scale
    S = dots / √d_k with the scores transposed or the softmax taken down the columns and the rows
    renormalised. Row by row, so that a table refused for one faint weight is not built further."""
    T = len(dots)
    factor = (
        1.0 / math.sqrt(T) if bug == "scale_uses_seq_len" else WRONG_SCALES[bug](d_k) if bug in WRONG_SCALES else None
    )
    if factor is not None:
        return (softmax_prefix([x * factor for x in r], i + 1) for i, r in enumerate(dots))
    root = math.sqrt(d_k)
    S = [[x / root for x in r] for r in dots]  # (T, T) the right scale
    if bug == "scores_transposed":  # row i = k_i·q_j
        return (softmax_prefix(r, i + 1) for i, r in enumerate(transposed(S)))
    if bug == "softmax_wrong_axis_renormalised":
        return (renormalised(column_softmax_row(S, i, True)) for i in range(T))
    raise ValueError(f"no weight table for misconception {bug!r}")


ROW_SOFTMAX = r"W_{ij} = \frac{e^{\tilde S_{ij}}}{\sum_k e^{\tilde S_{ik}}}"  # version 3's formula


class CausalMaskedWeightsV4(PlainRawScores, CausalMaskedWeightsV3):
    """Version 3's question, numbers and mistakes in plain python (``rows``)."""

    version = 4

    def solve(self, inputs: Inputs) -> Solution:
        S, d_k = self.scaled(inputs)  # (T, T) scaled scores
        dots = inputs["dots"]  # (T, T) as rows
        T = len(S)
        shape = (T, T)
        masked = [[x if j <= i else None for j, x in enumerate(r)] for i, r in enumerate(S)]  # j > i -> -inf
        W = causal_table(S)  # (T, T) rows sum to 1, zeros above the diagonal
        steps = [
            self.scale_step(inputs, S),
            step(self.STEP_NAMES["mask"], r"\tilde S_{ij} = -\infty \quad (j > i)", masked, shape),
            step(self.STEP_NAMES["row_softmax"], ROW_SOFTMAX, W, shape),
        ]
        orders = [order_of(row[: i + 1]) for i, row in enumerate(dots)]  # per row: its scores' order
        faint = half_unit(self.decimals) - 2e-9  # a weight under this rounds to 0
        slack = 2 * half_unit(self.decimals)

        def table(bug: str) -> list[list[float]] | None:
            """Version 3's ``table``: None for a table showing 0 at a visible key, or (the reordering
            mistakes) out of the scores' order by more than rounding could hide."""
            W = []
            for i, row in enumerate(plain_weight_rows(bug, dots, d_k)):
                if min(row[: i + 1]) < faint:
                    return None
                W.append(row)
            if bug in REORDERING_BUGS and not roughly_ordered(W, orders, slack):
                return None
            return W

        wrong: list[Distractor] = [
            (m, None if m == "scale_uses_seq_len" and d_k == T else partial(table, m)) for m in self.BUGS
        ]
        return Solution(W, wrong, steps)

    def acceptable(self, inputs: Inputs, solution: Solution) -> bool:
        W = solution.answer
        return all(spread_ok(W[i], i + 1) for i in range(1, len(W)))


class MaskFillZeroContrastV4(PlainRawScores, MaskFillZeroContrastV3):
    """Version 3's question, numbers and mistakes in plain python (``rows``)."""

    version = 4

    def solve(self, inputs: Inputs) -> Solution:
        S, d_k = self.scaled(inputs)  # (T, T)
        dots = inputs["dots"]  # (T, T) as rows
        T, i = len(S), inputs["query"] - 1
        filled = [x if j <= i else 0.0 for j, x in enumerate(S[i])]  # (T,) the bug: 0, not -inf
        w = softmax_list(filled)  # (T,) e^0 = 1: the future keeps a share
        right = softmax_prefix(S[i], i + 1)  # (T,) what -inf gives
        steps = [
            self.scale_step(inputs, S),
            step(self.STEP_NAMES["fill"], rf"\tilde s_j = 0 \quad (j > {i + 1})", filled, (T,)),
            step(self.STEP_NAMES["softmax"], r"w_j = \frac{e^{\tilde s_j}}{\sum_k e^{\tilde s_k}}", w, (T,)),
            step("对照：填 −∞ 的正确权重", rf"\tilde s_j = -\infty \quad (j > {i + 1})", right, (T,)),
            step("泄漏到未来位置的权重", rf"\sum_{{j > {i + 1}}} w_j", sum(w[i + 1 :]), ()),
        ]
        below = half_unit(self.decimals) - 2e-9  # a weight under this rounds to 0: refused by eye

        def filled_row(scores: list[float], last: int) -> Row | None:
            """softmax of ``scores`` filled with 0 after key ``last`` (0-based); None if a weight shows 0."""
            row = softmax_list([x if j <= last else 0.0 for j, x in enumerate(scores)])
            return None if min(row) < below else row

        d = dots[i]
        wrong: list[Distractor] = [
            ("missing_scale", partial(filled_row, d, i)),
            ("divide_by_dk", partial(filled_row, [x / d_k for x in d], i)),
            ("scale_inverted", partial(filled_row, [x * math.sqrt(d_k) for x in d], i)),
            ("scale_uses_seq_len", partial(filled_row, [x / math.sqrt(T) for x in d], i) if d_k != T else None),
            ("scores_transposed", partial(filled_row, [r[i] for r in S], i)),  # row i of Sᵀ: k_i·q_j
            ("wrong_query_row", partial(filled_row, S[i - 1], i - 1) if i > 0 else None),
        ]
        return Solution(w, wrong, steps)
