"""Lesson 5 (fixtures/lessons/05-mha-module.yaml) says true things: every computable claim is recomputed here.

numpy for the math; PyTorch 2.13 on CPU (marked ``torch``) for what PyTorch itself does: nn.MultiheadAttention,
scaled_dot_product_attention, masked_fill, finfo. The lesson says which behaviours were measured in which version;
these tests are where they were measured. Each test names the section or question whose statement it holds.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pytest
import yaml

LESSON = yaml.safe_load(
    (Path(__file__).resolve().parents[3] / "fixtures" / "lessons" / "05-mha-module.yaml").read_text(encoding="utf-8")
)
SECTIONS = {s["key"]: s for s in LESSON["teaching"]}
QUESTIONS = {q["key"]: q for q in LESSON["questions"]}

# The module exactly as the teaching text shows it (section overview), executed from the fixture.
_code = re.search(r"```python\n(.*?)```", SECTIONS["overview"]["body"], re.DOTALL).group(1)
_namespace: dict = {"np": np}
exec(compile(_code, "05-mha-module.yaml#overview", "exec"), _namespace)  # our own fixture's code
mha_forward = _namespace["mha_forward"]
softmax = _namespace["softmax"]


def correct(key: str) -> str:
    return next(o["text"] for o in QUESTIONS[key]["options"] if o.get("correct"))


def option(key: str, text_part: str) -> str:
    return next(o["text"] for o in QUESTIONS[key]["options"] if text_part in o["text"])


def checkpoint_answer(section: str) -> str:
    return next(o["text"] for o in SECTIONS[section]["checkpoint"]["options"] if o.get("correct"))


def left_padded(lengths: list[int], t_len: int) -> np.ndarray:
    """(B, T) bool, True = padding, the padding at the start of each sequence."""
    return np.array([[j < t_len - n for j in range(t_len)] for n in lengths])


def hide_mask(pad: np.ndarray) -> np.ndarray:
    t_len = pad.shape[1]
    return np.triu(np.ones((t_len, t_len), dtype=bool), k=1) | pad[:, None, None, :]  # (B, 1, T, T)


# --------------------------------------------------------------------------- overview and projections


@pytest.mark.torch
def test_the_lesson_module_matches_nn_multiheadattention_on_every_row_with_a_visible_key(torch):
    rng = np.random.default_rng(50)
    b, t_len, c, n_head = 3, 6, 16, 4
    mha = torch.nn.MultiheadAttention(c, n_head, batch_first=True, dropout=0.0, dtype=torch.float64).eval()
    with torch.no_grad():
        for p in mha.parameters():
            p.copy_(torch.from_numpy(rng.standard_normal(tuple(p.shape)) * 0.3))
    x = rng.standard_normal((b, t_len, c))
    pad = left_padded([6, 4, 2], t_len)
    causal = torch.triu(torch.ones(t_len, t_len, dtype=torch.bool), 1)
    with torch.no_grad():
        ref, _ = mha(*(torch.from_numpy(x),) * 3, key_padding_mask=torch.from_numpy(pad), attn_mask=causal)
    ours = mha_forward(
        x,
        mha.in_proj_weight.detach().numpy().T,  # (C, 3C): q, k, v stacked along the output dimension
        mha.in_proj_bias.detach().numpy(),
        mha.out_proj.weight.detach().numpy().T,
        mha.out_proj.bias.detach().numpy(),
        n_head,
        pad=pad,
    )
    visible = ~hide_mask(pad)[:, 0].all(axis=-1)  # (B, T): rows with at least one visible key
    assert np.allclose(ours[visible], ref.numpy()[visible], atol=1e-10)
    assert np.isnan(ref.numpy()[~visible]).all()  # PyTorch's default call: NaN on the fully hidden rows
    assert np.isfinite(ours).all()  # the lesson's finfo.min fill: finite everywhere
    assert visible.sum() == 6 + 4 + 2  # the left padding's rows (2 and 4 of them) have no visible key


@pytest.mark.torch
def test_one_fused_c_attn_equals_three_linears_stacked_along_the_output_dimension(torch):
    g = torch.Generator().manual_seed(51)
    c = 8
    lin = [torch.nn.Linear(c, c, dtype=torch.float64) for _ in range(3)]
    c_attn = torch.nn.Linear(c, 3 * c, dtype=torch.float64)
    with torch.no_grad():
        c_attn.weight.copy_(torch.cat([m.weight for m in lin], dim=0))  # (3C, C): weights are (out, in)
        c_attn.bias.copy_(torch.cat([m.bias for m in lin]))
    x = torch.randn(2, 5, c, generator=g, dtype=torch.float64)
    for part, m in zip(c_attn(x).split(c, dim=-1), lin, strict=True):
        assert torch.allclose(part, m(x))
    assert torch.cat([m.weight for m in lin], dim=1).shape == (c, 3 * c) != c_attn.weight.shape  # option b's shape
    assert correct("l5-fuse-weights") == "`torch.cat([Wq, Wk, Wv], dim=0)`"


@pytest.mark.torch
def test_multiheadattention_packs_q_k_v_in_one_in_proj_weight_unless_kdim_or_vdim_differ(torch):
    e, h = 8, 2
    mha = torch.nn.MultiheadAttention(e, h, batch_first=True)
    assert mha.in_proj_weight.shape == (3 * e, e)
    assert sum(p.numel() for p in mha.parameters()) == 4 * e * e + 4 * e  # 4C² + 4C, whatever the head count
    assert sum(p.numel() for p in torch.nn.MultiheadAttention(e, 4).parameters()) == 4 * e * e + 4 * e
    cross = torch.nn.MultiheadAttention(e, h, batch_first=True, kdim=6, vdim=5)
    names = {n for n, _ in cross.named_parameters()}
    assert {"q_proj_weight", "k_proj_weight", "v_proj_weight"} <= names and "in_proj_weight" not in names
    c = 768
    assert 4 * c * c + 4 * c == 2_362_368 and checkpoint_answer("projections") == "2,362,368"
    assert 3 * c * c == 1_769_472 and 4 * c * c == 2_359_296  # the two distractors


def test_more_heads_same_matmul_work_but_n_head_times_the_weight_entries():
    b, t_len, c = 2, 10, 64
    for n_head in (1, 4, 8):
        hs = c // n_head
        qk_flops = 2 * b * n_head * t_len * t_len * hs  # (T, hs)·(hs, T) per head
        assert qk_flops == 2 * b * t_len * t_len * c  # the same for every head count
        assert b * n_head * t_len * t_len == n_head * (b * t_len * t_len)  # (B, nh, T, T) entries
    assert checkpoint_answer("overview") == "`n_head` 倍"


# --------------------------------------------------------------------------- masks and the fully hidden row


def test_left_padding_and_a_causal_mask_leave_the_pad_rows_without_a_visible_key():
    hide = hide_mask(left_padded([3], 5))[0, 0]  # T = 5, two pads at the start
    assert hide.all(axis=-1).tolist() == [True, True, False, False, False]  # 2 rows see nothing
    assert checkpoint_answer("masks") == "2"
    right = np.array([[False, False, False, True, True]])  # right padding: every pad query still sees real keys
    assert not hide_mask(right)[0, 0].all(axis=-1).any()


def test_minus_inf_gives_nan_that_spreads_into_every_row_of_the_next_layer():
    rng = np.random.default_rng(52)
    pad = left_padded([3, 5], 5)
    hide = hide_mask(pad)  # (B, 1, T, T)
    scores = rng.standard_normal((2, 1, 5, 5))
    with np.errstate(invalid="ignore"):
        w = softmax(np.where(hide, -np.inf, scores))
    assert np.isnan(w[0, 0, :2]).all() and not np.isnan(w[0, 0, 2:]).any()  # layer 1: only the pad rows
    v = np.where(np.isnan(w[..., :1]), np.nan, rng.standard_normal((2, 1, 5, 4)))  # their outputs are NaN
    with np.errstate(invalid="ignore"):
        w2 = softmax(np.where(hide, -np.inf, rng.standard_normal((2, 1, 5, 5))))  # layer 2
        y2 = w2[0, 0, 2:] @ v[0, 0]  # the real rows: weight 0 on the NaN pad values
    assert np.isnan(y2).all()  # 0 · NaN = NaN: skipping the pads in the loss does not help (option c)


def test_finfo_min_fill_is_exact_where_a_key_is_visible_and_finite_where_none_is():
    rng = np.random.default_rng(53)
    hide = hide_mask(left_padded([3, 5], 5))
    scores = rng.standard_normal((2, 1, 5, 5))
    filled = softmax(np.where(hide, np.finfo(scores.dtype).min, scores))
    with np.errstate(invalid="ignore"):
        minus_inf = softmax(np.where(hide, -np.inf, scores))
    visible = ~hide.all(axis=-1)
    assert np.allclose(filled[visible], minus_inf[visible])  # the same weights where a key is visible
    assert np.allclose(filled[~visible], 1 / 5)  # the fully hidden rows: a uniform, finite average
    assert np.array_equal(filled[visible] == 0, hide[visible])  # hidden keys get exactly 0
    assert correct("l5-nan-fix") == "挡住的格子改填 `finfo(dtype).min`"


def test_zero_fill_leaks_and_two_finfo_min_masks_added_overflow_back_to_minus_inf():
    scores = np.array([0.3, -0.2, 1.0])
    assert softmax(np.where([True, False, False], 0.0, scores))[0] > 0.1  # filled with 0: the pad gets weight
    lo = np.finfo(np.float32).min
    causal_add = np.array([0.0, lo, lo], dtype=np.float32)
    pad_add = np.array([lo, lo, 0.0], dtype=np.float32)
    with np.errstate(over="ignore"):
        both = causal_add + pad_add
    assert both[1] == -np.inf  # min + min overflows: −inf again, and a fully hidden row is NaN again
    with np.errstate(over="ignore", invalid="ignore"):
        assert np.isnan(softmax(np.array([lo, lo], dtype=np.float32) * 2)).all()
    assert np.maximum(both, lo)[1] == lo  # the clamp torch.max(attn, finfo.min) restores a finite value


@pytest.mark.torch
def test_sdpa_returns_zeros_for_a_fully_hidden_row_via_safe_softmax(torch):
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel

    g = torch.Generator().manual_seed(54)
    q, k, v = torch.randn(3, 2, 2, 4, 8, generator=g).unbind(0)
    allow = torch.ones(2, 1, 4, 4, dtype=torch.bool)
    allow[1, :, 2] = False  # sequence 2, row 3: nothing visible
    for backend in (None, SDPBackend.MATH):
        if backend is None:
            y = F.scaled_dot_product_attention(q, k, v, attn_mask=allow)
        else:
            with sdpa_kernel(backend):
                y = F.scaled_dot_product_attention(q, k, v, attn_mask=allow)
        assert torch.equal(y[1, :, 2], torch.zeros(2, 8))  # zeros, not NaN
        assert torch.isfinite(y).all()
    minus_inf = torch.tensor([[0.0, 1.0], [-math.inf, -math.inf]])
    assert torch.equal(torch._safe_softmax(minus_inf, -1)[1], torch.zeros(2))
    assert torch.isnan(torch.softmax(minus_inf, -1)[1]).all()  # a plain softmax: 0/0
    assert "`_safe_softmax`" in SECTIONS["masks"]["body"]


@pytest.mark.torch
def test_multiheadattention_gives_nan_for_a_fully_hidden_row_in_its_default_call_and_other_paths_differ(torch):
    g = torch.Generator().manual_seed(55)
    e, h = 8, 2
    mha = torch.nn.MultiheadAttention(e, h, batch_first=True)
    x = torch.randn(2, 4, e, generator=g)
    kpm = torch.tensor([[False] * 4, [True] * 4])  # sequence 2: every key is padding
    with torch.no_grad():
        for training in (True, False):
            mha.train(training)
            out, _ = mha(x, x, x, key_padding_mask=kpm)  # need_weights=True: the weights are computed explicitly
            assert torch.isnan(out[1]).all() and torch.isfinite(out[0]).all()
        mha.train(True)
        assert torch.isfinite(mha(x, x, x, key_padding_mask=kpm, need_weights=False)[0]).all()  # the SDPA path
        mha.eval()
        assert torch.isnan(mha(x, x, x, key_padding_mask=kpm, need_weights=False)[0][1]).all()  # the fast path
    assert correct("l5-fully-masked-apis") == "MHA 给 NaN，SDPA 给 0"


# --------------------------------------------------------------------------- the boolean conventions


@pytest.mark.torch
def test_multiheadattention_true_means_blocked_sdpa_true_means_attend(torch):
    import torch.nn.functional as F

    g = torch.Generator().manual_seed(56)
    e, t_len = 8, 4
    mha = torch.nn.MultiheadAttention(e, 1, batch_first=True, bias=False).eval()
    x = torch.randn(1, t_len, e, generator=g)
    future = torch.triu(torch.ones(t_len, t_len, dtype=torch.bool), 1)  # True = the future
    allow = ~future  # the SDPA convention: True = may attend
    additive = torch.zeros(t_len, t_len).masked_fill(future, -math.inf)
    with torch.no_grad():
        out, w = mha(x, x, x, attn_mask=future)
        assert torch.equal(w[0].triu(1), torch.zeros(t_len, t_len))  # True in attn_mask: blocked
        assert torch.allclose(mha(x, x, x, attn_mask=additive)[0], out, atol=1e-6)  # a float mask is added
        assert torch.allclose(mha(x, x, x, attn_mask=~allow)[0], out, atol=1e-6)  # the conversion: ~allow
        wrong, w_wrong = mha(x, x, x, attn_mask=allow)  # SDPA's mask passed as is
        assert torch.isnan(wrong[0, -1]).all()  # the last row (it may see everything) is now fully hidden
        assert torch.equal(w_wrong[0, 0, :1], torch.zeros(1))  # and the first row sees only the future
        for floats in (allow.float(), 1 - allow.float()):  # 0/1 floats are added: nothing is hidden
            assert (mha(x, x, x, attn_mask=floats)[1][0][future] > 0).all()
        kpm = torch.tensor([[False, False, True, False]])
        _, w_kpm = mha(x, x, x, key_padding_mask=kpm)
        assert torch.equal(w_kpm[0, :, 2], torch.zeros(t_len))  # True in key_padding_mask: that key is ignored
    q = k = v = x.unsqueeze(1)
    sdpa = F.scaled_dot_product_attention(q, k, v, attn_mask=allow)
    assert torch.allclose(sdpa, F.scaled_dot_product_attention(q, k, v, is_causal=True), atol=1e-6)
    b = torch.tril(torch.ones(t_len, t_len))  # nanoGPT's buffer, 1 = visible
    assert torch.equal(b == 0, future) and checkpoint_answer("conventions") == "`b == 0`"
    assert correct("l5-mask-convert") == "`~allow`"


# --------------------------------------------------------------------------- cross-attention


@pytest.mark.torch
def test_cross_attention_shapes_follow_the_query(torch):
    g = torch.Generator().manual_seed(57)
    b, t_q, t_k, e, h = 2, 5, 9, 16, 4
    mha = torch.nn.MultiheadAttention(e, h, batch_first=True, kdim=6, vdim=5)
    dec, enc_k, enc_v = torch.randn(b, t_q, e, generator=g), torch.randn(b, t_k, 6), torch.randn(b, t_k, 5)
    enc_pad = torch.zeros(b, t_k, dtype=torch.bool)
    enc_pad[1, -3:] = True  # the second source sentence is 3 tokens shorter
    out, w = mha(dec, enc_k, enc_v, key_padding_mask=enc_pad)
    assert out.shape == (b, t_q, e) and w.shape == (b, t_q, t_k)
    assert torch.equal(w[1, :, -3:], torch.zeros(t_q, 3))  # the source padding columns are hidden
    assert mha(dec, enc_k, enc_v, average_attn_weights=False)[1].shape == (b, h, t_q, t_k)
    q = torch.randn(b, h, t_q, e // h)
    k = torch.randn(b, h, t_k, e // h)
    assert (q @ k.transpose(-2, -1)).shape == (2, 4, 5, 9)
    assert correct("l5-cross-shape") == "`(2, 4, 5, 9)`"
    big = torch.nn.MultiheadAttention(512, 8, batch_first=True)
    assert big(torch.randn(2, 5, 512), torch.randn(2, 9, 512), torch.randn(2, 9, 512))[0].shape == (2, 5, 512)
    assert checkpoint_answer("cross-attention") == "`(2, 5, 512)`"


# --------------------------------------------------------------------------- dropout and the output projection


@pytest.mark.torch
def test_dropout_on_the_weights_keeps_the_expectation_not_the_row_sum(torch):
    g = torch.Generator().manual_seed(58)
    att = torch.softmax(torch.randn(20_000, 16, generator=g), dim=-1)
    torch.manual_seed(58)
    dropped = torch.nn.functional.dropout(att, p=0.1, training=True)
    sums = dropped.sum(-1)
    assert not torch.isclose(sums, torch.ones(())).all()  # rows no longer sum to exactly 1
    assert (sums > 1).any() and (sums < 1).any()  # neither 0.9 nor 1/0.9: random
    assert sums.mean().item() == pytest.approx(1.0, abs=0.01)  # the expectation is still 1
    kept = dropped != 0
    assert torch.allclose(dropped[kept], att[kept] / 0.9)  # survivors scaled by 1/(1 − p)
    assert torch.equal(torch.nn.functional.dropout(att, p=0.1, training=False), att)  # eval: nothing happens
    assert correct("l5-dropout-rows") == "期望为 1，单独一行一般不为 1"


def test_concatenating_heads_does_not_mix_them_only_c_proj_does():
    rng = np.random.default_rng(59)
    b, n_head, t_len, hs = 1, 3, 4, 2
    y = rng.standard_normal((b, n_head, t_len, hs))
    merged = y.transpose(0, 2, 1, 3).reshape(b, t_len, n_head * hs)
    for h in range(n_head):
        assert np.array_equal(merged[..., h * hs : (h + 1) * hs], y[:, h])  # head h sits in its own hs dimensions
    assert checkpoint_answer("dropout-projection") == "没有，只是并排拼接"


# --------------------------------------------------------------------------- precision


@pytest.mark.torch
def test_the_float_ranges_in_the_table(torch):
    f16, bf16, f32 = (torch.finfo(t) for t in (torch.float16, torch.bfloat16, torch.float32))
    assert f16.max == 65504 == (2 - 2**-10) * 2**15 and f16.min == -65504
    assert f16.smallest_normal == pytest.approx(6.1e-5, rel=0.01) and f16.eps == pytest.approx(9.8e-4, rel=0.01)
    assert bf16.max == pytest.approx(3.39e38, rel=0.001) and bf16.eps == pytest.approx(7.8e-3, rel=0.01)
    assert f32.max == pytest.approx(3.40e38, rel=0.001) and f32.eps == pytest.approx(1.2e-7, rel=0.01)
    assert bf16.smallest_normal == f32.smallest_normal == pytest.approx(1.2e-38, rel=0.03)
    with np.errstate(over="ignore"):
        assert np.float16(65519) == 65504 and np.isinf(np.float16(65520))  # "从 65520 起就舍入成 inf"
    assert checkpoint_answer("precision") == "65504"


@pytest.mark.torch
def test_masked_fill_minus_1e9_on_fp16_raises_while_numpy_rounds_it_to_minus_inf(torch):
    scores = torch.randn(2, 3).half()
    mask = torch.tensor([[True, False, False], [False, False, True]])
    with pytest.raises(RuntimeError, match="without overflow"):
        scores.masked_fill(mask, -1e9)
    with np.errstate(over="ignore"):
        assert np.float16(-1e9) == -np.inf  # numpy: silently −inf
    filled = scores.masked_fill(mask, torch.finfo(scores.dtype).min)
    assert filled[0, 0].item() == -65504
    assert correct("l5-fp16-fill") == "报错：$-10^9$ 超出了 fp16 的范围"


@pytest.mark.torch
def test_a_64_dim_dot_product_of_40s_overflows_fp16_and_the_max_subtraction_then_gives_nan(torch):
    q = torch.full((64,), 40.0, dtype=torch.float16)
    assert (q.float() @ q.float()).item() == 102_400  # the true value
    dot = q @ q
    assert dot.dtype == torch.float16 and torch.isinf(dot)
    row = torch.stack([dot, torch.tensor(1.0, dtype=torch.float16)])
    assert torch.isnan(row - row.max())[0]  # inf − inf
    assert torch.isnan(torch.softmax(row, -1)).all()
    assert torch.isnan(torch.softmax(row.float(), -1)).all()  # upcasting afterwards does not bring it back
    assert correct("l5-fp16-overflow") == "`inf`"


def test_fp16_accumulation_stalls_at_2048():
    acc = np.float16(0)
    for _ in range(4096):
        acc = np.float16(acc + np.float16(1))
    assert acc == 2048  # 2048 + 1 rounds back to 2048: the spacing above 2048 is 2
    assert np.spacing(np.float16(2048)) == 2
    assert np.float32(4096) == sum(np.float32(1) for _ in range(4096))  # fp32 has room
    assert "upcast attention to fp32" in SECTIONS["precision"]["body"]


# --------------------------------------------------------------------------- Pre-LN, Post-LN, QK-norm


@pytest.mark.torch
def test_pytorch_transformer_layers_default_to_post_ln(torch):
    assert torch.nn.TransformerEncoderLayer(8, 2).norm_first is False
    assert torch.nn.TransformerEncoderLayer(8, 2, norm_first=True).norm_first is True
    assert correct("l5-preln-formula") == "$x+F(\\mathrm{LN}(x))$"


def test_l2_qk_norm_bounds_the_logits_by_the_learned_scale():
    rng = np.random.default_rng(60)
    g = 3.7
    q, k = rng.standard_normal((2, 1000, 64)) * rng.uniform(0.1, 100, size=(2, 1000, 1))  # any lengths at all
    qn = q / np.linalg.norm(q, axis=-1, keepdims=True)
    kn = k / np.linalg.norm(k, axis=-1, keepdims=True)
    logits = g * (qn * kn).sum(-1)  # Henry et al. 2020: g · cos(q, k) replaces q·k / √d
    assert np.abs(logits).max() <= g + 1e-12
    assert np.abs((q * k).sum(-1) / 8).max() > 100 * g  # without it the logits grow with the vectors


@pytest.mark.torch
def test_layernorm_qk_norm_fixes_the_length_at_sqrt_d_so_logits_stay_below_sqrt_d(torch):
    d = 64
    g = torch.Generator().manual_seed(61)
    q = torch.randn(500, d, generator=g) * 50
    k = torch.randn(500, d, generator=g) * 50
    qn, kn = (torch.nn.functional.layer_norm(t, (d,)) for t in (q, k))  # no affine parameters
    assert torch.allclose(qn.norm(dim=-1), torch.full((500,), math.sqrt(d)), rtol=1e-4)
    assert ((qn * kn).sum(-1) / math.sqrt(d)).abs().max() <= math.sqrt(d) + 1e-4
    assert "8B" in SECTIONS["norms"]["body"] and "one-hot" in correct("l5-qknorm-why")
