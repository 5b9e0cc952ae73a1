"""Tensor shapes: the five steps of lesson 1 (000), nanoGPT's head split (004) and d_model / h (001).

Shapes are exact integers (atol 0). Distractors are the shapes a specific mistake produces, so an
option whose shape coincides with the right one for these numbers is dropped.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from .base import ParamSpec, Solution, Template, specs, step
from .display import fmt_shape

HEADS = (2, 4, 6, 8, 12, 16)
HEAD_SIZES = (16, 32, 64, 128)


class ShapeTemplate(Template):
    decimals = 0

    def label(self, value):
        text = fmt_shape(np.atleast_1d(value)) if np.ndim(value) == 1 else str(int(value))
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

    def draw(self, rng, p):
        return {
            "T": self.pick(rng, p, "T", options=range(3, 13)),
            "d_model": self.pick(rng, p, "d_model", options=(8, 16, 32, 64, 128, 256, 512)),
            "d_k": self.pick(rng, p, "d_k", options=(4, 8, 16, 32, 64, 128)),
            "d_v": self.pick(rng, p, "d_v", options=(4, 8, 16, 32, 64, 128)),
        }

    @staticmethod
    def shapes(T, d_qk, d_v, d_scores, d_out) -> np.ndarray:
        """Rows Q, K, V, S = QKᵀ/√d_k, W = softmax(S), O = W V as (rows, cols)."""
        return np.array([[T, d_qk], [T, d_qk], [T, d_v], d_scores, d_scores, [T, d_out]])

    def solve(self, inputs):
        T, d_model, d_k, d_v = inputs["T"], inputs["d_model"], inputs["d_k"], inputs["d_v"]
        answer = self.shapes(T, d_k, d_v, [T, T], d_v)
        steps = [
            step("1. 投影", rf"Q = X W_Q:\ ({T}, {d_model}) @ ({d_model}, {d_k})", shape=(T, d_k)),
            step("1. 投影", rf"K = X W_K:\ ({T}, {d_model}) @ ({d_model}, {d_k})", shape=(T, d_k)),
            step("1. 投影", rf"V = X W_V:\ ({T}, {d_model}) @ ({d_model}, {d_v})", shape=(T, d_v)),
            step("2–3. 打分并缩放", rf"S = Q K^\top / \sqrt{{d_k}}:\ ({T}, {d_k}) @ ({d_k}, {T})", shape=(T, T)),
            step("4. 掩码 + softmax", r"W = \mathrm{softmax}(S + M)", shape=(T, T)),
            step("5. 加权求和", rf"O = W V:\ ({T}, {T}) @ ({T}, {d_v})", shape=(T, d_v)),
        ]
        wrong = [
            ("transposed_product", self.shapes(T, d_k, d_v, [d_k, d_k], d_v)),
            ("shape_keeps_d_model", self.shapes(T, d_model, d_model, [T, T], d_model)),
            ("output_width_d_model", self.shapes(T, d_k, d_v, [T, T], d_model)),
        ]
        return Solution(answer, wrong, steps)

    def label(self, value):
        text = ", ".join(f"{name} {fmt_shape(shape)}" for name, shape in zip(self.ROWS, value, strict=True))
        return text, text

    def prompt(self, inputs):
        T, d_model, d_k, d_v = inputs["T"], inputs["d_model"], inputs["d_k"], inputs["d_v"]
        return (f"单头自注意力，输入 $X$ 的形状是 $(T, d_{{model}}) = ({T}, {d_model})$，$d_k = {d_k}$，"
                f"$d_v = {d_v}$。依次写出 $Q$、$K$、$V$、$S = QK^\\top/\\sqrt{{d_k}}$、"
                "$W = \\mathrm{softmax}(S)$、输出 $O = WV$ 的形状：每行一个 `行数, 列数`，共 6 行，"
                "行与行之间用分号隔开。")


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

    def check_params(self, p):
        if p["C"] is not None and p["n_head"] is not None and p["C"] % p["n_head"]:
            raise ValueError(f"param 'C' ({p['C']}) must be divisible by param 'n_head' ({p['n_head']})")

    def draw(self, rng, p):
        n_head, C = p["n_head"], p["C"]
        if C is None:
            n_head = self.pick(rng, p, "n_head", options=HEADS)
            C = n_head * HEAD_SIZES[int(rng.integers(len(HEAD_SIZES)))]
        elif n_head is None:
            n_head = self.pick(rng, p, "n_head", options=[h for h in HEADS if C % h == 0] or [1])
        return {
            "B": self.pick(rng, p, "B", options=range(1, 17)),
            "T": self.pick(rng, p, "T", options=(8, 16, 32, 64, 128, 256, 512, 1024)),
            "C": C, "n_head": n_head, "ask": self.pick(rng, p, "ask"),
        }

    def solve(self, inputs):
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

    def prompt(self, inputs):
        B, T, C, nh = inputs["B"], inputs["T"], inputs["C"], inputs["n_head"]
        return (f"nanoGPT 的 `CausalSelfAttention`：输入 `x` 的形状为 $(B, T, C) = ({B}, {T}, {C})$，"
                f"`n_head` $= {nh}$。{self.QUESTIONS[inputs['ask']]}（写整数，多个维度用逗号隔开）")


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
        return ([h for h in (2, 4, 8, 12, 16, 32) if d_model % h == 0]
                or [h for h in range(spec.min, spec.max + 1) if d_model % h == 0])

    def check_params(self, p):
        d_model, n_head = p["d_model"], p["n_head"]
        if d_model is not None and n_head is not None and d_model % n_head:
            raise ValueError(f"param 'd_model' ({d_model}) must be divisible by param 'n_head' ({n_head})")
        if d_model is not None and n_head is None and not self.heads(d_model):
            raise ValueError(f"param 'd_model' ({d_model}) has no divisor in n_head's range "
                             f"[{self.params['n_head'].min}, {self.params['n_head'].max}]")

    def draw(self, rng, p):
        d_model = self.pick(rng, p, "d_model", options=(128, 256, 384, 512, 768, 1024, 2048, 4096))
        return {"d_model": d_model, "n_head": self.pick(rng, p, "n_head", options=self.heads(d_model))}

    def solve(self, inputs):
        d_model, h = inputs["d_model"], inputs["n_head"]
        hs = d_model // h
        steps = [
            step("每个头的维度", rf"d_k = d_{{model}} / h = {d_model} / {h} = {hs}", hs),
            step("拼回", rf"h \times d_k = {h} \times {hs} = {d_model}", d_model),
        ]
        return Solution(hs, [("no_head_split", d_model), ("heads_multiply_width", d_model * h)], steps)

    def prompt(self, inputs):
        return (f"按原论文的做法，$d_{{model}} = {inputs['d_model']}$，用 $h = {inputs['n_head']}$ 个注意力头，"
                "每个头分到多少维？")
