"""What a GPT costs: parameters, and FLOPs per token forward and in training.

One counting convention throughout, the one lesson 6 states in every stem:

- a matmul (m, k) @ (k, n) makes m*n numbers, each a dot product of k multiply-adds: 2*m*n*k FLOPs
  (a multiply-add is 2 FLOPs);
- only matmuls are counted (scale, mask, softmax, LayerNorm and GELU are a few FLOPs per element);
- the T x T work of attention (q @ k^T and att @ v) is counted in full, masked cells included: a hand
  written causal attention does compute them, and torch.utils.flop_counter.FlopCounterMode reports
  exactly this for explicit matmuls. That is 4*T*d FLOPs per layer per token forward.

The shapes follow nanoGPT's GPT: wte (V, d), wpe (block_size, d), n_layer blocks of
ln_1 / attn.c_attn (d -> 3d) / attn.c_proj (d -> d) / ln_2 / mlp.c_fc (d -> 4d) / mlp.c_proj (4d -> d),
ln_f, and an lm_head tied to wte. Kaplan et al. (2020, "Scaling Laws for Neural Language Models")
call N the non-embedding parameters, N ~ 12*n_layer*d^2, and count C_forward ~ 2N + 2*n_layer*n_ctx*d
per token and C ~ 6N per training token (6*N*D for D tokens); their attention term is the causal
half of the full count used here.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class GPTConfig:
    """nanoGPT's GPTConfig, the fields that decide the counts."""

    vocab_size: int = 50257
    block_size: int = 1024
    n_layer: int = 12
    n_head: int = 12
    n_embd: int = 768
    bias: bool = True  # biases in the Linears and LayerNorms, like GPT-2
    mlp_ratio: int = 4  # c_fc is d -> mlp_ratio*d

    def __post_init__(self) -> None:
        assert self.n_embd % self.n_head == 0, "n_embd must be divisible by n_head"


def matmul_flops(m: int, k: int, n: int) -> int:
    """(m, k) @ (k, n): m*n outputs, k multiply-adds each, 2 FLOPs per multiply-add."""
    return 2 * m * n * k


def linear_params(d_in: int, d_out: int, bias: bool) -> int:
    """nn.Linear(d_in, d_out): a (d_out, d_in) weight and, with bias, one bias per output."""
    return d_out * d_in + (d_out if bias else 0)


def layernorm_params(d: int, bias: bool) -> int:
    """nanoGPT's LayerNorm: a weight (scale) of d, and a bias (shift) of d unless bias=False."""
    return d + (d if bias else 0)


def block_params(cfg: GPTConfig) -> dict[str, int]:
    """One Block, part by part: 4*d^2 attention weights, 2*mlp_ratio*d^2 MLP weights (8*d^2 at ratio 4)."""
    d, f, b = cfg.n_embd, cfg.mlp_ratio * cfg.n_embd, cfg.bias
    parts = {
        "attn.c_attn": linear_params(d, 3 * d, b),  # q, k, v fused: (3d, d) + 3d
        "attn.c_proj": linear_params(d, d, b),  # (d, d) + d
        "mlp.c_fc": linear_params(d, f, b),  # (4d, d) + 4d
        "mlp.c_proj": linear_params(f, d, b),  # (d, 4d) + d
        "ln_1": layernorm_params(d, b),
        "ln_2": layernorm_params(d, b),
    }
    # n_head appears nowhere: the heads are slices of the same d-wide projections
    return parts


def block_matmul_weights(cfg: GPTConfig) -> int:
    """The weights one token multiplies in a block (no biases, no LayerNorm): 12*d^2 at mlp_ratio 4."""
    d = cfg.n_embd
    attention = 3 * d * d + d * d  # c_attn + c_proj: 4*d^2
    mlp = 2 * cfg.mlp_ratio * d * d  # c_fc + c_proj: 8*d^2
    return attention + mlp


def count_params(cfg: GPTConfig) -> int:
    """sum(p.numel() for p in model.parameters()) of nanoGPT's GPT: lm_head is wte (tied), counted once."""
    d = cfg.n_embd
    wte = cfg.vocab_size * d  # (V, d)
    wpe = cfg.block_size * d  # (block_size, d)
    blocks = cfg.n_layer * sum(block_params(cfg).values())
    ln_f = layernorm_params(d, cfg.bias)
    return wte + wpe + blocks + ln_f


def non_embedding_params(cfg: GPTConfig) -> int:
    """Kaplan et al.'s N: the blocks' matmul weights, n_layer * 12 * d^2 (biases and LayerNorms left out)."""
    return cfg.n_layer * block_matmul_weights(cfg)


def attention_flops_per_token(T: int, d: int) -> int:
    """One layer, one query row, all heads, counted in full over T keys.

    Per head: scores (1, hs) @ (hs, T) and weighted sum (1, T) @ (T, hs), 2*T*hs FLOPs each;
    n_head heads of hs = d / n_head add up to 4*T*d, whatever the number of heads.
    """
    scores = matmul_flops(1, d, T)  # q @ k^T for all heads together: (1, d) against T keys
    weighted_sum = matmul_flops(1, T, d)  # att @ v: (1, T) @ (T, d)
    return scores + weighted_sum  # 4*T*d


def forward_flops_per_token(cfg: GPTConfig, T: int, lm_head: bool = False) -> int:
    """Forward FLOPs of one token at context T: 2 per matmul weight (2*N) plus 4*T*d per layer.

    The lm_head (d -> V, 2*d*V) is left out unless asked for, as in Kaplan et al.'s N; the wte lookup is
    an index, not a matmul, so it costs nothing here.
    """
    weights = 2 * non_embedding_params(cfg)  # (1, d) @ (d, n) costs 2*d*n: 2 FLOPs per weight
    attention = cfg.n_layer * attention_flops_per_token(T, cfg.n_embd)
    head = matmul_flops(1, cfg.n_embd, cfg.vocab_size) if lm_head else 0
    return weights + attention + head


def training_flops_per_token(cfg: GPTConfig, T: int, lm_head: bool = False) -> int:
    """Forward + backward: the backward of Y = X W does two matmuls of the forward's size, dL/dX = dL/dY W^T
    and dL/dW = X^T dL/dY, so training is 3x the forward (6*N + 12*n_layer*T*d in full)."""
    return 3 * forward_flops_per_token(cfg, T, lm_head)


def training_flops(N: int, D: int) -> int:
    """Kaplan et al.'s C ~ 6*N*D: 6 FLOPs per non-embedding parameter per training token."""
    return 6 * N * D


def attention_crossover(cfg: GPTConfig, against: str = "mlp") -> int:
    """The context length T at which one layer's T x T FLOPs per token (4*T*d) equal the MLP's
    (2 * 2*mlp_ratio*d^2, so T = mlp_ratio*d) or all its weights' (2 * block_matmul_weights)."""
    d = cfg.n_embd
    if against == "mlp":
        other = 2 * (2 * cfg.mlp_ratio * d * d)  # c_fc and c_proj, 2 FLOPs per weight
    elif against == "weights":
        other = 2 * block_matmul_weights(cfg)
    else:
        raise ValueError(f"against must be 'mlp' or 'weights', got {against!r}")
    per_unit_T = attention_flops_per_token(1, d)  # 4*d: the T x T FLOPs grow linearly in T
    assert other % per_unit_T == 0
    return other // per_unit_T
