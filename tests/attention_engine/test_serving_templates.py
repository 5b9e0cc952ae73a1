"""Lesson 7's templates: every variant's answer recomputed here from its given numbers (the cache from a PyTorch
meta tensor of its shape, the bound from the step time, the expected tokens by summing the survival
probabilities, the blocks by allocating token by token), and every offered distractor is the mistake it is
named after, recomputed here from the same numbers."""

from __future__ import annotations

import math

import pytest

from attention_engine import generators

SEEDS = range(200)
BYTES = {"float16": 2, "bfloat16": 2, "float32": 4, "int8": 1}


def offered(v) -> dict:
    return {c.misconception: c.value for c in v.choices if c.misconception}


def close(shown: float, exact: float, decimals: int | None = 2, sig: int | None = None) -> bool:
    if sig is not None:
        return shown == float(f"{exact:.{sig}g}")
    return shown == round(exact, decimals)


@pytest.mark.torch
def test_kv_cache_memory_v3_is_the_bytes_of_the_cache_tensor(torch):
    kinds = set()
    for seed in SEEDS:
        v = generators.generate("kv_cache_memory", seed)
        g = v.given
        kinds.add(g["kind"])
        L, nh, hs, T, B, nbytes = g["n_layer"], g["n_head"], g["head_size"], g["T"], g["B"], BYTES[g["dtype"]]
        dtype = getattr(torch, g["dtype"])
        if g["kind"] == "mla":
            shape = (L, B, T, g["d_c"] + g["d_rope"])  # c^KV and the shared k^R, no K/V pair
        else:
            shape = (L, 2, B, g["n_kv_head"], T, hs)
        cache = torch.empty(shape, dtype=dtype, device="meta")
        total = cache.numel() * cache.element_size()
        unit = 2**30 if total >= 2**30 else 2**20
        assert v.answer == pytest.approx(total / unit), seed
        assert v.choices[v.correct_choice_index].label_zh.endswith("GiB" if unit == 2**30 else "MiB")
        expected = {
            "kv_forgot_two": total / 2,
            "dtype_bits_as_bytes": total * 8,
            "kv_forgot_layers": total / L,
            "memory_missing_batch": total / B,
            "memory_counts_elements": total / nbytes,
            "mib_as_mb": total * unit / (10**6 if unit == 2**20 else 10**9),
        }
        if g["kind"] == "mla":
            expected |= {
                "mla_rope_key_forgotten": L * B * T * g["d_c"] * nbytes,
                "mla_latent_per_k_and_v": 2 * total,
                "mla_as_mha": 2 * L * B * T * nh * hs * nbytes,
            }
        else:
            expected["kv_ignores_gqa"] = total * nh / g["n_kv_head"]
            # Q cached as well: n_head more heads of head_size beside the 2·n_kv_head of K and V
            expected["kv_caches_queries"] = total + torch.empty((L, B, nh, T, hs), dtype=dtype, device="meta").nbytes
            if g["n_kv_head"] < nh:
                assert "kv_ignores_gqa" in offered(v), seed  # the classic, whenever K/V heads are shared
        for name, value in offered(v).items():
            assert close(value, expected[name] / unit), (seed, name)
    assert kinds == {"mha", "gqa", "mqa", "mla"}


def test_kv_cache_memory_v3_asks_deepseek_v2s_mla():
    v = next(
        v for s in SEEDS if (v := generators.generate("kv_cache_memory", s, kind="mla")).given["config"] != "random"
    )
    assert (v.given["n_layer"], v.given["n_head"], v.given["head_size"], v.given["d_c"], v.given["d_rope"]) == (
        60,
        128,
        128,
        512,
        64,
    )
    assert "DeepSeek-V2" in v.prompt and "$d_c = 512$" in v.prompt and "$d_h^R = 64$" in v.prompt


def test_decode_bandwidth_bound_is_the_batch_over_the_step_time():
    for seed in SEEDS:
        v = generators.generate("decode_bandwidth_bound", seed)
        g = v.given
        B, n, bw = g["B"], g["params_b"] * 1e9, g["bandwidth_tb"] * 1e12
        weights, kv = n * BYTES[g["dtype"]], B * g["T"] * g["kv_kib"] * 2**10
        step_seconds = (weights + kv) / bw
        assert v.answer == pytest.approx(B / step_seconds), seed
        expected = {
            "kv_cache_forgotten": B * bw / weights,
            "weights_read_per_sequence": B * bw / (B * weights + kv),
            "batch_tokens_forgotten": bw / (weights + kv),
            "params_as_bytes": B * bw / (n + kv),
            "weights_fp32_bytes": B * bw / (4 * n + kv),
            "dtype_bits_as_bytes": B * bw / (8 * BYTES[g["dtype"]] * n + kv),
            "kv_cache_one_sequence": B * bw / (weights + kv / B),
        }
        for name, value in offered(v).items():
            assert close(value, expected[name], None, 3), (seed, name)


def test_speculative_expected_tokens_sums_the_survival_probabilities():
    alphas = set()
    for seed in SEEDS:
        v = generators.generate("speculative_expected_tokens", seed)
        a, g = v.given["alpha"], v.given["gamma"]
        alphas.add(a)
        survive = [a**i for i in range(g + 1)]  # draft i kept iff drafts 1..i accepted; i = 0: the target's own
        assert v.answer == pytest.approx(sum(survive)), seed
        if a < 1:
            assert v.answer == pytest.approx((1 - a ** (g + 1)) / (1 - a))
        expected = {
            "spec_gamma_not_gamma_plus_one": sum(survive[:-1]),
            "spec_independent_positions": 1 + g * a,
            "spec_infinite_gamma": 1 / (1 - a) if a < 1 else math.inf,
            "spec_accepted_drafts_only": sum(survive) - 1,
            "spec_one_term_too_many": sum(survive) + a ** (g + 1),
            "spec_draft_length_as_yield": g,
            "spec_alpha_as_rejection_rate": sum((1 - a) ** i for i in range(g + 1)),
        }
        for name, value in offered(v).items():
            assert close(value, expected[name]), (seed, name)
    assert {0.0, 1.0} <= alphas


@pytest.mark.parametrize("gamma", [2, 5, 8])
def test_speculative_expected_tokens_at_both_ends(gamma):
    assert generators.generate("speculative_expected_tokens", 0, alpha=1.0, gamma=gamma).answer == gamma + 1
    assert generators.generate("speculative_expected_tokens", 0, alpha=0.0, gamma=gamma).answer == 1


def allocate(n: int, block_size: int) -> list[int]:
    """The slots filled per block after appending n tokens one by one (a new block only when the last is full)."""
    blocks: list[int] = []
    for _ in range(n):
        if not blocks or blocks[-1] == block_size:
            blocks.append(0)
        blocks[-1] += 1
    return blocks


@pytest.mark.parametrize("ask", ["blocks", "empty"])
def test_paged_blocks_by_allocating_token_by_token(ask):
    for seed in SEEDS:
        v = generators.generate("paged_blocks", seed, ask=ask)
        bs, P, G = v.given["block_size"], v.given["prompt_tokens"], v.given["generated"]
        table, prompt_table = allocate(P + G, bs), allocate(P, bs)
        if ask == "blocks":
            answer = len(table)
            expected = {
                "paged_floor_not_ceil": (P + G) // bs,
                "paged_prompt_only": len(prompt_table),
                "paged_contiguous_max_length": 2048 // bs,
                # the generated tokens in blocks of their own instead of filling the prompt's last one
                "paged_separate_prompt_blocks": len(prompt_table) + len(allocate(G, bs)),
            }
        else:
            answer = bs - table[-1]
            expected = {
                "paged_used_as_empty": table[-1],
                "paged_no_waste": 0,
                "paged_contiguous_max_length": 2048 - (P + G),
                "paged_prompt_only": bs - prompt_table[-1],
            }
        assert v.answer == answer, seed
        for name, value in offered(v).items():
            assert value == expected[name], (seed, name)
