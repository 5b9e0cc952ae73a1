"""Lesson 6's cost accounting as seeded questions: a whole GPT's parameters, FLOPs per token, and the
context length where attention's T x T work catches up with the MLP.

Every number comes from ``attention_engine.costs`` (one function per rule), under the convention every
stem states: a matmul (m, k)·(k, n) costs 2·m·n·k FLOPs, only matmuls count, and the T x T work
(QKᵀ and AV) is counted in full, 4·T·d per layer per token forward. The configurations are the four
GPT-2 sizes or random ones. The distractors are the named mistakes of ``misconceptions._LESSON6_COSTS``
(and the parameter ones of lesson 3), drawn per seed; each is computed here from the same displayed
inputs. A learner can check a count or a FLOP figure without computing it only for being positive (and,
for parameters and context lengths, whole), so that is all ``sane`` asks.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Any, ClassVar

import numpy as np

from .. import costs
from ..costs import GPTConfig
from .base import Inputs, Params, ParamSpec, Solution, specs, step
from .counting import CountTemplate, ParamTotal
from .display import fmt
from .sanity import count_ok, scalar

# n_layer, n_head, n_embd (nanoGPT's from_pretrained; vocab 50257, block_size 1024, bias=True for all four)
GPT2_SIZES = {
    "gpt2": (12, 12, 768),
    "gpt2-medium": (24, 16, 1024),
    "gpt2-large": (36, 20, 1280),
    "gpt2-xl": (48, 25, 1600),
}
CONFIGS = (*GPT2_SIZES, "random")
WIDTHS = (256, 384, 512, 640, 768, 1024, 1536, 2048)
CONVENTION = (
    r"约定：矩阵乘 $(m,k)\cdot(k,n)$ 记 $2mnk$ FLOPs（一次乘加记 2），只数矩阵乘；"
    r"注意力的 $T\times T$ 两步（打分 $QK^\top$、对 $V$ 加权求和）按满算，被因果掩码挡住的格子也算。"
)


def draw_config(template: CountTemplate, rng: np.random.Generator, p: Params) -> tuple[dict[str, Any], list[float]]:
    """A GPT-2 size (a third of the variants) or a random nanoGPT-shaped configuration, and two more uniform
    numbers for the caller. All drawn in one call to the generator: a call costs more than the numbers."""
    u = rng.random(9).tolist()

    def one_of(options: Sequence[Any], x: float) -> Any:
        return options[int(x * len(options))]

    name = p["config"]
    if name is None:
        name = "random" if u[0] < 2 / 3 else one_of(tuple(GPT2_SIZES), u[1])
    if name != "random":
        n_layer, n_head, n_embd = GPT2_SIZES[name]
        return {"config": name, "vocab_size": 50257, "block_size": 1024, "n_layer": n_layer, "n_head": n_head,
                "n_embd": n_embd, "bias": True}, u[7:]  # fmt: skip
    n_embd = one_of(WIDTHS, u[1])
    config = {
        "config": name,
        "vocab_size": one_of((8192, 16384, 32000, 32768, 50257, 50304), u[2]),
        "block_size": one_of((256, 512, 1024, 2048, 4096), u[3]),
        "n_layer": one_of(range(2, 49), u[4]),
        "n_head": one_of([h for h in (4, 8, 12, 16) if n_embd % h == 0], u[5]),
        "n_embd": n_embd,
        "bias": u[6] < 0.5,
    }
    return config, u[7:]


def config_of(inputs: Inputs) -> GPTConfig:
    """The configuration the inputs describe (made once per distinct configuration: a few hundred exist)."""
    return _config(
        inputs.get("vocab_size", 50257),
        inputs.get("block_size", 1024),
        inputs["n_layer"],
        inputs["n_head"],
        inputs["n_embd"],
        inputs.get("bias", True),
        inputs.get("mlp_ratio", 4),
    )


@lru_cache(maxsize=4096)
def _config(vocab: int, block: int, n_layer: int, n_head: int, n_embd: int, bias: bool, ratio: int) -> GPTConfig:
    return GPTConfig(vocab, block, n_layer, n_head, n_embd, bias, ratio)


def gpt2_note(inputs: Inputs) -> str:
    return f"（{inputs['config']} 的配置）" if inputs["config"] != "random" else ""


class GPTParamCount(ParamTotal):
    """sum(p.numel()) of a whole nanoGPT: wte, wpe, n_layer blocks (12d² weights, biases, two LayerNorms), ln_f,
    lm_head tied to wte. Not a version of ``nanogpt_param_count``: that template asks for c_attn and c_proj as a
    pair, and lesson 3 uses its newest version without pinning one, so a whole-model question there would change
    what lesson 3 asks; this one reuses the counts of ``attention_engine.costs`` instead of copying them."""

    name = "gpt_param_count"
    version = 1
    title_zh = "整个 GPT 的参数量"
    title_en = "Parameters of a whole GPT"
    source = "004"
    params = specs(ParamSpec("config", None, kind="choice", choices=CONFIGS))
    cue_rules = True

    def draw(self, rng: np.random.Generator, p: Params) -> Inputs:
        return draw_config(self, rng, p)[0]

    def solve(self, inputs: Inputs) -> Solution:
        cfg = config_of(inputs)
        V, bs, L, nh, d, bias = cfg.vocab_size, cfg.block_size, cfg.n_layer, cfg.n_head, cfg.n_embd, cfg.bias
        block = costs.block_params(cfg)
        per_block = sum(block.values())
        total = costs.count_params(cfg)
        ln_f = costs.layernorm_params(d, bias)
        steps = [
            step("wte", rf"V \times d = {V} \times {d}", V * d),
            step("wpe", rf"\text{{block\_size}} \times d = {bs} \times {d}", bs * d),
            step("一个 block 的权重", rf"4d^2 + 8d^2 = 12 \times {d}^2", costs.block_matmul_weights(cfg)),
            step(
                "一个 block 的偏置与 LayerNorm",
                rf"9d + 4d = 13 \times {d}" if bias else rf"\text{{bias=False}}:\ 2d = 2 \times {d}",
                per_block - costs.block_matmul_weights(cfg),
            ),
            step("所有 block", rf"{L} \times {per_block}", L * per_block),
            step("ln_f", rf"{'2d' if bias else 'd'}", ln_f),
            step("lm_head", r"\text{与 wte 共用，不另算}", 0),
            step("合计", rf"{V * d} + {bs * d} + {L * per_block} + {ln_f}", total),
        ]
        attn = block["attn.c_attn"] + block["attn.c_proj"]
        wrong = [
            ("embeddings_forgotten", total - V * d - bs * d),
            ("untied_head_counted", total + V * d),
            ("wpe_subtracted", total - bs * d),
            ("mlp_as_4d2", total - L * costs.linear_params(4 * d, d, bias)),
            ("c_attn_single_projection", total - L * (2 * d * d + (2 * d if bias else 0))),
            ("params_scale_with_heads", total + (nh - 1) * L * attn if nh > 1 else None),
            ("bias_ln_forgotten", V * d + bs * d + costs.non_embedding_params(cfg)),
        ]
        return Solution(total, wrong, steps)

    def prompt(self, inputs: Inputs) -> str:
        return (
            f"一个 nanoGPT 式的 GPT{gpt2_note(inputs)}：词表 $V = {inputs['vocab_size']}$，"
            f"`block_size` $= {inputs['block_size']}$，`n_layer` $= {inputs['n_layer']}$，"
            f"`n_head` $= {inputs['n_head']}$，`n_embd` $= d = {inputs['n_embd']}$，MLP 宽 $4d$，"
            f"线性层和 LayerNorm 的 `bias={inputs['bias']}`，`lm_head` 与 `wte` 共用同一个权重（weight tying）。"
            "按 `sum(p.numel() for p in model.parameters())` 数，模型一共有多少个参数？"
        )


class FlopsPerToken(CountTemplate):
    """Forward or training FLOPs of one token at context T, embeddings and lm_head left out:
    2N + n_layer·4·T·d forward, three times that to train (the backward does two matmuls per matmul)."""

    name = "flops_per_token"
    version = 1
    title_zh = "每个 token 的 FLOPs"
    title_en = "FLOPs per token"
    source = "004"
    params = specs(
        ParamSpec("config", None, kind="choice", choices=CONFIGS),
        ParamSpec("ask", None, kind="choice", choices=("forward", "training")),
    )
    decimals = None
    sig = 3
    rtol = 0.01
    cue_rules = True
    LABEL_ZH = LABEL_EN = "{}"
    UNITS: ClassVar[dict[str, int]] = {"MFLOP": 6, "GFLOP": 9}  # unit -> power of ten

    def draw(self, rng: np.random.Generator, p: Params) -> Inputs:
        cfg, (u_T, u_ask) = draw_config(self, rng, p)
        lengths = (256, 512, 1024) if cfg["config"] != "random" else (512, 1024, 2048, 4096, 8192, 16384, 32768)
        inputs = {
            "config": cfg["config"],
            "n_layer": cfg["n_layer"],
            "n_head": cfg["n_head"],
            "n_embd": cfg["n_embd"],
            "T": lengths[int(u_T * len(lengths))],
            "ask": p["ask"] or ("forward", "training")[int(u_ask * 2)],
        }
        inputs["unit"] = "GFLOP" if self.exact(inputs) >= 10**9 else "MFLOP"  # the answer shows 1 to 999 units
        return inputs

    def unit(self, inputs: Inputs) -> tuple[str, int]:
        """(the variant's unit, its power of ten)."""
        return inputs["unit"], self.UNITS[inputs["unit"]]

    @staticmethod
    def exact(inputs: Inputs) -> int:
        cfg, T = config_of(inputs), inputs["T"]
        if inputs["ask"] == "training":
            return costs.training_flops_per_token(cfg, T)
        return costs.forward_flops_per_token(cfg, T)

    def solve(self, inputs: Inputs) -> Solution:
        cfg, T = config_of(inputs), inputs["T"]
        L, nh, d = cfg.n_layer, cfg.n_head, cfg.n_embd
        times = 3 if inputs["ask"] == "training" else 1
        N = costs.non_embedding_params(cfg)
        attention = L * costs.attention_flops_per_token(T, d)
        unit, power = self.unit(inputs)
        size = 10**power
        total = times * (2 * N + attention)  # = self.exact(inputs)
        steps = [
            step("N（block 的权重）", rf"12 L d^2 = 12 \times {L} \times {d}^2", N),
            step("权重的矩阵乘", rf"2N = 2 \times {N}", 2 * N),
            step("T×T 两步，按满算", rf"L \cdot 4 T d = {L} \times 4 \times {T} \times {d}", attention),
            step("前向", rf"2N + 4LTd = {2 * N} + {attention}", 2 * N + attention),
        ]
        if times == 3:
            steps.append(step("训练 = 前向 + 反向（2 倍）", rf"3 \times {2 * N + attention}", total))
        steps.append(step(f"换算 {unit}", rf"\div 10^{{{power}}}", total / size))
        ask_specific = (
            ("forward_only", (2 * N + attention) / size)
            if times == 3
            else ("forward_counted_as_training", 3 * total / size)
        )
        wrong = [
            ("mac_counted_once", total / 2 / size),
            ("attention_term_forgotten", times * 2 * N / size),
            ("causal_halving", times * (2 * N + attention / 2) / size),
            ("attention_flops_times_heads", times * (2 * N + nh * attention) / size if nh > 1 else None),
            ask_specific,
            ("mlp_as_4d2", times * (2 * N * 8 // 12 + attention) / size),
            ("per_sequence_not_per_token", T * total / size),
        ]
        return Solution(total / size, wrong, steps)

    def labels(self, inputs: Inputs, value: Any) -> tuple[str, str]:
        unit = self.unit(inputs)[0]
        number = f"{value:,.0f}" if abs(value) >= 1000 else fmt(value, None, self.sig)
        text = f"{number} {unit}"
        return text, text

    def sane(self, inputs: Inputs, value: Any) -> bool:
        """A FLOP count: one positive number."""
        x = scalar(value)
        return x is not None and x > 0

    def prompt(self, inputs: Inputs) -> str:
        unit, power = self.unit(inputs)
        what = "训练（前向加反向）" if inputs["ask"] == "training" else "前向"
        return (
            f"{CONVENTION}一个 GPT{gpt2_note(inputs)}：`n_layer` $= {inputs['n_layer']}$，"
            f"`n_head` $= {inputs['n_head']}$，`n_embd` $= d = {inputs['n_embd']}$，MLP 宽 $4d$，"
            f"上下文长度 $T = {inputs['T']}$。不计嵌入和 `lm_head`，每个 token 的{what}一共约多少 {unit}"
            f"（1 {unit} = $10^{{{power}}}$ FLOPs）？"
        )

    def answer_format(self, inputs: Inputs) -> str:
        return f"写一个数，单位 {self.unit(inputs)[0]}，保留三位有效数字。"


class AttentionFlopsCrossover(CountTemplate):
    """The context length T where one layer's T x T FLOPs per token (4·T·d, in full) equal the MLP's
    (2·2·r·d², so T = r·d) or all its weights' (2·(4 + 2r)·d², so T = (2 + r)·d), r the MLP's width ratio."""

    name = "attention_flops_crossover"
    version = 1
    title_zh = "注意力的 T×T 两步何时追上 MLP"
    title_en = "When attention's T x T work catches up"
    source = "004"
    params = specs(ParamSpec("against", None, kind="choice", choices=("mlp", "weights")))
    decimals = 0
    cue_rules = True
    LABEL_ZH = LABEL_EN = "T = {}"
    ANSWER_FORMAT = "写一个整数（token 数）。"

    def draw(self, rng: np.random.Generator, p: Params) -> Inputs:
        u = rng.random(5).tolist()  # one call to the generator: a call costs more than the numbers
        if u[0] < 1 / 3:
            name = tuple(GPT2_SIZES)[int(u[1] * 4)]
            _, n_head, n_embd = GPT2_SIZES[name]
            ratio = 4
        else:
            name = "random"
            widths = (*WIDTHS, 2560, 4096, 5120, 8192)
            n_embd = widths[int(u[1] * len(widths))]
            n_head = n_embd // (64, 128)[int(u[2] * 2)]
            ratio = (2, 3, 4)[int(u[3] * 3)]
        return {
            "config": name,
            "n_layer": 1,
            "n_head": n_head,
            "n_embd": n_embd,
            "mlp_ratio": ratio,
            "against": p["against"] or ("mlp", "weights")[int(u[4] * 2)],
        }

    def solve(self, inputs: Inputs) -> Solution:
        cfg = config_of(inputs)
        d, r, nh, against = cfg.n_embd, cfg.mlp_ratio, cfg.n_head, inputs["against"]
        T = costs.attention_crossover(cfg, against)
        other = T * costs.attention_flops_per_token(1, d)  # the FLOPs T x T must reach
        weights = 2 * r * d * d if against == "mlp" else costs.block_matmul_weights(cfg)
        steps = [
            step(
                "MLP 的权重" if against == "mlp" else "一层的全部权重",
                rf"2 r d^2 = 2 \times {r} \times {d}^2"
                if against == "mlp"
                else rf"(4 + 2r) d^2 = {4 + 2 * r} \times {d}^2",
                weights,
            ),
            step("它们每 token 的 FLOPs", rf"2 \times {weights}", other),
            step("令两者相等", rf"4 T \times {d} = {other}\ \Rightarrow\ T = {other} / {4 * d}", T),
        ]
        single_mlp = r * d * d  # the MLP counted as one matrix
        wrong = [
            ("causal_halving", 2 * T),
            ("mac_counted_once", T / 2),
            (
                "mlp_as_4d2",
                2 * single_mlp / (4 * d) if against == "mlp" else 2 * (4 * d * d + single_mlp) / (4 * d),
            ),
            (
                ("crossover_against_all_weights", costs.attention_crossover(cfg, "weights"))
                if against == "mlp"
                else ("crossover_against_mlp_only", costs.attention_crossover(cfg, "mlp"))
            ),
            ("attention_flops_times_heads", T // nh if nh > 1 and T % nh == 0 else None),
            # comparing 4Td with the parameter count itself; for the MLP it equals mlp_as_4d2's value
            ("params_for_flops", weights / (4 * d) if against == "weights" else None),
        ]
        return Solution(T, wrong, steps)

    def sane(self, inputs: Inputs, value: Any) -> bool:
        """A context length: one positive whole number of tokens."""
        return count_ok(value)

    def prompt(self, inputs: Inputs) -> str:
        r, d = inputs["mlp_ratio"], inputs["n_embd"]
        who = "MLP 的两个矩阵乘" if inputs["against"] == "mlp" else "这一层全部权重的矩阵乘（注意力的四个投影加 MLP）"
        return (
            f"{CONVENTION}一层 Transformer{gpt2_note(inputs)}：`n_embd` $= d = {d}$，`n_head` $= {inputs['n_head']}$，"
            f"MLP 是 $d\\to {r}d\\to d$。上下文长度 $T$ 为多少时，每个 token 在 $T\\times T$ 两步上的前向 FLOPs "
            f"恰好等于它在{who}上的前向 FLOPs？"
        )
