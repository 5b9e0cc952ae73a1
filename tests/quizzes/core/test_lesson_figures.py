"""The figures of lessons 4, 6 and 7 (issue 29), drawn on the server from the engine's numbers. Each figure's numbers
are recomputed here with plain numpy from the formulas the lessons teach, the SVG parses as XML and carries the
numbers and labels a learner reads, it reads in Chinese and it is no wider than a 360 px phone;
the lessons API serves them as data (tests/quizzes/api/test_lesson_teaching.py)."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from django.utils import translation

from quizzes.content.teaching import FIGURE_NAMES
from quizzes.core.figures import FIGURES, figure_svg, lesson_figure, lesson_figure_data

SVG = "{http://www.w3.org/2000/svg}"
NEW = (
    "sinusoid_heatmap",
    "rope_rotations",
    "flops_vs_context",
    "param_breakdown",
    "kv_cache_bars",
    "paged_block_table",
)


def _svg(name: str) -> tuple[str, ET.Element]:
    svg = str(figure_svg(FIGURES[name](), ident="t"))
    return svg, ET.fromstring(svg)  # well-formed, or this raises


def _texts(root: ET.Element) -> list[str]:
    """What a learner reads on the picture: every <text> element outside the cells' and bars' tooltips."""
    return ["".join(t.itertext()) for t in root.iter(f"{SVG}text")]


@pytest.mark.parametrize("name", NEW)
def test_each_figure_is_a_named_accessible_svg_that_fits_a_phone(name):
    assert name in FIGURE_NAMES
    _, root = _svg(name)
    assert root.get("role") == "img" and root.find(f"{SVG}title").text and root.find(f"{SVG}desc").text
    width = int(root.get("viewBox").split()[2])
    assert width <= 360 <= int(root.get("width"))  # laid out for a phone, drawn larger where there is room


# --------------------------------------------------------------------------- lesson 4


def test_the_sinusoid_table_is_vaswanis_formula_fast_pairs_left_slow_right():
    data = FIGURES["sinusoid_heatmap"]()
    pe = np.array(data["weights"])  # (10, 8)
    pos, i = np.arange(10)[:, None], np.arange(4)[None, :]  # (10, 1), (1, 4)
    angle = pos / 10000 ** (2 * i / 8)  # (10, 4)
    assert pe.shape == (10, 8)
    np.testing.assert_allclose(pe[:, 0::2], np.sin(angle), atol=1e-12)
    np.testing.assert_allclose(pe[:, 1::2], np.cos(angle), atol=1e-12)
    spread = np.ptp(pe, axis=0)  # (8,) how much each dimension changes over positions 0..9
    assert spread[0] > 1.5 and spread[-1] < 1e-3 and spread[-2] < 0.02  # fast pair on the left, slow on the right
    assert data["scale"] == "signed" and data["col_labels"][:2] == ["sin₀", "cos₀"]
    _, root = _svg("sinusoid_heatmap")
    texts = _texts(root)
    for value in (np.sin(2.0), np.cos(3.0), np.sin(0.1 * 9)):  # the cells of pos 2 sin₀, pos 3 cos₀, pos 9 sin₁
        assert f"{value:.2f}" in texts
    assert "pos" in texts and "cos₃" in texts


def test_the_rope_turns_are_l_theta_over_two_pi_split_at_yarns_thresholds():
    data = FIGURES["rope_rotations"]()
    turns = 4096 * 10000.0 ** (-np.arange(0, 128, 2) / 128) / (2 * np.pi)  # (64,)
    assert round(turns[0]) == 652 and turns[-1] < 0.1  # the lesson's "约 652 圈" and "连十分之一圈都没转完"
    kept, blended, interpolated = (np.array(s["points"]) for s in data["series"])
    np.testing.assert_allclose(np.concatenate([kept, blended, interpolated])[:, 1], turns)
    assert (kept[:, 1] > 32).all() and ((blended[:, 1] >= 1) & (blended[:, 1] <= 32)).all()
    assert (interpolated[:, 1] < 1).all()
    assert kept[:, 0].tolist() == np.flatnonzero(turns > 32).tolist()  # pair indices on x
    assert data["y_scale"] == "log" and [g["value"] for g in data["guides"]] == [32, 1]
    _, root = _svg("rope_rotations")
    assert len([c for c in root.iter(f"{SVG}circle") if c.get("class") == "plot-dot"]) == 64
    texts = _texts(root)
    assert "652" in texts and f"{turns[-1]:.3f}" in texts and "32 turns" in texts and "1 turn" in texts


def test_the_rope_turns_read_in_chinese():
    with translation.override("zh-hans"):
        svg = str(lesson_figure("rope_rotations"))
    assert "超过 32 圈：不插值" in svg and "不满 1 圈：完全插值（同 PI）" in svg and "维度对 i" in svg


# --------------------------------------------------------------------------- lesson 6


def test_the_flops_lines_and_their_crossovers_are_the_lessons_table():
    data = FIGURES["flops_vs_context"]()
    d = 768
    lines = {s["name"]: np.array(s["points"]) for s in data["series"]}  # (2, 2): (T, millions of FLOPs) at both ends
    weights, mlp, full, causal = lines.values()
    T = full[:, 0]
    np.testing.assert_allclose(weights[:, 1], 24 * d * d / 1e6)
    np.testing.assert_allclose(mlp[:, 1], 16 * d * d / 1e6)
    np.testing.assert_allclose(full[:, 1], 4 * T * d / 1e6)
    np.testing.assert_allclose(causal[:, 1], 2 * T * d / 1e6)
    # where the rising lines meet the flat ones: solve 4Td = 16d², 24d² and 2Td = 16d², 24d² for T
    crossings = sorted([16 * d / 4, 24 * d / 4, 16 * d / 2, 24 * d / 2])
    assert crossings == [4 * d, 6 * d, 8 * d, 12 * d]
    assert sorted(m["x"] for m in data["marks"]) == crossings
    assert [m["text"] for m in sorted(data["marks"], key=lambda m: m["x"])] == ["4d", "6d", "8d", "12d"]
    assert T[-1] > crossings[-1]
    _, root = _svg("flops_vs_context")
    texts = _texts(root)
    assert all(str(int(t)) in texts for t in crossings)  # the x axis reads the T of each crossover
    assert "12d" in texts and "all weights 24d²" in texts and "T × T causal 2Td" in texts


# --------------------------------------------------------------------------- lesson 7


def test_the_kv_cache_bars_are_bytes_per_token_per_layer():
    data = FIGURES["kv_cache_bars"]()
    example, deepseek = data["groups"]
    per_layer = lambda n_kv, hs, nbytes: 2 * n_kv * hs * nbytes  # noqa: E731 - K and V of n_kv heads
    assert [b["value"] for b in example["bars"]] == [per_layer(40, 128, 2), per_layer(8, 128, 2), per_layer(1, 128, 2)]
    assert example["bars"][0]["value"] * 40 == 800 * 1024  # times 40 layers: the lesson's table, 800 KiB per token
    mla = (512 + 64) * 2  # one c^KV and one k^R, bf16
    values = [b["value"] for b in deepseek["bars"]]
    assert values == [per_layer(128, 128, 2), per_layer(8, 128, 2), per_layer(1, 128, 2), mla]
    assert round(values[0] / mla) == 57  # the lesson's "约是它的 57 倍"
    _, root = _svg("kv_cache_bars")
    texts = _texts(root)
    for text in ("20 KiB", "4 KiB", "512 B", "64 KiB", "1.125 KiB", "MLA (512+64)"):
        assert text in texts
    assert not any("1/5" in t for t in texts)  # the fraction is what the section's checkpoint asks
    bars = {b.find(f"{SVG}text").text: float(b.find(f"{SVG}rect").get("width")) for b in root.iter(f"{SVG}g")}
    assert bars["MHA (128)"] > bars["MHA (40)"] > bars["GQA (8)"] > bars["MLA (512+64)"] > bars["MQA (1)"]
    # a log axis: length differences are ratios, 64 KiB / 4 KiB = 16 against 4 KiB / 512 B = 8
    ratio = (bars["MHA (128)"] - bars["GQA (8)"]) / (bars["GQA (8)"] - bars["MQA (1)"])
    assert ratio == pytest.approx(np.log(16) / np.log(8), abs=0.01)


def test_the_kv_cache_bars_read_in_chinese():
    with translation.override("zh-hans"):
        data = lesson_figure_data("kv_cache_bars")
        svg = str(lesson_figure("kv_cache_bars"))
    assert data["groups"][0]["title"] == "40 个头、hs = 128、fp16"
    assert "DeepSeek-V2 的形状：128 个头、hs = 128、bf16" in svg and "每层每 token 的字节数（对数刻度）" in svg
    assert re.search(r"<desc[^>]*>[^<]*MLA \(512\+64\) 1\.125 KiB", svg)


def test_the_block_tables_fill_in_order_and_point_to_distinct_physical_blocks():
    data = FIGURES["paged_block_table"]()
    size = data["block_size"]
    assert size == 4  # the paper's figure 6
    used = []
    for seq in data["sequences"]:
        n = seq["tokens"]
        blocks = int(np.ceil(n / size))
        table = seq["table"]
        assert [e["logical"] for e in table] == list(range(blocks))
        assert [e["filled"] for e in table] == [size] * (blocks - 1) + [n - size * (blocks - 1)]  # only the last gaps
        tokens = [t for e in table for t in data["physical"][e["physical"]]["tokens"]]
        assert tokens == list(range(1, n + 1))  # read through the block table, the sequence comes back in order
        assert all(data["physical"][e["physical"]]["owner"] == seq["name"] for e in table)
        used += [e["physical"] for e in table]
    assert len(set(used)) == len(used) and used != sorted(used)  # distinct, and scattered rather than contiguous
    free = [b["block"] for b in data["physical"] if b["owner"] is None]
    assert sorted(free + used) == list(range(len(data["physical"])))
    _, root = _svg("paged_block_table")
    texts = _texts(root)
    a0 = data["sequences"][0]["table"][-1]
    assert f"→ physical {a0['physical']}, {a0['filled']}/4 filled" in texts and "A7" in texts and "B6" in texts
    assert texts.count("free") == len(free)


def test_the_block_tables_read_in_chinese():
    with translation.override("zh-hans"):
        svg = str(lesson_figure("paged_block_table"))
    assert "序列 A：7 个 token，占 2 块，最后一块空 1 个槽" in svg and "显存里的物理块" in svg and "逻辑块 1" in svg


def test_the_parameter_shares_are_nanogpts_gpt2_sizes():
    data = FIGURES["param_breakdown"]()
    V, ctx = 50257, 1024
    sizes = {"gpt2": (12, 768), "gpt2-medium": (24, 1024), "gpt2-large": (36, 1280), "gpt2-xl": (48, 1600)}
    assert [row["label"] for row in data["rows"]] == list(sizes)
    for row, (L, d) in zip(data["rows"], sizes.values(), strict=True):
        # nanoGPT's GPT, biased: wte + wpe, per block 12d² weights + 9d biases + two LayerNorms (4d), and ln_f (2d)
        emb, attn, mlp = V * d + ctx * d, L * 4 * d * d, L * 8 * d * d
        total = emb + attn + mlp + L * 13 * d + 2 * d
        assert row["values"] == [emb, attn, mlp, L * 13 * d + 2 * d] and row["total"] == total
    assert data["rows"][0]["total"] == 124_439_808  # the lesson's table
    shares = [row["values"][0] / row["total"] for row in data["rows"]]
    assert shares == sorted(shares, reverse=True) and round(shares[0], 3) == 0.316  # "约 31.6%", then falling
    _, root = _svg("param_breakdown")
    texts = _texts(root)
    assert "gpt2: 124,439,808 parameters, embeddings 31.6%" in texts and "31.6%" in texts
    assert any(t.startswith("gpt2-xl: 1,557,611,200 parameters, embeddings 5.3%") for t in texts)
    assert "biases + LayerNorm (at most 0.10%)" in texts


def test_the_parameter_shares_read_in_chinese():
    with translation.override("zh-hans"):
        svg = str(lesson_figure("param_breakdown"))
    assert "gpt2：124,439,808 个参数，嵌入占 31.6%" in svg and "偏置 + LayerNorm（至多 0.10%）" in svg
