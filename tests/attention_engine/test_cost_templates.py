"""Lesson 6's templates against PyTorch: every variant's answer is the count a torch module built from the
variant's given numbers reports (``sum(p.numel())``, FlopCounterMode on the meta device, so even a 48-layer
model at T = 32768 costs no memory), and every distractor is the mistake it is named after, recomputed here."""

import math

import pytest

from attention_engine import generators
from attention_engine.costs import GPTConfig
from tests.attention_engine.test_costs import build_gpt, flop_count, numel

SEEDS = range(40)


def config(given: dict) -> GPTConfig:
    return GPTConfig(
        vocab_size=given.get("vocab_size", 50257),
        block_size=given.get("block_size", 1024),
        n_layer=given["n_layer"],
        n_head=given["n_head"],
        n_embd=given["n_embd"],
        bias=given.get("bias", True),
        mlp_ratio=given.get("mlp_ratio", 4),
    )


def offered(v) -> dict:
    return {c.misconception: c.value for c in v.choices if c.misconception}


@pytest.mark.torch
def test_gpt_param_count_is_sum_of_numel_of_the_described_model(torch):
    for seed in SEEDS:
        v = generators.generate("gpt_param_count", seed)
        g = v.given
        model = build_gpt(torch, config(g), device="meta")
        total = numel(model)
        assert v.answer == total, seed
        V, bs, L, d, b = g["vocab_size"], g["block_size"], g["n_layer"], g["n_embd"], g["bias"]
        attn = numel(model.h[0].c_attn) + numel(model.h[0].attn_proj)
        expected = {
            "embeddings_forgotten": total - numel(model.wte) - numel(model.wpe),
            "untied_head_counted": total + model.lm_head.weight.numel(),
            "wpe_subtracted": total - numel(model.wpe),
            "mlp_as_4d2": total - L * numel(model.h[0].mlp_proj),
            "c_attn_single_projection": total - L * (2 * d * d + 2 * d * b),
            "params_scale_with_heads": total + (g["n_head"] - 1) * L * attn,
            "bias_ln_forgotten": V * d + bs * d + L * 12 * d * d,  # embeddings and the weight matrices only
            # nanoGPT's attn.bias: a (1, 1, block_size, block_size) buffer per layer, not a parameter
            "mask_buffer_counted": total + L * torch.tril(torch.ones(bs, bs, device="meta")).view(1, 1, bs, bs).numel(),
        }
        for name, value in offered(v).items():
            assert value == expected[name], (seed, name)


def forward_per_token(torch, cfg: GPTConfig, T: int, training: bool) -> float:
    """FlopCounterMode over the blocks on the meta device, divided by the T tokens."""
    model = build_gpt(torch, cfg, device="meta")
    x = torch.empty(1, T, cfg.n_embd, device="meta", requires_grad=training)

    def run():
        y = x
        for block in model.h:
            y = block(y)
        if training:
            y.sum().backward()

    return flop_count(torch, run) / T


@pytest.mark.torch
@pytest.mark.parametrize("ask", ["forward", "training"])
def test_flops_per_token_is_what_flop_counter_mode_counts(torch, ask):
    for seed in range(6):
        v = generators.generate("flops_per_token", seed, ask=ask)
        g = v.given
        per_token = forward_per_token(torch, config(g), g["T"], ask == "training")
        unit = {"MFLOP": 1e6, "GFLOP": 1e9}[g["unit"]]
        assert v.answer == pytest.approx(per_token / unit, rel=1e-12), seed
        assert 1 <= v.answer < 1000  # the unit keeps the number readable
        attention = g["n_layer"] * 4 * g["T"] * g["n_embd"]
        weights = per_token - (3 if ask == "training" else 1) * attention
        times = 3 if ask == "training" else 1
        expected = {
            "mac_counted_once": per_token / 2,
            "attention_term_forgotten": weights,
            "causal_halving": per_token - times * attention / 2,
            "attention_flops_times_heads": weights + times * g["n_head"] * attention,
            "forward_only": per_token / 3,
            "forward_counted_as_training": 3 * per_token,
            "mlp_as_4d2": weights * 8 / 12 + times * attention,
            "per_sequence_not_per_token": g["T"] * per_token,
            "forward_added_to_training": per_token + per_token / 3,  # 3× the forward, then the forward again
        }
        for name, value in offered(v).items():
            assert value == pytest.approx(expected[name] / unit, rel=0.006), (seed, name)  # as displayed: 3 digits


@pytest.mark.parametrize("against", ["mlp", "weights"])
def test_attention_flops_crossover_equates_the_two_flop_counts(against):
    for seed in range(100):
        v = generators.generate("attention_flops_crossover", seed, against=against)
        d, r, T = v.given["n_embd"], v.given["mlp_ratio"], v.answer
        other = 2 * (2 * r * d * d if against == "mlp" else (4 + 2 * r) * d * d)  # 2 FLOPs per weight per token
        assert 4 * T * d == other
        wrong = {
            "causal_halving": other / (2 * d),  # 2·T·d = other
            "mac_counted_once": other / 2 / (4 * d),
            "crossover_against_all_weights": 2 * (4 + 2 * r) * d * d / (4 * d),
            "crossover_against_mlp_only": 2 * 2 * r * d * d / (4 * d),
            "attention_flops_times_heads": other / (4 * d * v.given["n_head"]),
            # the MLP counted as one r·d² matrix; comparing 4Td with the weights' count instead of their FLOPs
            "mlp_as_4d2": 2 * (r * d * d + (0 if against == "mlp" else 4 * d * d)) / (4 * d),
            "params_for_flops": other / 2 / (4 * d),
            "crossover_one_head_only": other / (4 * (d // v.given["n_head"])),  # 4·T·hs = other
            "crossover_training_flops_for_weights": 3 * other / (4 * d),  # 6 FLOPs per weight, not 2
            "crossover_t_squared_per_token": round(math.sqrt(other / (4 * d))),  # 4·T²·d = other, shown whole
        }
        for name, value in offered(v).items():
            assert value == wrong[name], (seed, name)
            assert math.isfinite(value)


def test_every_flop_stem_states_the_counting_convention():
    for name in ("flops_per_token", "attention_flops_crossover"):
        for seed in range(20):
            prompt = generators.generate(name, seed).prompt
            assert "$2mnk$" in prompt and "按满算" in prompt, (name, seed)
    assert "sum(p.numel()" in generators.generate("gpt_param_count", 0).prompt


def test_the_gpt2_sizes_give_the_published_counts():
    """sum(p.numel()) for the four GPT-2 sizes as nanoGPT builds them: the 124M, 355M, 774M and 1558M of the
    names OpenAI released them under."""
    counts = {
        c: generators.generate("gpt_param_count", 0, config=c).answer
        for c in ("gpt2", "gpt2-medium", "gpt2-large", "gpt2-xl")
    }
    assert [round(n / 1e6) for n in counts.values()] == [124, 355, 774, 1558]
