"""The five built-in code questions: references pass, misconceptions are named on the right line,
equivalent spellings pass, the `K.T` batching case is accepted as "works for 2-D only"."""

import json
import re

import numpy as np
import pytest

from attention_engine import misconceptions, scaled_dot_product_attention
from attention_engine.codecheck import (
    CaseSpec,
    CheckResult,
    InputSpec,
    MisconceptionCase,
    NameCheck,
    QuestionSpec,
    SpecError,
    check_syntax,
    grade_code,
    specs,
    validate_spec,
)
from attention_engine.codecheck.grading import prepare
from attention_engine.nanogpt import CausalSelfAttention

SPECS = list(specs.SPECS.values())
CASES = [(s.key, i) for s in SPECS for i in range(len(s.misconceptions))]


def last_line_assigning(code: str, name: str) -> int:
    lines = [i for i, line in enumerate(code.splitlines(), 1) if re.match(rf"\s*{name}\s*(,.*)?=", line)]
    return lines[-1]


def as_json(result: CheckResult) -> dict:
    data = json.loads(json.dumps(result.to_dict(), allow_nan=False))
    assert CheckResult.from_dict(data).to_dict() == result.to_dict()
    return data


def test_there_are_the_built_in_specs():
    assert set(specs.SPECS) == {
        "sdpa_three_lines",
        "stable_softmax",
        "causal_mask",
        "split_merge_heads",
        "kv_cache_step",
        "block_flops",  # lesson 6 (issue 29)
        "gqa_decode_step",  # lesson 7 (issue 29)
    } | {"apply_rope", "mha_forward"}  # issue 29, lessons 4 and 5
    with pytest.raises(KeyError, match="sdpa_three_lines"):
        specs.get("nope")


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.key)
def test_every_spec_validates_for_several_seeds(spec):
    assert validate_spec(spec, seeds=(0, 1, 2, 17)) == []
    assert len(spec.cases) >= 5 and any(c.adversarial for c in spec.cases)


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.key)
def test_the_reference_passes_with_every_line_correct(spec):
    result = grade_code(spec, spec.reference)
    data = as_json(result)
    assert (result.verdict, result.passed, result.runnable, result.suggested_rating) == ("correct", True, True, 3)
    assert result.code == "correct" and result.params == {"cases": len(spec.cases)}
    assert result.misconception is None and result.messages == () and result.example is None
    checked = [m for m in result.lines if m.names]
    assert checked and all(m.mark == "correct" for m in checked)
    assert {m.mark for m in result.lines} <= {"correct", "unchecked"}
    assert all(c["passed"] for c in data["cases"])


@pytest.mark.parametrize(("key", "index"), CASES, ids=[f"{k}-{specs.get(k).misconceptions[i].id}" for k, i in CASES])
def test_each_configured_misconception_is_named_on_its_line(key, index):
    spec = specs.get(key)
    m = spec.misconceptions[index]
    result = grade_code(spec, m.code)
    as_json(result)
    assert result.misconception == m.id
    name = result.params["name"]
    assert result.params["line"] == last_line_assigning(m.code, name)
    assert result.lines[[ln.line for ln in result.lines].index(result.params["line"])].mark in (
        "incorrect",
        "error",
        "fails_optional",
    )
    assert misconceptions.describe(m.id)["title_en"]
    if result.passed:  # only optional inputs fail: the batched one (2-D only), or the wide logits (a caveat)
        failed = {c["name"] for c in result.cases if not c["passed"]}
        code = "works_2d_only" if failed == {"batched"} else "optional_cases_fail"
        assert (result.verdict, result.code, result.suggested_rating) == ("accepted", code, 2)
        assert failed <= {"batched", "wide_logits", "large_logits"}
    else:
        assert result.verdict == "incorrect" and result.code == "misconception"
        assert result.suggested_rating in (1, 2)
        assert result.params["id"] == m.id and result.params["title"] == misconceptions.get(m.id).title_en


EQUIVALENTS = [(s.key, i) for s in SPECS for i in range(len(s.equivalents))]


@pytest.mark.parametrize(("key", "index"), EQUIVALENTS, ids=[f"{k}-{i}" for k, i in EQUIVALENTS])
def test_the_specs_own_equivalent_spellings_pass(key, index):
    spec = specs.get(key)
    result = grade_code(spec, spec.equivalents[index])
    assert result.verdict == "correct", result.message


# --- the spellings the issue names, and more, written as a learner would -------------------------

SDPA = specs.get("sdpa_three_lines")
MASK = "mask = np.triu(np.ones((T, T), dtype=bool), k=1)"


@pytest.mark.parametrize(
    "scores",
    [
        "scores = Q @ K.swapaxes(-2, -1) / np.sqrt(d_k)",
        "scores = Q @ K.swapaxes(-2,-1) * d_k ** -0.5",
        "scores = Q @ K.swapaxes(-2, -1) / math.sqrt(d_k)",
        "scores = (Q @ np.swapaxes(K, -1, -2)) / d_k ** 0.5",
        "scores = np.matmul(Q, np.moveaxis(K, -1, -2)) / np.sqrt(Q.shape[-1])",
    ],
)
def test_sdpa_scale_and_transpose_spellings_pass(scores):
    result = grade_code(SDPA, f"{scores}\n{MASK}\nweights = softmax(scores)")
    assert result.verdict == "correct", result.message


@pytest.mark.parametrize("scores", ["scores = Q @ K.T / np.sqrt(d_k)", "scores = Q @ np.transpose(K) / np.sqrt(d_k)"])
def test_k_t_works_for_2d_only_accepted_with_a_lower_rating(scores):
    result = grade_code(SDPA, f"{scores}\n{MASK}\nweights = softmax(scores)")
    data = as_json(result)
    assert (result.verdict, result.passed, result.runnable) == ("accepted", True, True)
    assert (result.code, result.suggested_rating, result.misconception) == ("works_2d_only", 2, "t_reverses_all_axes")
    assert result.params == {"name": "scores", "line": 1, "cases": ["batched"]}
    assert "2-D" in result.message
    assert [(m.line, m.mark) for m in result.lines] == [(1, "fails_optional"), (2, "correct"), (3, "correct")]
    failed = [c["name"] for c in data["cases"] if not c["passed"]]
    assert failed == ["batched"]
    assert data["example"]["case"] == "batched" and data["example"]["error"]["code"] == "matmul_mismatch"


TWO_D = QuestionSpec(
    key="two_d_scores",
    version=1,
    title="2-D only",
    inputs=(InputSpec("Q", shape=("T", "d")), InputSpec("K", shape=("T", "d"))),
    cases=(CaseSpec("a", {"T": 4, "d": 8}), CaseSpec("b", {"T": 3, "d": 5}, adversarial=True)),
    required=(NameCheck("scores"),),
    reference="scores = Q @ K.swapaxes(-2, -1)",
)


@pytest.mark.parametrize(
    "spelling",
    [
        "K.T",
        "K.swapaxes(-2, -1)",
        "np.transpose(K)",
        "K.transpose()",
        "np.swapaxes(K, 0, 1)",
        "K.transpose(1, 0)",
        "np.transpose(K, (1, 0))",
    ],
)
def test_every_transpose_spelling_passes_in_2d(spelling):
    assert grade_code(TWO_D, f"scores = Q @ {spelling}").verdict == "correct"


@pytest.mark.parametrize(
    "mask",
    [
        MASK,
        "mask = np.tril(np.ones((T, T))) == 0",
        "mask = ~np.tril(np.ones((T, T), dtype=bool))",
        "mask = np.triu(np.ones((T, T)), k=1).astype(bool)",
        "mask = np.triu(np.ones((T, T)), k=1)",  # 1.0 / 0.0: np.where reads it the same way
        "mask = np.triu(np.ones_like(scores, dtype=bool), k=1)",  # (2, 4, 5, 5) when batched: broadcasts the same
        "mask = np.arange(T)[:, None] < np.arange(T)[None, :]",
    ],
)
def test_sdpa_mask_spellings_pass(mask):
    result = grade_code(SDPA, f"scores = Q @ K.swapaxes(-2, -1) / np.sqrt(d_k)\n{mask}\nweights = softmax(scores)")
    assert result.verdict == "correct", result.message


SOFTMAX = specs.get("stable_softmax")


@pytest.mark.parametrize(
    "code",
    [
        "z = x - x.max(-1, keepdims=True)\ne = np.exp(z)\np = e / e.sum(-1, keepdims=True)",
        "z = x - np.max(x, axis=-1, keepdims=True)\np = np.exp(z) / np.sum(np.exp(z), axis=-1, keepdims=True)",
        "e = np.exp(x - x.max(axis=-1)[..., np.newaxis])\np = e / e.sum(axis=-1)[..., None]",
        "m = x.max(-1, keepdims=True)\np = np.exp(x - m)\np /= p.sum(-1, keepdims=True)",
        "shifted = x - x.max(axis=x.ndim - 1, keepdims=True)\n"
        "p = np.exp(shifted) / np.exp(shifted).sum(-1, keepdims=True)",
    ],
)
def test_stable_softmax_spellings_pass(code):
    assert grade_code(SOFTMAX, code).verdict == "correct"


def test_naive_softmax_passes_plain_inputs_fails_large_logits_and_is_named():
    result = grade_code(SOFTMAX, "p = np.exp(x) / np.exp(x).sum(axis=-1, keepdims=True)")
    assert (result.verdict, result.passed, result.suggested_rating) == ("incorrect", False, 2)
    assert result.misconception == "no_max_subtraction" and result.params["line"] == 1
    data = as_json(result)
    assert [c["name"] for c in data["cases"] if not c["passed"]] == ["large_logits", "wide_logits"]
    assert data["example"]["case"] == "large_logits"
    assert "nan" in json.dumps(data["example"]["got"]) and "nan" not in json.dumps(data["example"]["expected"])


@pytest.mark.parametrize(
    ("code", "expected"),
    [
        ("p = np.exp(x - np.max(x)) / np.exp(x - np.max(x)).sum(-1, keepdims=True)", "softmax_global_max"),
        ("e = np.exp(x - x.max(-1))\np = e / e.sum(-1, keepdims=True)", "missing_keepdims"),
        ("e = np.exp(x - x.max(axis=0, keepdims=True))\np = e / e.sum(axis=0, keepdims=True)", "softmax_wrong_axis"),
        ("p = x / np.sum(x, axis=-1, keepdims=True)", "linear_normalisation"),
    ],
)
def test_softmax_bugs_written_differently_are_still_named(code, expected):
    assert grade_code(SOFTMAX, code).misconception == expected


CAUSAL = specs.get("causal_mask")
HEAD = "T = scores.shape[-1]\n"


@pytest.mark.parametrize(
    "code",
    [
        "mask = np.triu(np.ones((T, T), dtype=bool), k=1)\nmasked = np.where(mask, -np.inf, scores)",
        "keep = np.tril(np.ones((T, T), dtype=bool))\nmasked = np.where(keep, scores, -np.inf)",
        "masked = masked_fill(scores, np.triu(np.ones((T, T), dtype=bool), k=1), -np.inf)",
        "masked = np.where(np.tril(np.ones((T, T))) == 1, scores, -math.inf)",
        "masked = scores + np.triu(np.full((T, T), -np.inf), k=1)",
    ],
)
def test_both_mask_conventions_pass(code):
    result = grade_code(CAUSAL, HEAD + code + "\nweights = softmax(masked)")
    assert result.verdict == "correct", result.message


@pytest.mark.parametrize(
    ("code", "expected", "line"),
    [
        ("masked = np.where(np.triu(np.ones((T, T)), k=0) == 1, -np.inf, scores)", "mask_hides_diagonal", 2),
        ("masked = np.where(np.tril(np.ones((T, T))) == 1, -np.inf, scores)", "mask_convention_swapped", 2),
        ("masked = np.where(np.tril(np.ones((T, T)), -1) > 0, -np.inf, scores)", "mask_transposed", 2),
        ("masked = np.where(np.triu(np.ones((T, T)), 1) > 0, 0, scores)", "mask_fill_zero", 2),
    ],
)
def test_mask_bugs_written_differently_are_named(code, expected, line):
    result = grade_code(CAUSAL, HEAD + code + "\nweights = softmax(masked)")
    assert (result.misconception, result.params["line"], result.params["name"]) == (expected, line, "masked")


def test_mask_after_softmax_is_named_on_the_weights_line():
    code = (
        HEAD + "mask = np.triu(np.ones((T, T), dtype=bool), k=1)\nmasked = np.where(mask, -np.inf, scores)\n"
        "w = softmax(scores)\nweights = np.where(mask, 0, w)"
    )
    result = grade_code(CAUSAL, code)
    assert (result.misconception, result.params["name"], result.params["line"]) == ("mask_after_softmax", "weights", 5)
    assert [m.mark for m in result.lines] == ["unchecked", "unchecked", "correct", "unchecked", "incorrect"]


def test_len_for_t_works_for_2d_only():
    result = grade_code(
        CAUSAL,
        "T = len(scores)\nmasked = np.where(np.triu(np.ones((T, T), dtype=bool), 1), "
        "-np.inf, scores)\nweights = softmax(masked)",
    )
    assert (result.verdict, result.code, result.suggested_rating) == ("accepted", "works_2d_only", 2)
    assert result.misconception == "axis_from_front"


HEADS = specs.get("split_merge_heads")


@pytest.mark.parametrize(
    "code",
    [
        "B, T, C = x.shape\nheads = x.reshape(B, T, n_head, C // n_head).swapaxes(1, 2)\n"
        "merged = y.swapaxes(1, 2).reshape(B, T, C)",
        "B, T, C = x.shape\nhs = C // n_head\nheads = np.transpose(x.reshape(B, T, n_head, hs), (0, 2, 1, 3))\n"
        "merged = np.transpose(y, (0, 2, 1, 3)).reshape(B, T, -1)",
        "heads = np.swapaxes(x.reshape(x.shape[0], x.shape[1], n_head, -1), 1, 2)\n"
        "merged = np.moveaxis(y, 1, 2).reshape(y.shape[0], y.shape[2], -1)",
    ],
)
def test_split_merge_spellings_pass(code):
    assert grade_code(HEADS, code).verdict == "correct"


def test_reshape_without_transpose_is_named_with_the_right_shape():
    code = "B, T, C = x.shape\nheads = x.reshape(B, n_head, T, C // n_head)\nmerged = y.swapaxes(1, 2).reshape(B, T, C)"
    result = grade_code(HEADS, code)
    assert (result.misconception, result.params["name"], result.params["line"]) == ("missing_transpose", "heads", 2)
    assert result.example["got_shape"] == result.example["expected_shape"]  # same shape, other values
    assert [m.mark for m in result.lines] == ["unchecked", "incorrect", "correct"]


KV = specs.get("kv_cache_step")


def test_kv_cache_bugs_written_differently():
    attend_first = (
        "y = softmax(q @ np.swapaxes(k_cache, -1, -2) / np.sqrt(k.shape[-1])) @ v_cache\n"
        "k_cache = np.concatenate([k_cache, k], axis=-2)\nv_cache = np.concatenate([v_cache, v], -2)"
    )
    result = grade_code(KV, attend_first)
    assert (result.misconception, result.params["line"]) == ("kv_append_after_attend", 1)
    only_new = (
        "k_cache = np.concatenate([k_cache, k], axis=-2)\nv_cache = np.concatenate([v_cache, v], axis=-2)\ny = v + 0.0"
    )
    assert grade_code(KV, only_new).misconception == "kv_attend_new_only"


def test_two_bugs_are_both_named_and_each_line_judged_on_correct_inputs():
    code = (
        "scores = Q @ K.swapaxes(-2, -1) / np.sqrt(d_k)\nmask = np.triu(np.ones((T, T), dtype=bool))\n"
        "weights = softmax(scores, axis=0)"
    )
    result = grade_code(SDPA, code)
    assert result.misconception == "mask_hides_diagonal" and result.params["line"] == 2
    assert [(m.params.get("id"), m.line) for m in result.messages] == [
        ("mask_hides_diagonal", 2),
        ("softmax_wrong_axis", 3),
    ]
    assert [m.mark for m in result.lines] == ["correct", "incorrect", "incorrect"]


def test_a_wrong_mask_does_not_make_the_softmax_line_wrong():
    result = grade_code(
        SDPA,
        "scores = Q @ K.swapaxes(-2, -1) / np.sqrt(d_k)\n"
        "mask = np.triu(np.ones((T, T), dtype=bool))\nweights = softmax(scores)",
    )
    assert [m.mark for m in result.lines] == ["correct", "incorrect", "correct"]
    assert [m.name for m in result.messages] == ["mask"]


def test_an_unnamed_wrong_line_gets_the_comparison_and_an_example():
    code = f"scores = Q @ K.swapaxes(-2, -1) / np.sqrt(d_k) + 1.5\n{MASK}\nweights = softmax(scores)"
    result = grade_code(SDPA, code)
    assert (result.verdict, result.code, result.misconception) == ("incorrect", "incorrect", None)
    assert result.params == {"name": "scores", "line": 1, "case": "plain"}
    msg = result.messages[0]
    assert msg.code == "wrong_values" and msg.params["mismatched"] == msg.params["total"] == 16
    ex = result.example
    assert ex["case"] == "plain" and ex["name"] == "scores" and ex["got_shape"] == ex["expected_shape"] == [4, 4]
    assert ex["got"][0][0] == pytest.approx(ex["expected"][0][0] + 1.5, abs=2e-3)
    assert set(ex["inputs"]) == {"Q", "K", "V", "causal"} and ex["input_shapes"]["Q"] == [4, 8]


def test_a_wrong_output_of_the_scaffold_is_reported_without_a_line():
    code = f"V = V * 2\nscores = Q @ K.swapaxes(-2, -1) / np.sqrt(d_k)\n{MASK}\nweights = softmax(scores)"
    result = grade_code(SDPA, code)
    assert (result.verdict, result.code, result.params) == (
        "incorrect",
        "incorrect",
        {"name": "out", "line": None, "case": "plain"},
    )
    assert result.message == "out (computed by the given code) gives a wrong result on input plain"
    assert result.messages[0].where == "scaffold"


def test_a_runtime_error_on_every_input_is_rated_again():
    result = grade_code(SDPA, f"scores = Q @ K / np.sqrt(d_k)\n{MASK}\nweights = softmax(scores)")
    assert (result.verdict, result.code, result.suggested_rating) == ("incorrect", "run_error", 1)
    assert result.params["error"] == "matmul_mismatch"
    assert result.messages[0].line == 1 and result.messages[0].col == 10
    assert "cannot matrix-multiply (4, 8) by (4, 8)" in result.messages[0].message


@pytest.mark.parametrize(
    ("code", "expected"),
    [
        ("scores = Q @ K.T / np.sqrt(d_k\nmask = 1\nweights = 1", "syntax_error"),
        ("scores = Q @ K.T\nweights = softmax(scores)", "missing_name"),
        ("mask = np.triu(np.ones((4, 4)), 1)\nscores = Q @ K.T\nweights = softmax(scores)", "slot_order"),
        ("scores = ...\nmask = ...\nweights = ...", "placeholder"),
        ("", "empty_code"),
        ("scores = Q @ K.T\nmask = msk\nweights = softmax(scores)", "unknown_name"),
    ],
)
def test_refusals_lock_nothing(code, expected):
    result = grade_code(SDPA, code)
    data = as_json(result)
    assert (result.verdict, result.runnable, result.passed, result.suggested_rating) == ("rejected", False, False, None)
    assert result.code == expected and data["message"]
    assert check_syntax(SDPA, code).code == expected


def test_a_typo_gets_a_suggestion_with_its_position():
    result = grade_code(
        SDPA,
        "scores = Q @ K.swapaxes(-2, -1) / np.sqrt(d_k)\nmask = np.triu(np.ones((T, T)), k=1)\n"
        "weights = softmx(scores)",
    )
    assert result.params == {"name": "softmx", "suggestion": "softmax"}
    assert (result.messages[0].line, result.messages[0].col) == (3, 11)
    assert check_syntax(SDPA, SDPA.reference) is None


def test_pasted_indented_lines_are_accepted_and_columns_kept():
    code = "    scores = Q @ K.swapaxes(-2, -1) / np.sqrt(d_k)\n        mask = np.triu(np.ones((T, T)), k=1)\n"
    assert grade_code(SDPA, code).code == "syntax_error"  # inconsistent indentation is still an error
    code = "    scores = Q @ K / np.sqrt(d_k)\n    mask = np.triu(np.ones((T, T)), k=1)\n    weights = softmax(scores)"
    result = grade_code(SDPA, code)
    assert (result.messages[0].line, result.messages[0].col) == (1, 14)  # the @ in the learner's own text


def test_display_code_shows_the_helper_and_the_todo_lines():
    text = SDPA.display_code()
    assert "def softmax(x, axis=-1):" in text and "scores = ...    # TODO: scores" in text
    assert "mask = ...    # TODO: mask" in text and "out = weights @ V" in text
    info = json.loads(json.dumps(SDPA.describe()))
    assert info["required"] == ["scores", "mask", "weights"] and info["outputs"] == ["out"]
    assert info["inputs"][0] == {"name": "Q", "kind": "normal", "shape": ["...", "T", "d_k"], "dtype": "float64"}
    assert [c["name"] for c in info["cases"]] == ["plain", "causal", "one_token", "dk_ne_dv", "wide_logits", "batched"]
    assert info["display_code"] == text


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.key)
def test_specs_round_trip_through_json(spec):
    data = json.loads(json.dumps(spec.to_dict()))
    again = QuestionSpec.from_dict(data)
    assert again == spec and again.digest == spec.digest
    code = spec.misconceptions[0].code
    assert grade_code(again, code).to_dict() == grade_code(spec, code).to_dict()


def test_spec_data_is_checked():
    data = SDPA.to_dict()
    with pytest.raises(ValueError, match="unknown spec fields"):
        QuestionSpec.from_dict({**data, "prompt": "x"})
    with pytest.raises(ValueError, match="format"):
        QuestionSpec.from_dict({**data, "format": 99})
    with pytest.raises(ValueError, match="unknown misconception"):
        MisconceptionCase.from_dict({"id": "no_such_bug", "code": "x = 1"})
    with pytest.raises(ValueError, match="unknown helper"):
        QuestionSpec.from_dict({**data, "helpers": ["os_system"]})
    with pytest.raises(ValueError, match="dims"):
        QuestionSpec.from_dict({**data, "cases": [{"name": "a", "dims": {"T": 2}}]})
    limits = QuestionSpec.from_dict({**data, "limits": {"max_array_elements": 10**12}}).limits
    assert limits.max_array_elements == 1 << 20  # a stored spec cannot lift the hard caps


def test_broken_specs_are_reported():
    broken = QuestionSpec.from_dict({**TWO_D.to_dict(), "reference": "scores = Q @ K"})
    with pytest.raises(SpecError, match="reference fails"):
        prepare(broken, 0)
    assert "reference fails" in validate_spec(broken)[0]
    no_slot = QuestionSpec.from_dict({**SDPA.to_dict(), "scaffold": SDPA.scaffold.replace("mask = ...", "mask = 1")})
    with pytest.raises(SpecError, match=r"'mask = \.\.\.'"):
        prepare(no_slot, 0)
    useless = QuestionSpec.from_dict(
        {**TWO_D.to_dict(), "misconceptions": [{"id": "missing_scale", "code": "scores = Q @ K.T"}]}
    )
    assert "gives the reference's values" in validate_spec(useless)[0]


# --- the references agree with the engine and with PyTorch ---------------------------------------


def reference_runs(spec, seed=0):
    prepared = prepare(spec, seed)
    for i, case in enumerate(spec.cases):
        yield case, prepared.inputs[i], {k: o.value for k, o in prepared.reference[i].outcomes.items()}


def test_sdpa_reference_equals_the_engine():
    for case, inp, out in reference_runs(SDPA):
        expected, weights = scaled_dot_product_attention(
            inp["Q"], inp["K"], inp["V"], is_causal=bool(inp["causal"]), return_weights=True
        )
        assert np.allclose(out["out"], expected) and np.allclose(out["weights"], weights), case.name
    assert [c.batch for c in SDPA.cases][-1] == (2, 4) and out["out"].shape == (2, 4, 5, 16)


def test_kv_cache_reference_equals_a_full_attention_over_the_cache():
    for case, inp, out in reference_runs(KV):
        k_all = np.concatenate([inp["k_cache"], inp["k"]], axis=-2)
        v_all = np.concatenate([inp["v_cache"], inp["v"]], axis=-2)
        assert np.allclose(out["y"], scaled_dot_product_attention(inp["q"], k_all, v_all)), case.name
        assert np.array_equal(out["k_cache"], k_all) and np.array_equal(out["v_cache"], v_all)


def test_split_merge_reference_equals_nanogpt():
    for case, inp, out in reference_runs(HEADS):
        C = inp["x"].shape[-1]
        attn = CausalSelfAttention(C, inp["n_head"], bias=False)
        attn.c_attn_weight = np.concatenate([np.eye(C)] * 3)  # q = k = v = x: the split alone
        _, q, _, _ = attn._qkv_heads(inp["x"])
        assert np.array_equal(out["heads"], q), case.name
        merged, _ = attn._merge_heads_and_project(inp["y"])
        assert np.array_equal(out["merged"], merged), case.name


@pytest.mark.torch
def test_references_equal_pytorch(torch):
    F = torch.nn.functional
    for _, inp, out in reference_runs(SDPA):
        q, k, v = (torch.from_numpy(np.array(inp[n])) for n in "QKV")
        ref = F.scaled_dot_product_attention(q, k, v, is_causal=bool(inp["causal"]))
        assert np.allclose(out["out"], ref.numpy())
    for _, inp, out in reference_runs(KV):
        q = torch.from_numpy(np.array(inp["q"]))
        k = torch.cat([torch.from_numpy(np.array(inp["k_cache"])), torch.from_numpy(np.array(inp["k"]))], dim=-2)
        v = torch.cat([torch.from_numpy(np.array(inp["v_cache"])), torch.from_numpy(np.array(inp["v"]))], dim=-2)
        assert np.allclose(out["y"], F.scaled_dot_product_attention(q, k, v).numpy())
    for _, inp, out in reference_runs(HEADS):
        x = torch.from_numpy(np.array(inp["x"]))
        B, T, C = x.shape
        nh = inp["n_head"]
        assert np.array_equal(out["heads"], x.view(B, T, nh, C // nh).transpose(1, 2).numpy())
        y = torch.from_numpy(np.array(inp["y"]))
        assert np.array_equal(out["merged"], y.transpose(1, 2).contiguous().view(B, T, C).numpy())
    for _, inp, out in reference_runs(SOFTMAX):
        assert np.allclose(out["p"], torch.softmax(torch.from_numpy(np.array(inp["x"])), dim=-1).numpy())
    for _, inp, out in reference_runs(CAUSAL):
        s = torch.from_numpy(np.array(inp["scores"]))
        T = s.shape[-1]
        masked = s.masked_fill(~torch.tril(torch.ones(T, T, dtype=torch.bool)), float("-inf"))
        assert np.array_equal(out["masked"], masked.numpy())
        assert np.allclose(out["weights"], torch.softmax(masked, dim=-1).numpy())


def test_inputs_are_read_only_seeded_and_at_one_decimal():
    prepared = prepare(SDPA, 0)
    q = prepared.inputs[1]["Q"]
    assert not q.flags.writeable and q.shape == (4, 16) and np.array_equal(q, np.round(q, 1))
    assert np.array_equal(prepare(SDPA, 0).inputs[1]["Q"], SDPA.make_inputs(1, 0)["Q"])
    assert not np.array_equal(SDPA.make_inputs(1, 1)["Q"], q)
    large = SOFTMAX.make_inputs(2, 5)["x"]
    assert large[0].min() > 700 and large[1].max() < -700  # the offsets hold for any seed
