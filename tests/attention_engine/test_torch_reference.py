"""Our numpy attention against PyTorch 2.13 (CPU), an independent implementation of the same math."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attention_engine import CausalSelfAttention, blockwise_attention, scaled_dot_product_attention

pytestmark = pytest.mark.torch

batch_shapes = st.lists(st.integers(1, 3), min_size=0, max_size=3).map(tuple)


@settings(max_examples=80, deadline=None)
@given(
    batch=batch_shapes,
    L=st.integers(1, 9),
    S=st.integers(1, 9),
    E=st.integers(1, 8),
    Ev=st.integers(1, 8),
    mode=st.sampled_from(["none", "causal", "bool", "float"]),
    custom_scale=st.booleans(),
    seed=st.integers(0, 2**32 - 1),
)
def test_sdpa_matches_torch(torch, batch, L, S, E, Ev, mode, custom_scale, seed):
    F = torch.nn.functional
    rng = np.random.default_rng(seed)
    q = rng.standard_normal((*batch, L, E))
    k = rng.standard_normal((*batch, S, E))
    v = rng.standard_normal((*batch, S, Ev))
    kwargs = {"scale": float(rng.uniform(0.05, 2.0))} if custom_scale else {}
    if mode == "causal":
        kwargs["is_causal"] = True
    elif mode == "bool":
        mask = rng.random((L, S)) > 0.3
        mask[:, 0] = True  # torch gives NaN rows otherwise in some backends
        kwargs["attn_mask"] = mask
    elif mode == "float":
        kwargs["attn_mask"] = rng.standard_normal((L, S))
    ours = scaled_dot_product_attention(q, k, v, **kwargs)
    t_kwargs = {key: torch.from_numpy(val) if isinstance(val, np.ndarray) else val for key, val in kwargs.items()}
    ref = F.scaled_dot_product_attention(torch.from_numpy(q), torch.from_numpy(k), torch.from_numpy(v), **t_kwargs)
    assert ours.shape == tuple(ref.shape)
    np.testing.assert_allclose(ours, ref.numpy(), rtol=1e-10, atol=1e-12)


def test_sdpa_causal_with_more_keys_than_queries_matches_torch_alignment(torch):
    rng = np.random.default_rng(11)
    q, k, v = rng.standard_normal((2, 5)), rng.standard_normal((6, 5)), rng.standard_normal((6, 3))
    ref = torch.nn.functional.scaled_dot_product_attention(*map(torch.from_numpy, (q, k, v)), is_causal=True)
    np.testing.assert_allclose(scaled_dot_product_attention(q, k, v, is_causal=True), ref.numpy(), atol=1e-12)


def test_fully_masked_row_matches_torch_safe_softmax(torch):
    rng = np.random.default_rng(12)
    q, k, v = rng.standard_normal((3, 3, 4))
    mask = np.array([[True, True, False], [False, False, False], [True, False, True]])
    ref = torch.nn.functional.scaled_dot_product_attention(
        *map(torch.from_numpy, (q, k, v)), attn_mask=torch.from_numpy(mask)
    )
    ours = scaled_dot_product_attention(q, k, v, attn_mask=mask)
    np.testing.assert_allclose(ours, ref.numpy(), atol=1e-12)
    assert np.all(ours[1] == 0)


def test_float32_matches_torch_float32(torch):
    rng = np.random.default_rng(13)
    q, k, v = rng.standard_normal((3, 2, 4, 6, 8)).astype(np.float32)
    ref = torch.nn.functional.scaled_dot_product_attention(*map(torch.from_numpy, (q, k, v)), is_causal=True)
    ours = scaled_dot_product_attention(q, k, v, is_causal=True)
    assert ours.dtype == np.float32
    np.testing.assert_allclose(ours, ref.numpy(), rtol=1e-5, atol=1e-6)


def torch_causal_self_attention(torch, n_embd, n_head, bias):
    """nanoGPT's block written independently from nn.Linear + F.scaled_dot_product_attention."""
    nn, F = torch.nn, torch.nn.functional

    class TorchCausalSelfAttention(nn.Module):
        def __init__(self):
            super().__init__()
            self.c_attn = nn.Linear(n_embd, 3 * n_embd, bias=bias)
            self.c_proj = nn.Linear(n_embd, n_embd, bias=bias)

        def forward(self, x):
            B, T, C = x.size()
            q, k, v = self.c_attn(x).split(n_embd, dim=2)
            q = q.view(B, T, n_head, C // n_head).transpose(1, 2)
            k = k.view(B, T, n_head, C // n_head).transpose(1, 2)
            v = v.view(B, T, n_head, C // n_head).transpose(1, 2)
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            return self.c_proj(y.transpose(1, 2).contiguous().view(B, T, C))

    return TorchCausalSelfAttention().double()


@pytest.mark.parametrize(("n_embd", "n_head", "bias"), [(8, 2, True), (12, 3, False), (16, 4, True), (6, 1, True)])
def test_causal_self_attention_loads_torch_weights_and_matches(torch, n_embd, n_head, bias):
    torch.manual_seed(n_embd * 10 + n_head)
    module = torch_causal_self_attention(torch, n_embd, n_head, bias)
    state = {name: tensor.detach().numpy() for name, tensor in module.state_dict().items()}
    ours = CausalSelfAttention.from_state_dict(state, n_head=n_head)
    x = np.random.default_rng(n_embd).standard_normal((3, 7, n_embd))
    with torch.no_grad():
        ref = module(torch.from_numpy(x)).numpy()
    np.testing.assert_allclose(ours(x), ref, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(ours.decode(x)[0], ref, rtol=1e-10, atol=1e-10)


def test_blockwise_matches_torch(torch):
    rng = np.random.default_rng(14)
    q, k, v = rng.standard_normal((3, 2, 2, 33, 8))
    ref = torch.nn.functional.scaled_dot_product_attention(*map(torch.from_numpy, (q, k, v)), is_causal=True)
    np.testing.assert_allclose(blockwise_attention(q, k, v, is_causal=True, block_size=5), ref.numpy(), atol=1e-12)
