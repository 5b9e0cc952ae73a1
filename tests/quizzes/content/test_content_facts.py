"""The lesson files say true things, and their choice questions can only be passed by knowing the material.

Each correction made to fixtures/lessons/*.yaml has a test here: where the claim is about numpy,
PyTorch or arithmetic it is checked by running it, and the fixture text is checked for the right
claim being present and the wrong one gone. The last block enforces the item-writing rules of
fixtures/lessons/README.md ("How to write a question"): option widths, where the correct option
sits among them, no all/none-of-the-above, conventions for indexing and spelling.
"""

from __future__ import annotations

import math
import re
import warnings
from pathlib import Path

import numpy as np
import pytest
import yaml

from attention_engine.blockwise import blockwise_attention
from attention_engine.core import scaled_dot_product_attention, softmax
from attention_engine.misconceptions import get as misconception
from quizzes.content import cues

LESSONS_DIR = Path(__file__).resolve().parents[3] / "fixtures" / "lessons"
FILES = sorted(LESSONS_DIR.glob("*.yaml"))


def _load() -> dict[str, dict]:
    lessons = {}
    for path in FILES:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        lessons[data["key"]] = data
    return lessons


LESSONS = _load()
QUESTIONS = {q["key"]: q for lesson in LESSONS.values() for q in lesson["questions"]}
CHOICE = [q for q in QUESTIONS.values() if q["kind"] == "choice" and q.get("published", True)]


def q(key: str) -> dict:
    return QUESTIONS[key]


def text_of(question: dict) -> str:
    """Every learner-visible text of a question, joined."""
    parts = [question.get(name) or "" for name in ("prompt", "explanation", "reference_answer")]
    parts += question.get("rubric", []) + question.get("expected_lines", [])
    for option in question.get("options", []):
        parts += [option["text"], option.get("feedback") or ""]
    return "\n".join(parts)


def lesson_text(key: str) -> str:
    lesson = LESSONS[key]
    return "\n".join([lesson["title"], lesson.get("summary", "")] + [text_of(x) for x in lesson["questions"]])


def correct_option(question: dict) -> dict:
    return next(o for o in question["options"] if o.get("correct"))


def option(question: dict, key: str) -> dict:
    return next(o for o in question["options"] if o["key"] == key)


# --------------------------------------------------------------------------- lesson 1


def test_dot_T_reverses_all_axes_and_only_swapaxes_swaps_the_last_two():
    a = np.zeros((2, 4, 16))
    assert a.T.shape == (16, 4, 2)
    assert a.swapaxes(-2, -1).shape == (2, 16, 4)
    m = np.arange(6.0).reshape(2, 3)
    assert np.array_equal(m.T, m.swapaxes(-2, -1))  # the same on a 2-D array
    explanation = q("l1-code-three-lines")["explanation"]
    assert "只转置最后两维" not in explanation and "（或 `.T`）" not in explanation
    assert "反转**全部**轴" in explanation and "(2, 4, 5, 16)" in explanation
    from attention_engine.codecheck import get

    batched = next(c for c in get("sdpa_three_lines").cases if c.batch)
    assert (*batched.batch, batched.dims["T"], batched.dims["d_k"]) == (2, 4, 5, 16)  # the shape the text names


def test_a_token_is_not_always_most_similar_to_itself():
    x1, x2 = np.array([1.0, 0.0]), np.array([2.0, 0.0])
    assert x1 @ x2 == 2 > x1 @ x1 == 1
    scores = np.stack([x1, x2]) @ np.stack([x1, x2]).T  # Q = K = X
    assert scores[0].argmax() == 1  # row 1 attends most to token 2, not to itself
    text = text_of(q("l1-qkv-source"))
    assert "最像的永远是自己" not in text
    assert "$x_1=[1,0]$" in option(q("l1-qkv-source"), "b")["feedback"]


def test_code_card_replaces_the_recall_card_and_its_softmax_helper_runs_over_the_last_axis():
    card = q("l1-code-three-lines")
    assert "l1-recall-three-lines" not in QUESTIONS  # retired: the code card replaces it
    assert card["kind"] == "code" and card["replaces"] == "l1-recall-three-lines"
    assert "axis=-1" in card["explanation"]
    from attention_engine.codecheck import get

    assert "def softmax(x, axis=-1):" in get(card["code_spec"]).display_code()

    def seed_softmax(x):  # seed 000's helper, verbatim in behaviour
        x = x - x.max(axis=-1, keepdims=True)
        e = np.exp(x)
        return e / e.sum(axis=-1, keepdims=True)

    scores = np.random.default_rng(0).standard_normal((4, 4))
    assert np.allclose(seed_softmax(scores).sum(axis=-1), 1)  # each query row sums to 1
    assert not np.allclose(seed_softmax(scores).sum(axis=0), 1)


FIVE_STEPS = ("投影", "打分", "缩放", "softmax", "加权求和")


def _in_order(text: str, words) -> bool:
    position = 0
    for word in words:
        found = text.find(word, position)
        if found < 0:
            return False
        position = found + len(word)
    return True


@pytest.mark.parametrize(
    "key, field",
    [
        ("l1-num-five-step-shapes", "prompt"),
        ("l1-num-five-step-shapes", "explanation"),
        ("l1-interview-formula", "reference_answer"),
        ("l1-interview-formula", "explanation"),
    ],
)
def test_the_five_steps_have_one_name_everywhere(key, field):
    text = q(key)[field]
    assert _in_order(text, FIVE_STEPS), (key, field)
    assert "掩码 → softmax" not in text
    numbered = re.findall(r"(?<![\w.])([1-5])[ .]\s*\**(投影|打分|缩放|softmax|加权求和)", text)
    assert [name for _, name in numbered] == list(FIVE_STEPS), numbered  # each step numbered once, in order
    assert all(FIVE_STEPS[int(n) - 1] == name for n, name in numbered), numbered


def test_the_max_subtraction_prevents_overflow_and_changes_nothing():
    with np.errstate(over="ignore", invalid="ignore"):
        assert np.isfinite(np.exp(709.0)) and np.isinf(np.exp(710.0))  # float64
        assert np.isfinite(np.exp(np.float32(88.0))) and np.isinf(np.exp(np.float32(89.0)))  # float32
        x = np.array([1000.0, 999.0])
        naive = np.exp(x) / np.exp(x).sum()
    assert np.isnan(naive).all()  # inf / inf
    shifted = np.exp(x - x.max()) / np.exp(x - x.max()).sum()
    assert np.allclose(shifted, [1 / (1 + math.e**-1), 1 - 1 / (1 + math.e**-1)])
    small = np.array([0.3, -1.2, 2.0])
    assert np.allclose(softmax(small), np.exp(small) / np.exp(small).sum())  # shift-invariant: same result
    assert misconception("no_max_subtraction").id == "no_max_subtraction"
    question = q("l1-softmax-max-shift")
    assert "709" in question["explanation"] and "88" in question["explanation"]
    assert "不会再溢出" in correct_option(question)["text"]


def test_self_attention_is_permutation_equivariant_until_a_causal_mask_is_added():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((5, 8))
    W_q, W_k, W_v = rng.standard_normal((3, 8, 4))
    perm = rng.permutation(5)

    def attend(x, **kw):
        return scaled_dot_product_attention(x @ W_q, x @ W_k, x @ W_v, **kw)

    assert np.allclose(attend(X[perm]), attend(X)[perm])
    assert not np.allclose(attend(X[perm], is_causal=True), attend(X, is_causal=True)[perm])
    assert "重新排列" in correct_option(q("l1-permutation-equivariance"))["text"]
    assert "位置编码" in q("l1-permutation-equivariance")["explanation"]


def test_hide_masks_combine_by_or_and_additive_masks_by_sum():
    T = 4
    causal_hide = np.triu(np.ones((T, T), dtype=bool), k=1)  # seed 000: True = future
    pad_hide = np.array([True, False, False, False])[None, :]  # left padding: key 1 is padding
    combined = causal_hide | pad_hide
    additive = np.where(causal_hide, -np.inf, 0.0) + np.where(pad_hide, -np.inf, 0.0)
    assert np.array_equal(np.isneginf(additive), combined)
    assert not np.array_equal(causal_hide & pad_hide, combined)  # AND lets the padding through
    scores = np.random.default_rng(1).standard_normal((T, T))
    weights = softmax(np.where(combined, -np.inf, scores)[1:])  # row 1 (padding query) sees nothing
    assert np.all(weights[:, 0] == 0)  # no real token draws from the padding
    assert "逻辑或" in correct_option(q("l1-mask-combine"))["text"]
    assert "列" in correct_option(q("l1-padding-mask"))["text"]


def exercise_softmax(x):
    """Seed 000's hand-written softmax, verbatim in behaviour: max subtracted first, no special case."""
    x = x - x.max(axis=-1, keepdims=True)
    e = np.exp(x)
    return e / e.sum(axis=-1, keepdims=True)


def _left_padded(T=5, n_pad=2, d=8, seed=4):
    """A left-padded sequence: (T, d) inputs whose first n_pad rows are padding, the hide mask
    (True = hidden) of causal | padding key, and a small two-layer residual attention stack."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((T, d))  # (T, d)
    weights = rng.standard_normal((2, 3, d, d)) / np.sqrt(d)  # 2 layers x (W_q, W_k, W_v)
    causal_hide = np.triu(np.ones((T, T), dtype=bool), k=1)  # (T, T), True = future
    pad_key = np.arange(T) < n_pad  # (T,), True = padding
    return x, weights, causal_hide | pad_key[None, :], n_pad


def _two_layers(x, weights, hide, fill=-np.inf, softmax_fn=exercise_softmax, after=None):
    """x -> x + attention(x), twice; hidden scores replaced by ``fill`` with np.where (as in seed 000)."""
    for W_q, W_k, W_v in weights:
        q, k, v = x @ W_q, x @ W_k, x @ W_v  # (T, d) each
        scores = np.where(hide, fill, q @ k.T / np.sqrt(q.shape[-1]))  # (T, T)
        w = softmax_fn(scores)  # (T, T)
        if after is not None:
            w = after(w)
        x = x + w @ v  # (T, d)
    return x


def test_left_padding_with_a_causal_mask_gives_nan_rows_that_spread_to_every_row_in_the_next_layer():
    x, weights, hide, n_pad = _left_padded()
    assert hide[:n_pad].all(axis=-1).all() and not hide[n_pad:].all(axis=-1).any()  # pad query rows see nothing
    with np.errstate(invalid="ignore"):
        w = exercise_softmax(np.where(hide, -np.inf, np.zeros(hide.shape)))
        one_layer = _two_layers(x, weights[:1], hide)
        two_layers = _two_layers(x, weights, hide)
    assert np.isnan(w[:n_pad]).all() and np.isfinite(w[n_pad:]).all()  # -inf - (-inf) = nan in the pad rows
    assert np.isnan(one_layer[:n_pad]).all() and np.isfinite(one_layer[n_pad:]).all()  # real rows fine after layer 1
    assert np.isnan(two_layers).all()  # layer 2: 0 * nan = nan reaches every row
    assert np.isnan(np.float64(0.0) * np.nan)
    # the distractors of l1-pad-causal-fix: an epsilon in the denominator does not help ...
    with np.errstate(invalid="ignore"):
        eps = _two_layers(x, weights, hide, softmax_fn=_eps_softmax)
    assert np.isnan(eps).all()
    # ... and a fill of 0, or dropping the padding mask, removes the nan but changes the real tokens' outputs
    reference = _unpadded_reference(x, weights, n_pad)
    assert np.isfinite(zero := _two_layers(x, weights, hide, fill=0.0)).all()
    assert not np.allclose(zero[n_pad:], reference)
    causal_only = _two_layers(x, weights, np.triu(np.ones(hide.shape, dtype=bool), k=1))
    assert np.isfinite(causal_only).all() and not np.allclose(causal_only[n_pad:], reference)
    question = q("l1-pad-causal-nan")
    assert "每一行" in correct_option(question)["text"]
    assert "0\\times\\text{NaN}=\\text{NaN}" in question["explanation"]
    assert "finfo.min" in correct_option(q("l1-pad-causal-fix"))["text"]
    for key, fragment in (("b", "0，而不是"), ("c", "varepsilon"), ("d", "只保留因果掩码")):
        assert fragment in option(q("l1-pad-causal-fix"), key)["text"], key


def _eps_softmax(x, eps=1e-9):
    x = x - x.max(axis=-1, keepdims=True)  # the same first line as seed 000's softmax
    e = np.exp(x)
    return e / (e.sum(axis=-1, keepdims=True) + eps)


def _unpadded_reference(x, weights, n_pad):
    """The real tokens alone, no padding at all: what a correct padded run must give them."""
    real = x[n_pad:]
    T = real.shape[0]
    return _two_layers(real, weights, np.triu(np.ones((T, T), dtype=bool), k=1))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_the_three_fixes_keep_every_row_finite_and_the_real_tokens_unchanged(dtype):
    x, weights, hide, n_pad = _left_padded()
    x, weights = x.astype(dtype), weights.astype(dtype)
    reference = _unpadded_reference(x, weights, n_pad)
    eye = np.eye(hide.shape[0], dtype=bool)
    with np.errstate(invalid="ignore"):  # the third fix lets the nan happen, then overwrites those rows
        fixes = {
            "finfo.min": _two_layers(x, weights, hide, fill=np.finfo(dtype).min),
            "a pad token sees itself": _two_layers(x, weights, hide & ~eye),
            "rows zeroed": _two_layers(
                x, weights, hide, after=lambda w: np.where(hide.all(axis=-1, keepdims=True), 0.0, w)
            ),
        }
    for name, out in fixes.items():
        assert np.isfinite(out).all(), name
        assert np.allclose(out[n_pad:], reference, atol=1e-5), name  # the real tokens see exactly what they did
    filled = exercise_softmax(np.where(hide, np.finfo(dtype).min, np.ones(hide.shape, dtype=dtype)))
    assert np.allclose(filled[:n_pad], 1 / hide.shape[0])  # a fully hidden row: uniform, finite
    assert (filled[n_pad:][hide[n_pad:]] == 0).all()  # exp(finfo.min - m) underflows to exactly 0
    with np.errstate(over="ignore"):
        assert np.isneginf(np.finfo(dtype).min + np.finfo(dtype).min)  # two additive finfo.min masks overflow
    explanation = q("l1-pad-causal-fix")["explanation"]
    assert "finfo" in explanation and "看见自己" in explanation and "置 0" in explanation
    assert "溢出成 $-\\infty$" in explanation


@pytest.mark.torch
def test_pytorch_sdpa_returns_zeros_for_a_fully_masked_row_where_a_hand_softmax_gives_nan(torch):
    from torch.nn.attention import SDPBackend, sdpa_kernel

    T, n_pad = 5, 2
    g = torch.Generator().manual_seed(5)
    q_, k_, v_ = torch.randn(3, 1, 1, T, 8, generator=g).unbind(0)
    may_attend = torch.ones(T, T, dtype=torch.bool).tril() & (torch.arange(T) >= n_pad)[None, :]  # True = may attend
    assert not may_attend[:n_pad].any()  # the left-padding rows see nothing
    sdpa = torch.nn.functional.scaled_dot_product_attention
    for backend in (None, SDPBackend.MATH):
        if backend is None:
            out = sdpa(q_, k_, v_, attn_mask=may_attend)
        else:
            with sdpa_kernel(backend):
                out = sdpa(q_, k_, v_, attn_mask=may_attend)
        assert torch.equal(out[..., :n_pad, :], torch.zeros_like(out[..., :n_pad, :])), backend  # zeros, not nan
        assert torch.isfinite(out).all()
    scores = (q_ @ k_.transpose(-2, -1) / math.sqrt(8)).masked_fill(~may_attend, float("-inf"))
    hand = torch.softmax(scores, dim=-1)
    assert torch.isnan(hand[..., :n_pad, :]).all() and torch.isfinite(hand[..., n_pad:, :]).all()
    rest = sdpa(q_[..., n_pad:, :], k_, v_, attn_mask=may_attend[n_pad:])
    assert torch.allclose(out[..., n_pad:, :], rest, atol=1e-6)  # the real rows as if the pad rows were absent
    assert "输出 0" in option(q("l1-pad-causal-nan"), "c")["feedback"]
    assert "输出 0" in q("l1-mask-combine")["explanation"]


def test_a_right_padding_query_row_still_sees_the_real_tokens():
    T, n_real = 5, 3  # padding at the end (l1-padding-mask)
    pad_key = np.arange(T) >= n_real
    scores = np.random.default_rng(6).standard_normal((T, T))
    for hide in (np.broadcast_to(pad_key, (T, T)), np.triu(np.ones((T, T), dtype=bool), k=1) | pad_key):
        assert not hide.all(axis=-1).any()  # every row keeps a visible key ...
        assert np.isfinite(exercise_softmax(np.where(hide, -np.inf, scores))).all()  # ... so no nan
    explanation = q("l1-padding-mask")["explanation"]
    assert "前提是这一行还有可看的 key" in explanation and "真实 token" in explanation
    assert "NaN" in explanation


def test_the_padding_nan_is_an_interview_point():
    card = q("l1-interview-causal-mask")
    assert "左侧补齐" in card["prompt"]
    assert any("NaN" in point and "finfo.min" in point for point in card["rubric"])
    assert "0\\times\\text{NaN}" in card["reference_answer"]


@pytest.mark.torch
def test_the_variance_argument_is_the_papers_assumption_and_nanogpt_does_not_start_at_unit_variance(torch):
    # nanoGPT's first block at init: x = wte + wpe (each N(0, 0.02²)), ln_1, c_attn with W ~ N(0, 0.02²), C = 768
    g = torch.Generator().manual_seed(7)
    B, T, C = 8, 128, 768
    x = torch.randn(B, T, C, generator=g) * 0.02 + torch.randn(1, T, C, generator=g) * 0.02
    c_attn = torch.empty(3 * C, C).normal_(0.0, 0.02, generator=g)  # _init_weights: normal_(std=0.02)
    ln = torch.nn.functional.layer_norm(x, (C,), eps=1e-5)  # weight 1, bias 0 at init
    q_, _, _ = (ln @ c_attn.T).split(C, dim=-1)
    assert abs(q_.var().item() - 0.31) < 0.02  # var(q_i) = C * 0.02² = 0.3072, not 1
    assert round(C * 0.02**2, 2) == 0.31
    # the argument survives any per-component variance: var(q·k) = d_k σ_q² σ_k², still ∝ d_k
    rng = np.random.default_rng(8)
    for d_k in (16, 256):
        qk = rng.normal(0, np.sqrt(0.31), (2, 20000, d_k))
        assert abs((qk[0] * qk[1]).sum(-1).var() / (d_k * 0.31**2) - 1) < 0.05
    places = (("why-scale", None), ("l1-why-scale", "explanation"), ("l1-interview-formula", "reference_answer"))
    for key, field in places:
        text = _teaching_body("sdpa", key) if field is None else q(key)[field]
        assert "假设" in text and "0.31" in text, key
        assert "初始化时的状态" not in text and "初始化时的情形" not in text and "初始化时的假设" not in text, key
    assert "论文的假设" in " ".join(q("l1-interview-formula")["rubric"])


def _teaching_body(lesson: str, section: str) -> str:
    return next(x["body"] for x in LESSONS[lesson]["teaching"] if x["key"] == section)


def test_over_scaling_flattens_the_softmax_without_killing_its_gradient():
    """÷d_k starts near uniform, but the softmax Jacobian stays large there; saturation (no scaling) kills it."""
    rng = np.random.default_rng(9)
    d_k, n_keys = 512, 8
    dots = np.einsum("nd,nkd->nk", rng.standard_normal((2000, d_k)), rng.standard_normal((2000, n_keys, d_k)))

    def mean_jacobian_norm(scores):
        p = exercise_softmax(scores)  # (n, k)
        jac = np.einsum("nk,kl->nkl", p, np.eye(n_keys)) - np.einsum("nk,nl->nkl", p, p)  # diag(p) - p pᵀ
        return np.linalg.norm(jac, axis=(1, 2)).mean()

    unscaled, over = mean_jacobian_norm(dots), mean_jacobian_norm(dots / d_k)
    assert exercise_softmax(dots / d_k).max(-1).mean() < 0.2  # near uniform (1/8 = 0.125)
    assert over > 4 * unscaled  # the saturated softmax has the vanishing gradient, not the flat one
    for key, field in (("l1-divide-by-dk", "explanation"), ("l1-interview-formula", "reference_answer")):
        text = q(key)[field]
        assert "缩放过头和不缩放一样糟" not in text and "学习信号同样变弱" not in text, key
        assert "μP" in text and "Yang et al. 2022" in text and "1/d_{head}" in text, key


def test_a_causal_mask_lets_a_model_without_positional_encoding_recover_position():
    """Uniform attention under a causal mask gives position i the value 1/i for a start-of-sequence marker."""
    T = 6
    v = np.zeros((T, 1))
    v[0] = 1.0  # the first token marks the start (Kazemnejad et al. 2023 use a <bos> token)
    w = exercise_softmax(np.where(np.triu(np.ones((T, T), dtype=bool), k=1), -np.inf, 0.0))  # equal scores
    assert np.allclose((w @ v)[:, 0], 1 / np.arange(1, T + 1))  # a different number at every position
    no_mask = exercise_softmax(np.zeros((T, T))) @ v
    assert np.allclose(no_mask, no_mask[0])  # without the mask every position gets the same thing
    answer = q("l1-interview-position")["reference_answer"]
    assert "不能替代位置编码" not in answer
    assert "NoPE" in answer and "Kazemnejad et al. 2023" in answer and "**部分**" in answer
    assert any("NoPE" in point for point in q("l1-interview-position")["rubric"])


@pytest.mark.torch
def test_the_quadratic_cost_stem_does_not_name_the_answer(torch):
    from torch.utils.flop_counter import FlopCounterMode

    def flops(T, d=16):
        q_, k_, v_ = torch.randn(3, T, d).unbind(0)
        with FlopCounterMode(display=False) as counter:
            (q_ @ k_.T) @ v_  # step 2 and step 5
        return counter.get_total_flops()

    assert flops(64) == 2 * (2 * 64 * 64 * 16)  # two matmuls of T²·d multiply-adds
    assert flops(128) == 4 * flops(64)  # doubling T quadruples the work
    prompt = q("l1-quadratic-cost")["prompt"]
    assert "T\\times T" not in prompt and "中间矩阵" not in prompt and "决定" not in prompt


# --------------------------------------------------------------------------- lesson 2


def test_the_wo_chi_worked_example():
    q_wo = np.array([0.6, 0.2])
    K = np.array([[0.4, 0.7], [0.1, 0.5]])
    V = np.array([[0.8, 0.3], [0.6, 0.2]])
    dots = K @ q_wo
    assert np.allclose(dots, [0.38, 0.16])
    scaled = dots / np.sqrt(2)
    assert np.allclose(scaled.round(2), [0.27, 0.11])
    w = softmax(scaled)
    assert np.allclose(w.round(2), [0.54, 0.46])
    assert np.allclose((w.round(2) @ V).round(2), [0.71, 0.25])
    # the numbers the distractors' feedback quotes
    assert np.allclose((dots / 2).round(2), [0.19, 0.08])  # divided by d_k
    assert np.allclose(softmax(dots).round(2), [0.55, 0.45])  # scale skipped
    assert np.allclose((np.array([0.54, 0.46]) @ K).round(2), [0.26, 0.61])  # keys summed
    assert np.allclose((np.array([0.27, 0.11]) @ V).round(2), [0.28, 0.10])  # scores as weights
    assert "\\sqrt{2}" in correct_option(q("l2-two-word-scaled-scores"))["text"]
    assert "[0.26,0.61]" in option(q("l2-two-word-output"), "c")["feedback"]


def test_the_wo_ai_ni_zero_fill_row():
    s = 0.5  # a first-row score that reproduces the seed's [0.45, 0.27, 0.27]
    assert np.allclose(softmax(np.array([s, 0.0, 0.0])).round(2), [0.45, 0.27, 0.27])
    assert softmax(np.array([s, -np.inf, -np.inf])).tolist() == [1.0, 0.0, 0.0]
    assert "[0.45, 0.27, 0.27]" in q("l2-num-zero-fill-example")["explanation"]


def test_the_last_gpt_position_is_the_one_without_a_target():
    n = 40
    tokens = list(range(n))
    targets = {i: tokens[i + 1] for i in range(n - 1)}  # position i predicts token i+1
    assert len(targets) == n - 1 and n - 1 not in targets  # the last position has no next token
    assert tokens[0] not in targets.values()  # the first token is never a target
    engine = misconception("gpt_all_positions").explanation_zh
    assert "N − 1" in engine
    for key in ("l2-num-bert-gpt-positions", "l2-interview-bert-gpt"):
        text = text_of(q(key))
        assert "除第一个词外" not in text and "除第一个 token 外" not in text
        assert "最后一个位置" in text, key
        assert "第 1 个 token 从不是预测目标" in text, key


def test_the_mask_question_asks_about_the_parallel_computation_and_has_one_defensible_answer():
    question = q("l2-mask-where")
    assert "并行" in question["prompt"]
    assert "这样做结果没错" not in text_of(question)
    assert {o["key"] for o in question["options"]} == {"a", "c", "d", "e"}  # b (truncating the input) is gone
    assert "删掉它后面的词" not in text_of(question)
    # option e: a zeroed embedding has a zero key (no bias), a score of 0 and so a weight e^0 / sum > 0
    rng = np.random.default_rng(10)
    T, d = 4, 8
    X = rng.standard_normal((T, d))
    W_q, W_k = rng.standard_normal((2, d, d))
    X_zeroed = X.copy()
    X_zeroed[2:] = 0.0  # the "future" of row 2
    k_zeroed = X_zeroed @ W_k
    assert np.allclose(k_zeroed[2:], 0)
    w = exercise_softmax((X_zeroed @ W_q)[1] @ k_zeroed.T / np.sqrt(d))
    assert (w[2:] > 0).all()  # the zeroed future positions still draw weight
    assert "$e^0=1$" in option(question, "e")["feedback"] and "只有一份" in option(question, "e")["feedback"]


def test_one_metaphor_for_the_key_in_every_lesson():
    everything = "\n".join(
        yaml.dump(lesson, allow_unicode=True) for lesson in LESSONS.values()
    )  # teaching text included
    assert "我能提供什么" not in everything and "我是什么" not in everything
    assert "“我能被怎样匹配”" in _teaching_body("six-questions", "two-words")
    assert "我能被怎样匹配" in _teaching_body("nanogpt-attention", "init")
    roles = q("l2-qkv-roles")
    assert "K 我能被怎样匹配" in correct_option(roles)["text"]
    assert "我能被怎样匹配" in roles["explanation"]
    assert "“我能被怎样匹配”" in option(roles, "c")["text"]  # Q = K, in the same words


def test_the_zero_fill_leak_is_one_minus_the_self_weight():
    w = exercise_softmax(np.array([0.5, 0.0, 0.0]))
    shown = np.round(w, 2)
    assert shown.tolist() == [0.45, 0.27, 0.27]
    assert round(shown[1] + shown[2], 2) == 0.54  # the two shown numbers add to 0.54 ...
    assert round(1 - shown[0], 2) == round(w[1] + w[2], 2) == 0.55  # ... the leak itself is 1 − 0.45 ≈ 0.55
    section = next(x for x in LESSONS["six-questions"]["teaching"] if x["key"] == "causal-mask")
    checkpoint = section["checkpoint"]
    texts = [checkpoint["explanation"]] + [o["feedback"] for o in checkpoint["options"]]
    assert not any("0.27 + 0.27 \\approx 0.55" in t for t in texts)
    assert "1 - 0.45 \\approx 0.55" in checkpoint["explanation"]
    assert "1 - 0.45 \\approx 0.55" in next(o for o in checkpoint["options"] if o.get("correct"))["feedback"]


def test_bert_predicts_the_selected_15_percent_of_which_80_10_10_are_masked_random_unchanged():
    # BERT's procedure on many tokens: only 12% of the input shows [MASK], but all 15% selected are predicted
    rng = np.random.default_rng(13)
    n = 200_000
    selected = rng.random(n) < 0.15
    fate = rng.choice(["mask", "random", "same"], size=n, p=[0.8, 0.1, 0.1])
    shows_mask = selected & (fate == "mask")
    assert abs(shows_mask.mean() - 0.12) < 0.005 and abs(selected.mean() - 0.15) < 0.005
    assert round(40 * 0.15) == 6  # the supervised positions of a 40-token sentence: the selected ones
    cited = "Devlin et al. 2019，§3.1"
    body = _teaching_body("six-questions", "bert-gpt")
    assert cited in body and "80% 换成 `[MASK]`、10% 换成随机词、10% 原样保留" in body
    assert "BERT 只遮住 15% 的词" not in body
    for key in ("l2-bert-gpt-difference", "l2-num-bert-gpt-positions", "l2-interview-bert-gpt"):
        text = text_of(q(key))
        assert "80%" in text and "10%" in text, key
        assert "遮住约 15% 的词" not in text, key
    assert cited in q("l2-num-bert-gpt-positions")["explanation"]
    assert any("80%" in point for point in q("l2-interview-bert-gpt")["rubric"])


def _attention_flops_and_weights(torch, n_head, B=2, T=32, C=64):
    """nanoGPT's manual forward (c_attn, split heads, scores, mask, softmax, att @ v, merge, c_proj) under a
    FLOP counter; returns the matmul FLOPs and the number of weight elements (att) the element-wise ops touch."""
    from torch.utils.flop_counter import FlopCounterMode

    g = torch.Generator().manual_seed(11)
    x = torch.randn(B, T, C, generator=g)
    c_attn, c_proj = torch.randn(3 * C, C, generator=g), torch.randn(C, C, generator=g)
    with FlopCounterMode(display=False) as counter:
        q_, k_, v_ = (x @ c_attn.T).split(C, dim=2)
        q_, k_, v_ = (t.view(B, T, n_head, C // n_head).transpose(1, 2) for t in (q_, k_, v_))
        att = (q_ @ k_.transpose(-2, -1)) * (1.0 / math.sqrt(k_.size(-1)))  # (B, nh, T, T)
        att = torch.softmax(att.masked_fill(~torch.ones(T, T, dtype=torch.bool).tril(), float("-inf")), dim=-1)
        y = (att @ v_).transpose(1, 2).contiguous().view(B, T, C) @ c_proj.T
    assert y.shape == (B, T, C)
    return counter.get_total_flops(), att.numel()


@pytest.mark.torch
def test_multi_head_matmuls_cost_the_same_as_one_head_but_the_weight_tables_grow_n_head_times(torch):
    one, (eight, weights8) = _attention_flops_and_weights(torch, 1), _attention_flops_and_weights(torch, 8)
    flops1, weights1 = one
    B, T, C = 2, 32, 64
    assert flops1 == eight == 2 * (4 * B * T * C * C + 2 * B * T * T * C)  # projections + QKᵀ + att @ v, in FLOPs
    assert weights8 == 8 * weights1 == 8 * B * T * T  # scale, mask, softmax, dropout and the memory of att: ×n_head
    for key in ("l2-heads-dims", "l2-multihead-benefit", "l2-num-head-dimension", "l3-interview-design"):
        assert "总计算量与单头相当" not in text_of(q(key)) and "计算量与单头相当" not in text_of(q(key)), key
    assert "计算量和一个 512 维的单头差不多" not in _teaching_body("six-questions", "heads")
    assert "计算量却不变。" not in _teaching_body("nanogpt-attention", "split-heads")
    for text in (
        _teaching_body("six-questions", "heads"),
        q("l2-heads-dims")["explanation"],
    ):
        assert "8 倍" in text and "T^2\\times512" in text.replace(" ", "")
    for text in (_teaching_body("nanogpt-attention", "split-heads"), q("l3-interview-design")["reference_answer"]):
        assert "`(B, nh, T, T)`" in text and "`nh` 倍" in text
    assert "矩阵乘计算量与单头相同" in correct_option(q("l2-heads-dims"))["text"]


def test_kv_cache_memory_formula():
    n_layer, n_kv_head, hs, T, B, nbytes = 32, 32, 128, 4096, 1, 2
    assert 2 * n_layer * n_kv_head * hs * T * B * nbytes == 2 * 2**30  # the 2 GiB of the reference answer
    gqa = 2 * n_layer * 8 * hs * T * B * nbytes
    assert gqa * 4 == 2 * n_layer * n_kv_head * hs * T * B * nbytes  # 8 K/V heads: a quarter
    rubric = " ".join(q("l2-interview-kv-cache")["rubric"])
    assert "2 × n_layer × n_kv_head × head_size × T × B" in rubric
    assert "2 × n_layer × n_kv_head × head_size × T × B" in " ".join(q("l2-interview-kv-memory")["rubric"])
    assert "共用" in correct_option(q("l2-kv-cache-gqa"))["text"]


# --------------------------------------------------------------------------- lesson 3


def test_block_size_is_the_context_and_the_tile_has_its_own_name():
    text = lesson_text("nanogpt-attention")
    assert "tile_size" in q("l3-num-att-memory")["explanation"]
    assert "(B, nh, T, block_size)" not in text
    assert "block_size" in q("l3-num-att-memory")["explanation"]  # named once, to say it is something else
    assert "最大上下文" in q("l3-num-att-memory")["explanation"]


@pytest.mark.torch
def test_sdpa_may_use_the_math_backend_which_builds_the_table(torch):
    from torch.nn.attention import SDPBackend, sdpa_kernel

    g = torch.Generator().manual_seed(0)
    q_, k_, v_ = torch.randn(3, 2, 4, 6, 8, generator=g).unbind(0)
    manual = (
        torch.softmax(
            (q_ @ k_.transpose(-2, -1) / math.sqrt(8)).masked_fill(
                ~torch.ones(6, 6, dtype=torch.bool).tril(), -math.inf
            ),
            dim=-1,
        )
        @ v_
    )
    with sdpa_kernel(SDPBackend.MATH):
        math_backend = torch.nn.functional.scaled_dot_product_attention(q_, k_, v_, is_causal=True)
    assert torch.allclose(math_backend, manual, atol=1e-6)
    for key in ("l3-flash-equivalence", "l3-interview-walkthrough", "l3-interview-design"):
        assert "math" in text_of(q(key)), key
    # on this CPU: SDPA runs (option f is wrong), a fused kernel too, but dropout leaves only the math backend
    with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
        fused = torch.nn.functional.scaled_dot_product_attention(q_, k_, v_, is_causal=True)
        assert torch.allclose(fused, manual, atol=1e-5)
        with pytest.raises(RuntimeError), warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # PyTorch says why no fused kernel fits
            torch.nn.functional.scaled_dot_product_attention(q_, k_, v_, is_causal=True, dropout_p=0.1)
    with sdpa_kernel(SDPBackend.MATH):
        torch.nn.functional.scaled_dot_product_attention(q_, k_, v_, is_causal=True, dropout_p=0.1)
    question = q("l3-flash-equivalence")
    assert "任何设备" not in text_of(question)
    assert "CPU 上会报错" in option(question, "f")["text"] and "CPU 上同样能用" in option(question, "f")["feedback"]
    assert "CPU 上带 dropout" in question["explanation"]
    body = _teaching_body("nanogpt-attention", "attention")
    assert "不在显存里真正造出那张" not in body  # the old "SDPA never builds the table"
    assert "math 后端" in body and "照样会造出整张表" in body and "CPU 上带 dropout" in body


def test_flashattention_tiles_queries_and_keys_into_br_by_bc_score_blocks():
    """Dao et al. 2022, Algorithm 1: Q in blocks of B_r rows, K and V in blocks of B_c rows; the only score
    block ever held is S_ij = Q_i K_jᵀ of shape (B_r, B_c). Key-chunking alone holds a (T, tile) slab."""
    rng = np.random.default_rng(12)
    T, d, B_r, B_c = 12, 4, 3, 4
    Q, K, V = rng.standard_normal((3, T, d))
    out, m, ell = np.zeros((T, d)), np.full(T, -np.inf), np.zeros(T)
    shapes = set()
    for j in range(0, T, B_c):  # outer loop over K/V blocks, as in Algorithm 1
        K_j, V_j = K[j : j + B_c], V[j : j + B_c]
        for i in range(0, T, B_r):  # inner loop over Q blocks
            S_ij = Q[i : i + B_r] @ K_j.T / np.sqrt(d)  # (B_r, B_c)
            shapes.add(S_ij.shape)
            m_new = np.maximum(m[i : i + B_r], S_ij.max(-1))
            P = np.exp(S_ij - m_new[:, None])
            scale = np.exp(m[i : i + B_r] - m_new)
            ell[i : i + B_r] = ell[i : i + B_r] * scale + P.sum(-1)
            out[i : i + B_r] = out[i : i + B_r] * scale[:, None] + P @ V_j
            m[i : i + B_r] = m_new
    assert shapes == {(B_r, B_c)}
    assert np.allclose(out / ell[:, None], scaled_dot_product_attention(Q, K, V))  # exact, not approximate
    explanation = q("l3-num-att-memory")["explanation"]
    assert "B_r\\times B_c" in explanation and "Dao et al. 2022" in explanation and "只切 key" in explanation
    assert "分块（FlashAttention 式）" not in q("l3-num-att-memory")["prompt"]
    m_text = misconception("blockwise_materialises_full")
    assert "B_r × B_c" in m_text.explanation_zh and "B_r × B_c" in m_text.explanation_en
    assert "tiles the queries too" in m_text.explanation_en
    assert "B_r\\times B_c" in q("l3-interview-flash")["reference_answer"]


def test_the_bias_buffer_exists_only_without_flash():
    for key, field in (
        ("l3-tril-fill", "prompt"),
        ("l3-bias-slice", "explanation"),
        ("l3-interview-walkthrough", "reference_answer"),
    ):
        assert "self.flash" in q(key)[field], key


@pytest.mark.torch
def test_sdpa_boolean_mask_true_means_may_attend(torch):
    g = torch.Generator().manual_seed(1)
    T = 5
    q_, k_, v_ = torch.randn(3, 1, 2, T, 4, generator=g).unbind(0)
    causal = torch.nn.functional.scaled_dot_product_attention(q_, k_, v_, is_causal=True)
    b = torch.tril(torch.ones(T, T)).view(1, 1, T, T)  # nanoGPT's buffer, sliced to T
    sdpa = torch.nn.functional.scaled_dot_product_attention
    assert torch.allclose(sdpa(q_, k_, v_, attn_mask=b == 1), causal, atol=1e-6)  # True = may attend
    assert not torch.allclose(sdpa(q_, k_, v_, attn_mask=b == 0), causal, atol=1e-3)
    assert not torch.allclose(sdpa(q_, k_, v_, attn_mask=b), causal, atol=1e-3)  # float: added, hides nothing
    # nanoGPT's manual path hides where the buffer is 0; seed 000 hides where its triu mask is True
    scores = q_ @ k_.transpose(-2, -1) / 2.0
    nano = torch.softmax(scores.masked_fill(b == 0, float("-inf")), dim=-1) @ v_
    seed_mask = torch.from_numpy(np.triu(np.ones((T, T), dtype=bool), k=1))
    seed = torch.softmax(torch.where(seed_mask, float("-inf"), scores), dim=-1) @ v_
    assert torch.allclose(nano, causal, atol=1e-6) and torch.allclose(seed, causal, atol=1e-6)
    assert correct_option(q("l3-bias-to-sdpa"))["text"] == "`b == 1`"
    assert "可以关注" in correct_option(q("l3-sdpa-bool-mask"))["text"]


def test_online_softmax_rescales_the_old_sum():
    s = np.random.default_rng(2).standard_normal(10) * 4
    m, ell, wrong = -np.inf, 0.0, 0.0
    m_wrong = -np.inf
    for block in np.split(s, [3, 7]):
        m_new = max(m, block.max())
        ell = ell * np.exp(m - m_new) + np.exp(block - m_new).sum()
        m = m_new
        m_wrong = max(m_wrong, block.max())
        wrong = wrong + np.exp(block - m_wrong).sum()  # the old sum kept as it was
    assert np.allclose(np.exp(s - m) / ell, softmax(s))
    assert not np.allclose(np.exp(s - m_wrong) / wrong, softmax(s))
    rng = np.random.default_rng(3)
    qkv = rng.standard_normal((3, 7, 4))
    assert np.allclose(blockwise_attention(*qkv, block_size=3), scaled_dot_product_attention(*qkv))
    assert "m_{old}-m_{new}" in correct_option(q("l3-online-softmax-rescale"))["text"]


# --------------------------------------------------------------------------- conventions


def test_one_spelling_for_kv_cache_and_flashattention():
    for key in LESSONS:
        text = lesson_text(key)
        assert "KV Cache" not in text, key
        assert not re.search(r"flash attention", text, re.IGNORECASE), key
        if "Flash 版" in text:
            assert "FlashAttention" in text, key


def test_tokens_rows_and_positions_are_counted_from_one():
    for key in LESSONS:
        text = lesson_text(key)
        assert not re.search(r"第\s*0\s*(?:行|列|个|位)", text), key
        assert not re.search(r"位置\s*\$?0\s*\.\.", text), key


NUMERIC_TYPING = ("写出", "保留两位小数", "分号")
ELIMINATION_ADVICE = ("排除", "和是不是 1", "和是否为 1")


def test_choice_form_numeric_questions_teach_the_computation_not_the_format():
    numeric_choice = [x for x in QUESTIONS.values() if x["kind"] == "numeric" and x.get("answer_form") == "choice"]
    assert numeric_choice
    for question in numeric_choice:
        for field in ("prompt", "explanation"):
            for phrase in NUMERIC_TYPING:
                assert phrase not in (question.get(field) or ""), (question["key"], field, phrase)
    for question in numeric_choice + CHOICE:
        for phrase in ELIMINATION_ADVICE:
            assert phrase not in (question.get("explanation") or ""), (question["key"], phrase)


# --------------------------------------------------------------------------- item-writing rules (README)


def _live_options(question: dict) -> list[dict]:
    return [o for o in question["options"] if not o.get("retired")]


ABSOLUTES = ("任何", "总是", "根本", "只为", "永远", "从不", "绝不", "never", "always")
CHECKPOINTS = [
    {"key": f"{lesson['key']}#{section['key']}", "options": section["checkpoint"]["options"]}
    for lesson in LESSONS.values()
    for section in lesson.get("teaching", [])
    if section.get("checkpoint")
]


@pytest.mark.parametrize("question", CHOICE + CHECKPOINTS, ids=[x["key"] for x in CHOICE + CHECKPOINTS])
def test_no_absolute_word_only_in_distractors(question):
    """fixtures/lessons/README.md: an absolute word that only wrong options use eliminates them on form alone."""
    options = _live_options(question)
    correct = " ".join(o["text"] for o in options if o.get("correct"))
    for o in options:
        if not o.get("correct"):
            found = [w for w in ABSOLUTES if w in o["text"] and w not in correct]
            assert not found, (question["key"], o["key"], found)


@pytest.mark.parametrize("question", CHOICE, ids=[x["key"] for x in CHOICE])
def test_choice_question_shape(question):
    options = _live_options(question)
    assert 3 <= len(options) <= 4, question["key"]
    assert sum(bool(o.get("correct")) for o in options) == 1
    assert all((o.get("feedback") or "").strip() for o in options)
    assert (question.get("explanation") or "").strip()
    problems = cues.question_cue_problems([{**o, "is_correct": bool(o.get("correct"))} for o in options])
    assert not problems, (question["key"], [p.message for p in problems])  # rules (a) and (c), quizzes/content/cues.py
