"""attention_engine: Transformer attention in plain numpy, small enough to read end to end.

Pure numpy, no Django: the quiz app imports this package, never the other way round.
"""

from . import generators, misconceptions
from .blockwise import blockwise_attention
from .core import causal_mask, scaled_dot_product_attention, softmax
from .nanogpt import AttentionIntermediates, CausalSelfAttention, KVCache

__all__ = [
    "AttentionIntermediates",
    "CausalSelfAttention",
    "KVCache",
    "blockwise_attention",
    "causal_mask",
    "generators",
    "misconceptions",
    "scaled_dot_product_attention",
    "softmax",
]
