"""Lesson 5's templates and engine (issue 29): every answer recomputed here from the prompt's numbers without the
engine — the masks built with numpy, two layers of attention actually run to see where NaN lands, the
parameters counted on PyTorch's own nn.MultiheadAttention — and the named mistakes checked to be the mistakes
their names say."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from attention_engine import generators, masks

SEEDS = range(80)


def option(v, misconception: str):
    found = [c.value for c in v.choices if c.misconception == misconception]
    return found[0] if found else None


def pad_of(lengths, T, side) -> np.ndarray:
    """(B, T) True at padding, written out position by position."""
    return np.array([[(j < T - n) if side == "left" else (j >= n) for j in range(T)] for n in lengths])


def blocked(pad: np.ndarray) -> np.ndarray:
    """(B, T, T) causal | padding, True = blocked: key j hidden from query i if j > i or j is padding."""
    T = pad.shape[1]
    future = np.arange(T)[None, :] > np.arange(T)[:, None]  # (T, T)
    return future[None] | pad[:, None, :]


def two_layers_nan(pad: np.ndarray, seed: int) -> np.ndarray:
    """Run two layers of single-head attention with −∞ fill (torch, float64) and report the NaN rows (B, T)."""
    g = torch.Generator().manual_seed(seed)
    B, T = pad.shape
    hide = torch.from_numpy(blocked(pad))
    x = torch.randn(B, T, 8, generator=g, dtype=torch.float64)
    for _ in range(2):
        w = torch.randn(3, 8, 8, generator=g, dtype=torch.float64)
        q, k, v = x @ w[0], x @ w[1], x @ w[2]
        s = (q @ k.transpose(-2, -1) / 8**0.5).masked_fill(hide, float("-inf"))
        e = torch.exp(s - s.max(dim=-1, keepdim=True).values)  # the hand-written softmax of the prompt
        x = x + (e / e.sum(dim=-1, keepdim=True)) @ v
    return torch.isnan(x).any(dim=-1).numpy()


@pytest.mark.parametrize("seed", SEEDS)
def test_mask_rows_answer_is_what_two_real_layers_show(seed):
    v = generators.generate("mask_rows", seed)
    g = v.given
    B, T, side, lengths = g["B"], g["T"], g["side"], g["lengths"]
    assert len(lengths) == B and min(lengths) < T and str(T) in v.prompt
    pad = pad_of(lengths, T, side)
    no_key = blocked(pad).all(axis=-1)  # (B, T)
    nan = two_layers_nan(pad, seed)
    expected = int(no_key.sum()) if g["ask"] == "hidden" else int(nan.sum())
    assert v.answer == expected
    assert generators.grade(v, str(expected)).correct
    # the mistakes: the NaN left where it started is the fully blocked rows; "across the batch" is B·T
    if (stays := option(v, "nan_stays_in_hidden_rows")) is not None:
        assert stays == int(no_key.sum())
    if (everywhere := option(v, "nan_spreads_across_batch")) is not None:
        assert everywhere == B * T
    if (per_head := option(v, "hidden_rows_per_head")) is not None:
        assert per_head == g["n_head"] * expected  # the rows of (B, nh, T, T)
    if (both := option(v, "nan_both_layers_summed")) is not None:  # layer 1's NaN rows counted again
        assert both == int(no_key.sum()) + int(nan.sum())
    if (one_fewer := option(v, "hidden_rows_last_pad_sees_real")) is not None:  # one row fewer per padded sample
        assert one_fewer == int(no_key.sum()) - int(pad.any(axis=-1).sum())
    if (causal_ignored := option(v, "hidden_rows_causal_ignored")) is not None:
        assert causal_ignored == int(pad.all(axis=-1).sum()) * T  # the padding mask alone: no row empties


def test_mask_rows_left_padding_leaves_nan_in_whole_samples_and_right_padding_none():
    seen = {"left": 0, "right": 0}
    for seed in range(120):
        v = generators.generate("mask_rows", seed, ask="nan")
        g = v.given
        pad = pad_of(g["lengths"], g["T"], g["side"])
        nan = two_layers_nan(pad, seed)
        if g["side"] == "right":
            assert not nan.any()
        else:
            assert (nan.all(axis=-1) == pad.any(axis=-1)).all()  # every row of a padded sample, no other sample
        seen[g["side"]] += 1
    assert min(seen.values()) > 10


def test_the_engine_masks_are_the_ones_written_out_here():
    for lengths, T, side in [([5, 3, 1], 5, "left"), ([4, 2], 6, "right"), ([0, 3], 3, "left")]:
        pad = pad_of(lengths, T, side)
        assert (masks.padding_mask(lengths, T, side) == pad).all()
        hide = masks.combined_hide(pad)
        assert hide.shape == (len(lengths), 1, T, T) and (hide[:, 0] == blocked(pad)).all()
        assert (masks.rows_without_key(hide) == blocked(pad).all(axis=-1)).all()
        assert masks.hidden_row_count(lengths, T, side) == int(blocked(pad).all(axis=-1).sum())
        assert (masks.nan_rows(pad) == two_layers_nan(pad, 1)).all()
        assert masks.nan_row_count(lengths, T, side) == int(two_layers_nan(pad, 2).sum())


@pytest.mark.parametrize("seed", SEEDS)
def test_mha_param_count_is_pytorchs_sum_of_numel(seed):
    v = generators.generate("mha_param_count", seed)
    g = v.given
    E, nh, D, bias = g["E"], g["n_head"], g["D"], g["bias"]
    assert D != E and E % nh == 0
    with torch.device("meta"):
        mha = torch.nn.MultiheadAttention(E, nh, kdim=D, vdim=D, bias=bias, batch_first=True)
    names = {n: tuple(p.shape) for n, p in mha.named_parameters()}
    assert names["k_proj_weight"] == (E, D) and "in_proj_weight" not in names  # three separate projections
    total = sum(p.numel() for p in mha.parameters())
    assert v.answer == total
    if (fused := option(v, "mha_fused_in_proj_assumed")) is not None:
        with torch.device("meta"):
            self_attn = torch.nn.MultiheadAttention(E, nh, bias=bias)
        assert fused == sum(p.numel() for p in self_attn.parameters())
    if (no_out := option(v, "mha_out_proj_forgotten")) is not None:
        assert no_out == total - sum(p.numel() for p in mha.out_proj.parameters())


@pytest.mark.parametrize("seed", SEEDS)
def test_cross_mask_count_is_the_broadcast_key_padding_mask(seed):
    v = generators.generate("cross_mask_count", seed)
    g = v.given
    B, nh, T_q, T_k, enc, dec = (g[k] for k in ("B", "n_head", "T_q", "T_k", "enc_lengths", "dec_lengths"))
    assert T_q != T_k
    key_pad = pad_of(enc, T_k, "right")  # (B, T_k)
    cells = np.broadcast_to(key_pad[:, None, None, :], (B, nh, T_q, T_k))
    assert v.answer == int(cells.sum())
    causal = np.arange(T_k)[None, :] > np.arange(T_q)[:, None]  # (T_q, T_k) the mistaken causal mask
    if (with_causal := option(v, "cross_mask_causal_added")) is not None:
        assert with_causal == int(np.broadcast_to(cells | causal, cells.shape).sum())
    dec_pad = pad_of(dec, T_q, "right")  # (B, T_q)
    if (both := option(v, "cross_mask_both_paddings")) is not None:
        assert both == int((cells | dec_pad[:, None, :, None]).sum())
    if (rows := option(v, "cross_mask_decoder_padding")) is not None:
        assert rows == int(np.broadcast_to(dec_pad[:, None, :, None], cells.shape).sum())


def test_pytorch_blocks_the_same_cells_with_key_padding_mask():
    """nn.MultiheadAttention's key_padding_mask (True = ignore) zeroes exactly the encoder's padding columns of
    every decoder row (cross-attention, T_q ≠ T_k), and its output has the query's length."""
    torch.manual_seed(0)
    B, T_q, T_k, E, D = 2, 3, 5, 8, 6
    mha = torch.nn.MultiheadAttention(E, 2, kdim=D, vdim=D, batch_first=True).eval()
    key_pad = torch.from_numpy(pad_of([3, 5], T_k, "right"))
    out, w = mha(torch.randn(B, T_q, E), torch.randn(B, T_k, D), torch.randn(B, T_k, D), key_padding_mask=key_pad)
    assert out.shape == (B, T_q, E) and w.shape == (B, T_q, T_k)
    assert ((w == 0) == key_pad[:, None, :].expand(B, T_q, T_k)).all()
