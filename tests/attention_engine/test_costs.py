"""attention_engine.costs against PyTorch: parameter counts from modules built from the configuration
(``sum(p.numel())``, on the meta device), FLOPs from ``torch.utils.flop_counter.FlopCounterMode`` on a
GPT written here with explicit matmuls (the counter reports 0 for ``scaled_dot_product_attention`` on CPU,
so the attention is spelled out as ``q @ k.transpose(-2, -1)`` and ``att @ v``)."""

import math

import numpy as np
import pytest

from attention_engine import costs
from attention_engine.costs import GPTConfig

# The four GPT-2 sizes (Radford et al. 2019; nanoGPT's from_pretrained): n_layer, n_head, n_embd.
GPT2_SIZES = {
    "gpt2": (12, 12, 768),
    "gpt2-medium": (24, 16, 1024),
    "gpt2-large": (36, 20, 1280),
    "gpt2-xl": (48, 25, 1600),
}


def random_configs(n: int) -> list[GPTConfig]:
    rng = np.random.default_rng(29)
    out = []
    for _ in range(n):
        n_head = int(rng.choice([1, 2, 3, 4, 8]))
        out.append(
            GPTConfig(
                vocab_size=int(rng.integers(5, 300)),
                block_size=int(rng.integers(4, 64)),
                n_layer=int(rng.integers(1, 4)),
                n_head=n_head,
                n_embd=n_head * int(rng.integers(1, 9)),
                bias=bool(rng.integers(2)),
                mlp_ratio=int(rng.choice([2, 3, 4])),
            )
        )
    return out


def build_gpt(torch, cfg: GPTConfig, device: str = "cpu"):
    """nanoGPT's GPT shape in PyTorch, written from the configuration; the forward uses explicit matmuls."""
    nn = torch.nn
    d, nh = cfg.n_embd, cfg.n_head

    class LayerNorm(nn.Module):  # nanoGPT's: the bias is optional
        def __init__(self):
            super().__init__()
            self.weight = nn.Parameter(torch.ones(d, device=device))
            self.bias = nn.Parameter(torch.zeros(d, device=device)) if cfg.bias else None

        def forward(self, x):
            return nn.functional.layer_norm(x, (d,), self.weight, self.bias, 1e-5)

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln_1, self.ln_2 = LayerNorm(), LayerNorm()
            self.c_attn = nn.Linear(d, 3 * d, bias=cfg.bias, device=device)
            self.attn_proj = nn.Linear(d, d, bias=cfg.bias, device=device)
            self.c_fc = nn.Linear(d, cfg.mlp_ratio * d, bias=cfg.bias, device=device)
            self.mlp_proj = nn.Linear(cfg.mlp_ratio * d, d, bias=cfg.bias, device=device)

        def attn(self, x):
            B, T, C = x.shape
            q, k, v = self.c_attn(x).split(C, dim=2)
            q, k, v = (t.view(B, T, nh, C // nh).transpose(1, 2) for t in (q, k, v))  # (B, nh, T, hs)
            att = (q @ k.transpose(-2, -1)) / math.sqrt(C // nh)  # (B, nh, T, T)
            causal = torch.ones(T, T, dtype=torch.bool, device=x.device).triu(1)  # True above the diagonal
            att = att.masked_fill(causal, float("-inf")).softmax(-1)
            return self.attn_proj((att @ v).transpose(1, 2).reshape(B, T, C))  # (B, T, C)

        def forward(self, x):
            x = x + self.attn(self.ln_1(x))
            return x + self.mlp_proj(nn.functional.gelu(self.c_fc(self.ln_2(x))))

    class GPT(nn.Module):
        def __init__(self):
            super().__init__()
            self.wte = nn.Embedding(cfg.vocab_size, d, device=device)
            self.wpe = nn.Embedding(cfg.block_size, d, device=device)
            self.h = nn.ModuleList(Block() for _ in range(cfg.n_layer))
            self.ln_f = LayerNorm()
            self.lm_head = nn.Linear(d, cfg.vocab_size, bias=False, device=device)
            self.lm_head.weight = self.wte.weight  # weight tying

        def forward(self, idx, head=True):
            x = self.wte(idx) + self.wpe(torch.arange(idx.shape[1]))
            for block in self.h:
                x = block(x)
            x = self.ln_f(x)
            return self.lm_head(x) if head else x

    return GPT()


def numel(module) -> int:
    return sum(p.numel() for p in module.parameters())


@pytest.mark.torch
@pytest.mark.parametrize("size", sorted(GPT2_SIZES))
def test_count_params_is_sum_of_numel_for_the_gpt2_sizes(torch, size):
    n_layer, n_head, n_embd = GPT2_SIZES[size]
    cfg = GPTConfig(n_layer=n_layer, n_head=n_head, n_embd=n_embd)
    assert costs.count_params(cfg) == numel(build_gpt(torch, cfg, device="meta"))


@pytest.mark.torch
def test_gpt2_small_is_124439808_parameters_and_kaplans_n_is_12_L_d2(torch):
    cfg = GPTConfig()
    assert costs.count_params(cfg) == 124_439_808  # nanoGPT's get_num_params(non_embedding=False) for gpt2
    assert costs.non_embedding_params(cfg) == 12 * 12 * 768**2
    block = build_gpt(torch, cfg, device="meta").h[0]
    linear_weights = sum(m.weight.numel() for m in block.modules() if isinstance(m, torch.nn.Linear))
    assert costs.block_matmul_weights(cfg) == linear_weights == 12 * 768**2
    assert sum(costs.block_params(cfg).values()) == numel(block) == 12 * 768**2 + 13 * 768


@pytest.mark.torch
def test_count_params_is_sum_of_numel_for_random_configs(torch):
    for cfg in random_configs(40):
        model = build_gpt(torch, cfg, device="meta")
        assert costs.count_params(cfg) == numel(model), cfg
        assert sum(costs.block_params(cfg).values()) == numel(model.h[0]), cfg


def test_parameters_do_not_depend_on_the_number_of_heads():
    counts = {costs.count_params(GPTConfig(n_head=h)) for h in (1, 2, 3, 4, 6, 8, 12, 16, 24)}
    assert counts == {124_439_808}


def flop_count(torch, fn) -> int:
    from torch.utils.flop_counter import FlopCounterMode

    with FlopCounterMode(display=False) as counter:
        fn()
    return counter.get_total_flops()


@pytest.mark.torch
def test_the_convention_is_what_the_flop_counter_sees_for_one_matmul(torch):
    a, b = torch.randn(4, 8), torch.randn(8, 5)
    assert costs.matmul_flops(4, 8, 5) == flop_count(torch, lambda: a @ b) == 2 * 4 * 5 * 8


@pytest.mark.torch
@pytest.mark.parametrize("cfg", [*random_configs(8), GPTConfig(n_layer=2, n_head=4, n_embd=64, vocab_size=50)])
@pytest.mark.parametrize("lm_head", [False, True])
def test_forward_flops_per_token_times_T_is_what_flop_counter_mode_counts(torch, cfg, lm_head):
    """A whole sequence of T tokens: T x (2N + n_layer x 4Td), the T x T work counted in full."""
    torch.manual_seed(0)
    model = build_gpt(torch, cfg)
    T = cfg.block_size
    idx = torch.randint(cfg.vocab_size, (1, T))
    counted = flop_count(torch, lambda: model(idx, head=lm_head))
    assert counted == T * costs.forward_flops_per_token(cfg, T, lm_head=lm_head)
    assert costs.forward_flops_per_token(cfg, T) == 2 * costs.non_embedding_params(cfg) + cfg.n_layer * 4 * T * (
        cfg.n_embd
    )


@pytest.mark.torch
@pytest.mark.parametrize("cfg", random_configs(4))
def test_training_flops_per_token_is_forward_plus_a_backward_twice_as_large(torch, cfg):
    """Backward through every matmul, the first layer's input included (x requires grad): 3x the forward."""
    torch.manual_seed(0)
    model = build_gpt(torch, cfg)
    T = cfg.block_size
    x = torch.randn(1, T, cfg.n_embd, requires_grad=True)  # the blocks alone: the wte lookup has no matmul

    def step():
        y = x
        for block in model.h:
            y = block(y)
        model.lm_head(model.ln_f(y)).sum().backward()

    assert flop_count(torch, step) == T * costs.training_flops_per_token(cfg, T, lm_head=True)


def test_attention_flops_per_token_is_4Td_and_independent_of_heads():
    for T, d in [(1, 1), (7, 12), (1024, 768), (8192, 4096)]:
        assert costs.attention_flops_per_token(T, d) == 4 * T * d


def test_training_flops_6nd_for_gpt2_small_on_ten_billion_tokens():
    N = costs.non_embedding_params(GPTConfig())
    assert costs.training_flops(N, 10**10) == 6 * 84_934_656 * 10**10
    assert f"{costs.training_flops(N, 10**10):.2g}" == "5.1e+18"  # the lesson's example


@pytest.mark.parametrize("ratio", [2, 3, 4])
def test_attention_crossover_against_the_mlp_and_all_weights(ratio):
    for d in (64, 768, 1600):
        cfg = GPTConfig(n_embd=d, n_head=1, mlp_ratio=ratio)
        T_mlp, T_all = costs.attention_crossover(cfg, "mlp"), costs.attention_crossover(cfg, "weights")
        assert 4 * T_mlp * d == 2 * (2 * ratio * d * d)  # T x T FLOPs equal the MLP's
        assert 4 * T_all * d == 2 * (4 * d * d + 2 * ratio * d * d)
        assert T_mlp == ratio * d and T_all == (2 + ratio) * d
    with pytest.raises(ValueError, match="against"):
        costs.attention_crossover(GPTConfig(), "embeddings")
