"""Lesson 7 (issue 29): inference serving in numbers, from ``attention_engine.serving``.

- ``kv_cache_memory`` version 3: the cache of MHA, GQA, MQA or MLA (DeepSeek-V2 caches d_c + d_h^R numbers
  per token per layer, no factor 2), one number in MiB or GiB;
- ``decode_bandwidth_bound``: the ceiling B × bandwidth ÷ (weight bytes + the batch's KV-cache bytes) on
  decode's tokens per second;
- ``speculative_expected_tokens``: (1 − α^(γ+1)) / (1 − α) tokens per target call (Leviathan et al., 2023),
  summed as 1 + α + … + α^γ so that α = 1 gives γ + 1 and α = 0 gives 1;
- ``paged_blocks``: PagedAttention's blocks in use, or the empty slots of the last one (Kwon et al., 2023).

Each variant is drawn with one call to the generator and computed in plain Python on its handful of numbers
(a numpy call costs more than the arithmetic). The distractors are the named mistakes of
``misconceptions._LESSON7_SERVING`` and of the KV-cache questions before, drawn per seed; what a learner can
check by eye is only that a size or a rate is positive, a count whole and not negative, so that is all
``sane`` asks.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from .. import serving
from .base import Inputs, Params, ParamSpec, Solution, Template, specs, step
from .counting import ATTENTION_KINDS, GIB, MIB
from .display import fmt
from .sanity import positive_integers, scalar

SOURCE = "issue-29"  # lesson 7 is written from issue 29 and the papers it cites
KINDS = ("mha", "gqa", "mqa", "mla")
MLA_KIND = "多头潜注意力（MLA，DeepSeek-V2 的做法：K、V 联合压缩成一个潜向量）"
DEEPSEEK_V2 = {"n_layer": 60, "n_head": 128, "head_size": 128, "d_c": 512, "d_rope": 64}


def one_of(options: tuple[Any, ...], x: float) -> Any:
    """The option a uniform number in [0, 1) picks."""
    return options[int(x * len(options))]


def unit_of(nbytes: float) -> tuple[str, int]:
    return ("GiB", GIB) if nbytes >= GIB else ("MiB", MIB)


class KVCacheMemoryV3(Template):
    """The KV cache of MHA, GQA, MQA (2·L·B·T·n_kv·hs numbers) or MLA ((d_c + d_h^R)·L·B·T), one size.

    Version 2 asked GQA/MQA for the size and the ratio to full multi-head; this version asks for the size
    only (MLA's ratio to MHA is not a whole number), adds MLA at DeepSeek-V2's shapes and at seeded ones, and
    offers n_head for n_kv_head whenever K/V heads are shared (the classic)."""

    name = "kv_cache_memory"
    version = 3
    title_zh = "KV cache 占多少显存（MHA、GQA、MQA、MLA）"
    title_en = "KV-cache memory with MHA, GQA, MQA and MLA"
    source = SOURCE
    params = specs(ParamSpec("kind", None, kind="choice", choices=KINDS))
    decimals = 2
    atol = 0.01
    rtol = 0.01
    sane_choices = True
    cue_rules = True
    classic = "kv_ignores_gqa"

    def draw(self, rng: np.random.Generator, p: Params) -> Inputs:
        u = rng.random(9).tolist()  # one call to the generator: a call costs more than the numbers
        kind = p["kind"] or one_of(KINDS, u[0])
        common = {
            "T": one_of((1024, 2048, 4096, 8192, 16384, 32768), u[1]),
            "B": one_of((1, 2, 4, 8, 16), u[2]),
            "dtype": one_of(("float16", "bfloat16", "float32"), u[3]),
        }
        if kind == "mla":
            if u[4] < 0.5:
                return {"kind": kind, "config": "deepseek-v2", **DEEPSEEK_V2, **common}
            return {
                "kind": kind,
                "config": "random",
                "n_layer": one_of((24, 27, 32, 40, 48, 60), u[5]),
                "n_head": one_of((16, 32, 64, 128), u[6]),
                "head_size": 128,
                "d_c": one_of((256, 512), u[7]),
                "d_rope": one_of((32, 64), u[8]),
                **common,
            }
        n_head = one_of((8, 12, 16, 32, 40, 64), u[5])
        groups = tuple(g for g in range(2, n_head) if n_head % g == 0)  # GQA: a proper divisor above 1
        n_kv = {"mha": n_head, "mqa": 1}.get(kind) or one_of(groups, u[6])
        return {
            "kind": kind,
            "n_layer": one_of((12, 24, 32, 40, 48, 80), u[7]),
            "n_head": n_head,
            "n_kv_head": n_kv,
            "head_size": one_of((64, 128), u[8]),
            **common,
        }

    @staticmethod
    def total(inputs: Inputs) -> int:
        L, B, T, hs = inputs["n_layer"], inputs["B"], inputs["T"], inputs["head_size"]
        nbytes = serving.BYTES[inputs["dtype"]]
        if inputs["kind"] == "mla":
            return serving.mla_cache_bytes(L, B, T, inputs["d_c"], inputs["d_rope"], nbytes)
        return serving.kv_cache_bytes(L, B, T, inputs["n_kv_head"], hs, nbytes)

    def solve(self, inputs: Inputs) -> Solution:
        L, nh, hs, T, B = (inputs[k] for k in ("n_layer", "n_head", "head_size", "T", "B"))
        nbytes = serving.BYTES[inputs["dtype"]]
        total = self.total(inputs)
        unit, size = unit_of(total)
        tokens = B * T
        if inputs["kind"] == "mla":
            d_c, d_r = inputs["d_c"], inputs["d_rope"]
            per_token_layer = d_c + d_r  # c^KV (d_c,) and the shared k^R (d_rope,)
            steps = [
                step("每层每 token 缓存的数", rf"d_c + d_h^R = {d_c} + {d_r}", per_token_layer),
                step("缓存的 token", rf"B \times T = {B} \times {T}", tokens),
                step("字节数", rf"{per_token_layer} \cdot {L} \cdot {tokens} \cdot {nbytes}", total),
            ]
            wrong = [
                ("mla_rope_key_forgotten", total * d_c / per_token_layer / size),
                ("mla_latent_per_k_and_v", 2 * total / size),
                ("mla_as_mha", 2 * nh * hs * L * tokens * nbytes / size),
            ]
        else:
            nkv = inputs["n_kv_head"]
            per_token_layer = 2 * nkv * hs  # K and V of n_kv_head heads
            steps = [
                step(
                    "每层每 token：K 和 V",
                    rf"2 \cdot n_{{kv\_head}} \cdot hs = 2 \cdot {nkv} \cdot {hs}",
                    per_token_layer,
                ),
                step("缓存的 token", rf"B \times T = {B} \times {T}", tokens),
                step("字节数", rf"{per_token_layer} \cdot {L} \cdot {tokens} \cdot {nbytes}", total),
            ]
            wrong = [
                ("kv_forgot_two", total / 2 / size),
                ("kv_ignores_gqa", total * nh / nkv / size if nkv < nh else None),
            ]
        steps.append(step(f"换算 {unit}", rf"\div 2^{{{size.bit_length() - 1}}}", total / size))
        wrong += [
            ("dtype_bits_as_bytes", total * 8 / size),
            ("kv_forgot_layers", total / L / size),
            ("memory_missing_batch", total / B / size if B > 1 else None),
            ("mib_as_mb", total / (10**6 if size == MIB else 10**9)),
            ("memory_counts_elements", total / nbytes / size),
        ]
        return Solution(total / size, wrong, steps)

    def labels(self, inputs: Inputs, value: Any) -> tuple[str, str]:
        text = f"{fmt(value, self.decimals)} {unit_of(self.total(inputs))[0]}"
        return text, text

    def sane(self, inputs: Inputs, value: Any) -> bool:
        """A memory size: one positive number."""
        x = scalar(value)
        return x is not None and x > 0

    def prompt(self, inputs: Inputs) -> str:
        L, nh, hs, T, B = (inputs[k] for k in ("n_layer", "n_head", "head_size", "T", "B"))
        unit = unit_of(self.total(inputs))[0]
        if inputs["kind"] == "mla":
            model = "（DeepSeek-V2 的配置）" if inputs["config"] == "deepseek-v2" else ""
            head = (
                f"一个 {L} 层的 decoder{model}用{MLA_KIND}：每层 `n_head` $= {nh}$ 个头、每头 $d_h = {hs}$，"
                f"潜向量 $d_c = {inputs['d_c']}$ 维，解耦的 RoPE 键每头 $d_h^R = {inputs['d_rope']}$ 维。"
            )
        else:
            head = (
                f"一个 {L} 层的 decoder 用{ATTENTION_KINDS[inputs['kind']]}：每层 `n_head` $= {nh}$ 个 query 头、"
                f"`n_kv_head` $= {inputs['n_kv_head']}$ 个 K/V 头，`head_size` $= {hs}$。"
            )
        power = 20 if unit == "MiB" else 30
        return (
            f"{head}batch $B = {B}$，每条序列缓存 $T = {T}$ 个 token，dtype 为 `{inputs['dtype']}`。"
            f"推理时 KV cache 一共占多少 {unit}（1 {unit} = $2^{{{power}}}$ 字节）？"
        )

    def answer_format(self, inputs: Inputs) -> str:
        return f"写一个数，单位 {unit_of(self.total(inputs))[0]}，保留两位小数。"


class DecodeBandwidthBound(Template):
    """The memory-bound ceiling on decode throughput: B × bandwidth ÷ (weights + the batch's KV cache)."""

    name = "decode_bandwidth_bound"
    version = 1
    title_zh = "decode 吞吐的带宽上限"
    title_en = "Decode throughput's bandwidth bound"
    source = SOURCE
    params = specs(ParamSpec("B", None, 1, 1024))
    decimals = None
    sig = 3
    rtol = 0.01
    sane_choices = True
    cue_rules = True
    DTYPES: ClassVar[tuple[str, ...]] = ("bfloat16", "float16", "int8")
    ANSWER_FORMAT = "写一个数（token/s），保留三位有效数字。"

    def draw(self, rng: np.random.Generator, p: Params) -> Inputs:
        u = rng.random(6).tolist()  # one call to the generator
        return {
            "params_b": one_of((1, 3, 7, 8, 13, 34, 70), u[0]),  # billions of parameters
            "dtype": one_of(self.DTYPES, u[1]),
            "bandwidth_tb": one_of((0.9, 1.0, 1.6, 2.0, 3.35), u[2]),  # TB/s, 1 TB = 10^12 bytes
            "B": p["B"] or one_of((1, 2, 4, 8, 16, 32, 64), u[3]),
            "T": one_of((512, 1024, 2048, 4096, 8192), u[4]),
            "kv_kib": one_of((32, 64, 128, 160, 320, 512, 800), u[5]),  # KV cache per token, all layers, KiB
        }

    def solve(self, inputs: Inputs) -> Solution:
        B, T, kib = inputs["B"], inputs["T"], inputs["kv_kib"]
        n = inputs["params_b"] * 10**9
        nbytes = serving.BYTES[inputs["dtype"]]
        bw = inputs["bandwidth_tb"] * 10**12  # bytes/s
        weights = n * nbytes
        kv = B * T * kib * 1024  # every sequence's own cache
        bound = serving.decode_tokens_per_second(B, bw, weights, kv)
        steps = [
            step("权重的字节", rf"{inputs['params_b']} \times 10^9 \times {nbytes}", weights),
            step(
                "这一批 KV cache 的字节",
                rf"B \cdot T \cdot {kib}\,\text{{KiB}} = {B} \cdot {T} \cdot {kib} \cdot 2^{{10}}",
                kv,
            ),
            step("每步读取的字节", rf"{weights} + {kv}", weights + kv),
            step(
                "每步至少的时间（秒）",
                rf"{weights + kv} / ({inputs['bandwidth_tb']} \times 10^{{12}})",
                (weights + kv) / bw,
            ),
            step("上限（token/s）", rf"B / t = {B} / t", bound),
        ]
        wrong = [
            ("kv_cache_forgotten", B * bw / weights),
            ("weights_read_per_sequence", B * bw / (B * weights + kv) if B > 1 else None),
            ("batch_tokens_forgotten", bw / (weights + kv) if B > 1 else None),
            ("params_as_bytes", B * bw / (n + kv) if nbytes > 1 else None),
            ("weights_fp32_bytes", B * bw / (4 * n + kv)),
            ("dtype_bits_as_bytes", B * bw / (8 * nbytes * n + kv)),
        ]
        return Solution(bound, wrong, steps)

    def labels(self, inputs: Inputs, value: Any) -> tuple[str, str]:
        number = f"{value:,.0f}" if abs(value) >= 1000 else fmt(value, None, self.sig)
        return f"{number} token/s", f"{number} tokens/s"

    def sane(self, inputs: Inputs, value: Any) -> bool:
        """A rate: one positive number."""
        x = scalar(value)
        return x is not None and x > 0

    def prompt(self, inputs: Inputs) -> str:
        return (
            f"decode 阶段：模型有 ${inputs['params_b']}\\times10^9$ 个参数，权重为 `{inputs['dtype']}`，显存带宽 "
            f"{inputs['bandwidth_tb']:g} TB/s（1 TB = $10^{{12}}$ 字节）。batch 里 $B = {inputs['B']}$ 条序列，"
            f"每条已有 $T = {inputs['T']}$ 个 token 的 KV cache，每个 token 的 KV cache（所有层合计）是 "
            f"{inputs['kv_kib']} KiB（1 KiB = $2^{{10}}$ 字节）。只按读显存算（带宽用满，忽略激活和计算时间），"
            "整台机器每秒最多生成多少个 token？"
        )


class SpeculativeExpectedTokens(Template):
    """Expected tokens per target-model call with draft length γ and i.i.d. acceptance of mean α:
    1 + α + … + α^γ, the closed form (1 − α^(γ+1)) / (1 − α) wherever α < 1."""

    name = "speculative_expected_tokens"
    version = 1
    title_zh = "投机解码每次调用的期望产出"
    title_en = "Speculative decoding's expected tokens per call"
    source = SOURCE
    params = specs(ParamSpec("alpha", None, 0, 1, kind="float"), ParamSpec("gamma", None, 1, 16))
    decimals = 2
    atol = 0.01
    sane_choices = True
    cue_rules = True
    ALPHAS: ClassVar[tuple[float, ...]] = (0.0, 0.5, 0.6, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95, 1.0)
    ANSWER_FORMAT = "写一个数，保留两位小数。"

    def draw(self, rng: np.random.Generator, p: Params) -> Inputs:
        u = rng.random(2).tolist()
        alpha = p["alpha"] if p["alpha"] is not None else one_of(self.ALPHAS, u[0])
        return {"alpha": alpha, "gamma": p["gamma"] or one_of((2, 3, 4, 5, 6, 7, 8), u[1])}

    def solve(self, inputs: Inputs) -> Solution:
        a, g = inputs["alpha"], inputs["gamma"]
        expected = serving.speculative_expected_tokens(a, g)
        terms = " + ".join(["1", *(f"{a:g}^{{{i}}}" for i in range(1, g + 1))])
        steps = [
            step("第 i 个草稿留下的概率", rf"\alpha^i,\ i = 1, \dots, {g}", [a**i for i in range(1, g + 1)]),
            step("加上目标模型自己的 1 个", terms, expected),
        ]
        if a < 1:
            steps.append(step("闭式", rf"(1 - {a:g}^{{{g + 1}}}) / (1 - {a:g})", (1 - a ** (g + 1)) / (1 - a)))
        else:
            steps.append(step(r"\alpha = 1：分式是 0/0，取求和式", rf"\gamma + 1 = {g + 1}", g + 1))
        wrong = [
            ("spec_gamma_not_gamma_plus_one", serving.speculative_expected_tokens(a, g - 1)),
            ("spec_independent_positions", 1 + g * a),
            ("spec_infinite_gamma", 1 / (1 - a) if a < 1 else None),
            ("spec_accepted_drafts_only", expected - 1),
            ("spec_one_term_too_many", serving.speculative_expected_tokens(a, g + 1)),
            ("spec_draft_length_as_yield", float(g)),
            ("spec_alpha_as_rejection_rate", serving.speculative_expected_tokens(1 - a, g)),
        ]
        return Solution(expected, wrong, steps)

    def sane(self, inputs: Inputs, value: Any) -> bool:
        """A mean count of tokens: one number, not negative."""
        x = scalar(value)
        return x is not None and x >= 0

    def prompt(self, inputs: Inputs) -> str:
        a, g = inputs["alpha"], inputs["gamma"]
        note = "（草稿模型与目标模型完全一致）" if a == 1 else "（草稿模型的猜测总被拒绝）" if a == 0 else ""
        return (
            f"投机解码：草稿长度 $\\gamma = {g}$，接受率 $\\alpha = {a:g}${note}；按 Leviathan 等的假设，"
            "各位置被接受与否独立同分布。每调用一次目标模型，期望产出多少个 token？"
        )


class PagedBlocks(Template):
    """PagedAttention's allocation of one sequence: ⌈n / block_size⌉ blocks, the empty slots in the last one."""

    name = "paged_blocks"
    version = 1
    title_zh = "PagedAttention 的块与空槽"
    title_en = "PagedAttention's blocks and empty slots"
    source = SOURCE
    params = specs(ParamSpec("ask", None, kind="choice", choices=("blocks", "empty")))
    decimals = 0
    sane_choices = True
    cue_rules = True
    max_distractors = 2
    MAX_LEN: ClassVar[int] = 2048
    ANSWER_FORMAT = "写一个整数。"

    def draw(self, rng: np.random.Generator, p: Params) -> Inputs:
        u = rng.random(4).tolist()
        return {
            "block_size": one_of((4, 8, 16, 32), u[0]),
            "prompt_tokens": 3 + int(u[1] * 298),
            "generated": 1 + int(u[2] * 200),
            "ask": p["ask"] or ("blocks", "empty")[int(u[3] * 2)],
        }

    def acceptable(self, inputs: Inputs, solution: Solution) -> bool:
        """A last block that is not full: otherwise no slot is empty and rounding down changes nothing."""
        return bool((inputs["prompt_tokens"] + inputs["generated"]) % inputs["block_size"] != 0)

    def solve(self, inputs: Inputs) -> Solution:
        bs, P, G = inputs["block_size"], inputs["prompt_tokens"], inputs["generated"]
        n = P + G
        blocks, empty = serving.paged_blocks(n, bs)
        prompt_blocks, prompt_empty = serving.paged_blocks(P, bs)
        steps = [
            step("序列的 token", rf"{P} + {G}", n),
            step("块数", rf"\lceil {n} / {bs} \rceil", blocks),
            step("最后一块的空槽", rf"{blocks} \times {bs} - {n}", empty),
        ]
        if inputs["ask"] == "blocks":
            answer = blocks
            wrong = [
                ("paged_floor_not_ceil", n // bs if n // bs > 0 else None),
                ("paged_prompt_only", prompt_blocks if prompt_blocks != blocks else None),
                ("paged_contiguous_max_length", self.MAX_LEN // bs),
            ]
        else:
            answer = empty
            wrong = [
                ("paged_used_as_empty", n % bs),
                ("paged_no_waste", 0),
                ("paged_contiguous_max_length", self.MAX_LEN - n),
                ("paged_prompt_only", prompt_empty),
            ]
        return Solution(answer, wrong, steps)

    def sane(self, inputs: Inputs, value: Any) -> bool:
        """A count: a whole number, not negative (a block count at least 1)."""
        x = scalar(value)
        if x is None or x < 0 or not float(x).is_integer():
            return False
        return bool(inputs["ask"] == "empty" or positive_integers([x]))

    def prompt(self, inputs: Inputs) -> str:
        bs, P, G = inputs["block_size"], inputs["prompt_tokens"], inputs["generated"]
        what = "这条序列现在占几个物理块" if inputs["ask"] == "blocks" else "它最后一个块里还空着几个槽"
        return (
            f"vLLM 的 PagedAttention，块大小为 ${bs}$ 个 token（服务的最大长度是 ${self.MAX_LEN}$）。"
            f"一条序列的 prompt 有 ${P}$ 个 token，已经生成了 ${G}$ 个 token。{what}？"
        )
