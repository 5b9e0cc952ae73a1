"""Lesson 7 (fixtures/lessons/07-inference-serving.yaml) says true things: every number it states, recomputed.

KV-cache sizes come from meta tensors of the cache's shape and dtype (nothing is allocated); GQA's shared K/V
heads are checked against PyTorch's ``scaled_dot_product_attention(..., enable_gqa=True)``; MLA's absorption of
W^UK into the query is checked with numpy; the bandwidth bound is arithmetic; speculative decoding is
simulated: the capped-geometric count against Leviathan et al.'s (1 − α^(γ+1)) / (1 − α), and the accept /
reject rule run on real distributions to show the output follows the target model's. Where the lesson offers
a number as an option, the test checks that the option's text is that number as displayed, and that each
wrong option is what the mistake its feedback names computes.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
import yaml

LESSON_FILE = Path(__file__).resolve().parents[3] / "fixtures" / "lessons" / "07-inference-serving.yaml"
LESSON = yaml.safe_load(LESSON_FILE.read_text(encoding="utf-8"))
QUESTIONS = {q["key"]: q for q in LESSON["questions"]}
SECTIONS = {s["key"]: s for s in LESSON["teaching"]}

KIB = 2**10
GIB = 2**30
TB = 10**12  # bandwidth: 1 TB = 10^12 bytes, as the stems say

# DeepSeek-V2, section 3.1.2 of the paper: 60 layers, 128 heads of d_h = 128, d_c = 512, d_h^R = 64.
DEEPSEEK_V2 = {"n_layer": 60, "n_h": 128, "d_h": 128, "d_c": 512, "d_h_rope": 64}


def options(question: dict) -> dict[str, str]:
    return {o["key"]: o["text"] for o in question["options"]}


def correct_text(options_of: dict) -> str:
    return next(o["text"] for o in options_of["options"] if o.get("correct"))


def assert_numeric_options(question_key: str, expected: dict[str, str]) -> None:
    """The options show exactly these texts, in numeric order as listed in the file."""
    question = QUESTIONS[question_key]
    assert options(question) == expected, question_key
    values = [float(o["text"].split()[0]) for o in question["options"]]
    assert values == sorted(values), (question_key, values)


def cache_bytes(torch, *shape, dtype) -> int:
    t = torch.empty(*shape, dtype=dtype, device="meta")
    return t.numel() * t.element_size()


# --------------------------------------------------------------------------- prefill and decode


def test_a_prompt_then_100_new_tokens_takes_100_forward_passes():
    """Prefill gives the first new token; each further token is one decode step."""
    calls, generated = 0, []
    prompt = list(range(500))
    calls += 1  # prefill: the whole prompt at once → the first new token
    generated.append(len(prompt))
    while len(generated) < 100:
        calls += 1  # decode: one token in, one token out
        generated.append(len(prompt) + len(generated))
    assert calls == 100
    assert correct_text(SECTIONS["prefill-decode"]["checkpoint"]) == "100"


# --------------------------------------------------------------------------- KV-cache size


@pytest.mark.torch
def test_kv_cache_question_and_the_mistakes_behind_its_options(torch):
    L, n_head, n_kv, hs, B, T = 32, 32, 8, 128, 8, 4096
    bf16 = torch.bfloat16
    right = cache_bytes(torch, L, 2, B, n_kv, T, hs, dtype=bf16)  # (n_layer, K and V, B, n_kv_head, T, hs)
    assert right / GIB == 4.0
    assert cache_bytes(torch, L, 2, n_kv, hs, dtype=bf16) == 128 * KIB  # per token
    values = {
        "b": cache_bytes(torch, L, B, n_kv, T, hs, dtype=bf16),  # K or V only
        "a": right,
        "c": cache_bytes(torch, L, 2, B, n_head, T, hs, dtype=bf16),  # n_head for n_kv_head
        "d": right * 8,  # bf16's 16 bits read as 16 bytes
    }
    assert_numeric_options("l7-kv-gqa-bytes", {k: f"{v / GIB:.2f} GiB" for k, v in values.items()})
    assert correct_text(QUESTIONS["l7-kv-gqa-bytes"]) == "4.00 GiB"


@pytest.mark.torch
def test_the_per_token_table_and_the_opt_13b_example(torch):
    fp16 = torch.float16
    per_token = {n_kv: cache_bytes(torch, 40, 2, n_kv, 128, dtype=fp16) // KIB for n_kv in (40, 8, 1)}
    assert per_token == {40: 800, 8: 160, 1: 20}
    # vLLM paper, OPT-13B: 2 (K and V) × 5120 × 40 layers × 2 bytes
    assert 2 * 5120 * 40 * 2 == cache_bytes(torch, 40, 2, 5120, dtype=fp16) == 819_200 == 800 * KIB
    assert 2048 * 819_200 / GIB == 1.5625
    body = SECTIONS["kv-cache-size"]["body"]
    for figure in ("800 KiB", "160 KiB", "20 KiB", "819{,}200", "1.5625 GiB"):
        assert figure in body, figure
    # checkpoint: 8 K/V heads for 40 query heads
    assert 8 / 40 == 1 / 5
    assert correct_text(SECTIONS["kv-cache-size"]["checkpoint"]) == "1/5"


@pytest.mark.torch
def test_gqa_query_heads_share_the_cached_kv_heads_of_their_group(torch):
    """GQA with n_kv_head K/V heads = MHA whose K, V heads are repeated for each group (PyTorch's enable_gqa)."""
    g = torch.Generator().manual_seed(0)
    B, n_head, n_kv, T, hs = 2, 8, 2, 6, 4
    q = torch.randn(B, n_head, T, hs, generator=g, dtype=torch.float64)
    k, v = torch.randn(2, B, n_kv, T, hs, generator=g, dtype=torch.float64).unbind(0)  # what the cache holds
    sdpa = torch.nn.functional.scaled_dot_product_attention
    gqa = sdpa(q, k, v, is_causal=True, enable_gqa=True)
    group = n_head // n_kv
    repeated = sdpa(q, k.repeat_interleave(group, dim=1), v.repeat_interleave(group, dim=1), is_causal=True)
    assert torch.allclose(gqa, repeated)
    # GQA-1 is MQA (every query head reads the one K/V head); GQA-n_head is MHA
    one = sdpa(q, k[:, :1], v[:, :1], is_causal=True, enable_gqa=True)
    shared_k, shared_v = (t[:, :1].expand(-1, n_head, -1, -1) for t in (k, v))
    assert torch.allclose(one, sdpa(q, shared_k, shared_v, is_causal=True))


@pytest.mark.torch
def test_mla_caches_the_latent_and_the_shared_rope_key(torch):
    c = DEEPSEEK_V2
    per_token_per_layer = c["d_c"] + c["d_h_rope"]
    mha = 2 * c["n_h"] * c["d_h"]
    assert (per_token_per_layer, mha) == (576, 32_768)
    assert round(mha / per_token_per_layer) == 57  # "约 57 倍"
    assert per_token_per_layer / (2 * c["d_h"]) == 2.25  # "相当于只有 2.25 组的 GQA"
    assert (c["d_c"], c["d_h_rope"]) == (4 * c["d_h"], c["d_h"] // 2)
    bf16 = torch.bfloat16
    right = cache_bytes(torch, c["n_layer"], per_token_per_layer, dtype=bf16)
    assert right == 69_120
    values = {
        "b": cache_bytes(torch, c["n_layer"], c["d_c"], dtype=bf16),  # the RoPE key forgotten
        "a": right,
        "c": cache_bytes(torch, c["n_layer"], 2, per_token_per_layer, dtype=bf16),  # a latent for K and one for V
        "d": cache_bytes(torch, c["n_layer"], 2, c["n_h"], c["d_h"], dtype=bf16),  # full MHA
    }
    assert_numeric_options("l7-mla-bytes", {k: f"{v / KIB:.1f} KiB" for k, v in values.items()})
    assert correct_text(QUESTIONS["l7-mla-bytes"]) == "67.5 KiB"


def test_mla_up_projection_of_keys_can_be_absorbed_into_the_query():
    """q·(W^UK c) = ((W^UK)ᵀ q)·c: attention can score against the cached latent directly."""
    rng = np.random.default_rng(0)
    d, d_c, d_h, T = 32, 8, 4, 5
    W_Q = rng.standard_normal((d_h, d))  # one head
    W_UK = rng.standard_normal((d_h, d_c))
    h_t = rng.standard_normal(d)  # the current token
    c_kv = rng.standard_normal((T, d_c))  # cached latents of T tokens
    keys = c_kv @ W_UK.T  # (T, d_h): the keys, if they were computed
    scores = keys @ (W_Q @ h_t)  # (T,)
    absorbed = c_kv @ ((W_UK.T @ W_Q) @ h_t)  # (W^UK)ᵀ W^Q folded into one matrix
    np.testing.assert_allclose(scores, absorbed, rtol=1e-12)


# --------------------------------------------------------------------------- the bandwidth bound


def tokens_per_second_bound(*, B: int, bandwidth: float, weight_bytes: float, kv_bytes: float = 0.0) -> float:
    """At most B tokens per decode step; a step reads the weights once and the whole batch's KV cache."""
    return B * bandwidth / (weight_bytes + kv_bytes)


def test_the_weights_only_bound_and_its_mistakes():
    N, W = 7e9, 2 * TB
    values = {
        "d": tokens_per_second_bound(B=1, bandwidth=W, weight_bytes=16 * N),  # 16 bits read as 16 bytes
        "c": tokens_per_second_bound(B=1, bandwidth=W, weight_bytes=4 * N),  # fp32
        "a": tokens_per_second_bound(B=1, bandwidth=W, weight_bytes=2 * N),
        "b": tokens_per_second_bound(B=1, bandwidth=W, weight_bytes=N),  # parameters read as bytes
    }
    assert_numeric_options("l7-weights-bound", {k: str(round(v)) for k, v in values.items()})
    assert correct_text(QUESTIONS["l7-weights-bound"]) == "143"
    # batch 16, KV cache negligible: the same weight read serves 16 sequences
    assert tokens_per_second_bound(B=16, bandwidth=W, weight_bytes=2 * N) == pytest.approx(16 * values["a"])
    assert correct_text(QUESTIONS["l7-batch-scaling"]) == "约为原来的 16 倍"


def test_the_13b_example_of_the_teaching_text():
    W, weights = 2 * TB, 13e9 * 2
    assert weights / W * 1000 == pytest.approx(13)  # ms per weight read: the checkpoint
    texts = [o["text"] for o in SECTIONS["decode-bandwidth"]["checkpoint"]["options"]]
    assert texts == [
        f"{weights / 2 / W * 1000:.1f} ms",
        f"{weights / W * 1000:.1f} ms",
        f"{2 * weights / W * 1000:.1f} ms",
    ]
    assert correct_text(SECTIONS["decode-bandwidth"]["checkpoint"]) == "13.0 ms"
    assert round(tokens_per_second_bound(B=1, bandwidth=W, weight_bytes=weights)) == 77
    gqa_kv = 16 * 2048 * 160 * KIB
    mha_kv = 16 * 2048 * 800 * KIB
    assert (gqa_kv / GIB, round(gqa_kv / 1e9, 2), mha_kv / GIB) == (5.0, 5.37, 25.0)
    gqa = tokens_per_second_bound(B=16, bandwidth=W, weight_bytes=weights, kv_bytes=gqa_kv)
    mha = tokens_per_second_bound(B=16, bandwidth=W, weight_bytes=weights, kv_bytes=mha_kv)
    assert (round(gqa), round(mha)) == (1020, 606)
    single = tokens_per_second_bound(B=1, bandwidth=W, weight_bytes=weights)
    assert 13 < gqa / single < 14  # "13 倍多——不到 16 倍"
    body = SECTIONS["decode-bandwidth"]["body"]
    for figure in ("13 ms", "77 个", "5 GiB", r"5.37\times10^{9}", "1020", "25 GiB", "606"):
        assert figure in body, figure


# --------------------------------------------------------------------------- PagedAttention


class BlockTable:
    """The block table of one sequence: logical block i → a physical block and how many of its slots are filled."""

    def __init__(self, block_size: int, free_blocks: list[int]):
        self.block_size, self.free, self.entries = block_size, list(free_blocks), []  # [physical, filled]

    def append(self, n_tokens: int = 1) -> None:
        for _ in range(n_tokens):
            if not self.entries or self.entries[-1][1] == self.block_size:  # a new block only when the last is full
                self.entries.append([self.free.pop(0), 0])
            self.entries[-1][1] += 1

    @property
    def empty_slots(self) -> int:
        return len(self.entries) * self.block_size - sum(filled for _, filled in self.entries)


def test_paged_blocks_waste_less_than_one_block():
    # the paper's figure 6: block size 4, a 7-token prompt on physical blocks 7 and 1, one slot left
    table = BlockTable(4, [7, 1, 3])
    table.append(7)
    assert table.entries == [[7, 4], [1, 3]] and table.empty_slots == 1
    table.append(2)  # two generated tokens: the second one needs a new block
    assert len(table.entries) == 3 and table.entries[-1] == [3, 1]
    assert correct_text(SECTIONS["paged-attention"]["checkpoint"]) == "3"
    for block_size in (1, 4, 16):
        for n in range(1, 200):
            t = BlockTable(block_size, list(range(1000)))
            t.append(n)
            assert len(t.entries) == math.ceil(n / block_size) and 0 <= t.empty_slots < block_size
    # the question: block size 16, 50 tokens
    t = BlockTable(16, list(range(10)))
    t.append(50)
    values = {"c": 0, "b": 50 % 16, "a": t.empty_slots, "d": 2048 - 50}  # no waste, used slots, the key, contiguous
    assert values["a"] == 14
    assert_numeric_options("l7-paged-slack", {k: str(v) for k, v in values.items()})


# --------------------------------------------------------------------------- batching


def test_request_level_batching_idles_the_slots_of_early_finishers():
    lengths = [10, 20, 30, 100]
    steps = max(lengths)  # the batch runs until its longest request is done
    slot_steps, working = len(lengths) * steps, sum(lengths)
    assert (slot_steps, working, working / slot_steps) == (400, 160, 0.4)
    body = SECTIONS["continuous-batching"]["body"]
    assert "400" in body and "160" in body and "40%" in body
    # checkpoint: the 10-token request returns with the batch, after 100 steps (sequential service: 160; mean: 40)
    assert correct_text(SECTIONS["continuous-batching"]["checkpoint"]) == str(steps)
    assert (sum(lengths) / len(lengths), sum(lengths)) == (40, 160)


def test_iteration_level_scheduling_returns_each_request_when_it_finishes():
    """A simulation of Orca's loop: one iteration, then finished requests leave and waiting ones join."""
    waiting = [("a", 10), ("b", 20), ("c", 30), ("d", 100), ("e", 15)]
    capacity, running, finished_at, step = 4, {}, {}, 0
    while waiting or running:
        while waiting and len(running) < capacity:
            name, length = waiting.pop(0)
            running[name] = length
        step += 1  # one iteration: every running request advances one token
        for name in list(running):
            running[name] -= 1
            if running[name] == 0:
                finished_at[name] = step
                del running[name]
    assert finished_at["a"] == 10  # not 100: it returns as soon as it is done
    assert finished_at["e"] == 10 + 15  # joined at the first free slot, not after the whole batch


# --------------------------------------------------------------------------- speculative decoding


def expected_tokens(alpha: float, gamma: int) -> float:
    """Leviathan et al., eq. (1): (1 − α^(γ+1)) / (1 − α); its limit γ + 1 at α = 1."""
    if alpha == 1:
        return gamma + 1
    return (1 - alpha ** (gamma + 1)) / (1 - alpha)


def test_expected_tokens_against_a_monte_carlo_of_the_capped_geometric_count():
    rng = np.random.default_rng(0)
    for alpha in (0.0, 0.3, 0.6, 0.8, 0.95, 1.0):
        for gamma in (1, 3, 4, 8):
            accepted = rng.random((200_000, gamma)) < alpha  # i.i.d. acceptances
            # tokens per target call: the accepted prefix, plus the resampled (or bonus) token
            prefix = np.where(accepted.all(axis=1), gamma, np.argmin(accepted, axis=1))
            tokens = prefix + 1
            assert tokens.min() >= 1 and tokens.max() <= gamma + 1
            assert tokens.mean() == pytest.approx(expected_tokens(alpha, gamma), abs=0.02), (alpha, gamma)
            assert expected_tokens(alpha, gamma) == pytest.approx(sum(alpha**i for i in range(gamma + 1)))
    assert expected_tokens(1.0, 4) == 5 and expected_tokens(1 - 1e-9, 4) == pytest.approx(5, abs=1e-6)
    assert expected_tokens(0.0, 4) == 1
    assert [o["text"] for o in SECTIONS["speculative-decoding"]["checkpoint"]["options"]] == ["1", "4", "5"]
    assert correct_text(SECTIONS["speculative-decoding"]["checkpoint"]) == "5"


def test_the_question_and_the_teaching_example():
    alpha, gamma = 0.6, 3
    values = {
        "b": (1 - alpha**gamma) / (1 - alpha),  # cap γ: the bonus token forgotten
        "a": expected_tokens(alpha, gamma),
        "c": 1 / (1 - alpha),  # γ → ∞
        "d": 1 + gamma * alpha,  # positions counted as if independent of earlier rejections
    }
    assert_numeric_options("l7-spec-expected", {k: f"{v:.2f}" for k, v in values.items()})
    assert f"{expected_tokens(0.8, 4):.2f}" == "3.36"
    assert f"{expected_tokens(0.8, 4) / (4 * 0.1 + 1):.2f}" == "2.40"  # Theorem 3.8, c = 0.1
    body = SECTIONS["speculative-decoding"]["body"]
    assert "3.36" in body and "2.40" in body


def speculative_round(rng, p: np.ndarray, q: np.ndarray, gamma: int) -> list[int]:
    """One run of Leviathan et al.'s algorithm with the same p (target) and q (draft) at every position."""
    out = []
    for _ in range(gamma):
        x = rng.choice(len(q), p=q)
        if rng.random() < min(1.0, p[x] / q[x]):
            out.append(int(x))
            continue
        residual = np.maximum(0.0, p - q)
        out.append(int(rng.choice(len(p), p=residual / residual.sum())))  # resample, drop the rest of the draft
        return out
    out.append(int(rng.choice(len(p), p=p)))  # every draft accepted: one more token from the target
    return out


def test_speculative_sampling_follows_the_target_distribution_and_the_formula():
    rng = np.random.default_rng(1)
    p = np.array([0.5, 0.2, 0.15, 0.1, 0.05])  # target
    q = np.array([0.2, 0.4, 0.1, 0.2, 0.1])  # draft
    alpha = np.minimum(p, q).sum()  # Corollary 3.6: α = E[Σ_x min(p, q)]
    gamma, rounds = 3, 20_000
    counts, tokens = np.zeros(len(p)), []
    for _ in range(rounds):
        produced = speculative_round(rng, p, q, gamma)
        tokens.append(len(produced))
        counts[produced[0]] += 1  # the first token of each call
    np.testing.assert_allclose(counts / rounds, p, atol=0.012)  # the target's distribution, not the draft's
    assert min(tokens) >= 1 and max(tokens) <= gamma + 1
    assert np.mean(tokens) == pytest.approx(expected_tokens(alpha, gamma), abs=0.03)


# --------------------------------------------------------------------------- streaming


def streaming_positions(cached_original_positions: list[int]) -> list[int]:
    """StreamingLLM numbers the cached tokens (and the new one) by their place in the cache."""
    return list(range(len(cached_original_positions) + 1))


def test_streaming_positions_follow_the_cache_not_the_text():
    cache = [0, 1, 2, 3, 6, 7, 8]  # 4 sinks + a rolling window, the paper's example
    assert streaming_positions(cache) == [0, 1, 2, 3, 4, 5, 6, 7]
    assert streaming_positions(cache)[-1] == 7 and cache[-1] + 1 == 9  # in-cache 7, original 9
    assert correct_text(SECTIONS["streaming"]["checkpoint"]) == "7"


def test_a_rolling_buffer_keeps_the_last_W_positions_and_stops_growing():
    W, n = 8, 20
    slots = [None] * W
    for i in range(n):
        slots[i % W] = i  # Mistral 7B: position i goes to slot i mod W
    assert sorted(slots) == list(range(n - W, n))
    assert 32 * 4096 == 131_072  # 32 layers × W = 4096: the ≈ 131K theoretical span


def test_cited_results_are_named():
    text = yaml.safe_dump(LESSON, allow_unicode=True)
    for name in (
        "Shazeer, 2019",
        "Ainslie 等, EMNLP 2023",
        "DeepSeek-V2",
        "Kwon 等",
        "SOSP 2023",
        "Orca",
        "Yu 等, OSDI 2022",
        "Leviathan",
        "ICML 2023",
        "Chen 等",
        "Xiao 等",
        "ICLR 2024",
        "Mistral 7B",
    ):
        assert name in text, name
    assert "5158.07" in SECTIONS["streaming"]["body"] and "5.40" in SECTIONS["streaming"]["body"]
    assert "20.4%–38.2%" in SECTIONS["paged-attention"]["body"]
