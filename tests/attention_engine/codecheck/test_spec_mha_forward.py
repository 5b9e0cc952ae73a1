"""Lesson 5's code card ``mha_forward`` (issue 29): its reference is PyTorch's nn.MultiheadAttention with the same
weights copied in (eval, dropout 0, batch_first=True) on every row that has a visible key, and the engine's
masks.mha_forward everywhere; each named mistake fails a required input, the fully masked rows' one included."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from attention_engine import masks
from attention_engine.codecheck import grade_code, specs
from attention_engine.codecheck.grading import prepare

MHA = specs.get("mha_forward")


def torch_mha(inp: dict) -> tuple[np.ndarray, np.ndarray]:
    """nn.MultiheadAttention on the case's inputs (our weights act as x @ w; torch stores them transposed):
    (output (B, T, C), per-head weights (B, nh, T, T))."""
    x = torch.from_numpy(np.array(inp["x"]))
    T, C = x.shape[1:]
    mha = torch.nn.MultiheadAttention(C, inp["n_head"], dropout=0.0, batch_first=True, dtype=torch.float64).eval()
    with torch.no_grad():
        mha.in_proj_weight.copy_(torch.from_numpy(np.array(inp["w_attn"]).T))
        mha.in_proj_bias.copy_(torch.from_numpy(np.array(inp["b_attn"])))
        mha.out_proj.weight.copy_(torch.from_numpy(np.array(inp["w_proj"]).T))
        mha.out_proj.bias.copy_(torch.from_numpy(np.array(inp["b_proj"])))
        causal = torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1) if inp["causal"] else None  # True = blocked
        pad = torch.from_numpy(np.array(inp["pad"]))  # True = ignore this key
        out, w = mha(x, x, x, key_padding_mask=pad, attn_mask=causal, average_attn_weights=False)
    return out.numpy(), w.numpy()


@pytest.mark.parametrize("seed", [0, 1, 7])
def test_the_reference_is_pytorchs_module_on_every_row_with_a_visible_key(seed):
    prepared = prepare(MHA, seed)
    fully_masked_seen = 0
    for i, case in enumerate(MHA.cases):
        inp = prepared.inputs[i]
        ours = {k: np.asarray(o.value) for k, o in prepared.reference[i].outcomes.items()}
        pad = np.array(inp["pad"])
        T = pad.shape[1]
        future = np.triu(np.ones((T, T), dtype=bool), k=1) if inp["causal"] else np.zeros((T, T), dtype=bool)
        no_key = (future[None] | pad[:, None, :]).all(axis=-1)  # (B, T)
        out, w = torch_mha(inp)
        seen = ~no_key
        np.testing.assert_allclose(ours["out"][seen], out[seen], rtol=1e-9, atol=1e-12, err_msg=case.name)
        np.testing.assert_allclose(
            ours["att"].transpose(0, 2, 1, 3)[seen], w.transpose(0, 2, 1, 3)[seen], atol=1e-12, err_msg=case.name
        )
        # a fully masked row: PyTorch's default call gives NaN; ours the finite uniform average of finfo.min
        assert np.isnan(out[no_key]).all()
        assert np.isfinite(ours["out"]).all() and np.allclose(ours["att"].transpose(0, 2, 1, 3)[no_key], 1 / T)
        fully_masked_seen += int(no_key.sum())
        engine = masks.mha_forward(
            inp["x"], inp["w_attn"], inp["b_attn"], inp["w_proj"], inp["b_proj"], inp["n_head"], pad, inp["causal"]
        )
        np.testing.assert_allclose(ours["out"], engine, rtol=1e-12, atol=1e-12)
    assert fully_masked_seen == 3  # the left-padded case: two rows of one sample, one of the other


def test_sdpa_gives_zero_where_the_module_gives_nan():
    """The lesson's point, on the left-padded case: SDPA's boolean mask is True = attend, and its fully masked rows
    come out 0, not NaN (PyTorch on CPU)."""
    prepared = prepare(MHA, 0)
    i = next(j for j, c in enumerate(MHA.cases) if c.name == "left_padded")
    pad = torch.from_numpy(np.array(prepared.inputs[i]["pad"]))
    B, T = pad.shape
    allow = torch.tril(torch.ones(T, T, dtype=torch.bool))[None, None] & ~pad[:, None, None, :]  # True = attend
    q = torch.randn(B, 2, T, 4, dtype=torch.float64)
    y = torch.nn.functional.scaled_dot_product_attention(q, q, q, attn_mask=allow)
    no_key = ~allow.any(dim=-1)  # (B, 1, T)
    assert no_key.sum() == 3 and (y.transpose(1, 2)[no_key[:, 0]] == 0).all()


def test_every_named_mistake_fails_a_required_input():
    required = {c.name for c in MHA.cases if c.required}
    for m in MHA.misconceptions:
        result = grade_code(MHA, m.code)
        assert (result.verdict, result.misconception) == ("incorrect", m.id)
        failed = {c["name"] for c in result.to_dict()["cases"] if not c["passed"]}
        assert failed & required, (m.id, failed)


def test_the_mistakes_of_the_issue_are_named():
    assert {m.id for m in MHA.misconceptions} >= {
        "mask_convention_swapped",  # True = blocked read as True = attend
        "merge_missing_transpose",  # heads merged without the transpose
        "scale_by_sqrt_d_model",  # √C instead of √hs
        "softmax_wrong_axis",
        "fully_masked_rows_nan",  # −∞ fill: the left padding's rows are NaN
    }


def test_only_the_fully_masked_rows_tell_minus_infinity_from_a_finite_fill():
    bug = next(m for m in MHA.misconceptions if m.id == "fully_masked_rows_nan")
    cases = {c["name"]: c["passed"] for c in grade_code(MHA, bug.code).to_dict()["cases"]}
    assert cases == {c.name: c.name != "left_padded" for c in MHA.cases}
