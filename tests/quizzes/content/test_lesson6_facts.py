"""Lesson 6 (fixtures/lessons/06-cost-accounting.yaml) says true things: every number it states, recomputed.

Parameter counts come from PyTorch modules built from the configuration (``sum(p.numel())``, on the meta
device so nothing is allocated), FLOPs from ``torch.utils.flop_counter.FlopCounterMode`` on a block written
with explicit matmuls (the counter sees ``addmm`` and ``bmm``; it reports 0 for ``scaled_dot_product_attention``
on CPU), bytes from meta tensors of the stated shape and dtype. The rest is arithmetic in plain Python and
numpy. Where the lesson offers a number as an option, the test checks the option's text is that number,
rounded as displayed, and that every wrong option is the output of the mistake its feedback names.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest
import yaml

LESSON_FILE = Path(__file__).resolve().parents[3] / "fixtures" / "lessons" / "06-cost-accounting.yaml"
LESSON = yaml.safe_load(LESSON_FILE.read_text(encoding="utf-8"))
QUESTIONS = {q["key"]: q for q in LESSON["questions"]}
SECTIONS = {s["key"]: s for s in LESSON["teaching"]}
CHOICE = [q for q in LESSON["questions"] if q["kind"] == "choice"]

MIB = 2**20
GIB = 2**30
# GPT-2 small, as nanoGPT's from_pretrained forces it: vocab 50257, block_size 1024, bias=True.
GPT2 = {"vocab": 50257, "block_size": 1024, "d": 768, "n_layer": 12, "n_head": 12}


def option_text(question: dict, key: str) -> str:
    return next(o["text"] for o in question["options"] if o["key"] == key)


def correct_key(question: dict) -> str:
    return next(o["key"] for o in question["options"] if o.get("correct"))


def sci(value: float, sig: int) -> str:
    """The option spelling of a number: ``$1.26\\times10^{7}$`` (``sig`` significant figures)."""
    exponent = math.floor(math.log10(abs(value)))
    mantissa = round(value / 10**exponent, sig - 1)
    if mantissa >= 10:  # 9.996 → 10.0 → 1.00 × 10^(e+1)
        mantissa, exponent = mantissa / 10, exponent + 1
    return rf"${mantissa:.{sig - 1}f}\times10^{{{exponent}}}$"


def number(text: str) -> float:
    """The value an option displays: ``$1.26\\times10^{7}$`` → 1.26e7, ``12.00 GiB`` → 12.0."""
    match = re.fullmatch(r"\$?([\d.]+)(?:\\times10\^\{(\d+)\})?\$?(?:\s*\S+)?", text.strip())
    assert match, text
    return float(match.group(1)) * 10 ** int(match.group(2) or 0)


def assert_options(question_key: str, expected: dict[str, str]) -> None:
    """Each option (by key) shows exactly the expected text, and the options are listed in numeric order."""
    question = QUESTIONS[question_key]
    assert {o["key"]: o["text"] for o in question["options"]} == expected, question_key
    values = [number(o["text"]) for o in question["options"]]
    assert values == sorted(values), (question_key, values)


def build_gpt(torch, *, vocab, block_size, d, n_layer, n_head, bias=True, tied=True, n_kv_head=None, mlp=True):
    """A nanoGPT-shaped model (wte, wpe, blocks of ln_1 / attention / ln_2 / MLP, ln_f, lm_head), for counting.

    ``n_kv_head`` set: the attention has separate q, k, v projections with n_kv_head K/V heads (GQA). The
    forward is written with explicit matmuls (``q @ k.transpose(-2, -1)``, ``att @ v``) so that FlopCounterMode
    sees the T×T work.
    """
    nn = torch.nn

    class Attention(nn.Module):
        def __init__(self):
            super().__init__()
            self.hs = d // n_head
            if n_kv_head is None:
                self.c_attn = nn.Linear(d, 3 * d, bias=bias)
            else:
                self.q = nn.Linear(d, d, bias=bias)
                self.k = nn.Linear(d, n_kv_head * self.hs, bias=bias)
                self.v = nn.Linear(d, n_kv_head * self.hs, bias=bias)
            self.c_proj = nn.Linear(d, d, bias=bias)

        def forward(self, x):  # (B, T, d)
            B, T, C = x.shape
            q, k, v = self.c_attn(x).split(C, dim=2)
            q, k, v = (t.view(B, T, n_head, self.hs).transpose(1, 2) for t in (q, k, v))  # (B, nh, T, hs)
            att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(self.hs))  # (B, nh, T, T)
            att = att.masked_fill(torch.ones(T, T, dtype=torch.bool).triu(1), float("-inf")).softmax(dim=-1)
            y = (att @ v).transpose(1, 2).contiguous().view(B, T, C)  # (B, T, d)
            return self.c_proj(y)

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln_1 = nn.LayerNorm(d)
            self.attn = Attention()
            if mlp:
                self.ln_2 = nn.LayerNorm(d)
                self.c_fc = nn.Linear(d, 4 * d, bias=bias)
                self.mlp_proj = nn.Linear(4 * d, d, bias=bias)

        def forward(self, x):
            x = x + self.attn(self.ln_1(x))
            return x + self.mlp_proj(torch.nn.functional.gelu(self.c_fc(self.ln_2(x))))

    class GPT(nn.Module):
        def __init__(self):
            super().__init__()
            self.wte = nn.Embedding(vocab, d)
            self.wpe = nn.Embedding(block_size, d)
            self.h = nn.ModuleList(Block() for _ in range(n_layer))
            self.ln_f = nn.LayerNorm(d)
            self.lm_head = nn.Linear(d, vocab, bias=False)
            if tied:
                self.lm_head.weight = self.wte.weight  # nanoGPT: weight tying

    return GPT()


def numel(module) -> int:
    return sum(p.numel() for p in module.parameters())


def linear_weights(torch, module) -> int:
    """Weights of the matmuls only: no biases, no LayerNorm."""
    return sum(m.weight.numel() for m in module.modules() if isinstance(m, torch.nn.Linear))


# --------------------------------------------------------------------------- parameters


@pytest.mark.torch
def test_a_block_has_12d2_weights_and_13d_biases_and_layernorms(torch):
    d = GPT2["d"]
    with torch.device("meta"):
        block = build_gpt(torch, **{**GPT2, "n_layer": 1}).h[0]
        (attention,) = [m for m in block.modules() if m.__class__.__name__ == "Attention"]
        attn_weights = linear_weights(torch, attention)
        mlp_weights = block.c_fc.weight.numel() + block.mlp_proj.weight.numel()
    assert numel(block) == 12 * d * d + 13 * d == 7_087_872
    assert linear_weights(torch, block) == 12 * d * d
    assert (attn_weights, mlp_weights) == (4 * d * d, 8 * d * d)
    assert mlp_weights / linear_weights(torch, block) == pytest.approx(2 / 3)  # checkpoint: 三分之二
    assert round(100 * 13 * d / (12 * d * d), 2) == 0.14  # "只有 12d² 的 0.14%"
    assert "0.14%" in SECTIONS["block-params"]["body"]
    assert SECTIONS["block-params"]["checkpoint"]["options"][2]["text"] == "三分之二"


@pytest.mark.torch
def test_parameters_do_not_depend_on_the_number_of_heads(torch):
    with torch.device("meta"):
        counts = {n_head: numel(build_gpt(torch, **{**GPT2, "n_layer": 1, "n_head": n_head})) for n_head in (1, 12, 24)}
    assert len(set(counts.values())) == 1, counts


@pytest.mark.torch
def test_gpt2_small_counts_in_the_table_and_the_three_conventions(torch):
    d, V, L = GPT2["d"], GPT2["vocab"], GPT2["n_layer"]
    with torch.device("meta"):
        model = build_gpt(torch, **GPT2)
        untied = build_gpt(torch, **GPT2, tied=False)
    total = numel(model)
    assert total == 124_439_808
    assert model.wte.weight.numel() == V * d == 38_597_376
    assert model.wpe.weight.numel() == 1024 * d == 786_432
    assert sum(numel(b) for b in model.h) == 85_054_464
    assert numel(model.ln_f) == 2 * d == 1_536
    # nanoGPT's get_num_params(): subtracts the position embeddings only (the token embeddings double as lm_head)
    assert total - model.wpe.weight.numel() == 123_653_376
    assert f"{(total - model.wpe.weight.numel()) / 1e6:.2f}M" == "123.65M"
    # Kaplan et al.'s N: no vocabulary or position embeddings, biases and LayerNorms omitted: 12·L·d²
    assert 12 * L * d * d == sum(linear_weights(torch, b) for b in model.h) == 84_934_656
    assert round(100 * (V * d + 1024 * d) / total, 1) == 31.6
    body = SECTIONS["whole-model"]["body"]
    for figure in ("38,597,376", "786,432", "85,054,464", "1,536", "124,439,808", "123.65M", "84,934,656", "31.6%"):
        assert figure in body, figure
    # the quiz: the key, blocks + ln_f without embeddings, an untied lm_head counted twice
    assert numel(untied) == 163_037_184
    blocks_and_ln_f = sum(numel(b) for b in model.h) + numel(model.ln_f)
    assert_options("l6-gpt2-total", {"b": sci(blocks_and_ln_f, 3), "a": sci(total, 3), "c": sci(numel(untied), 3)})
    assert correct_key(QUESTIONS["l6-gpt2-total"]) == "a"


@pytest.mark.torch
def test_the_block_question_counts_12d2_at_d_1024(torch):
    d = 1024
    with torch.device("meta"):
        block = build_gpt(torch, vocab=8, block_size=8, d=d, n_layer=1, n_head=16, bias=False).h[0]
    weights = linear_weights(torch, block)
    assert weights == 12 * d * d == 12_582_912
    mistakes = {"b": 4 * d * d, "c": 8 * d * d, "d": 4 * d * d + 3 * d * 4 * d}  # attention only, MLP only, gated MLP
    assert_options("l6-block-params", {**{k: sci(v, 3) for k, v in mistakes.items()}, "a": sci(weights, 3)})
    assert correct_key(QUESTIONS["l6-block-params"]) == "a"


@pytest.mark.torch
def test_gqa_shrinks_only_the_key_and_value_projections(torch):
    d, n_head, n_kv, hs = 4096, 32, 8, 128
    assert d // n_head == hs
    shape = {"vocab": 8, "block_size": 8, "d": d, "n_layer": 1, "n_head": n_head, "bias": False, "mlp": False}
    with torch.device("meta"):
        models = {
            "gqa": build_gpt(torch, **shape, n_kv_head=n_kv),
            "mqa": build_gpt(torch, **shape, n_kv_head=1),
            "mha": build_gpt(torch, **shape),
        }
    weights = {name: linear_weights(torch, m.h[0].attn) for name, m in models.items()}
    assert weights == {"gqa": 41_943_040, "mqa": 34_603_008, "mha": 67_108_864}
    assert weights["gqa"] == 2 * d * d + 2 * d * n_kv * hs
    assert 1 - weights["gqa"] / weights["mha"] == 0.375  # "少 37.5%"
    assert_options(
        "l6-gqa-attn-params",
        {
            "d": sci(weights["mha"] / 4, 3),  # all four projections shrunk
            "c": sci(weights["mqa"], 3),
            "a": sci(weights["gqa"], 3),
            "b": sci(weights["mha"], 3),  # n_head used for n_kv_head
        },
    )
    assert correct_key(QUESTIONS["l6-gqa-attn-params"]) == "a"


# --------------------------------------------------------------------------- FLOPs


def _forward_flops(torch, model, x) -> int:
    from torch.utils.flop_counter import FlopCounterMode

    with FlopCounterMode(display=False) as counter:
        model(x)
    return counter.get_total_flops()


@pytest.mark.torch
@pytest.mark.parametrize("n_head", [1, 4, 8])
def test_a_block_forward_is_24d2_plus_4Td_per_token_whatever_the_heads(torch, n_head):
    """FlopCounterMode on explicit matmuls: weights 2·(12d²) per token, T×T counted in full 4·T·d per token."""
    d, T = 64, 48
    torch.manual_seed(0)
    block = build_gpt(torch, vocab=8, block_size=T, d=d, n_layer=1, n_head=n_head).h[0]
    x = torch.randn(1, T, d)
    assert _forward_flops(torch, block, x) == T * (24 * d * d + 4 * T * d)


@pytest.mark.torch
def test_training_is_three_forwards_the_backward_does_two_matmuls_per_matmul(torch):
    from torch.utils.flop_counter import FlopCounterMode

    d, T = 64, 32
    torch.manual_seed(0)
    block = build_gpt(torch, vocab=8, block_size=T, d=d, n_layer=1, n_head=4).h[0]
    x = torch.randn(1, T, d, requires_grad=True)
    forward = _forward_flops(torch, block, x)
    with FlopCounterMode(display=False) as counter:
        block(x).sum().backward()
    assert counter.get_total_flops() == 3 * forward  # forward 2N, backward 4N: 6N


@pytest.mark.torch
def test_lm_head_is_2dV_per_token_and_45_percent_of_2N_in_gpt2_small(torch):
    d, V, L = GPT2["d"], GPT2["vocab"], GPT2["n_layer"]
    head = torch.nn.Linear(d, V, bias=False)
    assert _forward_flops(torch, head, torch.zeros(1, d)) == 2 * d * V
    two_n = 2 * 12 * L * d * d
    assert f"{2 * d * V:.2e}" == "7.72e+07" and f"{two_n:.2e}" == "1.70e+08"
    assert round(100 * 2 * d * V / two_n) == 45  # the key
    assert round(100 * 2 * 2 * d * V / two_n) == 91  # the wte lookup counted as a second matmul
    texts = [o["text"] for o in SECTIONS["flops-per-token"]["checkpoint"]["options"]]
    assert texts == ["0%", "45%", "91%"]


def test_6nd_and_the_mistakes_that_give_the_other_options():
    N, D = 7e9, 2e12
    assert_options(
        "l6-train-flops",
        {"b": sci(2 * N * D, 2), "c": sci(3 * N * D, 2), "a": sci(6 * N * D, 2), "d": sci(12 * N * D, 2)},
    )
    assert correct_key(QUESTIONS["l6-train-flops"]) == "a"
    # the teaching example: GPT-2 small's N = 12·L·d² on 10^10 tokens
    assert f"{6 * 12 * 12 * 768**2 * 1e10:.1e}" == "5.1e+18"
    assert r"5.1\times10^{18}" in SECTIONS["flops-per-token"]["body"]
    # activation checkpointing: one more forward
    forward, recomputed, backward = 2, 2, 4
    assert forward + recomputed + backward == 8


def test_causal_average_is_2_T_plus_1_d_half_of_the_full_count():
    for T, d in ((1, 4), (7, 16), (1024, 768)):
        causal = sum(4 * t * d for t in range(1, T + 1)) / T
        assert causal == 2 * (T + 1) * d
    T, d = 1024, 768
    assert 2 * T * d == (4 * T * d) // 2  # Kaplan's 2·n_layer·n_ctx·d_attn per layer: half of the full 4·T·d


def test_attention_flops_question():
    d, T, n_head = 768, 1024, 12
    values = {"b": 2 * T * d, "a": 4 * T * d, "c": 4 * T * d * n_head, "d": 4 * T * T * d}
    assert values["a"] == 3_145_728
    assert_options("l6-attn-flops-token", {k: sci(v, 3) for k, v in values.items()})
    assert correct_key(QUESTIONS["l6-attn-flops-token"]) == "a"


def test_crossover_table_and_question():
    d = 768
    mlp, weights = 16 * d * d, 24 * d * d
    crossing = {
        ("mlp", "full"): mlp / (4 * d),
        ("weights", "full"): weights / (4 * d),
        ("mlp", "causal"): mlp / (2 * d),
        ("weights", "causal"): weights / (2 * d),
    }
    assert crossing == {
        ("mlp", "full"): 4 * d,
        ("weights", "full"): 6 * d,
        ("mlp", "causal"): 8 * d,
        ("weights", "causal"): 12 * d,
    }
    # Kaplan's ratio of the context term to 2N: (2·L·n_ctx·d) / (24·L·d²) = n_ctx / (12 d); equal at n_ctx = 12 d
    assert (2 * (12 * d) * d) / (24 * d * d) == 1
    assert_options(
        "l6-crossover",
        {"a": str(4 * d), "b": str(6 * d), "c": str(8 * d), "d": str(12 * d)},
    )
    assert correct_key(QUESTIONS["l6-crossover"]) == "a"
    body = SECTIONS["attention-flops"]["body"]
    for cell in ("$T = 4d$", "$T = 8d$", "$T = 6d$", "$T = 12d$"):
        assert cell in body


@pytest.mark.torch
def test_doubling_the_heads_doubles_only_the_weights_tensor(torch):
    """l6-heads-double: at fixed d, n_head 12 → 24 doubles (B, nh, T, T) and nothing else offered."""
    d, T, B = 96, 16, 2
    torch.manual_seed(0)
    flops, tables, params = {}, {}, {}
    for n_head in (12, 24):
        block = build_gpt(torch, vocab=8, block_size=T, d=d, n_layer=1, n_head=n_head).h[0]
        flops[n_head] = _forward_flops(torch, block, torch.randn(B, T, d))
        tables[n_head] = torch.empty(B, n_head, T, T, device="meta").numel()
        params[n_head] = numel(block.attn)
    kv_cache_per_token = {n_head: 2 * n_head * (d // n_head) for n_head in (12, 24)}  # MHA: n_head · hs keys and values
    assert tables[24] == 2 * tables[12]
    assert flops[24] == flops[12] and params[24] == params[12]
    assert kv_cache_per_token[24] == kv_cache_per_token[12]
    assert correct_key(QUESTIONS["l6-heads-double"]) == "a"


@pytest.mark.torch
def test_the_t_times_t_work_for_a_whole_sequence_grows_4x_when_T_doubles(torch):
    d = 32
    per_sequence = {}
    for T in (16, 32):
        block = build_gpt(torch, vocab=8, block_size=T, d=d, n_layer=1, n_head=4).h[0]
        per_sequence[T] = _forward_flops(torch, block, torch.zeros(1, T, d)) - T * 24 * d * d  # the bmm part
    assert per_sequence[32] == 4 * per_sequence[16]
    checkpoint = SECTIONS["attention-flops"]["checkpoint"]
    assert next(o["text"] for o in checkpoint["options"] if o.get("correct")) == "4"


@pytest.mark.torch
def test_the_convention_checkpoint_is_2mnk(torch):
    a, b = torch.zeros(4, 8), torch.zeros(8, 4)
    from torch.utils.flop_counter import FlopCounterMode

    with FlopCounterMode(display=False) as counter:
        torch.mm(a, b)
    assert counter.get_total_flops() == 2 * 4 * 4 * 8 == 256
    options = {o["text"]: bool(o.get("correct")) for o in SECTIONS["conventions"]["checkpoint"]["options"]}
    assert options == {str(2 * 4 * 4): False, str(4 * 4 * 8): False, "256": True}


# --------------------------------------------------------------------------- arithmetic intensity


def intensity(m: int, k: int, n: int, *, flops_per_mac: int = 2, bytes_per_number: int = 2) -> float:
    """FLOPs of (m, k)·(k, n) over the bytes of reading both inputs and writing the result."""
    return flops_per_mac * m * n * k / (bytes_per_number * (m * k + k * n + m * n))


def test_intensity_question_and_its_mistakes():
    k = 4096
    values = {
        "b": intensity(1, k, k, flops_per_mac=1),
        "a": intensity(1, k, k),
        "c": intensity(1, k, k, bytes_per_number=1),
        "d": 2 * k * k / (2 * (k + k)),  # the vector's bytes only, the weights forgotten
    }
    assert_options("l6-intensity", {key: f"{v:.1f}" for key, v in values.items()})
    assert correct_key(QUESTIONS["l6-intensity"]) == "a"


def test_training_matmuls_pass_the_ridge_and_decode_matmuls_have_intensity_about_B():
    assert round(intensity(8192, 768, 768)) == 367
    assert "I\\approx 367" in SECTIONS["arithmetic-intensity"]["body"]
    ridge = 400e12 / 2e12
    assert ridge == 200
    for B in (1, 8, 64):
        assert intensity(B, 16384, 16384) == pytest.approx(B, rel=0.01)
    # the checkpoint: I ≈ B reaches the ridge at B ≈ 200 (≈ 100 with 1-byte numbers, ≈ 400 with a MAC as 1 FLOP)
    d = 65536
    assert intensity(200, d, d) == pytest.approx(200, rel=0.01)
    assert intensity(100, d, d, bytes_per_number=1) == pytest.approx(200, rel=0.01)
    assert intensity(400, d, d, flops_per_mac=1) == pytest.approx(200, rel=0.02)


# --------------------------------------------------------------------------- activation memory


@pytest.mark.torch
def test_activation_memory_of_the_attention_weights(torch):
    def nbytes(*shape) -> int:
        t = torch.empty(*shape, dtype=torch.bfloat16, device="meta")
        return t.numel() * t.element_size()

    # teaching: GPT-2 small, B = 8, T = 1024
    assert nbytes(8, 1024, 768) == 12 * MIB
    assert nbytes(8, 12, 1024, 1024) == 192 * MIB
    assert nbytes(8, 12, 1024, 1024) // nbytes(8, 1024, 768) == 12 * 1024 // 768 == 16
    # the question: 24 layers, 16 heads, B = 4, T = 2048
    one_layer = nbytes(4, 16, 2048, 2048)
    values = {
        "b": one_layer / GIB,
        "c": 24 * nbytes(4, 2048, 2048) / GIB,  # heads forgotten
        "a": 24 * one_layer / GIB,
        "d": 24 * one_layer * 2 / GIB,  # fp32
    }
    assert values["a"] == 12.0 and 4 * values["a"] == 48.0  # "T 翻倍就是 48 GiB"
    assert_options("l6-att-memory", {k: f"{v:.2f} GiB" for k, v in values.items()})
    assert correct_key(QUESTIONS["l6-att-memory"]) == "a"


# --------------------------------------------------------------------------- conventions in the stems, sources


def test_every_flop_stem_states_the_counting_convention():
    for question in CHOICE:
        stem = question["prompt"]
        if "FLOPs" not in stem and "6ND" not in stem and "6N" not in stem:
            continue
        assert "2mnk" in stem or "乘加记 2" in stem, question["key"]
        if "T\\times T" in stem or "n_{ctx}" in stem or "T = 1024" in stem:
            assert any(word in stem for word in ("按满算", "因果平均", "略去")), question["key"]


def test_nanogpt_estimate_mfu_term_is_the_full_count_forward_plus_twice_backward():
    L, H, Q, T = 12, 12, 64, 1024  # nanoGPT: flops_per_token = 6*N + 12*L*H*Q*T
    assert 12 * L * H * Q * T == 3 * (4 * L * T * (H * Q))
    assert "12*L*H*Q*T" in SECTIONS["attention-flops"]["body"]


def test_cited_results_are_named():
    text = yaml.safe_dump(LESSON, allow_unicode=True)
    for name in ("Kaplan", "Scaling Laws for Neural Language Models", "Dao", "NeurIPS 2022", "FlashAttention"):
        assert name in text, name
    assert "Kaplan" in QUESTIONS["l6-kaplan-drop"]["prompt"]
    assert "n_{ctx}/12" in QUESTIONS["l6-kaplan-drop"]["explanation"]
