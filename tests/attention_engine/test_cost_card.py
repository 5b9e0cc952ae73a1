"""Lesson 6's code card ``block_flops``: what it grades as right is what FlopCounterMode counts for a block of
those sizes (explicit matmuls, the T x T work in full), and each named mistake is named on its own line."""

import pytest

from attention_engine import codecheck
from attention_engine.costs import GPTConfig
from tests.attention_engine.test_costs import build_gpt, flop_count

SPEC = codecheck.get("block_flops")
RIGHT = "weights = 24 * d * d\nattention = 4 * T * d\nflops = weights + attention\n"


@pytest.mark.torch
@pytest.mark.parametrize("case", SPEC.cases, ids=lambda c: c.name)
def test_every_case_is_what_the_flop_counter_sees_per_token(torch, case):
    d, T, n_head = case.dims["d"], case.dims["T"], case.dims["n_head"]
    block = build_gpt(torch, GPTConfig(vocab_size=8, block_size=T, n_layer=1, n_head=n_head, n_embd=d), "meta").h[0]
    x = torch.empty(1, T, d, device="meta")
    assert flop_count(torch, lambda: block(x)) == T * (24 * d * d + 4 * T * d)


def test_the_formula_is_correct_and_each_mistake_is_named_on_its_line():
    assert codecheck.grade_code(SPEC, RIGHT).verdict == "correct"
    assert codecheck.grade_code(SPEC, "flops = 2 * 12 * d**2 + 2 * 2 * T * d\n").verdict != "correct"  # names missing
    wrong = {
        "weights = 12 * d * d": ("mac_counted_once", 1),
        "weights = 16 * d * d": ("mlp_as_4d2", 1),
        "weights = 72 * d * d": ("forward_counted_as_training", 1),
    }
    for line, (misconception, at) in wrong.items():
        result = codecheck.grade_code(SPEC, RIGHT.replace("weights = 24 * d * d", line)).to_dict()
        assert result["verdict"] == "incorrect" and result["misconception"] == misconception, line
        assert any(m["line"] == at and m["name"] == "weights" for m in result["messages"]), result["messages"]
    for line, misconception in {
        "attention = 2 * T * d": "causal_halving",
        "attention = n_head * 4 * T * d": "attention_flops_times_heads",
        "attention = 0": "attention_term_forgotten",
    }.items():
        result = codecheck.grade_code(SPEC, RIGHT.replace("attention = 4 * T * d", line)).to_dict()
        assert result["misconception"] == misconception, line
