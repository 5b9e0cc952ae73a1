"""The templates added with issue 11, each against an independent computation.

kv_cache_memory against the byte size PyTorch reports for the cache tensors (on the meta device:
no memory is allocated), online_softmax against one softmax over the whole row and against the
engine's blockwise attention, stable_softmax against torch.softmax.
"""

import math
import re

import numpy as np
import pytest

from attention_engine import blockwise_attention, generators, softmax
from attention_engine.generators import Variant, grade
from attention_engine.misconceptions import MISCONCEPTIONS

SEEDS = range(200)


def variants(name: str, **params) -> list[Variant]:
    return [generators.generate(name, seed, **params) for seed in SEEDS]


def misconceptions_offered(vs) -> set:
    return {c.misconception for v in vs for c in v.choices if c.misconception}


# --- kv_cache_memory -----------------------------------------------------------------------------


def test_kv_cache_memory_matches_the_bytes_of_torch_tensors(torch):
    """Version 2 (size and ratio); version 3 is checked in test_serving_templates.py."""
    dtypes = {"float16": torch.float16, "bfloat16": torch.bfloat16, "float32": torch.float32}
    for v in variants("kv_cache_memory", version=2):
        g = v.given
        k = torch.empty(
            (g["n_layer"], g["B"], g["n_kv_head"], g["T"], g["head_size"]), dtype=dtypes[g["dtype"]], device="meta"
        )  # every layer's K cache
        nbytes = 2 * k.numel() * k.element_size()  # and as much again for V
        unit = re.search(r"一共占多少 (MiB|GiB)", v.prompt).group(1)
        assert unit == ("GiB" if nbytes >= 2**30 else "MiB") and unit in v.answer_format
        size = nbytes / 2 ** (30 if unit == "GiB" else 20)
        if g["n_kv_head"] == g["n_head"]:
            assert v.answer == pytest.approx(size) and "多少倍" not in v.prompt
        else:
            full = torch.empty((g["n_layer"], g["B"], g["n_head"], g["T"], g["head_size"]), device="meta")
            assert v.answer == pytest.approx([size, full.numel() / k.numel()])
            assert "多少倍" in v.prompt


def test_kv_cache_memory_of_a_70b_sized_model():
    """80 layers, 64 query heads sharing 8 K/V heads, head size 128, 4096 tokens, float16:
    2 × 80 × 8 × 128 × 4096 × 2 bytes = 1,342,177,280 bytes = 1.25 GiB; full multi-head: 8 times as much."""
    v = generators.generate(
        "kv_cache_memory", 0, version=1, n_layer=80, n_head=64, n_kv_head=8, head_size=128, T=4096, B=1, dtype="float16"
    )
    assert v.answer == [1.25, 8] and "GiB" in v.prompt and "分组查询" in v.prompt
    assert grade(v, "1.25, 8").correct
    wrong = {c.misconception: c.value for c in v.choices if c.misconception}
    # 0.625 GiB shows as 0.62; 64 / 8 query heads per K/V head = 8 bits per byte: those two coincide
    expected = {
        "kv_forgot_two": [0.62, 8],
        "kv_ignores_gqa": [10.0, 8],
        "dtype_bits_as_bytes": [10.0, 8],
        "kv_forgot_layers": [0.02, 8],
    }
    assert len(wrong) == 3 and all(expected[m] == value for m, value in wrong.items())
    assert "1.25 GiB；多头时是它的 8 倍" in [c.label_zh for c in v.choices]


def test_kv_cache_memory_draws_every_kind_and_every_misconception():
    vs = variants("kv_cache_memory", version=1)
    kinds = {
        "mha" if v.given["n_kv_head"] == v.given["n_head"] else "mqa" if v.given["n_kv_head"] == 1 else "gqa"
        for v in vs
    }
    assert kinds == {"mha", "gqa", "mqa"}
    assert {"MiB", "GiB"} <= {u for v in vs for u in ("MiB", "GiB") if u in v.prompt}
    assert misconceptions_offered(vs) == {"kv_forgot_two", "kv_ignores_gqa", "dtype_bits_as_bytes", "kv_forgot_layers"}


# --- online_softmax ------------------------------------------------------------------------------


def test_online_softmax_equals_one_softmax_over_the_whole_row():
    for v in variants("online_softmax"):
        g = v.given
        s = np.array(g["tile_1"] + g["tile_2"])  # (2n,) the whole row
        m_2, l_2, w = v.answer
        assert m_2 == s.max() > g["m_1"] == max(g["tile_1"])
        assert g["l_1"] == round(float(np.exp(np.array(g["tile_1"]) - g["m_1"]).sum()), 3)
        # l_1 is shown (and used) to 3 decimals: the rest is exact
        assert l_2 == pytest.approx(np.exp(s - s.max()).sum(), abs=1e-3)
        assert w == pytest.approx(softmax(s)[g["key"] - 1], abs=1e-3)


def test_online_softmax_is_what_blockwise_attention_does_with_two_tiles():
    """One query whose scores are the row (q = 1, k_j = s_j, scale 1) against one-hot values: the
    output of blockwise_attention with the tile as block is the softmax weights."""
    for v in variants("online_softmax")[:50]:
        s = np.array(v.given["tile_1"] + v.given["tile_2"])
        n = len(v.given["tile_1"])
        q, k, values = np.ones((1, 1)), s[:, None], np.eye(2 * n)  # (1, 1), (2n, 1), (2n, 2n)
        weights = blockwise_attention(q, k, values, block_size=n, scale=1.0)[0]  # (2n,)
        assert v.answer[2] == pytest.approx(weights[v.given["key"] - 1], abs=1e-3)


def test_online_softmax_distractors_are_the_named_update_mistakes():
    vs = variants("online_softmax", version=1)
    assert misconceptions_offered(vs) == {
        "online_no_rescale",
        "online_rescale_inverted",
        "online_tile_local_max",
        "online_dropped_old_sum",
    }
    for v in vs[:50]:
        g = v.given
        m_1, l_1, s_j = g["m_1"], g["l_1"], g["tile_1"][g["key"] - 1]
        m_2 = max(g["tile_2"])
        new = sum(math.exp(s - m_2) for s in g["tile_2"])
        expected = {
            "online_no_rescale": [m_2, l_1 + new, math.exp(s_j - m_2) / (l_1 + new)],
            "online_rescale_inverted": [
                m_2,
                l_1 * math.exp(m_2 - m_1) + new,
                math.exp(s_j - m_2) / (l_1 * math.exp(m_2 - m_1) + new),
            ],
            "online_tile_local_max": [m_2, l_1 + new, math.exp(s_j - m_1) / (l_1 + new)],
            "online_dropped_old_sum": [m_2, new, math.exp(s_j - m_2) / new],
        }
        for c in v.choices:
            if c.misconception:
                assert c.value == pytest.approx(expected[c.misconception], abs=0.005001)


# --- stable_softmax ------------------------------------------------------------------------------


def test_stable_softmax_matches_torch(torch):
    dtypes = {"float32": torch.float32, "float64": torch.float64}
    for v in variants("stable_softmax"):
        x = torch.tensor(v.given["x"], dtype=dtypes[v.given["dtype"]])
        assert v.answer == pytest.approx(torch.softmax(x, dim=-1).tolist(), abs=1e-5)


def test_stable_softmax_shows_the_overflow_it_avoids():
    limits = {"float32": np.float32, "float64": np.float64}
    for v in variants("stable_softmax"):
        naive = v.solution[0]
        assert naive.misconception == "no_max_subtraction" and naive.misconception in MISCONCEPTIONS
        assert naive.value is None and "inf" in naive.formula and "nan" in naive.formula
        x = np.array(v.given["x"], dtype=limits[v.given["dtype"]])
        with np.errstate(over="ignore"):
            overflowing = [j + 1 for j in range(len(x)) if np.isinf(np.exp(x[j]))]
        assert overflowing and f"(j = {', '.join(map(str, overflowing))})" in naive.formula
        assert v.to_dict()["solution"][0]["misconception"] == "no_max_subtraction"
        assert Variant.from_dict(v.to_dict()) == v


def test_stable_softmax_distractors():
    vs = variants("stable_softmax", version=1)
    assert misconceptions_offered(vs) == {
        "linear_normalisation",
        "shifted_linear_normalisation",
        "softmax_as_argmax",
        "clamp_logits",
    }
    v = generators.generate("stable_softmax", 0, version=1)
    x = np.array(v.given["x"])
    for c in v.choices:
        if c.misconception == "linear_normalisation":
            assert c.value == pytest.approx(x / x.sum(), abs=0.005001)
        if c.misconception == "softmax_as_argmax":
            assert c.value == (x == x.max()).astype(float).tolist()


def test_steps_of_the_other_templates_name_no_misconception():
    """Only a step that shows a mistake on purpose names one; serialised steps stay as they were."""
    for name in ("attention_output", "kv_cache_memory", "online_softmax"):
        v = generators.generate(name, 0)
        assert all(s.misconception is None and "misconception" not in s.to_dict() for s in v.solution)
