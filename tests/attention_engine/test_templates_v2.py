"""What version 2 changes, template by template: the five steps, tile_size, and which mistakes are offered."""

from functools import cache

import pytest

from attention_engine import generators
from attention_engine.generators.shapes import FIVE_STEPS
from attention_engine.misconceptions import MISCONCEPTIONS

SEEDS = range(200)
# version-1 distractors that a learner rules out by looking (a row not summing to 1, a weight under the mask)
FAIL_THE_CHECKS = {
    "softmax_wrong_axis",
    "missing_softmax",
    "mask_fill_zero",
    "mask_after_softmax",
    "missing_causal_mask",
}


@cache
def offered(name: str, **params) -> set:
    """The misconceptions version 2 offers over the seeds."""
    return {
        c.misconception
        for seed in SEEDS
        for c in generators.generate(name, seed, version=2, **params).choices
        if c.misconception
    }


def test_the_five_steps_are_defined_once():
    """1 投影 · 2 打分 · 3 缩放 (+ the causal mask in a decoder) · 4 softmax (last axis) · 5 加权求和."""
    assert [(s.number, s.name) for s in FIVE_STEPS] == [
        (1, "投影"),
        (2, "打分"),
        (3, "缩放"),
        (4, "softmax"),
        (5, "加权求和"),
    ]
    assert [s.label for s in FIVE_STEPS] == ["1 投影", "2 打分", "3 缩放", "4 softmax", "5 加权求和"]
    assert "X W_Q" in FIVE_STEPS[0].formula and r"K^\top" in FIVE_STEPS[1].formula
    assert r"\sqrt{d_k}" in FIVE_STEPS[2].formula and "因果掩码" in FIVE_STEPS[2].note
    assert "最后一维" in FIVE_STEPS[3].note and "W V" in FIVE_STEPS[4].formula


def test_five_step_shapes_labels_its_steps_with_the_five_steps():
    v = generators.generate("five_step_shapes", 0, T=4, d_model=8, d_k=16, d_v=16)
    assert [s.name for s in v.solution] == ["1 投影"] * 3 + ["2 打分", "3 缩放", "4 softmax", "5 加权求和"]
    assert [tuple(s.shape) for s in v.solution] == [(4, 16)] * 3 + [(4, 4)] * 3 + [(4, 16)]
    assert v.answer == [[4, 16], [4, 16], [4, 16], [4, 4], [4, 4], [4, 16]]
    assert generators.generate("five_step_shapes", 0, version=1).solution[0].name == "1. 投影"


@pytest.mark.parametrize(
    ("name", "params"),
    [
        ("attention_row_weights", {"is_causal": True}),
        ("attention_output", {"is_causal": True}),
        ("causal_masked_weights", {}),
        ("mask_fill_zero_contrast", {}),
    ],
)
def test_attention_steps_are_named_after_the_five_steps(name, params):
    labels = tuple(s.label for s in FIVE_STEPS)
    for seed in range(20):
        for s in generators.generate(name, seed, **params).solution:
            assert s.name.startswith(labels) or s.name.startswith(("对照", "泄漏")), s.name


def test_attention_matrix_memory_speaks_of_tiles():
    t = generators.get("attention_matrix_memory")
    assert "tile_size" in t.params and "block_size" not in t.params
    for seed in range(20):
        v = generators.generate("attention_matrix_memory", seed)
        text = v.prompt + " ".join(s.name + s.formula for s in v.solution) + " ".join(c.label_zh for c in v.choices)
        assert "block_size" not in text and "block" not in v.prompt
        assert "tile" in v.prompt and r"tile\_size" in v.prompt and "tile" in v.solution[2].name
        assert "tile_size" in v.given and "block_size" not in v.given
    old = generators.generate("attention_matrix_memory", 0, version=1)
    assert "block_size" in old.given and "block\\_size" in old.prompt  # version 1 as it was


def test_attention_matrix_memory_tile_is_the_full_matrix_times_tile_over_t():
    v = generators.generate(
        "attention_matrix_memory", 0, version=2, B=2, n_head=8, T=1024, dtype="float32", tile_size=64
    )
    assert v.answer == [2 * 8 * 1024 * 1024 * 4 / 2**20, 2 * 8 * 1024 * 64 * 4 / 2**20] == [64.0, 4.0]
    assert {c.misconception for c in v.choices} - {None} <= {
        "dtype_bits_as_bytes",
        "memory_missing_heads",
        "memory_missing_batch",
        "mib_as_mb",
    }


@pytest.mark.parametrize("is_causal", [False, True])
@pytest.mark.parametrize("name", ["attention_row_weights", "attention_output"])
def test_one_query_distractors_are_mistakes_that_still_look_right(name, is_causal):
    mistakes = offered(name, is_causal=is_causal)
    new = {
        "scores_transposed",
        "missing_scale",
        "divide_by_dk",
        "softmax_wrong_axis_renormalised",
        "wrong_query_row",
        "mask_hides_diagonal" if is_causal else "unneeded_causal_mask",
    }
    assert mistakes >= new
    if name == "attention_row_weights":
        assert not mistakes & FAIL_THE_CHECKS and mistakes == new


def test_causal_matrix_distractors_are_mistakes_that_still_look_right():
    assert offered("causal_masked_weights") == {
        "scores_transposed",
        "softmax_wrong_axis_renormalised",
        "softmax_as_argmax",
    }
    assert offered("mask_fill_zero_contrast") == {
        "zero_means_masked",
        "wrong_query_row",
        "scores_transposed",
        "mask_hides_diagonal",
    }


@pytest.mark.parametrize(
    "name", ["kv_cache_savings", "attention_matrix_memory", "nanogpt_shapes", "head_dimension", "five_step_shapes"]
)
def test_count_and_shape_distractors_are_named(name):
    mistakes = offered(name)
    assert mistakes and mistakes <= set(MISCONCEPTIONS)
    if name == "kv_cache_savings":
        assert "percent_remaining" not in mistakes and "kv_counted_twice" in mistakes
    if name == "head_dimension":
        assert "head_count_for_size" in mistakes
    if name == "five_step_shapes":
        assert "dv_equals_dk" in mistakes


def test_nanogpt_shapes_no_longer_prints_the_answer_in_the_question():
    for seed in range(40):
        v = generators.generate("nanogpt_shapes", seed, ask="y")
        assert "view(B, T, C)" not in v.prompt and v.answer == [v.given["B"], v.given["T"], v.given["C"]]
    assert "view(B, T, C)" in generators.generate("nanogpt_shapes", 0, version=1, ask="y").prompt
