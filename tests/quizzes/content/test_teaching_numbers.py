"""Every number the teaching text asks a learner to check by hand is recomputed here with plain numpy
(independent of the engine), and lesson 1's expected exercise output is the engine's run of the exercise."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml

from attention_engine.exercise import run_exercise

LESSONS = Path(__file__).resolve().parents[3] / "fixtures" / "lessons"


def _teaching(name: str) -> dict[str, dict[str, Any]]:
    data = yaml.safe_load((LESSONS / name).read_text(encoding="utf-8"))
    return {section["key"]: section for section in data["teaching"]}


def _softmax(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def _correct(section: dict[str, Any]) -> str:
    return next(o["text"] for o in section["checkpoint"]["options"] if o.get("correct"))


def f2(x: float) -> str:
    return f"{x:.2f}"


# --------------------------------------------------------------------------- lesson 2: six questions


@pytest.fixture(scope="module")
def six() -> dict[str, dict[str, Any]]:
    return _teaching("02-six-questions.yaml")


def test_rnn_decay_numbers(six):
    body = six["rnn-decay"]["body"]
    assert f"0.9^{{10}} \\approx {f2(0.9**10)}" in body  # 0.35
    assert f"0.9^{{50}} \\approx {0.9**50:.3f}" in body  # 0.005
    assert f"约 {0.9**50:.1%}" in body  # 0.5%


def test_two_word_example(six):
    body = six["two-words"]["body"]
    q_wo = np.array([0.6, 0.2])
    K = np.array([[0.4, 0.7], [0.1, 0.5]])
    V = np.array([[0.8, 0.3], [0.6, 0.2]])
    dots = K @ q_wo  # (2,)
    assert f"= {f2(dots[0])}" in body and f"= {f2(dots[1])}" in body  # 0.38, 0.16
    scaled = dots / np.sqrt(2)
    assert f"$\\sqrt{{2}} \\approx {f2(np.sqrt(2))}$" in body
    assert f"${f2(scaled[0])}$ 和 ${f2(scaled[1])}$" in body  # 0.27, 0.11
    w = _softmax(scaled)
    assert f"$[{f2(w[0])}, {f2(w[1])}]$" in body  # [0.54, 0.46]
    out = w @ V
    assert f"\\approx [{f2(out[0])}, {f2(out[1])}]" in body  # [0.71, 0.25]
    # the table holds the same inputs
    for row in ("[0.6, 0.2]", "[0.4, 0.7]", "[0.8, 0.3]", "[0.1, 0.5]", "[0.6, 0.2]"):
        assert row in body


def test_causal_mask_table_and_fill_zero(six):
    section = six["causal-mask"]
    body = section["body"]
    S = np.array([[0.5, 0.9, 0.2], [0.3, 0.7, 0.4], [0.1, 0.3, 0.7]])
    assert "0.5 & 0.9 & 0.2 \\\\ 0.3 & 0.7 & 0.4 \\\\ 0.1 & 0.3 & 0.7" in body
    future = np.triu(np.ones((3, 3), dtype=bool), k=1)
    W = _softmax(np.where(future, -np.inf, S))
    table = [line for line in body.splitlines() if line.startswith("| 我 |") or line.startswith("| 爱 |")]
    table += [line for line in body.splitlines() if line.startswith("| 你 |")]
    for line, row in zip(table, W, strict=True):
        cells = [c.strip() for c in line.strip("|").split("|")][1:]
        assert [float(c) for c in cells] == pytest.approx(row, abs=0.005)
    zero = _softmax(np.where(future[0], 0.0, S[0]))
    assert f"$[{f2(zero[0])}, {f2(zero[1])}, {f2(zero[2])}]$" in body  # [0.45, 0.27, 0.27]
    leaked = zero[1:].sum()
    assert _correct(section) == f2(leaked)  # 0.55
    assert f"\\approx {f2(leaked)}" in section["checkpoint"]["explanation"]


def test_bert_gpt_heads_and_kv_cache(six):
    assert f"$40 \\times 0.15 = {round(40 * 0.15)}$" in six["bert-gpt"]["body"]
    assert f"$40 - 1 = {40 - 1}$" in six["bert-gpt"]["body"]
    assert f"$512 / 8 = {512 // 8}$" in six["heads"]["body"]
    kv = six["kv-cache"]
    five, hundred = sum(range(1, 6)), sum(range(1, 101))
    assert f"$1+2+3+4+5 = {five}$" in kv["body"] and f"省约 {1 - 5 / five:.0%}" in kv["body"]
    assert f"= {hundred}$ 次" in kv["body"] and f"省约 {1 - 100 / hundred:.0%}" in kv["body"]
    assert _correct(kv) == str(sum(range(1, 11)))  # 55


# --------------------------------------------------------------------------- lesson 1


@pytest.fixture(scope="module")
def sdpa() -> dict[str, dict[str, Any]]:
    return _teaching("01-sdpa.yaml")


def test_expected_output_is_what_the_exercise_prints(sdpa):
    body = sdpa["exercise"]["body"]
    expected = body.split("预期输出：")[1].split("```text\n")[1].split("```")[0]
    assert expected == run_exercise(0)


def test_scaling_numbers(sdpa):
    body = sdpa["why-scale"]["body"]
    assert f"约为 {math.sqrt(512):.1f}" in body  # 22.6
    printed = run_exercise(0).splitlines()[-1]  # avg max weight  unscaled: 0.958  scaled: 0.365
    unscaled, scaled = printed.split("unscaled:")[1].split("scaled:")
    assert f"约 {unscaled.strip()}，缩放后约 {scaled.strip()}" in body
    assert _correct(sdpa["why-scale"]) == str(int(math.sqrt(64)))


def test_mask_and_shape_checkpoints(sdpa):
    T = 4
    assert _correct(sdpa["causal-mask"]) == str(int(np.triu(np.ones((T, T)), k=1).sum()))
    d_model, d_k = 8, 16
    X, W_q = np.zeros((T, d_model)), np.zeros((d_model, d_k))
    assert (X @ W_q).shape == (T, d_k)
    assert _correct(sdpa["five-steps"]) == f"$({d_model}, {d_k})$"


# --------------------------------------------------------------------------- lesson 3


def test_nanogpt_checkpoints():
    sections = _teaching("03-nanogpt-attention.yaml")
    B, T, C, nh = 2, 5, 12, 3
    q = np.zeros((B, T, C)).reshape(B, T, nh, C // nh)
    assert _correct(sections["split-heads"]) == f"`{q.shape}`"
    weights = _softmax(np.where(np.triu(np.ones((T, T), dtype=bool), k=1), -np.inf, np.zeros((T, T))))
    assert _correct(sections["causal-mask"]) == str(int((weights[1] > 0).sum()))


# --------------------------------------------------------------------------- every lesson teaches


@pytest.mark.parametrize("name", ["01-sdpa.yaml", "02-six-questions.yaml", "03-nanogpt-attention.yaml"])
def test_every_lesson_file_has_valid_teaching_text(name):
    from quizzes.content.teaching import parse_teaching

    data = yaml.safe_load((LESSONS / name).read_text(encoding="utf-8"))
    sections, problems = parse_teaching(data.get("teaching"))
    assert not problems, [str(p) for p in problems]
    assert len(sections) >= 4
    assert sum(1 for s in sections if s["checkpoint"]) >= 2  # checkpoints where the seed pauses


def test_lesson_one_draws_its_pictures_where_the_points_are_made(sdpa):
    assert sdpa["five-steps"]["figure"] == "five_steps"
    assert sdpa["why-scale"]["figure"] == "dk_demo"
    assert sdpa["causal-mask"]["figure"] == "causal_heatmap"
