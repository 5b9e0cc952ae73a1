"""Lesson 7's code card ``gqa_decode_step`` (issue 29): its reference is PyTorch's scaled_dot_product_attention over
the appended cache with the K/V heads repeat_interleave'd to the query heads (and with enable_gqa=True), and the
engine's serving.gqa_decode_step; each named mistake fails a required input."""

from __future__ import annotations

import numpy as np
import pytest

from attention_engine import serving
from attention_engine.codecheck import grade_code, specs
from attention_engine.codecheck.grading import prepare

GQA = specs.get("gqa_decode_step")


@pytest.mark.torch
def test_the_reference_is_torch_sdpa_with_the_kv_heads_repeat_interleaved(torch):
    prepared = prepare(GQA, 0)
    F = torch.nn.functional
    for i, case in enumerate(GQA.cases):
        inp = {k: np.array(x) for k, x in prepared.inputs[i].items()}
        out = {k: o.value for k, o in prepared.reference[i].outcomes.items()}
        q, k, v = inp["q"], inp["k"], inp["v"]
        K = torch.from_numpy(np.concatenate([inp["k_cache"], k], axis=-2))
        V = torch.from_numpy(np.concatenate([inp["v_cache"], v], axis=-2))
        group = q.shape[-3] // k.shape[-3]
        expected = F.scaled_dot_product_attention(
            torch.from_numpy(q), K.repeat_interleave(group, dim=-3), V.repeat_interleave(group, dim=-3)
        )
        np.testing.assert_allclose(out["y"], expected.numpy(), atol=1e-12, err_msg=case.name)
        if q.ndim == 4:  # enable_gqa wants (B, heads, L, E)
            gqa = F.scaled_dot_product_attention(torch.from_numpy(q), K, V, enable_gqa=True)
            np.testing.assert_allclose(out["y"], gqa.numpy(), atol=1e-12, err_msg=case.name)
        np.testing.assert_allclose(out["k_cache"], K.numpy())
        y, _, _ = serving.gqa_decode_step(q, k, v, inp["k_cache"], inp["v_cache"])
        np.testing.assert_allclose(out["y"], y, atol=1e-12)


def test_every_named_mistake_fails_a_required_input():
    required = {c.name for c in GQA.cases if c.required}
    for m in GQA.misconceptions:
        result = grade_code(GQA, m.code)
        assert (result.verdict, result.misconception) == ("incorrect", m.id)
        failed = {c["name"] for c in result.to_dict()["cases"] if not c["passed"]}
        assert failed & required, (m.id, failed)


def test_the_mistakes_of_the_lesson_are_named():
    assert {m.id for m in GQA.misconceptions} >= {
        "gqa_tile_not_repeat",  # np.tile: query head h reads K/V head h % n_kv_head
        "kv_append_after_attend",  # the new token does not see itself
        "gqa_scale_by_d_model",  # √(n_head·hs) instead of √hs
    }


def test_tile_is_right_only_where_there_is_one_kv_head_or_one_query_head_per_kv_head():
    bug = next(m for m in GQA.misconceptions if m.id == "gqa_tile_not_repeat")
    passed = {c["name"] for c in grade_code(GQA, bug.code).to_dict()["cases"] if c["passed"]}
    assert passed == {"mqa", "mha"}


def test_using_the_cache_as_if_it_had_n_head_heads_fails_with_a_shape_error():
    """Attending without sharing the K/V heads (MHA code on a GQA cache) cannot even broadcast."""
    code = (
        "k_cache = np.concatenate([k_cache, k], axis=-2)\nv_cache = np.concatenate([v_cache, v], axis=-2)\n"
        "y = softmax(q @ k_cache.swapaxes(-2, -1) / np.sqrt(q.shape[-1])) @ v_cache\n"
    )
    result = grade_code(GQA, code)
    cases = {c["name"]: c["passed"] for c in result.to_dict()["cases"]}
    assert not result.passed and not cases["plain"] and not cases["gqa_8_2"]
    assert cases["mqa"]  # one K/V head broadcasts over the query heads: MQA needs no repeat
