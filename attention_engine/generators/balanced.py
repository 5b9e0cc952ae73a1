"""The one-number templates with the answer's rank among the options drawn by the seed (``ranked.py``).

Before these versions the named mistakes of most one-number templates fell on both sides of the answer
and were taken in candidate order, so that the answer was neither the smallest nor the largest option in
up to 9 variants of 10: "pick a middle value" found it without computing. Each class here is the previous
version with ``balanced_rank`` and, where the previous version's mistakes fell on one side of the answer
for most numbers, named mistakes of the other side (the previous versions keep generating what they did).
"""

from __future__ import annotations

import math

import numpy as np

from .. import costs, masks, positional, serving
from .base import Distractor, Inputs, Params, Solution, Template
from .costs import AttentionFlopsCrossover, FlopsPerToken, GPTParamCount, config_of
from .counting import RNNGradientDecayV3
from .masks import CrossMaskCount, MaskRows, MHAParamCount
from .positional import AlibiBias
from .serving import DecodeBandwidthBound, KVCacheMemoryV3, PagedBlocks, SpeculativeExpectedTokens


class RankDrawn(Template):
    """Put before the previous version among the bases: its template with the answer's rank drawn by the seed
    and the named mistakes of ``more_mistakes`` added to the ones the distractors are drawn from."""

    balanced_rank = True

    def more_mistakes(self, inputs: Inputs, solution: Solution) -> tuple[Distractor, ...]:
        """The named mistakes this version adds to the previous version's solution; none by default."""
        return ()

    def solve(self, inputs: Inputs) -> Solution:
        solution = super().solve(inputs)  # type: ignore[safe-super]  # the previous version's, next in the MRO
        mistakes = self.more_mistakes(inputs, solution)
        return solution._replace(distractors=[*solution.distractors, *mistakes]) if mistakes else solution


class GPTParamCountV2(RankDrawn, GPTParamCount):
    """Version 1 had two mistakes above the answer (the untied head, parameters growing with the heads),
    so the answer was never the smallest of four; one more above: the mask buffer counted."""

    version = 2

    def more_mistakes(self, inputs: Inputs, solution: Solution) -> tuple[Distractor, ...]:
        L, bs = inputs["n_layer"], inputs["block_size"]
        buffers = L * bs * bs  # attn.bias, (1, 1, block_size, block_size) per layer
        return (("mask_buffer_counted", solution.answer + buffers),)


class FlopsPerTokenV2(RankDrawn, FlopsPerToken):
    """Asked for training, version 1 had two mistakes above the answer (FLOPs growing with the heads, per
    sequence), so the answer was never the smallest of four; one more above: the forward added to 3×."""

    version = 2

    def more_mistakes(self, inputs: Inputs, solution: Solution) -> tuple[Distractor, ...]:
        if inputs["ask"] != "training":
            return ()
        return (("forward_added_to_training", solution.answer * 4 / 3),)


class AttentionFlopsCrossoverV2(RankDrawn, AttentionFlopsCrossover):
    """Version 1 had two mistakes on each side of the answer at most (T/2 and T/n_head below, 2T and the
    other crossover above), so the answer was never the smallest or the largest of four. Three more: the
    whole table's FLOPs taken per token (far below), one head's T x T work and training's FLOPs on the
    weights' side (above)."""

    version = 2

    def more_mistakes(self, inputs: Inputs, solution: Solution) -> tuple[Distractor, ...]:
        cfg = config_of(inputs)
        T = solution.answer
        per_token_flops = T * costs.attention_flops_per_token(1, cfg.n_embd)  # what 4·T·d must reach
        return (
            # 4·T²·d = per_token_flops
            ("crossover_t_squared_per_token", math.sqrt(per_token_flops / (4 * cfg.n_embd))),
            # 4·T·hs = per_token_flops, hs = d / n_head
            ("crossover_one_head_only", T * cfg.n_head if cfg.n_head > 1 else None),
            # 4·T·d = 3 · per_token_flops (6 FLOPs per weight instead of 2)
            ("crossover_training_flops_for_weights", 3 * T),
        )


class MaskRowsV2(RankDrawn, MaskRows):
    """One more mistake on the side version 1 lacked: the last padding row taken to see the first real
    token (below the hidden rows' count), both layers' NaN positions added (above layer 2's)."""

    version = 2

    def draw(self, rng: np.random.Generator, p: Params) -> Inputs:
        """Asked where the NaN goes, the batch keeps one sample of full length: with every sample padded the
        answer was B·T, the largest count the batch holds, so it was the largest option by necessity; and a
        full sample beside the padded ones is what tells "every row of a padded sample" from "the whole batch"."""
        inputs = super().draw(rng, p)
        lengths = inputs["lengths"]
        if inputs["ask"] == "nan" and max(lengths) < inputs["T"]:
            inputs["lengths"] = [*lengths[:-1], inputs["T"]]  # the first sample stays padded (_lengths)
        return inputs

    def more_mistakes(self, inputs: Inputs, solution: Solution) -> tuple[Distractor, ...]:
        if inputs["side"] != "left":
            return ()
        T, lengths = inputs["T"], inputs["lengths"]
        hidden = masks.hidden_row_count(lengths, T, "left")
        padded = sum(1 for n in lengths if n < T)
        if inputs["ask"] == "hidden":
            return (("hidden_rows_last_pad_sees_real", hidden - padded if hidden - padded > 0 else None),)
        return (("nan_both_layers_summed", hidden + masks.nan_row_count(lengths, T, "left")),)


class MHAParamCountV2(RankDrawn, MHAParamCount):
    """Its mistakes fall on both sides of the answer: the rank alone is drawn."""

    version = 2


class CrossMaskCountV2(RankDrawn, CrossMaskCount):
    """Its mistakes fall on both sides of the answer: the rank alone is drawn."""

    version = 2


class AlibiBiasV2(RankDrawn, AlibiBias):
    """Version 1's mistakes all lay below the answer (more negative) in most variants, so the answer was
    the largest option in 53 % of them; two mistakes above it let the rank be drawn."""

    version = 2

    def more_mistakes(self, inputs: Inputs, solution: Solution) -> tuple[Distractor, ...]:
        n, h, dist = inputs["n_head"], inputs["head"], inputs["i"] - inputs["j"]
        slope = positional.alibi_slopes(n)[h - 1]
        return (
            ("alibi_distance_one_short", -slope * (dist - 1) if dist > 1 else None),
            ("alibi_slope_next_head", -(2.0 ** (-8 * (h + 1) / n)) * dist),
        )


class KVCacheMemoryV4(RankDrawn, KVCacheMemoryV3):
    """With the classic (n_head K/V heads) always above the answer, version 3 had at most one more mistake
    above it for GQA/MQA; one more: the queries cached too."""

    version = 4

    def more_mistakes(self, inputs: Inputs, solution: Solution) -> tuple[Distractor, ...]:
        if inputs["kind"] == "mla":
            return ()
        nh, nkv = inputs["n_head"], inputs["n_kv_head"]
        # K and V of n_kv_head heads, plus Q of n_head heads, per token per layer
        return (("kv_caches_queries", solution.answer * (2 * nkv + nh) / (2 * nkv)),)


class DecodeBandwidthBoundV2(RankDrawn, DecodeBandwidthBound):
    """Version 1 had at most two mistakes above the answer (the cache forgotten, parameters as bytes), so
    the answer was never the smallest of four; one more above: one sequence's cache for the batch's."""

    version = 2

    def more_mistakes(self, inputs: Inputs, solution: Solution) -> tuple[Distractor, ...]:
        B, bw = inputs["B"], inputs["bandwidth_tb"] * 10**12
        weights = inputs["params_b"] * 10**9 * serving.BYTES[inputs["dtype"]]
        one_cache = inputs["T"] * inputs["kv_kib"] * 1024  # one sequence's cache read for the whole batch
        one_sequence = serving.decode_tokens_per_second(B, bw, weights, one_cache) if B > 1 else None
        return (("kv_cache_one_sequence", one_sequence),)


class SpeculativeExpectedTokensV2(RankDrawn, SpeculativeExpectedTokens):
    """Its mistakes fall on both sides of the answer: the rank alone is drawn."""

    version = 2


class PagedBlocksV2(RankDrawn, PagedBlocks):
    """Asked for the blocks, version 1 had one mistake above the answer (the contiguous maximum) for two
    distractors, so the answer was never the smallest of three; one more: prompt and generated tokens put
    in separate blocks."""

    version = 2

    def more_mistakes(self, inputs: Inputs, solution: Solution) -> tuple[Distractor, ...]:
        if inputs["ask"] != "blocks":
            return ()
        bs, P, G = inputs["block_size"], inputs["prompt_tokens"], inputs["generated"]
        separate = serving.paged_blocks(P, bs)[0] + serving.paged_blocks(G, bs)[0]
        return (("paged_separate_prompt_blocks", separate if separate != solution.answer else None),)


class RNNGradientDecayV4(RankDrawn, RNNGradientDecayV3):
    """Version 3 had one mistake below the answer for most numbers (the exponent one long), so the answer
    was never the largest of three; one more below: the factor taken as the part lost."""

    version = 4

    def more_mistakes(self, inputs: Inputs, solution: Solution) -> tuple[Distractor, ...]:
        f, n = inputs["factor"], inputs["n_steps"]
        return (("gradient_factor_as_loss", (1 - f) ** n),)
