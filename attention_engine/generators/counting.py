"""Arithmetic around attention: parameters, KV-cache work, RNN gradients, supervised positions, memory.

Seeds 001 (RNN decay, BERT vs GPT, KV cache) and 004 (c_attn / c_proj). The inputs are the
prompt's integers, so the answers are exact; the wrong options come from the named mistakes in
``attention_engine.misconceptions`` (counting attention scores instead of K/V projections, ...).

A learner can check a count without computing it: positive, whole, no larger than the whole, and
consistent with the other numbers of the same option (a percentage that matches its two counts, a
tile that is the full matrix scaled by tile_size / T). Version 2 offers only options that pass
those checks, and says how to type the answer in ``answer_format`` instead of the prompt.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, ClassVar

import numpy as np

from .base import Distractor, Inputs, Params, ParamSpec, Solution, Step, Template, specs, step
from .display import fmt, fmt_many
from .sanity import count_ok, half_unit, positive_integers, scalar, vector

MIB = 2**20
GIB = 2**30
BYTES = {"float16": 2, "bfloat16": 2, "float32": 4, "float64": 8}


class CountTemplate(Template):
    """Options read like sentences: LABEL_ZH / LABEL_EN with one {} per answer element."""

    LABEL_ZH: str
    LABEL_EN: str

    def label(self, value: Any) -> tuple[str, str]:
        values = value if type(value) is list else [value]  # an option as shown: a list or one number
        parts = fmt_many(values, self.decimals, self.sig)
        return self.LABEL_ZH.format(*parts), self.LABEL_EN.format(*parts)


class ParamTotal(CountTemplate):
    """One parameter count of a whole model or module: shown with thousands separators, typed without."""

    decimals = 0
    ANSWER_FORMAT = "写一个整数（不要写千位分隔符）。"

    def label(self, value: Any) -> tuple[str, str]:
        text = f"{int(value):,}"
        return text, text

    def sane(self, inputs: Inputs, value: Any) -> bool:
        """A parameter count: one positive whole number."""
        return count_ok(value)


class NanoGPTParamCount(CountTemplate):
    name = "nanogpt_param_count"
    version = 1
    title_zh = "c_attn 和 c_proj 的参数量"
    title_en = "Parameters of c_attn and c_proj"
    source = "004"
    params = specs(
        ParamSpec("C", None, 1, 65536),
        ParamSpec("n_head", None, 1, 256),
        ParamSpec("bias", None, kind="bool"),
    )
    decimals = 0
    LABEL_ZH = "c_attn {}，c_proj {}"
    LABEL_EN = "c_attn {}, c_proj {}"
    TYPING = "写两个整数，用逗号隔开（不要写千位分隔符）。"

    def check_params(self, p: Params) -> None:
        if p["C"] is not None and p["n_head"] is not None and p["C"] % p["n_head"]:
            raise ValueError(f"param 'C' ({p['C']}) must be divisible by param 'n_head' ({p['n_head']})")

    def draw(self, rng: np.random.Generator, p: Params) -> Inputs:
        C = self.pick(rng, p, "C", options=(64, 128, 256, 384, 512, 768, 1024, 1600))
        heads = [h for h in (2, 4, 6, 8, 12, 16, 25) if C % h == 0] or [1]
        return {"C": C, "n_head": self.pick(rng, p, "n_head", options=heads), "bias": self.pick(rng, p, "bias")}

    @staticmethod
    def counts(C: int, bias: bool, qkv: int = 3) -> list[int]:
        """[c_attn, c_proj]: nn.Linear(C, qkv*C) and nn.Linear(C, C), weight out×in plus one bias per output."""
        return [qkv * C * C + (qkv * C if bias else 0), C * C + (C if bias else 0)]

    def solve(self, inputs: Inputs) -> Solution:
        C, nh, bias = inputs["C"], inputs["n_head"], inputs["bias"]
        b = 1 if bias else 0
        steps = [
            step("c_attn.weight", rf"3C \times C = {3 * C} \times {C}", 3 * C * C),
            step("c_attn.bias", rf"3C = {3 * C}" if bias else r"\text{bias=False}", 3 * C * b),
            step("c_proj.weight", rf"C \times C = {C} \times {C}", C * C),
            step("c_proj.bias", rf"C = {C}" if bias else r"\text{bias=False}", C * b),
        ]
        right = self.counts(C, bias)
        wrong = [
            ("bias_miscount", self.counts(C, not bias)),
            ("c_attn_single_projection", self.counts(C, bias, qkv=1)),
            ("params_scale_with_heads", [nh * n for n in right]),
        ]
        return Solution(right, wrong, steps)

    def sane(self, inputs: Inputs, value: Any) -> bool:
        """Two parameter counts: positive integers."""
        counts = vector(value, 2)
        return counts is not None and positive_integers(counts)

    def prompt(self, inputs: Inputs) -> str:
        C, nh, bias = inputs["C"], inputs["n_head"], inputs["bias"]
        return (
            f"nanoGPT 的 `CausalSelfAttention`：`n_embd` $= C = {C}$，`n_head` $= {nh}$，"
            f"`bias={bias}`。`c_attn` 和 `c_proj` 各有多少个参数（权重加偏置）？" + self.TYPING
        )


class KVCacheSavings(CountTemplate):
    name = "kv_cache_savings"
    percent_answer = True  # its third number is the saving in percent
    version = 1
    title_zh = "KV cache 省下多少次 K/V 投影"
    title_en = "K/V projections saved by a KV cache"
    source = "001"
    params = specs(ParamSpec("n_steps", None, 2, 10000))
    decimals = 0
    atol = 0.5  # counts are integers; the percentage is asked to the nearest whole percent
    LABEL_ZH = "不缓存 {} 次，缓存 {} 次，节省 {}%"
    LABEL_EN = "{} without cache, {} with, {}% saved"
    TYPING = "写三个数，用逗号隔开（百分比取整数）。"

    def draw(self, rng: np.random.Generator, p: Params) -> Inputs:
        return {"n_steps": self.pick(rng, p, "n_steps", options=range(3, 101))}

    @staticmethod
    def row(without: int, with_cache: int) -> list[float]:
        return [without, with_cache, 100 * (1 - with_cache / without)]

    def solve(self, inputs: Inputs) -> Solution:
        n = inputs["n_steps"]
        without = n * (n + 1) // 2  # step t re-projects all t tokens: 1 + 2 + ... + n
        steps = [
            step("不缓存", rf"1 + 2 + \cdots + {n} = \frac{{{n}\cdot{n + 1}}}{{2}}", without),
            step("缓存", rf"\text{{每步只投影新 token}}:\ {n}", n),
            step("节省", rf"1 - {n} / {without}", 100 * (1 - n / without)),
        ]
        return Solution(self.row(without, n), self.wrong(n, without), steps)

    def wrong(self, n: int, without: int) -> list[Distractor]:
        return [
            ("kv_count_attention_scores", self.row(n * (n + 1) * (2 * n + 1) // 6, without)),
            ("kv_count_n_squared", self.row(n * n, n)),
            ("percent_remaining", [without, n, 100 * n / without]),
        ]

    def sane(self, inputs: Inputs, value: Any) -> bool:
        """Two counts (whole, the cached one no larger) and the percentage they imply: 1 − with / without."""
        row = vector(value, 3)
        if row is None or not positive_integers(row[:2]) or row[1] > row[0]:
            return False
        return abs(row[2] - 100 * (1 - row[1] / row[0])) <= half_unit(self.decimals)

    def prompt(self, inputs: Inputs) -> str:
        n = inputs["n_steps"]
        return (
            f"GPT 逐个生成 {n} 个 token：第 $t$ 步把前面全部 $t$ 个 token 重新输入一遍。只数 K/V 投影："
            "不用 KV cache 时一共要计算多少个位置的 K/V？用了 KV cache 呢？节省了百分之多少？" + self.TYPING
        )


class RNNGradientDecay(CountTemplate):
    name = "rnn_gradient_decay"
    version = 1
    title_zh = "RNN 梯度衰减"
    title_en = "RNN gradient decay"
    source = "001"
    params = specs(
        ParamSpec("factor", None, 0.5, 0.99, kind="float"),
        ParamSpec("n_steps", None, 1, 1000),
    )
    decimals = None
    sig = 3
    rtol = 0.05  # accepts the seed's own roundings, 0.9^10 ≈ 0.35 and 0.9^50 ≈ 0.005
    LABEL_ZH = LABEL_EN = "{}"
    TYPING = "（写成小数，保留三位有效数字）"  # before the question mark

    def draw(self, rng: np.random.Generator, p: Params) -> Inputs:
        factor = self.pick(rng, p, "factor", options=[k / 100 for k in range(50, 100)])
        longest = max(2, min(200, int(math.log(1e-4) / math.log(factor))))  # keep factor^n >= 1e-4
        return {"factor": factor, "n_steps": self.pick(rng, p, "n_steps", options=range(2, longest + 1))}

    def solve(self, inputs: Inputs) -> Solution:
        f, n = inputs["factor"], inputs["n_steps"]
        left = f**n  # one multiplication by f per step back
        steps = [step("连乘", rf"g_{{{n}}} = {f}^{{{n}}}", left)]
        linear = 1 - n * (1 - f)
        wrong = [
            ("exponent_off_by_one", f ** (n - 1)),
            ("gradient_linear_decay", linear if linear > 0 else None),
            ("gradient_lost_fraction", 1 - left),
        ]
        return Solution(left, wrong, steps)

    def sane(self, inputs: Inputs, value: Any) -> bool:
        """What is left of a gradient multiplied by a factor in (0, 1): a fraction strictly between 0 and 1."""
        x = scalar(value)
        return x is not None and 0 < x < 1

    def prompt(self, inputs: Inputs) -> str:
        f, n = inputs["factor"], inputs["n_steps"]
        return (
            f"RNN 反向传播时，梯度每沿时间往回传一步都要乘以系数 ${f}$。传了 ${n}$ 步之后，"
            f"梯度还剩原来的多少{self.TYPING}？"
        )


class BertGptPositions(CountTemplate):
    name = "bert_gpt_positions"
    version = 1
    title_zh = "BERT 与 GPT 的监督位置数"
    title_en = "Supervised positions: BERT vs GPT"
    source = "001"
    params = specs(
        ParamSpec("n_tokens", None, 2, 100000),
        ParamSpec("mask_rate", 0.15, 0.01, 0.5, kind="float"),
    )
    decimals = 0
    atol = 0.5  # N × rate need not be an integer when the author fixes N; either rounding passes
    LABEL_ZH = "BERT {} 个，GPT {} 个"
    LABEL_EN = "BERT {}, GPT {}"
    TYPING = "写两个数（BERT, GPT），用逗号隔开。"

    def draw(self, rng: np.random.Generator, p: Params) -> Inputs:
        rate = p["mask_rate"]
        unit = Fraction(rate).limit_denominator(1000).denominator  # N a multiple: N × rate whole (40 × 0.15 = 6)
        n = self.pick(rng, p, "n_tokens", options=range(unit, max(unit, 500 // unit * unit) + 1, unit))
        return {"n_tokens": n, "mask_rate": rate}

    def solve(self, inputs: Inputs) -> Solution:
        n, r = inputs["n_tokens"], inputs["mask_rate"]
        steps = [
            step("BERT", rf"N \times {r} = {n} \times {r}", n * r),
            step("GPT", rf"N - 1 = {n} - 1", n - 1),
        ]
        wrong = [
            ("bert_all_positions", [n, n - 1]),
            ("bert_unmasked_positions", [n * (1 - r), n - 1]),
            ("gpt_all_positions", [n * r, n]),
        ]
        return Solution([n * r, n - 1], wrong, steps)

    def sane(self, inputs: Inputs, value: Any) -> bool:
        """Two numbers of positions: positive, at most the N tokens of the sentence."""
        counts = vector(value, 2)
        return counts is not None and all(0 < x <= inputs["n_tokens"] for x in counts)

    def prompt(self, inputs: Inputs) -> str:
        n, r = inputs["n_tokens"], inputs["mask_rate"]
        return (
            f"一个 $N = {n}$ 个 token 的句子。BERT 随机遮住 ${r * 100:g}\\%$ 的 token 并预测它们；"
            "GPT 在每个位置预测下一个 token。一次训练各有多少个位置提供监督信号？" + self.TYPING
        )


# The sizes of one attention layer's score tensor (B, n_head, T, T) and its dtype, as the memory questions ask them
LAYER_SIZES = (
    ParamSpec("B", None, 1, 1024),
    ParamSpec("n_head", None, 1, 256),
    ParamSpec("T", None, 1, 1048576),
    ParamSpec("dtype", None, kind="choice", choices=tuple(BYTES)),
)


def element_step(dtype: str) -> Step:
    """The first step of the memory questions: the bytes of one element of ``dtype``."""
    nbytes = BYTES[dtype]
    return step("每个元素", rf"\text{{{dtype}}}: {nbytes}\ \text{{字节}}", nbytes)


class AttentionMatrixMemory(CountTemplate):
    name = "attention_matrix_memory"
    version = 1
    title_zh = "注意力矩阵的显存：朴素 vs 分块"
    title_en = "Attention matrix memory: naive vs blockwise"
    source = "004"
    params = specs(*LAYER_SIZES, ParamSpec("block_size", None, 1, 65536))
    decimals = 2
    atol = 0.01
    rtol = 0.01
    LABEL_ZH = "整张 {} MiB，每块 {} MiB"
    LABEL_EN = "full {} MiB, per block {} MiB"
    TILE: ClassVar[str] = "block_size"  # the param naming the keys per tile (version 2: tile_size)

    def check_params(self, p: Params) -> None:
        tile = self.TILE
        if p["T"] is not None and p[tile] is not None and p[tile] > p["T"]:
            raise ValueError(f"param {tile!r} ({p[tile]}) must be at most param 'T' ({p['T']})")

    def draw(self, rng: np.random.Generator, p: Params) -> Inputs:
        T = self.pick(rng, p, "T", options=(512, 1024, 2048, 4096, 8192))
        return {
            "B": self.pick(rng, p, "B", options=range(1, 17)),
            "n_head": self.pick(rng, p, "n_head", options=(8, 12, 16, 32)),
            "T": T,
            "dtype": self.pick(rng, p, "dtype"),
            self.TILE: self.pick(rng, p, self.TILE, options=[b for b in (32, 64, 128, 256) if b <= T] or [T]),
        }

    def solve(self, inputs: Inputs) -> Solution:
        B, nh, T, blk = inputs["B"], inputs["n_head"], inputs["T"], inputs[self.TILE]
        nbytes = BYTES[inputs["dtype"]]
        full = B * nh * T * T * nbytes  # bytes of att (B, nh, T, T)
        block = B * nh * T * blk * nbytes  # bytes of one score block (B, nh, T, block_size)
        return Solution(
            [full / MIB, block / MIB],
            self.wrong(B, nh, full, block),
            self.steps(B, nh, T, blk, inputs["dtype"], full, block),
        )

    def steps(self, B: int, nh: int, T: int, blk: int, dtype: str, full: int, block: int) -> list[Step]:
        nbytes = BYTES[dtype]
        return [
            element_step(dtype),
            step(
                "整张矩阵",
                rf"B \cdot n_{{head}} \cdot T^2 \cdot {nbytes} = "
                rf"{B} \cdot {nh} \cdot {T}^2 \cdot {nbytes}",
                full,
            ),
            step("分数块", rf"B \cdot n_{{head}} \cdot T \cdot {blk} \cdot {nbytes}", block),
            step("换算 MiB", r"\div 2^{20}", np.array([full, block]) / MIB),
        ]

    def wrong(self, B: int, nh: int, full: int, block: int) -> list[Distractor]:
        return [
            ("dtype_bits_as_bytes", [8 * full / MIB, 8 * block / MIB]),
            ("memory_missing_heads", [full / nh / MIB, block / nh / MIB]),
            ("blockwise_materialises_full", [full / MIB, full / MIB]),
        ]

    def sane(self, inputs: Inputs, value: Any) -> bool:
        """Two sizes, positive, and consistent: one tile is the full matrix times tile / T."""
        sizes = vector(value, 2)
        if sizes is None or not all(x > 0 for x in sizes):
            return False
        ratio: float = inputs["T"] / inputs[self.TILE]  # the full matrix holds T / tile tiles
        return abs(sizes[0] - sizes[1] * ratio) <= half_unit(self.decimals) * (1 + ratio)

    def naive_question(self, inputs: Inputs) -> str:
        """The layer and the question about the whole matrix: how every version's prompt begins."""
        B, nh, T, dtype = (inputs[k] for k in ("B", "n_head", "T", "dtype"))
        return (
            f"一层注意力：batch $B = {B}$，`n_head` $= {nh}$，序列长度 $T = {T}$，dtype 为 `{dtype}`。"
            "朴素实现要存下整张 $(B, n_{head}, T, T)$ 注意力矩阵，占多少 MiB？"
        )

    def prompt(self, inputs: Inputs) -> str:
        return (
            self.naive_question(inputs) + f"分块（FlashAttention 式，`block_size` $= {inputs['block_size']}$）"
            "实现同一时刻只存一个 $(B, n_{head}, T, \\text{block\\_size})$ 的分数块，又占多少 MiB？"
            "写两个数，保留两位小数（1 MiB = $2^{20}$ 字节）。"
        )


# --- version 2 ---------------------------------------------------------------------------------


class CountV2(CountTemplate):
    """Version 2 of the templates above: options that pass ``sane`` only, how to type the answer apart."""

    version = 2
    sane_choices = True
    TYPING = ""


class NanoGPTParamCountV2(CountV2, NanoGPTParamCount):
    ANSWER_FORMAT = "按 c_attn、c_proj 的顺序写出 2 个整数，用逗号隔开（不要写千位分隔符）。"


class KVCacheSavingsV2(CountV2, KVCacheSavings):
    """Every option is consistent (its percentage matches its counts): "percent remaining" was the
    one option whose percentage did not, so it is replaced by counting K and V separately."""

    ANSWER_FORMAT = "按不缓存、缓存、节省百分比的顺序写出 3 个数，用逗号隔开，百分比取整数。"

    def wrong(self, n: int, without: int) -> list[Distractor]:
        return [
            ("kv_count_attention_scores", self.row(n * (n + 1) * (2 * n + 1) // 6, without)),
            ("kv_count_n_squared", self.row(n * n, n)),
            ("kv_counted_twice", self.row(2 * without, 2 * n)),
        ]


class RNNGradientDecayV2(CountV2, RNNGradientDecay):
    ANSWER_FORMAT = "写一个小数，保留三位有效数字。"


class BertGptPositionsV2(CountV2, BertGptPositions):
    ANSWER_FORMAT = "按 BERT、GPT 的顺序写出 2 个数，用逗号隔开。"


class AttentionMatrixMemoryV2(CountV2, AttentionMatrixMemory):
    """``tile_size`` replaces ``block_size``: in nanoGPT ``block_size`` is the longest context, so the
    number of keys FlashAttention handles at a time gets its own name."""

    TILE = "tile_size"
    # how the blockwise implementation takes the keys, between the two questions (str.format with tile)
    TILING = "分块（FlashAttention 式）实现按 tile 处理 key，每个 tile 含 $\\text{{tile\\_size}} = {tile}$ 个 key，"
    params = specs(*LAYER_SIZES, ParamSpec("tile_size", None, 1, 65536))
    LABEL_ZH = "整张 {} MiB，每个 tile {} MiB"
    LABEL_EN = "full {} MiB, per tile {} MiB"
    ANSWER_FORMAT = "按整张矩阵、一个 tile 的顺序写出 2 个数，单位 MiB，保留两位小数。"

    def steps(self, B: int, nh: int, T: int, tile: int, dtype: str, full: int, part: int) -> list[Step]:
        nbytes = BYTES[dtype]
        return [
            element_step(dtype),
            step(
                "整张矩阵",
                rf"(B, n_{{head}}, T, T) = ({B}, {nh}, {T}, {T}):\ "
                rf"{B} \cdot {nh} \cdot {T}^2 \cdot {nbytes}\ \text{{字节}}",
                full,
            ),
            step(
                "一个 tile 的分数块",
                rf"(B, n_{{head}}, T, \text{{tile\_size}}) = ({B}, {nh}, {T}, {tile}):\ "
                rf"{B} \cdot {nh} \cdot {T} \cdot {tile} \cdot {nbytes}\ \text{{字节}}",
                part,
            ),
            step("换算 MiB", r"\div 2^{20}", np.array([full, part]) / MIB),
        ]

    def wrong(self, B: int, nh: int, full: int, part: int) -> list[Distractor]:
        return [
            ("dtype_bits_as_bytes", [8 * full / MIB, 8 * part / MIB]),
            ("memory_missing_heads", [full / nh / MIB, part / nh / MIB]),
            ("memory_missing_batch", [full / B / MIB, part / B / MIB]),
            ("mib_as_mb", [full / 1e6, part / 1e6]),
        ]

    def prompt(self, inputs: Inputs) -> str:
        return (
            self.naive_question(inputs)
            + self.TILING.format(tile=inputs["tile_size"])
            + "同一时刻只存一个 $(B, n_{head}, T, \\text{tile\\_size})$ 的分数块，又占多少 MiB？"
            "（1 MiB = $2^{20}$ 字节）"
        )


# --- KV-cache memory -----------------------------------------------------------------------------

KV_HEADS = (8, 12, 16, 32, 40, 64)
ATTENTION_KINDS = {
    "mha": "多头注意力（MHA，每个 query 头有自己的 K/V）",
    "gqa": "分组查询注意力（GQA，几个 query 头共用一组 K/V）",
    "mqa": "多查询注意力（MQA，所有 query 头共用一组 K/V）",
}


class KVCacheMemory(CountTemplate):
    """How much memory a KV cache takes: 2 (K and V) × n_layer × n_kv_head × head_size × T × B × bytes.

    The unit is MiB, or GiB from 1 GiB on, decided per variant and said in the prompt. With fewer
    K/V heads than query heads (GQA, MQA) the question also asks how many times larger the cache
    of full multi-head attention would be: n_head / n_kv_head.
    """

    name = "kv_cache_memory"
    version = 1
    title_zh = "KV cache 占多少显存"
    title_en = "KV-cache memory"
    source = "001"
    params = specs(
        ParamSpec("n_layer", None, 1, 256),
        ParamSpec("n_head", None, 1, 256),
        ParamSpec("n_kv_head", None, 1, 256),
        ParamSpec("head_size", None, 1, 1024),
        ParamSpec("T", None, 1, 1048576),
        ParamSpec("B", None, 1, 1024),
        ParamSpec("dtype", None, kind="choice", choices=("float16", "bfloat16", "float32")),
    )
    decimals = 2
    atol = 0.01
    rtol = 0.01
    sane_choices = True

    def check_params(self, p: Params) -> None:
        n_head, n_kv = p["n_head"], p["n_kv_head"]
        if n_head is not None and n_kv is not None and n_head % n_kv:
            raise ValueError(f"param 'n_kv_head' ({n_kv}) must divide param 'n_head' ({n_head})")

    def draw(self, rng: np.random.Generator, p: Params) -> Inputs:
        n_kv = p["n_kv_head"]
        heads = KV_HEADS if n_kv is None else [h for h in KV_HEADS if h % n_kv == 0] or [n_kv]
        n_head = self.pick(rng, p, "n_head", options=heads)
        if n_kv is None:
            groups = [g for g in range(2, n_head) if n_head % g == 0]  # GQA: a proper divisor above 1
            kind = ("mha", "gqa", "mqa")[int(rng.integers(3))]
            n_kv = {"mha": n_head, "mqa": 1}.get(kind) or (groups[int(rng.integers(len(groups)))] if groups else 1)
        return {
            "n_layer": self.pick(rng, p, "n_layer", options=(12, 24, 32, 40, 48, 80)),
            "n_head": n_head,
            "n_kv_head": n_kv,
            "head_size": self.pick(rng, p, "head_size", options=(64, 128)),
            "T": self.pick(rng, p, "T", options=(1024, 2048, 4096, 8192, 16384, 32768)),
            "B": self.pick(rng, p, "B", options=(1, 2, 4, 8, 16)),
            "dtype": self.pick(rng, p, "dtype"),
        }

    @staticmethod
    def unit(nbytes: int) -> tuple[str, int]:
        return ("GiB", GIB) if nbytes >= GIB else ("MiB", MIB)

    def cache_unit(self, inputs: Inputs) -> tuple[str, int]:
        """The variant's unit and its bytes, from the cache's bytes (n_layer, 2, B, n_kv_head, T, head_size)."""
        L, nkv, hs, T, B = (inputs[k] for k in ("n_layer", "n_kv_head", "head_size", "T", "B"))
        return self.unit(2 * L * nkv * hs * T * B * BYTES[inputs["dtype"]])

    @staticmethod
    def kind(inputs: Inputs) -> str:
        n_head, n_kv = inputs["n_head"], inputs["n_kv_head"]
        return "mha" if n_kv == n_head else "mqa" if n_kv == 1 else "gqa"

    def solve(self, inputs: Inputs) -> Solution:
        L, nh, nkv, hs, T, B = (inputs[k] for k in ("n_layer", "n_head", "n_kv_head", "head_size", "T", "B"))
        nbytes = BYTES[inputs["dtype"]]
        per_tensor = B * nkv * T * hs  # elements of one layer's K (or V): (B, n_kv_head, T, hs)
        total = 2 * L * per_tensor * nbytes  # bytes of (n_layer, 2, B, n_kv_head, T, hs)
        unit, size = self.unit(total)
        ratio = nh // nkv  # query heads per K/V head
        steps = [
            element_step(inputs["dtype"]),
            step(
                "一层的 K（V 同形）",
                rf"(B, n_{{kv\_head}}, T, \text{{head\_size}}) = ({B}, {nkv}, {T}, {hs}):\ "
                rf"{B} \cdot {nkv} \cdot {T} \cdot {hs}",
                per_tensor,
            ),
            step(
                "K 和 V、所有层",
                rf"(n_{{layer}}, 2, B, n_{{kv\_head}}, T, \text{{head\_size}}):\ "
                rf"2 \cdot {L} \cdot {per_tensor}",
                2 * L * per_tensor,
            ),
            step("字节数", rf"2 \cdot {L} \cdot {per_tensor} \cdot {nbytes}", total),
            step(f"换算 {unit}", rf"\div 2^{{{size.bit_length() - 1}}}", total / size),
        ]
        answer = total / size
        if ratio > 1:
            steps.append(
                step("对比多头（每个 query 头一组 K/V）", rf"n_{{head}} / n_{{kv\_head}} = {nh} / {nkv}", ratio)
            )
            answer = [answer, ratio]

        def option(bytes_: float) -> float | list[float]:  # a wrong total, in the same unit and form
            return [bytes_ / size, ratio] if ratio > 1 else bytes_ / size

        wrong = [
            ("kv_forgot_two", option(total / 2)),
            ("kv_ignores_gqa", option(total * ratio) if ratio > 1 else None),
            ("dtype_bits_as_bytes", option(total * 8)),
            ("kv_forgot_layers", option(total / L)),
        ]
        return Solution(answer, wrong, steps)

    def labels(self, inputs: Inputs, value: Any) -> tuple[str, str]:
        unit = self.cache_unit(inputs)[0]
        if not isinstance(value, list):
            text = f"{fmt(value, self.decimals)} {unit}"
            return text, text
        size, ratio = fmt(value[0], self.decimals), fmt(value[1], 0)  # the ratio is a whole number
        return f"{size} {unit}；多头时是它的 {ratio} 倍", f"{size} {unit}; {ratio}× as much with full multi-head"

    def sane(self, inputs: Inputs, value: Any) -> bool:
        """A positive size and, with shared K/V heads, a whole ratio above 1 that divides n_head."""
        if inputs["n_kv_head"] == inputs["n_head"]:
            size = scalar(value)
            return size is not None and size > 0
        pair = vector(value, 2)
        return (
            pair is not None
            and pair[0] > 0
            and positive_integers([pair[1]])
            and pair[1] > 1
            and inputs["n_head"] % pair[1] == 0
        )

    def prompt(self, inputs: Inputs) -> str:
        L, nh, nkv, hs, T, B = (inputs[k] for k in ("n_layer", "n_head", "n_kv_head", "head_size", "T", "B"))
        kind = self.kind(inputs)
        unit = self.cache_unit(inputs)[0]
        text = (
            f"一个 {L} 层的 decoder 用{ATTENTION_KINDS[kind]}：每层 `n_head` $= {nh}$ 个 query 头、"
            f"`n_kv_head` $= {nkv}$ 个 K/V 头，`head_size` $= {hs}$。batch $B = {B}$，缓存 $T = {T}$ 个 token，"
            f"dtype 为 `{inputs['dtype']}`。KV cache 一共占多少 {unit}"
            f"（1 {unit} = $2^{{{20 if unit == 'MiB' else 30}}}$ 字节）？"
        )
        if kind != "mha":
            text += "如果改用多头注意力（每个 query 头都有自己的 K/V），缓存是现在的多少倍？"
        return text

    def answer_format(self, inputs: Inputs) -> str:
        unit = self.cache_unit(inputs)[0]
        if inputs["n_kv_head"] == inputs["n_head"]:
            return f"写一个数，单位 {unit}，保留两位小数。"
        return f"按缓存大小（{unit}，保留两位小数）、倍数的顺序写出 2 个数，用逗号隔开。"


# --- issue 25: options balanced on their parts, a pool of mistakes, the classic always offered -------


class PairParts:
    """Mixed into a template whose answer is a list of separate quantities: each one is a part."""

    def parts(self, inputs: Inputs, value: Any) -> tuple[Any, ...] | None:
        return tuple(value) if isinstance(value, list) else None


class CountV3(CountTemplate):
    """Version 3 of the first four templates above: the rules of issue 25, two distractors per variant."""

    version = 3
    cue_rules = True
    max_distractors = 2


class NanoGPTParamCountV3(CountV3, PairParts, NanoGPTParamCountV2):
    """Two parts, c_attn and c_proj. Every distractor is a mistake that changes both counts (the biases,
    the counts times n_head, one head's share): the one-part c_attn_single_projection would leave
    c_proj right in two options of three and the answer the option sharing the most parts."""

    def solve(self, inputs: Inputs) -> Solution:
        solution = super().solve(inputs)
        one_head = [n // inputs["n_head"] for n in solution.answer]  # C divisible by n_head: whole counts
        return solution._replace(distractors=[*solution.distractors, ("one_head_only", one_head)])


class KVCacheSavingsV3(CountV3, PairParts, KVCacheSavingsV2):
    """Three parts (without, with, percent saved). The distractors of a variant either change every part
    (attention scores counted, one step too few) or the same two (n² per step, 1 + … + n not halved),
    so that no vote on the parts finds the answer; K and V counted twice changes the counts but not
    the percentage and has no partner, so it is not offered."""

    def wrong(self, n: int, without: int) -> list[Distractor]:
        return [
            *super().wrong(n, without),
            ("triangular_not_halved", self.row(n * (n + 1), n)),
            ("kv_steps_off_by_one", self.row(n * (n - 1) // 2, n - 1)),
        ]


class RNNGradientDecayV3(CountV3, RNNGradientDecayV2):
    """Two distractors per variant from four mistakes (version 2 offered the same three, the linear decay
    only for short chains): the exponent one short or one long, the part lost, the linear decay."""

    def solve(self, inputs: Inputs) -> Solution:
        solution = super().solve(inputs)
        f, n = inputs["factor"], inputs["n_steps"]
        return solution._replace(distractors=[*solution.distractors, ("exponent_counts_the_start", f ** (n + 1))])


class BertGptPositionsV3(CountV3, PairParts, BertGptPositionsV2):
    """The prompt says what BERT predicts (15 % of the tokens selected; 80 % of those become [MASK], 10 %
    a random token, 10 % stay). Two parts: a variant's distractors are all mistakes about BERT (every
    position, the unmasked ones, only the [MASK] ones) or all about GPT (N positions, the last one only),
    so the other part reads the same in every option and no vote on the parts finds the answer."""

    def solve(self, inputs: Inputs) -> Solution:
        solution = super().solve(inputs)
        n, r = inputs["n_tokens"], inputs["mask_rate"]
        wrong = [
            *solution.distractors,
            ("bert_mask_token_only", [0.8 * n * r, n - 1]),
            ("gpt_last_position_only", [n * r, 1]),
        ]
        return solution._replace(distractors=wrong)

    def prompt(self, inputs: Inputs) -> str:
        n, r = inputs["n_tokens"], inputs["mask_rate"]
        return (
            f"一个 $N = {n}$ 个 token 的句子。BERT 随机选出 ${r * 100:g}\\%$ 的 token 作为预测目标"
            "（其中 80% 换成 [MASK]、10% 换成随机 token、10% 保持不变），在这些位置上预测原来的 token；"
            "GPT 在每个位置预测下一个 token。一次训练各有多少个位置提供监督信号？"
        )


class AttentionMatrixMemoryV3(PairParts, AttentionMatrixMemoryV2):
    """Every mistake scales both sizes by one factor (so no part is shared); one more: counting elements,
    not bytes. Version 2 called the key-chunked slab "FlashAttention 式"; FlashAttention tiles the queries
    too and keeps a B_r x B_c block on chip (Dao et al. 2022, Algorithm 1), so TILING names what is computed."""

    version = 3
    cue_rules = True
    TILING = "只把 key 分块的实现（query 不分块）每次处理 $\\text{{tile\\_size}} = {tile}$ 个 key，"

    def solve(self, inputs: Inputs) -> Solution:
        solution = super().solve(inputs)
        full, tile = solution.answer  # MiB
        nbytes = BYTES[inputs["dtype"]]
        return solution._replace(
            distractors=[*solution.distractors, ("memory_counts_elements", [full / nbytes, tile / nbytes])]
        )


class KVCacheMemoryV2(PairParts, KVCacheMemory):
    """The mistake the GQA/MQA question is about, n_head instead of n_kv_head, is offered in every
    variant with shared K/V heads (version 1 left it out in one in four); the other two distractors
    are drawn from six. With shared heads the answer has two parts, the size and the ratio: every
    mistake changes the size only, so the ratio reads the same in every option."""

    version = 2
    cue_rules = True
    classic = "kv_ignores_gqa"

    def solve(self, inputs: Inputs) -> Solution:
        solution = super().solve(inputs)
        shared = isinstance(solution.answer, list)
        size = solution.answer[0] if shared else solution.answer  # in the variant's unit
        ratio = solution.answer[1] if shared else 1
        nbytes = BYTES[inputs["dtype"]]
        unit_bytes = self.cache_unit(inputs)[1]  # 2^20 (MiB) or 2^30 (GiB)

        def option(wrong_size: float) -> float | list[float]:  # a wrong size, in the same unit and form
            return [wrong_size, ratio] if shared else wrong_size

        wrong = [
            *solution.distractors,
            ("memory_missing_batch", option(size / inputs["B"]) if inputs["B"] > 1 else None),
            ("mib_as_mb", option(size * unit_bytes / (10**6 if unit_bytes == MIB else 10**9))),
            ("memory_counts_elements", option(size / nbytes)),
        ]
        return solution._replace(distractors=wrong)
