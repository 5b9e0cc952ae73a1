"""Lesson 5 (issue 29): the multi-head attention module and its masks, as seeded counts.

- ``mask_rows``: a causally masked batch padded on the left or the right to T: how many query rows see
  no key at all (``ask="hidden"``), or, with −∞ filled in two layers, how many rows of layer 2's output
  hold NaN (``ask="nan"``: a fully blocked row is 0/0, and the next layer's 0 x NaN carries it into every
  row of that sample, never into another sample);
- ``mha_param_count``: ``nn.MultiheadAttention`` for cross-attention with ``kdim = vdim`` the encoder's
  width: three separate input projections (no fused ``in_proj_weight``), one packed bias, ``out_proj``;
- ``cross_mask_count``: how many cells of cross-attention's (B, nh, T_q, T_k) scores the encoder's key
  padding mask blocks once broadcast as (B, 1, 1, T_k).

Every number comes from ``attention_engine.masks``; the distractors are the named mistakes of
``misconceptions._LESSON5_MASKS`` (and two parameter ones of lesson 3), drawn per seed. Each answer is a
count, and all a learner can check without computing it is that it is whole, not negative and no larger
than what it counts (the rows of the batch, the cells of the scores), so that is all ``sane`` asks.
Inputs are drawn in one call to the generator and the counts are plain python: a variant is a handful
of integers.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import masks
from .base import Inputs, Params, ParamSpec, Solution, specs, step
from .counting import CountTemplate, ParamTotal
from .sanity import scalar

SOURCE = "issue-29"  # lesson 5 is written from issue 29 and the sources it cites, not from a seed document


def _count_within(value: Any, most: int) -> bool:
    """A count of at most ``most`` things: one whole number in [0, most]."""
    x = scalar(value)
    return x is not None and x.is_integer() and 0 <= x <= most


def _lengths(u: list[float], B: int, T: int, low: int = 1) -> list[int]:
    """B lengths in [low, T] from uniform numbers, the first sample shorter than T (the batch is padded)."""
    out = [low + int(x * (T - low + 1)) for x in u[:B]]
    if min(out) == T:
        out[0] = low + int(u[B] * (T - low))  # in [low, T − 1]
    return out


class _Count(CountTemplate):
    """A count shown as a plain integer (formatted in python: numpy's per-call cost is most of a label's)."""

    decimals = 0
    cue_rules = True
    min_distractors = 3
    LABEL_ZH = LABEL_EN = "{}"

    def label(self, value: Any) -> tuple[str, str]:
        text = str(int(value))
        return text, text


class MaskRows(_Count):
    """Rows with no visible key under causal | padding, and the NaN they leave in layer 2."""

    name = "mask_rows"
    version = 1
    title_zh = "整行被挡住的行与 NaN 的去向"
    title_en = "Fully masked rows and where their NaN goes"
    source = SOURCE
    params = specs(
        ParamSpec("side", None, kind="choice", choices=masks.SIDES),
        ParamSpec("ask", None, kind="choice", choices=("hidden", "nan")),
    )

    def draw(self, rng: np.random.Generator, p: Params) -> Inputs:
        u = rng.random(12).tolist()  # one call to the generator: a call costs more than the numbers
        B = 2 + int(u[0] * 3)  # 2..4
        T = 4 + int(u[1] * 5)  # 4..8
        return {
            "B": B,
            "T": T,
            "n_head": (2, 4, 8)[int(u[2] * 3)],
            "side": p["side"] or ("left" if u[3] < 0.75 else "right"),
            "ask": p["ask"] or ("hidden", "nan")[int(u[4] * 2)],
            "lengths": _lengths(u[5:], B, T),
        }

    def solve(self, inputs: Inputs) -> Solution:
        B, T, nh, side, lengths = inputs["B"], inputs["T"], inputs["n_head"], inputs["side"], inputs["lengths"]
        pads = [T - n for n in lengths]
        P, S = sum(pads), sum(1 for x in pads if x)  # padding positions, padded samples
        hidden = masks.hidden_row_count(lengths, T, side)
        nan = masks.nan_row_count(lengths, T, side)
        left = side == "left"
        steps = [
            step("每条序列的 padding 个数", rf"T - \text{{长度}} = {T} - {lengths}", pads),
            step(
                "整行被挡住的行",
                r"\text{左侧补齐：padding 行只能看前面的 padding}"
                if left
                else r"\text{右侧补齐：每行都能看到句首的真实 token}",
                hidden,
            ),
        ]
        if inputs["ask"] == "hidden":
            wrong = [
                ("hidden_rows_causal_ignored", 0 if left else None),
                ("hidden_rows_first_real_counted", P + S if left else None),
                ("hidden_rows_per_head", nh * hidden if left else None),
                ("hidden_rows_one_per_sample", S),
                ("hidden_rows_whole_sample", T * S),
                ("right_padding_hides_rows", P if not left else None),
            ]
            return Solution(hidden, wrong, steps)
        steps.append(
            step(
                "第 2 层：这些样本的每一行都乘到了 NaN",
                rf"T \times {S} = {T} \times {S}" if left else r"\text{没有 NaN}",
                nan,
            )
        )
        wrong = [
            ("nan_stays_in_hidden_rows", hidden if left else None),
            ("nan_spreads_across_batch", B * T),
            ("nan_rows_zeroed_like_sdpa", 0 if left else None),
            ("nan_spreads_one_row_per_layer", hidden + S if left else None),
            ("nan_padding_rows_spared", nan - hidden if left else None),
            ("hidden_rows_per_head", nh * nan if left else None),
            ("right_padding_hides_rows", T * S if not left else None),
            ("padding_rows_are_nan", P if not left else None),
        ]
        return Solution(nan, wrong, steps)

    def sane(self, inputs: Inputs, value: Any) -> bool:
        """A number of rows of the batch: whole, in [0, B·T]."""
        return _count_within(value, inputs["B"] * inputs["T"])

    def prompt(self, inputs: Inputs) -> str:
        B, T, nh, lengths = inputs["B"], inputs["T"], inputs["n_head"], inputs["lengths"]
        side = "左侧（句首）" if inputs["side"] == "left" else "右侧（句尾）"
        setup = (
            f"一个解码器的自注意力，`n_head` $= {nh}$。一批 $B = {B}$ 条序列在{side}补 padding 到 $T = {T}$，"
            f"真实长度依次是 {'、'.join(map(str, lengths))}。因果掩码和 padding 掩码（挡住 padding 作为 key 的列）"
            r"取逻辑或，挡住的格子填 $-\infty$，softmax 是手写的 `exp(s - max) / sum`。"
        )
        if inputs["ask"] == "hidden":
            return setup + (
                "整批一共有多少个 query 行一个可见的 key 都没有？"
                "（每个样本的每个位置算一行；各头的掩码相同，只算一次。）"
            )
        return setup + (
            "连着两层这样的注意力（每层加残差，都用同样的掩码），第 2 层的输出里，"
            "整批一共有多少个位置含 NaN？（每个样本的每个位置算一个。）"
        )

    def answer_format(self, inputs: Inputs) -> str:
        return "写一个整数（行数）。" if inputs["ask"] == "hidden" else "写一个整数（位置数）。"


class MHAParamCount(ParamTotal, _Count):
    """sum(p.numel()) of nn.MultiheadAttention(E, h, kdim=D, vdim=D, bias=…): cross-attention to an encoder
    of width D ≠ E, where PyTorch keeps q_proj_weight (E, E), k_proj_weight (E, D), v_proj_weight (E, D)."""

    name = "mha_param_count"
    version = 1
    title_zh = "交叉注意力模块的参数量"
    title_en = "Parameters of a cross-attention module"
    source = SOURCE
    params = specs(ParamSpec("bias", None, kind="bool"))
    WIDTHS = (256, 384, 512, 768, 1024)

    def draw(self, rng: np.random.Generator, p: Params) -> Inputs:
        u = rng.random(4).tolist()
        E = self.WIDTHS[int(u[0] * len(self.WIDTHS))]
        others = [w for w in (*self.WIDTHS, 640) if w != E]
        heads = [h for h in (4, 8, 12, 16) if E % h == 0]
        return {
            "E": E,
            "n_head": heads[int(u[1] * len(heads))],
            "D": others[int(u[2] * len(others))],
            "bias": p["bias"] if p["bias"] is not None else u[3] < 0.5,
        }

    def solve(self, inputs: Inputs) -> Solution:
        E, nh, D, bias = inputs["E"], inputs["n_head"], inputs["D"], inputs["bias"]
        b = 1 if bias else 0
        total = masks.mha_param_count(E, D, D, bias)
        steps = [
            step("q_proj_weight", rf"E \times E = {E} \times {E}", E * E),
            step("k_proj_weight、v_proj_weight", rf"2 \times E \times D = 2 \times {E} \times {D}", 2 * E * D),
            step("in_proj_bias", rf"3E = {3 * E}" if bias else r"\text{bias=False}", 3 * E * b),
            step("out_proj", rf"E \times E + E = {E * E} + {E}" if bias else rf"E \times E = {E * E}", E * E + E * b),
            step("合计", rf"2E^2 + 2ED{' + 4E' if bias else ''}", total),
        ]
        wrong = [
            ("mha_fused_in_proj_assumed", masks.mha_param_count(E, E, E, bias)),
            ("mha_kv_projected_to_own_width", 2 * E * E + 2 * D * D + 4 * E * b),
            ("mha_out_proj_forgotten", total - E * E - E * b),
            ("mha_kv_bias_sized_by_kdim", total - 2 * E + 2 * D if bias else None),
            ("bias_miscount", masks.mha_param_count(E, D, D, not bias)),
            ("params_scale_with_heads", nh * total),
        ]
        return Solution(total, wrong, steps)

    def prompt(self, inputs: Inputs) -> str:
        E, nh, D, bias = inputs["E"], inputs["n_head"], inputs["D"], inputs["bias"]
        return (
            f"解码器的交叉注意力：`mha = nn.MultiheadAttention(embed_dim={E}, num_heads={nh}, kdim={D}, vdim={D}, "
            f"bias={bias}, batch_first=True)`，query 是解码器状态（宽 $E = {E}$），key 和 value 都是编码器的输出"
            f"（宽 $D = {D}$）。`sum(p.numel() for p in mha.parameters())` 是多少？"
        )


class CrossMaskCount(_Count):
    """Blocked cells of cross-attention's scores (B, nh, T_q, T_k) under the encoder's key padding mask."""

    name = "cross_mask_count"
    version = 1
    title_zh = "交叉注意力里被挡住的格子"
    title_en = "Blocked cells in cross-attention"
    source = SOURCE
    params = specs()
    ANSWER_FORMAT = "写一个整数（格子数）。"

    def draw(self, rng: np.random.Generator, p: Params) -> Inputs:
        u = rng.random(14).tolist()
        B = 2 + int(u[0] * 2)  # 2..3
        T_q = 3 + int(u[1] * 5)  # 3..7
        T_k = T_q + 2 + int(u[2] * 5)  # T_q + 2 .. T_q + 6: the source longer than the target, never equal
        return {
            "B": B,
            "n_head": (2, 4, 8)[int(u[3] * 3)],
            "T_q": T_q,
            "T_k": T_k,
            "enc_lengths": _lengths(u[4:], B, T_k),
            "dec_lengths": _lengths(u[9:], B, T_q),
        }

    def solve(self, inputs: Inputs) -> Solution:
        B, nh, T_q, T_k = inputs["B"], inputs["n_head"], inputs["T_q"], inputs["T_k"]
        enc, dec = inputs["enc_lengths"], inputs["dec_lengths"]
        pads = [T_k - n for n in enc]
        P = sum(pads)
        answer = masks.cross_mask_count(enc, T_k, T_q, nh)
        steps = [
            step("编码器每条序列的 padding 列", rf"T_k - \text{{长度}} = {T_k} - {enc}", pads),
            step("掩码的形状", rf"(B, 1, 1, T_k) = ({B}, 1, 1, {T_k})", [B, 1, 1, T_k]),
            step("广播到分数", rf"(B, n_h, T_q, T_k) = ({B}, {nh}, {T_q}, {T_k})", [B, nh, T_q, T_k]),
            step("被挡住的格子", rf"n_h \times T_q \times {P} = {nh} \times {T_q} \times {P}", answer),
        ]
        causal = nh * sum(T_k - min(i + 1, n) for n in enc for i in range(T_q))  # padding | (j > i)
        both = nh * sum(T_q * T_k - m * n for m, n in zip(dec, enc, strict=True))  # padded rows too
        wrong = [
            ("cross_mask_causal_added", causal),
            ("cross_mask_decoder_padding", nh * T_k * sum(T_q - m for m in dec)),
            ("cross_mask_both_paddings", both),
            ("mask_cells_heads_forgotten", T_q * P),
            ("mask_broadcast_rows_forgotten", nh * P),
            ("cross_mask_visible_counted", nh * T_q * sum(enc)),
        ]
        return Solution(answer, wrong, steps)

    def sane(self, inputs: Inputs, value: Any) -> bool:
        """A number of cells of the scores: whole, in [0, B·nh·T_q·T_k]."""
        return _count_within(value, inputs["B"] * inputs["n_head"] * inputs["T_q"] * inputs["T_k"])

    def prompt(self, inputs: Inputs) -> str:
        B, nh, T_q, T_k = inputs["B"], inputs["n_head"], inputs["T_q"], inputs["T_k"]
        enc, dec = inputs["enc_lengths"], inputs["dec_lengths"]
        return (
            f"编码器–解码器模型的交叉注意力，`n_head` $= {nh}$，一批 $B = {B}$ 对句子。源句（编码器一侧）"
            f"在右侧补 padding 到 $T_k = {T_k}$，真实长度依次是 {'、'.join(map(str, enc))}；目标句（解码器一侧）"
            f"补到 $T_q = {T_q}$，真实长度依次是 {'、'.join(map(str, dec))}。按交叉注意力通常的做法加掩码，"
            "打分张量 $QK^\\top/\\sqrt{d_k}$ 里（所有样本、所有头）一共有多少个格子被挡住？"
        )
