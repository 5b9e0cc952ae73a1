"""Tensor shapes: the five steps of lesson 1 (000), nanoGPT's head split (004) and d_model / h (001).

Shapes are exact integers (atol 0). Distractors are the shapes a specific mistake produces, so an
option whose shape coincides with the right one for these numbers is dropped. Version 2 asks
without typing instructions and checks options the way a learner can without working out the
shapes: positive integers, the right rank, the given sizes where they must appear.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import chain
from typing import Any, ClassVar, NamedTuple

import numpy as np
import numpy.typing as npt

from .base import Distractor, Inputs, Params, ParamSpec, Solution, Step, Template, shuffled, specs, step
from .display import fmt_shape
from .sanity import count_ok, matrix, positive_integers, vector

HEADS = (2, 4, 6, 8, 12, 16)
HEAD_SIZES = (16, 32, 64, 128)


class FiveStep(NamedTuple):
    """One of the five steps of scaled dot-product attention, as lesson 1 (seed 000) teaches them."""

    number: int
    name: str  # the step's name in the lessons and in worked solutions
    formula: str  # LaTeX
    note: str  # what happens there, one line in Chinese

    @property
    def label(self) -> str:
        """ "2 打分": how a worked solution names the step."""
        return f"{self.number} {self.name}"


# The one definition of the five steps: worked solutions (version 2 on) and the lesson text use
# exactly these numbers and names, and the content tests compare the lessons with this list.
FIVE_STEPS: tuple[FiveStep, ...] = (
    FiveStep(1, "投影", r"Q, K, V = X W_Q,\ X W_K,\ X W_V", "三个可学习的矩阵把输入 X 投影成 query、key、value"),
    FiveStep(2, "打分", r"Q K^\top", "每个 query 与每个 key 做点积"),
    FiveStep(3, "缩放", r"\div \sqrt{d_k}", "把分数的方差拉回 1；decoder 在这一步加因果掩码（未来位置填 −∞）"),
    FiveStep(4, "softmax", r"\mathrm{softmax}", "沿最后一维（key 的方向）归一化，每行和为 1"),
    FiveStep(5, "加权求和", r"W V", "用权重对 value 加权求和"),
)
PROJECT, SCORE, SCALE, SOFTMAX, WEIGHTED_SUM = (s.label for s in FIVE_STEPS)


class ShapeTemplate(Template):
    decimals = 0

    def label(self, value: Any) -> tuple[str, str]:
        text = fmt_shape(value) if type(value) is list else str(int(value))  # an option: a shape or a size
        return text, text


class FiveStepShapes(ShapeTemplate):
    name = "five_step_shapes"
    version = 1
    title_zh = "五步的张量形状"
    title_en = "Tensor shapes through the five steps"
    source = "000"
    params = specs(
        ParamSpec("T", None, 1, 8192),
        ParamSpec("d_model", None, 1, 16384),
        ParamSpec("d_k", None, 1, 4096),
        ParamSpec("d_v", None, 1, 4096),
    )
    ROWS = ("Q", "K", "V", "S", "W", "O")

    def draw(self, rng: np.random.Generator, p: Params) -> Inputs:
        return {
            "T": self.pick(rng, p, "T", options=range(3, 13)),
            "d_model": self.pick(rng, p, "d_model", options=(8, 16, 32, 64, 128, 256, 512)),
            "d_k": self.pick(rng, p, "d_k", options=(4, 8, 16, 32, 64, 128)),
            "d_v": self.pick(rng, p, "d_v", options=(4, 8, 16, 32, 64, 128)),
        }

    @staticmethod
    def shapes(T: int, d_qk: int, d_v: int, d_scores: list[int], d_out: int) -> npt.NDArray[np.int_]:
        """Rows Q, K, V, S = QKᵀ/√d_k, W = softmax(S), O = W V as (rows, cols)."""
        return np.array([[T, d_qk], [T, d_qk], [T, d_v], d_scores, d_scores, [T, d_out]])

    def solve(self, inputs: Inputs) -> Solution:
        T, d_model, d_k, d_v = inputs["T"], inputs["d_model"], inputs["d_k"], inputs["d_v"]
        answer = self.shapes(T, d_k, d_v, [T, T], d_v)
        return Solution(answer, self.wrong(T, d_model, d_k, d_v), self.steps(T, d_model, d_k, d_v))

    def wrong(self, T: int, d_model: int, d_k: int, d_v: int) -> list[Distractor]:
        return [
            ("transposed_product", self.shapes(T, d_k, d_v, [d_k, d_k], d_v)),
            ("shape_keeps_d_model", self.shapes(T, d_model, d_model, [T, T], d_model)),
            ("output_width_d_model", self.shapes(T, d_k, d_v, [T, T], d_model)),
        ]

    def steps(self, T: int, d_model: int, d_k: int, d_v: int) -> list[Step]:
        return [
            step("1. 投影", rf"Q = X W_Q:\ ({T}, {d_model}) @ ({d_model}, {d_k})", shape=(T, d_k)),
            step("1. 投影", rf"K = X W_K:\ ({T}, {d_model}) @ ({d_model}, {d_k})", shape=(T, d_k)),
            step("1. 投影", rf"V = X W_V:\ ({T}, {d_model}) @ ({d_model}, {d_v})", shape=(T, d_v)),
            step("2–3. 打分并缩放", rf"S = Q K^\top / \sqrt{{d_k}}:\ ({T}, {d_k}) @ ({d_k}, {T})", shape=(T, T)),
            step("4. 掩码 + softmax", r"W = \mathrm{softmax}(S + M)", shape=(T, T)),
            step("5. 加权求和", rf"O = W V:\ ({T}, {T}) @ ({T}, {d_v})", shape=(T, d_v)),
        ]

    def sane(self, inputs: Inputs, value: Any) -> bool:
        """Six (rows, cols) pairs, each number one of the given sizes T, d_model, d_k, d_v."""
        return self.sane_check(inputs)(value)

    def sane_check(self, inputs: Inputs) -> Callable[[Any], bool]:
        sizes = {inputs["T"], inputs["d_model"], inputs["d_k"], inputs["d_v"]}

        def check(value: Any) -> bool:
            shapes = matrix(value, len(self.ROWS), 2)
            return shapes is not None and sizes.issuperset(chain.from_iterable(shapes))  # every size a given one

        return check

    def label(self, value: Any) -> tuple[str, str]:
        text = ", ".join(f"{name} {fmt_shape(shape)}" for name, shape in zip(self.ROWS, value, strict=True))
        return text, text

    def prompt(self, inputs: Inputs) -> str:
        T, d_model, d_k, d_v = inputs["T"], inputs["d_model"], inputs["d_k"], inputs["d_v"]
        return (
            f"单头自注意力，输入 $X$ 的形状是 $(T, d_{{model}}) = ({T}, {d_model})$，$d_k = {d_k}$，"
            f"$d_v = {d_v}$。依次写出 $Q$、$K$、$V$、$S = QK^\\top/\\sqrt{{d_k}}$、"
            "$W = \\mathrm{softmax}(S)$、输出 $O = WV$ 的形状：每行一个 `行数, 列数`，共 6 行，"
            "行与行之间用分号隔开。"
        )


class NanoGPTShapes(ShapeTemplate):
    name = "nanogpt_shapes"
    version = 1
    title_zh = "nanoGPT 注意力里的形状"
    title_en = "Shapes inside nanoGPT's CausalSelfAttention"
    source = "004"
    params = specs(
        ParamSpec("B", None, 1, 1024),
        ParamSpec("T", None, 1, 65536),
        ParamSpec("C", None, 1, 65536),
        ParamSpec("n_head", None, 1, 256),
        ParamSpec("ask", None, kind="choice", choices=("hs", "q", "att", "y", "c_attn")),
    )
    QUESTIONS: ClassVar[dict[str, str]] = {
        "hs": "每个头的维度 `hs = C // n_head` 是多少？",
        "q": "执行 `q = q.view(B, T, n_head, C // n_head).transpose(1, 2)` 之后，`q` 的形状是什么？",
        "att": "`att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))` 的形状是什么？",
        "y": "`y = y.transpose(1, 2).contiguous().view(B, T, C)` 之后，`y` 的形状是什么？",
        "c_attn": "`self.c_attn(x)` 输出的最后一维有多宽？",
    }

    def check_params(self, p: Params) -> None:
        if p["C"] is not None and p["n_head"] is not None and p["C"] % p["n_head"]:
            raise ValueError(f"param 'C' ({p['C']}) must be divisible by param 'n_head' ({p['n_head']})")

    def draw(self, rng: np.random.Generator, p: Params) -> Inputs:
        n_head, C = p["n_head"], p["C"]
        if C is None:
            n_head = self.pick(rng, p, "n_head", options=HEADS)
            C = n_head * HEAD_SIZES[int(rng.integers(len(HEAD_SIZES)))]
        elif n_head is None:
            n_head = self.pick(rng, p, "n_head", options=[h for h in HEADS if C % h == 0] or [1])
        return {
            "B": self.pick(rng, p, "B", options=range(1, 17)),
            "T": self.pick(rng, p, "T", options=(8, 16, 32, 64, 128, 256, 512, 1024)),
            "C": C,
            "n_head": n_head,
            "ask": self.pick(rng, p, "ask"),
        }

    def solve(self, inputs: Inputs) -> Solution:
        B, T, C, nh = inputs["B"], inputs["T"], inputs["C"], inputs["n_head"]
        hs = C // nh
        steps = [
            step("c_attn", "x @ W_{attn}^\\top:\\ (B, T, C) \\to (B, T, 3C)", shape=(B, T, 3 * C)),
            step("split", "q, k, v = qkv.split(C, dim=2)", shape=(B, T, C)),
            step("view", f"(B, T, n_{{head}}, hs),\\ hs = C / n_{{head}} = {C} / {nh} = {hs}", shape=(B, T, nh, hs)),
            step("transpose(1, 2)", "(B, n_{head}, T, hs)", shape=(B, nh, T, hs)),
            step("att", "q @ k^\\top / \\sqrt{hs}:\\ (B, n_{head}, T, T)", shape=(B, nh, T, T)),
            step("att @ v", "(B, n_{head}, T, T) @ (B, n_{head}, T, hs)", shape=(B, nh, T, hs)),
            step("re-assemble", "y.transpose(1, 2).contiguous().view(B, T, C)", shape=(B, T, C)),
        ]
        answer, wrong = {
            "hs": (hs, [("no_head_split", C), ("heads_multiply_width", C * nh)]),
            "q": ([B, nh, T, hs], [("missing_transpose", [B, T, nh, hs]), ("no_head_split", [B, nh, T, C])]),
            "att": ([B, nh, T, T], [("transposed_product", [B, nh, hs, hs]), ("missing_transpose", [B, T, nh, nh])]),
            "y": ([B, T, C], [("reassembly_forgotten", [B, nh, T, hs]), ("heads_averaged", [B, T, hs])]),
            "c_attn": (3 * C, [("c_attn_single_projection", C), ("heads_multiply_width", 3 * C * nh)]),
        }[inputs["ask"]]
        return Solution(answer, wrong, steps)

    def prompt(self, inputs: Inputs) -> str:
        B, T, C, nh = inputs["B"], inputs["T"], inputs["C"], inputs["n_head"]
        return (
            f"nanoGPT 的 `CausalSelfAttention`：输入 `x` 的形状为 $(B, T, C) = ({B}, {T}, {C})$，"
            f"`n_head` $= {nh}$。{self.QUESTIONS[inputs['ask']]}（写整数，多个维度用逗号隔开）"
        )

    RANKS: ClassVar[dict[str, int]] = {"q": 4, "att": 4, "y": 3}

    def sane(self, inputs: Inputs, value: Any) -> bool:
        """A size: a positive integer. A tensor: its rank (4 with heads, 3 after re-assembly), positive
        integers, the batch B first."""
        rank = self.RANKS.get(inputs["ask"])
        if rank is None:
            return count_ok(value)
        dims = vector(value, rank)
        return dims is not None and positive_integers(dims) and dims[0] == inputs["B"]


class HeadDimension(ShapeTemplate):
    name = "head_dimension"
    version = 1
    title_zh = "每个头的维度"
    title_en = "Dimension per head"
    source = "001"
    params = specs(
        ParamSpec("d_model", None, 2, 65536),
        ParamSpec("n_head", None, 2, 256),
    )

    def heads(self, d_model: int) -> list[int]:
        """Head counts that divide d_model: the usual ones if any, else any in n_head's range."""
        spec = self.params["n_head"]
        assert spec.min is not None and spec.max is not None  # an int param: it has a range
        return [h for h in (2, 4, 8, 12, 16, 32) if d_model % h == 0] or [
            h for h in range(int(spec.min), int(spec.max) + 1) if d_model % h == 0
        ]

    def check_params(self, p: Params) -> None:
        d_model, n_head = p["d_model"], p["n_head"]
        if d_model is not None and n_head is not None and d_model % n_head:
            raise ValueError(f"param 'd_model' ({d_model}) must be divisible by param 'n_head' ({n_head})")
        if d_model is not None and n_head is None and not self.heads(d_model):
            raise ValueError(
                f"param 'd_model' ({d_model}) has no divisor in n_head's range "
                f"[{self.params['n_head'].min}, {self.params['n_head'].max}]"
            )

    def draw(self, rng: np.random.Generator, p: Params) -> Inputs:
        d_model = self.pick(rng, p, "d_model", options=(128, 256, 384, 512, 768, 1024, 2048, 4096))
        return {"d_model": d_model, "n_head": self.pick(rng, p, "n_head", options=self.heads(d_model))}

    def solve(self, inputs: Inputs) -> Solution:
        d_model, h = inputs["d_model"], inputs["n_head"]
        hs = d_model // h
        steps = [
            step("每个头的维度", rf"d_k = d_{{model}} / h = {d_model} / {h} = {hs}", hs),
            step("拼回", rf"h \times d_k = {h} \times {hs} = {d_model}", d_model),
        ]
        return Solution(hs, self.wrong(d_model, h), steps)

    def wrong(self, d_model: int, h: int) -> list[Distractor]:
        return [("no_head_split", d_model), ("heads_multiply_width", d_model * h)]

    def sane(self, inputs: Inputs, value: Any) -> bool:
        """A number of dimensions: a positive integer."""
        return count_ok(value)

    def prompt(self, inputs: Inputs) -> str:
        return (
            f"按原论文的做法，$d_{{model}} = {inputs['d_model']}$，用 $h = {inputs['n_head']}$ 个注意力头，"
            "每个头分到多少维？"
        )


# --- version 2 ---------------------------------------------------------------------------------


class FiveStepShapesV2(FiveStepShapes):
    """The worked steps are FIVE_STEPS, by number and name; V of width d_k is one more distractor."""

    version = 2
    sane_choices = True
    ANSWER_FORMAT = "按 Q、K、V、S、W、O 的顺序写出 6 个形状，每个写成 `行数, 列数`，形状之间用分号隔开。"

    def wrong(self, T: int, d_model: int, d_k: int, d_v: int) -> list[Distractor]:
        return [*super().wrong(T, d_model, d_k, d_v), ("dv_equals_dk", self.shapes(T, d_k, d_k, [T, T], d_k))]

    def steps(self, T: int, d_model: int, d_k: int, d_v: int) -> list[Step]:
        project, score, scale, soft, weighted = (s.label for s in FIVE_STEPS)
        return [
            step(project, rf"Q = X W_Q:\ ({T}, {d_model}) @ ({d_model}, {d_k})", shape=(T, d_k)),
            step(project, rf"K = X W_K:\ ({T}, {d_model}) @ ({d_model}, {d_k})", shape=(T, d_k)),
            step(project, rf"V = X W_V:\ ({T}, {d_model}) @ ({d_model}, {d_v})", shape=(T, d_v)),
            step(score, rf"Q K^\top:\ ({T}, {d_k}) @ ({d_k}, {T})", shape=(T, T)),
            step(scale, r"S = Q K^\top / \sqrt{d_k}\ \text{（decoder 在此加因果掩码）}", shape=(T, T)),
            step(soft, r"W = \mathrm{softmax}(S)\ \text{（沿最后一维）}", shape=(T, T)),
            step(weighted, rf"O = W V:\ ({T}, {T}) @ ({T}, {d_v})", shape=(T, d_v)),
        ]

    def prompt(self, inputs: Inputs) -> str:
        T, d_model, d_k, d_v = inputs["T"], inputs["d_model"], inputs["d_k"], inputs["d_v"]
        return (
            f"单头自注意力，输入 $X$ 的形状是 $(T, d_{{model}}) = ({T}, {d_model})$，$d_k = {d_k}$，"
            f"$d_v = {d_v}$。$Q$、$K$、$V$、$S = QK^\\top/\\sqrt{{d_k}}$、"
            "$W = \\mathrm{softmax}(S)$ 和输出 $O = WV$ 的形状各是什么？"
        )


class NanoGPTShapesV2(NanoGPTShapes):
    """Asks about y without printing the answer: version 1 quoted `.view(B, T, C)` in the question."""

    version = 2
    sane_choices = True
    QUESTIONS: ClassVar[dict[str, str]] = {
        **NanoGPTShapes.QUESTIONS,
        "y": "各头的输出 `y = att @ v` 拼回去（`transpose(1, 2).contiguous().view(...)`）之后、送入 `c_proj` 之前，"
        "`y` 的形状是什么？",
    }

    def solve(self, inputs: Inputs) -> Solution:
        solution = super().solve(inputs)
        B, T, C, nh = inputs["B"], inputs["T"], inputs["C"], inputs["n_head"]
        extra = {  # a mistake whose result still has the rank and the batch dim a learner can check
            "hs": ("head_count_for_size", nh),
            "y": ("no_head_split", [B, T, nh * C]),
        }.get(inputs["ask"])
        return solution._replace(distractors=[*solution.distractors, extra]) if extra else solution

    def prompt(self, inputs: Inputs) -> str:
        B, T, C, nh = inputs["B"], inputs["T"], inputs["C"], inputs["n_head"]
        return (
            f"nanoGPT 的 `CausalSelfAttention`：输入 `x` 的形状为 $(B, T, C) = ({B}, {T}, {C})$，"
            f"`n_head` $= {nh}$。{self.QUESTIONS[inputs['ask']]}"
        )

    def answer_format(self, inputs: Inputs) -> str:
        rank = self.RANKS.get(inputs["ask"])
        return "写一个整数。" if rank is None else f"按维度顺序写出 {rank} 个整数，用逗号隔开。"


class HeadDimensionV2(HeadDimension):
    """Adds the head count itself as a distractor, so the answer is not always the smallest option."""

    version = 2
    sane_choices = True
    ANSWER_FORMAT = "写一个整数。"

    def wrong(self, d_model: int, h: int) -> list[Distractor]:
        return [*super().wrong(d_model, h), ("head_count_for_size", h)]


# --- version 3 (issue 25) ----------------------------------------------------------------------


class FiveStepShapesV3(FiveStepShapesV2):
    """Six parts, one shape per tensor. A real mistake changes a few of them (S and W, or V and O, or
    O), so with several mistakes the answer is the option sharing the most shapes with the others.
    Each variant therefore offers two mistakes that change the same shapes, and the other shapes read
    the same in all three options: S and W (Qᵀ K, or an element-wise product), V and O (V of width
    d_k, or V = X itself), or O (width d_model, or the weights taken for the output)."""

    version = 3
    cue_rules = True
    max_distractors = 2

    def wrong(self, T: int, d_model: int, d_k: int, d_v: int) -> list[Distractor]:
        return [
            *super().wrong(T, d_model, d_k, d_v),
            ("elementwise_scores", self.shapes(T, d_k, d_v, [T, d_k], d_v)),
            ("value_is_input", self.shapes(T, d_k, d_model, [T, T], d_model)),
            ("output_is_weights", self.shapes(T, d_k, d_v, [T, T], T)),
        ]

    # Candidates (as wrong() lists them) that change the same shapes: transposed_product and
    # elementwise_scores, dv_equals_dk and value_is_input, output_width_d_model and output_is_weights;
    # shape_keeps_d_model has no partner.
    PARTNERS: ClassVar[tuple[tuple[int, ...], ...]] = ((0, 4), (3, 5), (2, 6), (1,))

    def candidate_order(self, p: Params, n: int, rng: np.random.Generator) -> list[int]:
        """Partners tried one after the other (a pair in random order, the pairs in random order), so
        that the first two candidates that pass the checks are usually a balanced set: the same choice
        as trying every pair, with fewer candidates computed."""
        flips = rng.integers(2, size=len(self.PARTNERS)).tolist()
        order: list[int] = []
        for g in shuffled(rng, len(self.PARTNERS)):
            order += self.PARTNERS[g][::-1] if flips[g] else self.PARTNERS[g]
        return order

    def parts(self, inputs: Inputs, value: Any) -> tuple[Any, ...]:
        return tuple(tuple(shape) for shape in value)  # six (rows, cols)


class NanoGPTShapesV3(NanoGPTShapesV2):
    """Two distractors per variant, from three to five named mistakes per question: the split of C into
    (hs, nh) instead of (nh, hs), and c_attn's 3C never split into q, k, v, join version 2's. (A shape
    is one answer: the options differ in one or two of its sizes.)"""

    version = 3
    cue_rules = True
    max_distractors = 2

    def solve(self, inputs: Inputs) -> Solution:
        solution = super().solve(inputs)
        B, T, C, nh = inputs["B"], inputs["T"], inputs["C"], inputs["n_head"]
        hs = C // nh
        extra = {
            "hs": [("qkv_split_forgotten", 3 * hs)],
            "q": [("split_wrong_order", [B, hs, T, nh]), ("qkv_split_forgotten", [B, nh, T, 3 * hs])],
            "att": [("split_wrong_order", [B, hs, T, T])],
            "y": [("qkv_split_forgotten", [B, T, 3 * C])],
            "c_attn": [("one_head_only", 3 * hs)],
        }[inputs["ask"]]
        return solution._replace(distractors=[*solution.distractors, *extra])


class NanoGPTShapesV4(NanoGPTShapesV3):
    """Options that agree on as many sizes with each other as with the answer (issue 25 b). In version 3
    every mistake changed one or two sizes of the answer, so the answer was the shape sharing the most
    sizes with the others (56 % of the att variants, chance 33 %). Each variant now offers two mistakes
    that change the same sizes of the answer to different values: for att Qᵀ K's (hs, hs) or the mask
    buffer's (block_size, block_size) in the last two, or the head axis as hs or as one shared table;
    for q c_attn's 3·hs or the whole C as the last size, or (hs, …, nh) against one head of width C;
    for y any two of the averaged, unsplit and un-split-qkv widths. The prompt gives nanoGPT's
    block_size, since the causal mask buffer is registered at that size."""

    version = 4
    BLOCK_SIZES = (256, 512, 1024, 2048)

    def draw(self, rng: np.random.Generator, p: Params) -> Inputs:
        inputs = super().draw(rng, p)
        sizes = [b for b in self.BLOCK_SIZES if b > inputs["T"]] or [2 * inputs["T"]]
        return {**inputs, "block_size": sizes[int(rng.integers(len(sizes)))]}

    # Partners side by side (see candidate_order): for att transposed_product and att_block_size, then
    # split_wrong_order and heads_share_weights; for q no_head_split and qkv_split_forgotten, then
    # split_wrong_order and single_head_of_width_c; missing_transpose has no partner. y's three widths
    # balance in any pair (reassembly_forgotten has rank 4 and never passes the checks).
    PAIRED: ClassVar[dict[str, tuple[str, ...]]] = {
        "att": ("transposed_product", "att_block_size", "split_wrong_order", "heads_share_weights"),
        "q": ("no_head_split", "qkv_split_forgotten", "split_wrong_order", "single_head_of_width_c"),
    }

    def solve(self, inputs: Inputs) -> Solution:
        solution = super().solve(inputs)
        B, T, C, nh, bs = (inputs[k] for k in ("B", "T", "C", "n_head", "block_size"))
        extra = {
            "q": [("single_head_of_width_c", [B, 1, T, C])],
            "att": [("att_block_size", [B, nh, bs, bs]), ("heads_share_weights", [B, 1, T, T])],
        }.get(inputs["ask"], [])
        distractors = [*solution.distractors, *extra]
        first = self.PAIRED.get(inputs["ask"], ())
        distractors.sort(key=lambda d: first.index(d[0]) if d[0] in first else len(first))
        return solution._replace(distractors=distractors)

    def prompt(self, inputs: Inputs) -> str:
        B, T, C, nh, bs = (inputs[k] for k in ("B", "T", "C", "n_head", "block_size"))
        return (
            f"nanoGPT 的 `CausalSelfAttention`（`block_size` $= {bs}$）：输入 `x` 的形状为 "
            f"$(B, T, C) = ({B}, {T}, {C})$，`n_head` $= {nh}$。{self.QUESTIONS[inputs['ask']]}"
        )

    def parts(self, inputs: Inputs, value: Any) -> tuple[Any, ...] | None:
        """A tensor's shape as its sizes (a learner compares options size by size); a width is one number."""
        return tuple(value) if inputs["ask"] in self.RANKS else None

    def candidate_order(self, p: Params, n: int, rng: np.random.Generator) -> list[int]:
        """solve() lists partners (mistakes changing the same sizes) side by side; they are tried one
        after the other (a pair in random order, the pairs in random order), so that the first two
        candidates that pass the checks are usually a balanced set and fewer candidates are computed."""
        drawn = shuffled(rng, n)  # one draw: a pair goes where its first member lands
        order: list[int] = []
        for i in drawn:
            if i not in order:
                partner = i ^ 1  # 0 and 1, 2 and 3, ...
                order += [i, partner] if partner < n else [i]
        return order


class HeadDimensionV3(HeadDimensionV2):
    """Three real mistakes (no split, times the heads, the head count), two per variant."""

    version = 3
    cue_rules = True
    max_distractors = 2


# --- issue 25, speed ---------------------------------------------------------------------------


class FiveStepShapesV4(FiveStepShapesV3):
    """Version 3's question and options with the shapes as python lists: building a 6×2 numpy array for
    the answer and each of seven mistakes cost more than everything else the variant computes."""

    version = 4

    @staticmethod
    def shapes(T: int, d_qk: int, d_v: int, d_scores: list[int], d_out: int) -> list[list[int]]:  # type: ignore[override]
        """Rows Q, K, V, S = QKᵀ/√d_k, W = softmax(S), O = W V as [rows, cols]."""
        return [[T, d_qk], [T, d_qk], [T, d_v], list(d_scores), list(d_scores), [T, d_out]]
