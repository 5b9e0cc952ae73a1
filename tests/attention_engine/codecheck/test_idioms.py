"""Issue 25: the checker grades what the code computes, not how it is spelled.

Two tables. ACCEPTED: every idiom the issue lists (and those that already worked), each written as
a learner would, graded ``correct`` on a real card: the five built-in specs, or a small card of the
next lessons (sinusoidal positions, layer norm, GQA's repeated heads, a two-way log-sum-exp) where
the built-in ones have no natural place for it. NAMED: every wrong answer the issue names, with the
verdict, the suggested rating and the misconception the learner is told, on the line that defines
the name. Their attack cases (huge counts, einsum's path arguments, comprehension iterations…) are
in attacks.json.
"""

from __future__ import annotations

import numpy as np
import pytest

from attention_engine import misconceptions
from attention_engine.codecheck import CaseSpec, InputSpec, NameCheck, QuestionSpec, grade_code, specs, validate_spec

SDPA, SOFTMAX, CAUSAL, HEADS, KV = (
    specs.get(k) for k in ("sdpa_three_lines", "stable_softmax", "causal_mask", "split_merge_heads", "kv_cache_step")
)

# --- small cards of the next lessons ----------------------------------------------------------------

POSITIONS = QuestionSpec(
    key="sinusoidal_positions",
    version=1,
    title="The Transformer's sinusoidal position encodings: sin on even columns, cos on odd ones",
    inputs=(InputSpec("T", kind="dim", dim="T"), InputSpec("d", kind="dim", dim="d")),
    cases=(CaseSpec("small", {"T": 4, "d": 8}), CaseSpec("longer", {"T": 10, "d": 6}, adversarial=True)),
    required=(NameCheck("pe"),),
    reference=(
        "pos = np.arange(T)[:, None]\nangle = pos / 10000 ** (np.arange(0, d, 2)[None, :] / d)\n"
        "pe = np.zeros((T, d))\npe[:, 0::2] = np.sin(angle)\npe[:, 1::2] = np.cos(angle)\n"
    ),
)
LAYER_NORM = QuestionSpec(
    key="layer_norm",
    version=1,
    title="Layer norm without the gain and bias: each position's C features to mean 0, variance 1",
    inputs=(InputSpec("x", shape=("...", "T", "C"), mean=3.0, std=2.0),),
    cases=(
        CaseSpec("plain", {"T": 3, "C": 8}),
        CaseSpec("batched", {"T": 4, "C": 6}, batch=(2,), adversarial=True, required=False),
    ),
    required=(NameCheck("y"),),
    reference=(
        "mu = x.mean(-1, keepdims=True)\nvar = ((x - mu) ** 2).mean(-1, keepdims=True)\n"
        "y = (x - mu) / np.sqrt(var + 1e-5)\n"
    ),
)
GQA = QuestionSpec(
    key="gqa_repeat_kv",
    version=1,
    title="Grouped-query attention: each of the n_kv key heads n_rep times, (B, n_kv, T, hs) → (B, n_kv·n_rep, T, hs)",
    inputs=(InputSpec("k", shape=("B", "n_kv", "T", "hs")), InputSpec("n_rep", kind="dim", dim="n_rep")),
    cases=(
        CaseSpec("plain", {"B": 1, "n_kv": 2, "T": 3, "hs": 4, "n_rep": 2}),
        CaseSpec("three", {"B": 2, "n_kv": 2, "T": 2, "hs": 3, "n_rep": 3}, adversarial=True),
    ),
    required=(NameCheck("k_rep"),),
    reference="B, n_kv, T, hs = k.shape\nk_rep = k[:, :, None].repeat(n_rep, axis=2).reshape(B, n_kv * n_rep, T, hs)\n",
)
LSE2 = QuestionSpec(
    key="log_sum_exp_pair",
    version=1,
    title="log(e^a + e^b) without overflow",
    inputs=(InputSpec("a", shape=("n",), std=3.0), InputSpec("b", shape=("n",), std=3.0)),
    cases=(
        CaseSpec("plain", {"n": 5}),
        CaseSpec("large", {"n": 4}, offsets={"a": [800.0], "b": [790.0]}, adversarial=True),
    ),
    required=(NameCheck("lse"),),
    reference="m = np.maximum(a, b)\nlse = m + np.log(np.exp(a - m) + np.exp(b - m))\n",
)


@pytest.mark.parametrize("spec", [POSITIONS, LAYER_NORM, GQA, LSE2], ids=lambda s: s.key)
def test_the_small_cards_are_sound(spec):
    assert validate_spec(spec) == []
    assert grade_code(spec, spec.reference).verdict == "correct"


# --- what passes ----------------------------------------------------------------------------------

SC = "scores = Q @ K.swapaxes(-2, -1) / np.sqrt(d_k)"
MASK = "mask = np.triu(np.ones((T, T), dtype=bool), k=1)"
W = "weights = softmax(scores)"
T_ = "T = scores.shape[-1]\n"
HIDE = "mask = np.triu(np.ones((T, T), dtype=bool), k=1)\n"
SOFT = "\nweights = softmax(masked)"
APPEND = "k_cache = np.concatenate([k_cache, k], axis=-2)\nv_cache = np.concatenate([v_cache, v], axis=-2)\n"
ATTEND = "y = softmax(q @ k_cache.swapaxes(-2, -1) / np.sqrt(q.shape[-1])) @ v_cache"
SPLIT = "B, T, C = x.shape\nhs = C // n_head\n"
MERGE = "\nmerged = y.swapaxes(1, 2).reshape(B, T, C)"

ACCEPTED = [
    # the list: -inf written the ways nanoGPT and Python write it, and finite fills with the same weights
    ("float('-inf')", CAUSAL, T_ + HIDE + "masked = np.where(mask, float('-inf'), scores)" + SOFT),
    ("-float('inf')", CAUSAL, T_ + HIDE + "masked = np.where(mask, -float('inf'), scores)" + SOFT),
    ("masked_fill with float('-inf')", CAUSAL, T_ + HIDE + "masked = masked_fill(scores, mask, float('-inf'))" + SOFT),
    (
        "masked_fill, nanoGPT's (mask == 0) form",
        CAUSAL,
        T_ + "bias = np.tril(np.ones((T, T)))\nmasked = masked_fill(scores, bias == 0, float('-inf'))" + SOFT,
    ),
    ("fill -1e9", CAUSAL, T_ + HIDE + "masked = np.where(mask, -1e9, scores)" + SOFT),
    ("fill -1e30", CAUSAL, T_ + HIDE + "masked = np.where(mask, -1e30, scores)" + SOFT),
    ("fill finfo(dtype).min", CAUSAL, T_ + HIDE + "masked = np.where(mask, np.finfo(scores.dtype).min, scores)" + SOFT),
    ("fill finfo(float).min", CAUSAL, T_ + HIDE + "masked = masked_fill(scores, mask, np.finfo(float).min)" + SOFT),
    ("fill np.float32 -inf", CAUSAL, T_ + HIDE + "masked = np.where(mask, np.float32('-inf'), scores)" + SOFT),
    ("math.inf", CAUSAL, T_ + HIDE + "masked = np.where(mask, -math.inf, scores)" + SOFT),
    ("np.inf", CAUSAL, T_ + HIDE + "masked = np.where(mask, -np.inf, scores)" + SOFT),
    ("an additive mask", CAUSAL, T_ + "masked = scores + np.triu(np.full((T, T), -1e9), k=1)" + SOFT),
    # np.einsum
    ("einsum scores", SDPA, f"scores = np.einsum('...td,...sd->...ts', Q, K) / np.sqrt(d_k)\n{MASK}\n{W}"),
    ("einsum, implicit output", SDPA, f"scores = np.einsum('...ij,...kj', Q, K) / np.sqrt(d_k)\n{MASK}\n{W}"),
    (
        "einsum attend",
        KV,
        APPEND + "s = np.einsum('...qd,...kd->...qk', q, k_cache) / np.sqrt(q.shape[-1])\n"
        "y = np.einsum('...qk,...kd->...qd', softmax(s), v_cache)",
    ),
    ("einsum transpose", HEADS, SPLIT + "heads = np.einsum('bthd->bhtd', x.reshape(B, T, n_head, hs))" + MERGE),
    # np.append
    ("np.append", KV, "k_cache = np.append(k_cache, k, axis=-2)\nv_cache = np.append(v_cache, v, axis=-2)\n" + ATTEND),
    # np.logaddexp
    ("np.logaddexp", LSE2, "lse = np.logaddexp(a, b)"),
    (
        "logaddexp as a softmax's normaliser",
        LSE2,
        "m = np.logaddexp(a, b)\nlse = m + np.log(np.exp(a - m) + np.exp(b - m))",
    ),
    # triangle indices
    (
        "np.triu_indices",
        CAUSAL,
        T_ + "mask = np.zeros((T, T), dtype=bool)\nmask[np.triu_indices(T, 1)] = True\n"
        "masked = np.where(mask, -np.inf, scores)" + SOFT,
    ),
    (
        "np.tril_indices",
        CAUSAL,
        T_ + "keep = np.zeros((T, T), dtype=bool)\nkeep[np.tril_indices(T)] = True\n"
        "masked = np.where(keep, scores, -np.inf)" + SOFT,
    ),
    (
        "triu_indices into the last two axes",
        CAUSAL,
        T_ + "masked = scores.copy()\nmasked[(..., *np.triu_indices(T, k=1))] = -np.inf" + SOFT,
    ),
    # sin / cos
    (
        "sin and cos on a grid",
        POSITIONS,
        "pos = np.arange(T)[:, None]\nangle = pos / 10000 ** (np.arange(0, d, 2) / d)\n"
        "pe = np.stack([np.sin(angle), np.cos(angle)], axis=-1).reshape(T, d)",
    ),
    (
        "sin and cos in a comprehension",
        POSITIONS,
        "pe = np.array([[np.sin(p / 10000 ** (i / d)) if i % 2 == 0 else np.cos(p / 10000 ** ((i - 1) / d)) "
        "for i in range(d)] for p in range(T)])",
    ),
    # repeat / tile
    ("np.repeat", GQA, "k_rep = np.repeat(k, n_rep, axis=1)"),
    ("the repeat method", GQA, "k_rep = k.repeat(n_rep, axis=1)"),
    (
        "np.tile",
        GQA,
        "B, n_kv, T, hs = k.shape\nk_rep = np.tile(k[:, :, None], (1, 1, n_rep, 1, 1)).reshape(B, -1, T, hs)",
    ),
    # var / std
    ("np.var", LAYER_NORM, "y = (x - x.mean(-1, keepdims=True)) / np.sqrt(np.var(x, axis=-1, keepdims=True) + 1e-5)"),
    (
        "the var method",
        LAYER_NORM,
        "mu = x.mean(-1, keepdims=True)\ny = (x - mu) / np.sqrt(x.var(-1, keepdims=True) + 1e-5)",
    ),
    (
        "np.std",
        LAYER_NORM,
        "s = np.std(x, axis=-1, keepdims=True)\ny = (x - np.mean(x, -1, keepdims=True)) / np.sqrt(s * s + 1e-5)",
    ),
    # list comprehensions
    (
        "a comprehension building the mask",
        SDPA,
        f"{SC}\nmask = np.array([[j > i for j in range(T)] for i in range(T)])\n{W}",
    ),
    (
        "a comprehension over the heads",
        HEADS,
        SPLIT + "heads = np.stack([x[..., h * hs : (h + 1) * hs] for h in range(n_head)], axis=1)"
        "\nmerged = np.concatenate([y[:, h] for h in range(n_head)], axis=-1)",
    ),
    (
        "a comprehension with enumerate and a filter",
        HEADS,
        SPLIT + "parts = [x[..., i * hs : (i + 1) * hs] for i, _ in enumerate(range(n_head)) if i >= 0]"
        "\nheads = np.stack(parts, axis=1)" + MERGE,
    ),
    (
        "zip in a comprehension",
        LSE2,
        "lse = np.array([max(u, w) + np.log(1 + np.exp(-abs(u - w))) for u, w in zip(a, b)])",
    ),
    # *-unpacking
    ("star in a call", HEADS, SPLIT + "heads = x.reshape(*x.shape[:-1], n_head, hs).swapaxes(1, 2)" + MERGE),
    ("star in a tuple", HEADS, SPLIT + "heads = x.reshape((*x.shape[:2], n_head, -1)).swapaxes(1, 2)" + MERGE),
    ("a starred target", SDPA, f"*batch, t, d = Q.shape\nscores = Q @ K.swapaxes(-2, -1) / np.sqrt(d)\n{MASK}\n{W}"),
    ("a starred throwaway", SDPA, f"*_, d = K.shape\nscores = Q @ K.swapaxes(-2, -1) / np.sqrt(d)\n{MASK}\n{W}"),
    # already accepted before issue 25, kept so
    ("np.matmul", SDPA, f"scores = np.matmul(Q, np.swapaxes(K, -1, -2)) / np.sqrt(d_k)\n{MASK}\n{W}"),
    ("transpose with axes", HEADS, SPLIT + "heads = x.reshape(B, T, n_head, hs).transpose(0, 2, 1, 3)" + MERGE),
    ("moveaxis", HEADS, SPLIT + "heads = np.moveaxis(x.reshape(B, T, n_head, hs), 2, 1)" + MERGE),
    (
        "stack and concatenate",
        KV,
        "k_cache = np.concatenate((k_cache, k), axis=-2)\nv_cache = np.concatenate([v_cache, v], -2)\n" + ATTEND,
    ),
    (
        "tuple unpacking",
        HEADS,
        "B, T, C = x.shape\nhs = C // n_head\nheads = x.reshape(B, T, n_head, hs).swapaxes(1, 2)" + MERGE,
    ),
    # a shift that is always safe
    ("the row max", SOFTMAX, "e = np.exp(x - x.max(-1, keepdims=True))\np = e / e.sum(-1, keepdims=True)"),
    (
        "the row max plus a constant",
        SOFTMAX,
        "e = np.exp(x - (np.max(x, -1, keepdims=True) + 3.0))\np = e / e.sum(-1, keepdims=True)",
    ),
    (
        "log-sum-exp",
        SOFTMAX,
        "m = x.max(-1, keepdims=True)\np = np.exp(x - m - np.log(np.sum(np.exp(x - m), axis=-1, keepdims=True)))",
    ),
    (
        "a safe hand-written softmax in lesson 1's card",
        SDPA,
        f"{SC}\n{MASK}\nm = scores.max(-1, keepdims=True)\ne = np.exp(scores - m)\n"
        "weights = e / e.sum(-1, keepdims=True)",
    ),
]


@pytest.mark.parametrize(("idiom", "spec", "code"), ACCEPTED, ids=[row[0] for row in ACCEPTED])
def test_every_idiom_is_graded_correct(idiom, spec, code):
    result = grade_code(spec, code)
    assert (result.verdict, result.suggested_rating) == ("correct", 3), (idiom, result.message, result.messages)


# --- what fails, and is named ------------------------------------------------------------------------

SHIFT = "e = np.exp(x - {})\np = e / e.sum(-1, keepdims=True)"
SDPA_SOFTMAX = f"{SC}\n{MASK}\ne = np.exp(scores{{}})\nweights = e / e.sum(-1, keepdims=True)"
KV_SOFTMAX = (
    APPEND
    + "s = q @ k_cache.swapaxes(-2, -1) / np.sqrt(q.shape[-1])\n"
    + "e = np.exp(s{})\ny = e / e.sum(-1, keepdims=True) @ v_cache"
)
CAUSAL_SOFTMAX = (
    T_ + HIDE + "masked = np.where(mask, -np.inf, scores)\ne = np.exp(masked{})\nweights = e / e.sum(-1, keepdims=True)"
)

# (what, spec, code, verdict, rating, misconception, the name it is about)
NAMED = [
    # a shift that can overflow: the row min, mean or first element (stable_softmax: the wide rows are required)
    ("min shift", SOFTMAX, SHIFT.format("x.min(-1, keepdims=True)"), "incorrect", 2, "shift_not_max", "p"),
    ("np.min shift", SOFTMAX, SHIFT.format("np.min(x, axis=-1, keepdims=True)"), "incorrect", 2, "shift_not_max", "p"),
    ("mean shift", SOFTMAX, SHIFT.format("x.mean(axis=-1, keepdims=True)"), "incorrect", 2, "shift_not_max", "p"),
    ("first-element shift", SOFTMAX, SHIFT.format("x[..., :1]"), "incorrect", 2, "shift_not_max", "p"),
    ("first-element shift, 2-D spelling", SOFTMAX, SHIFT.format("x[:, [0]]"), "incorrect", 2, "shift_not_max", "p"),
    (
        "no shift",
        SOFTMAX,
        "p = np.exp(x) / np.sum(np.exp(x), axis=-1, keepdims=True)",
        "incorrect",
        2,
        "no_max_subtraction",
        "p",
    ),
    ("the global max", SOFTMAX, SHIFT.format("x.max()"), "incorrect", 2, "softmax_global_max", "p"),
    # in the other cards a hand-written softmax that is not stable is accepted with a caveat (or wrong outright)
    ("naive softmax, lesson 1", SDPA, SDPA_SOFTMAX.format(""), "accepted", 2, "no_max_subtraction", "weights"),
    (
        "first-element shift, lesson 1",
        SDPA,
        SDPA_SOFTMAX.format(" - scores[..., :1]"),
        "accepted",
        2,
        "shift_not_max",
        "weights",
    ),
    (
        "min shift, lesson 1 (the masked -inf)",
        SDPA,
        SDPA_SOFTMAX.format(" - scores.min(-1, keepdims=True)"),
        "incorrect",
        1,
        "shift_not_max",
        "weights",
    ),
    (
        "mean shift, lesson 1",
        SDPA,
        SDPA_SOFTMAX.format(" - np.mean(scores, -1, keepdims=True)"),
        "incorrect",
        1,
        "shift_not_max",
        "weights",
    ),
    ("naive softmax, causal mask", CAUSAL, CAUSAL_SOFTMAX.format(""), "accepted", 2, "no_max_subtraction", "weights"),
    (
        "first-element shift, causal mask",
        CAUSAL,
        CAUSAL_SOFTMAX.format(" - masked[..., :1]"),
        "accepted",
        2,
        "shift_not_max",
        "weights",
    ),
    ("naive softmax, KV cache", KV, KV_SOFTMAX.format(""), "accepted", 2, "no_max_subtraction", "y"),
    (
        "mean shift, KV cache",
        KV,
        KV_SOFTMAX.format(" - s.mean(-1, keepdims=True)"),
        "accepted",
        2,
        "shift_not_max",
        "y",
    ),
    ("min shift, KV cache", KV, KV_SOFTMAX.format(" - s.min(-1, keepdims=True)"), "accepted", 2, "shift_not_max", "y"),
    # a finite fill that does not give the same weights
    (
        "fill -10",
        CAUSAL,
        T_ + HIDE + "masked = np.where(mask, -10, scores)" + SOFT,
        "incorrect",
        1,
        "mask_fill_not_low_enough",
        "masked",
    ),
    (
        "fill -5 via masked_fill",
        CAUSAL,
        T_ + HIDE + "masked = masked_fill(scores, mask, -5.0)" + SOFT,
        "incorrect",
        1,
        "mask_fill_not_low_enough",
        "masked",
    ),
    (
        "fill 0",
        CAUSAL,
        T_ + HIDE + "masked = np.where(mask, 0, scores)" + SOFT,
        "incorrect",
        1,
        "mask_fill_zero",
        "masked",
    ),
    # the softmax axis, the scale
    (
        "softmax axis -2, causal mask",
        CAUSAL,
        T_ + HIDE + "masked = np.where(mask, -np.inf, scores)\nweights = softmax(masked, axis=-2)",
        "incorrect",
        1,
        "softmax_wrong_axis",
        "weights",
    ),
    (
        "softmax axis 0, causal mask",
        CAUSAL,
        T_ + HIDE + "masked = np.where(mask, -np.inf, scores)\nweights = softmax(masked, axis=0)",
        "incorrect",
        1,
        "softmax_wrong_axis",
        "weights",
    ),
    (
        "scale by √d_v",
        SDPA,
        f"scores = Q @ K.swapaxes(-2, -1) / np.sqrt(V.shape[-1])\n{MASK}\n{W}",
        "incorrect",
        2,
        "scale_by_dv",
        "scores",
    ),
    (
        "scale by √d_v, KV cache",
        KV,
        APPEND + "y = softmax(q @ k_cache.swapaxes(-2, -1) / np.sqrt(v_cache.shape[-1])) @ v_cache",
        "incorrect",
        2,
        "scale_by_dv",
        "y",
    ),
    # right for 2-D, broken by batch axes: accepted, Hard, the batched input explained and the mistake named
    ("K.T", SDPA, f"scores = Q @ K.T / np.sqrt(d_k)\n{MASK}\n{W}", "accepted", 2, "t_reverses_all_axes", "scores"),
    (
        "softmax axis=1",
        SDPA,
        f"{SC}\n{MASK}\nweights = softmax(scores, axis=1)",
        "accepted",
        2,
        "axis_from_front",
        "weights",
    ),
    (
        "Q.shape[1]",
        SDPA,
        f"scores = Q @ K.swapaxes(-2, -1) / np.sqrt(Q.shape[1])\n{MASK}\n{W}",
        "accepted",
        2,
        "axis_from_front",
        "scores",
    ),
    (
        "len(scores)",
        CAUSAL,
        "T = len(scores)\n" + HIDE + "masked = np.where(mask, -np.inf, scores)" + SOFT,
        "accepted",
        2,
        "axis_from_front",
        "masked",
    ),
    (
        "axis=1 in a hand-written softmax",
        SOFTMAX,
        "e = np.exp(x - x.max(axis=1, keepdims=True))\np = e / e.sum(axis=1, keepdims=True)",
        "accepted",
        2,
        "axis_from_front",
        "p",
    ),
    (
        "concatenate axis=0",
        KV,
        "k_cache = np.concatenate([k_cache, k], axis=0)\nv_cache = np.concatenate([v_cache, v], 0)\n" + ATTEND,
        "accepted",
        2,
        "axis_from_front",
        "k_cache",
    ),
]


def _line_of(code: str, name: str) -> int:
    lines = [i for i, text in enumerate(code.splitlines(), 1) if text.split("=")[0].strip().startswith(name)]
    return lines[-1]


@pytest.mark.parametrize(
    ("what", "spec", "code", "verdict", "rating", "mid", "name"), NAMED, ids=[row[0] for row in NAMED]
)
def test_every_named_wrong_answer(what, spec, code, verdict, rating, mid, name):
    result = grade_code(spec, code)
    assert (result.verdict, result.suggested_rating, result.misconception) == (verdict, rating, mid), (
        what,
        result.code,
        result.message,
    )
    assert result.passed is (verdict == "accepted")
    assert result.params["name"] == name and result.params["line"] == _line_of(code, name)
    named = [m for m in result.messages if m.code == "misconception" and m.params["id"] == mid]
    assert named and named[0].line == result.params["line"]
    described = misconceptions.describe(mid)
    assert (
        described["title_zh"] and described["title_en"] and described["explanation_zh"] and described["explanation_en"]
    )
    if verdict == "accepted":  # the caveat: which optional inputs it fails, and why (the batched one, or wide logits)
        failed = [c["name"] for c in result.cases if not c["passed"]]
        expected = "works_2d_only" if failed == ["batched"] else "optional_cases_fail"
        assert result.code == expected and result.params["cases"] == failed
    else:
        assert result.code == "misconception" and result.params["id"] == mid


def _visible_rows(spec, inputs):
    """The rows of scores a softmax sees on an input (causal: the keys each query sees)."""
    if spec is SOFTMAX:
        return list(inputs["x"])
    if spec is CAUSAL:
        return [row[: i + 1] for i, row in enumerate(inputs["scores"])]
    if spec is SDPA:
        return list(inputs["Q"] @ inputs["K"].swapaxes(-2, -1) / np.sqrt(inputs["Q"].shape[-1]))
    keys = np.concatenate([inputs["k_cache"], inputs["k"]], axis=-2)
    return list((inputs["q"] @ keys.swapaxes(-2, -1) / np.sqrt(inputs["q"].shape[-1])).reshape(-1, keys.shape[-2]))


@pytest.mark.parametrize("spec", [SDPA, SOFTMAX, CAUSAL, KV], ids=lambda s: s.key)
def test_every_softmax_card_has_rows_wider_than_exp_with_the_max_not_first(spec):
    """float64's exp overflows past 709.78: a shift by the min, mean or first element does when a row spans
    more than about twice that, and the max is elsewhere."""
    from attention_engine.codecheck.grading import prepare

    index = [c.name for c in spec.cases].index("wide_logits")
    assert spec.cases[index].adversarial
    for seed in (0, 1, 2, 17):
        rows = [r for r in _visible_rows(spec, prepare(spec, seed).inputs[index]) if len(r) > 1]
        assert rows
        assert all(r.max() - r.min() > 1420 and r.argmax() != 0 for r in rows), (spec.key, seed)
