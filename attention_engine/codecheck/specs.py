"""The built-in code questions, keyed by stable names (the app stores the key with the question).

Each is a ``QuestionSpec`` (pure data: ``SPECS[key].to_dict()`` is what an admin could author):

- ``sdpa_three_lines`` — lesson 1's recall card, as the seed poses it: the exercise's scaffold is
  given and the learner writes the three TODO lines (scores, mask, weights); run causal and not,
  and on the seed's batched (2, 4, 5, 16) input, where ``K.T`` breaks (accepted, rated Hard);
- ``stable_softmax`` — softmax over the last axis that survives logits of ±800;
- ``causal_mask`` — build the mask and apply it, either boolean convention, any fill that gives
  the same weights;
- ``split_merge_heads`` — nanoGPT's (B, T, C) → (B, nh, T, hs) and back;
- ``kv_cache_step`` — one decoding step: append to the cache, attend to all of it;
- ``apply_rope`` — lesson 4's RoPE on q and k with RoFormer's interleaved pairs (the scaffold fixes them).
- ``block_flops`` — lesson 6: one block's forward FLOPs per token, a count (no arrays: the names are numbers).
- ``mha_forward`` — lesson 5: the whole multi-head self-attention forward with a padding mask, ``finfo.min`` fill.
- ``gqa_decode_step`` — lesson 7: one decode step with a GQA cache, query head h reading K/V head h // group.

What is compared is what the code computes, not how an intermediate is spelled: lesson 1's mask by
which positions it hides (``compare="truth"``: a bool, 0/1 or −∞/0 mask all do), the masked scores
by the weights they give (``compare="logits"``: −∞, −1e9, −1e30 and ``np.finfo(dtype).min`` pass,
−10 does not and is named), then the weights and the output by value.

Every spec with a softmax has a ``wide_logits`` input whose rows span more than float64's exp
range with the max not first (≈ [−800, 800, 0]): a shift by the row min, mean or first element
overflows there (``shift_not_max``), as does no shift at all (``no_max_subtraction``); the max is
the one shift that is always safe. In ``stable_softmax`` that input is required (stability is the
question); in the other three it is optional, so a hand-written softmax that is not stable is
"accepted with a caveat" (rated Hard, the misconception named) rather than wrong.

Inputs are drawn at one decimal (a worked example stays readable) and are small: the checker's
limits are far away, and grading stays within its millisecond budget.
"""

from __future__ import annotations

from typing import Final

from .spec import CaseSpec, InputSpec, MisconceptionCase, NameCheck, QuestionSpec


class _Variants:
    """A reference solution as a template of named slots (a line or an expression each): every equivalent and
    every misconception's code is the reference with some slots replaced, so a spec states only what differs."""

    def __init__(self, template: str, **reference: str) -> None:
        self.template = template
        self.reference = reference

    def __call__(self, **replaced: str) -> str:
        unknown = replaced.keys() - self.reference.keys()
        if unknown:
            raise TypeError(f"no slot {', '.join(sorted(unknown))} in {self.template!r}")
        return self.template.format_map({**self.reference, **replaced})


def _softmax_bugs(x: str, result: str, *, then: str = "") -> tuple[MisconceptionCase, ...]:
    """A hand-written softmax of ``x`` into ``result`` without the max shift, and with the unsafe
    shifts (``then`` appended: a line that uses ``result``)."""

    def softmax(shift: str) -> str:
        return f"e = np.exp({x}{shift})\n{result} = e / e.sum(-1, keepdims=True)\n{then}"

    return (  # the shifts first: on an input where both overflow, a mean shift can equal no shift at all
        MisconceptionCase("shift_not_max", softmax(f" - {x}.min(-1, keepdims=True)")),
        MisconceptionCase("shift_not_max", softmax(f" - {x}.mean(-1, keepdims=True)")),
        MisconceptionCase("shift_not_max", softmax(f" - {x}[..., :1]")),
        MisconceptionCase("no_max_subtraction", softmax("")),
    )


# ---------------------------------------------------------------------------------------------
# Lesson 1: the three lines

_SDPA_SCAFFOLD = """\
d_k = Q.shape[-1]
scores = ...
if causal:
    T = scores.shape[-1]
    mask = ...
    scores = np.where(mask, -np.inf, scores)
weights = ...
out = weights @ V
"""

_SDPA_REFERENCE = """\
scores = Q @ K.swapaxes(-2, -1) / np.sqrt(d_k)
mask = np.triu(np.ones((T, T), dtype=bool), k=1)
weights = softmax(scores)
"""

# Every query +20 in each of its 4 coordinates, the keys +20, +60, +40: scores (q·k / √4) ≈ [800, 2400, 1600].
# The max is not first and a row spans 1,600, so a shift by the min, mean or first element overflows; the
# whole row is also far above 709, so no shift at all overflows too, differently (all NaN).
_WIDE_QK = {"Q": [[20.0]], "K": [[20.0], [60.0], [40.0]]}
_WIDE_NOTE = "scores ≈ [800, 2400, 1600] in every row: the max is not first and e^1600 overflows"


_sdpa = _Variants(
    "{scores}\n{mask}\n{weights}\n",
    scores="scores = Q @ K.swapaxes(-2, -1) / np.sqrt(d_k)",
    mask="mask = np.triu(np.ones((T, T), dtype=bool), k=1)",
    weights="weights = softmax(scores)",
)


SDPA_THREE_LINES: Final = QuestionSpec(
    key="sdpa_three_lines",
    version=2,
    title="Scaled dot-product attention: the three TODO lines of lesson 1's exercise",
    inputs=(
        InputSpec("Q", shape=("...", "T", "d_k")),
        InputSpec("K", shape=("...", "T", "d_k")),
        InputSpec("V", shape=("...", "T", "d_v")),
        InputSpec("causal", kind="value", value=False),
    ),
    cases=(
        CaseSpec("plain", {"T": 4, "d_k": 8, "d_v": 8}, note="T = 4, d_k = d_v = 8, no mask"),
        CaseSpec(
            "causal",
            {"T": 4, "d_k": 16, "d_v": 16},
            values={"causal": True},
            note="the exercise's sizes: T = 4, d_k = d_v = 16, causal",
        ),
        CaseSpec(
            "one_token",
            {"T": 1, "d_k": 8, "d_v": 8},
            values={"causal": True},
            adversarial=True,
            note="T = 1, causal: the only token must still see itself",
        ),
        CaseSpec(
            "dk_ne_dv",
            {"T": 5, "d_k": 6, "d_v": 3},
            values={"causal": True},
            adversarial=True,
            note="d_k = 6, d_v = 3: the scale uses d_k, the output has width d_v",
        ),
        CaseSpec(
            "wide_logits",
            {"T": 3, "d_k": 4, "d_v": 4},
            offsets=_WIDE_QK,
            adversarial=True,
            required=False,
            note=_WIDE_NOTE + " (a hand-written softmax must subtract the row max)",
        ),
        CaseSpec(
            "batched",
            {"T": 5, "d_k": 16, "d_v": 16},
            batch=(2, 4),
            values={"causal": True},
            adversarial=True,
            required=False,
            note="batched (2, 4, 5, 16), as in the PyTorch bonus exercise",
        ),
    ),
    required=(NameCheck("scores"), NameCheck("mask", broadcast=True, compare="truth"), NameCheck("weights")),
    outputs=(NameCheck("out"),),
    scaffold=_SDPA_SCAFFOLD,
    helpers=("softmax",),
    reference=_SDPA_REFERENCE,
    equivalents=(
        _sdpa(scores="scores = Q @ np.swapaxes(K, -2, -1) * d_k ** -0.5"),
        _sdpa(scores="scores = np.matmul(Q, K.swapaxes(-1, -2)) / math.sqrt(d_k)"),
        _sdpa(scores="scores = (Q / np.sqrt(d_k)) @ np.moveaxis(K, -1, -2)"),
        _sdpa(scores="scores = np.einsum('...td,...sd->...ts', Q, K) / np.sqrt(K.shape[-1])"),
        _sdpa(mask="mask = np.tril(np.ones((T, T))) == 0"),
        _sdpa(mask="mask = ~np.tril(np.ones((T, T), dtype=bool))"),
        _sdpa(mask="mask = np.arange(T)[None, :] > np.arange(T)[:, None]"),
        _sdpa(mask="mask = np.triu(np.ones((T, T)), k=1).astype(bool)"),
        _sdpa(mask="mask = np.triu(np.full((T, T), -np.inf), k=1)"),  # read by np.where: -inf is True
        _sdpa(mask="mask = np.zeros((T, T), dtype=bool)\nmask[np.triu_indices(T, 1)] = True"),
        _sdpa(mask="mask = np.array([[j > i for j in range(T)] for i in range(T)])"),
        _sdpa(weights="weights = softmax(scores, axis=-1)"),
        _sdpa(weights="e = np.exp(scores - scores.max(-1, keepdims=True))\nweights = e / e.sum(-1, keepdims=True)"),
        _sdpa(
            weights="m = np.max(scores, axis=-1, keepdims=True)\n"
            "weights = np.exp(scores - m - np.log(np.exp(scores - m).sum(axis=-1, keepdims=True)))"
        ),
    ),
    misconceptions=(
        MisconceptionCase("missing_scale", _sdpa(scores="scores = Q @ K.swapaxes(-2, -1)")),
        MisconceptionCase("divide_by_dk", _sdpa(scores="scores = Q @ K.swapaxes(-2, -1) / d_k")),
        MisconceptionCase("scale_by_dv", _sdpa(scores="scores = Q @ K.swapaxes(-2, -1) / np.sqrt(V.shape[-1])")),
        MisconceptionCase("scores_transposed", _sdpa(scores="scores = K @ Q.swapaxes(-2, -1) / np.sqrt(d_k)")),
        MisconceptionCase("t_reverses_all_axes", _sdpa(scores="scores = Q @ K.T / np.sqrt(d_k)")),
        MisconceptionCase("axis_from_front", _sdpa(scores="scores = Q @ K.swapaxes(-2, -1) / np.sqrt(Q.shape[1])")),
        MisconceptionCase("mask_hides_diagonal", _sdpa(mask="mask = np.triu(np.ones((T, T), dtype=bool))")),
        MisconceptionCase("mask_convention_swapped", _sdpa(mask="mask = np.tril(np.ones((T, T), dtype=bool))")),
        MisconceptionCase("mask_transposed", _sdpa(mask="mask = np.tril(np.ones((T, T), dtype=bool), k=-1)")),
        MisconceptionCase("softmax_wrong_axis", _sdpa(weights="weights = softmax(scores, axis=-2)")),
        MisconceptionCase("axis_from_front", _sdpa(weights="weights = softmax(scores, axis=1)")),
        MisconceptionCase("missing_softmax", _sdpa(weights="weights = scores")),
        *(MisconceptionCase(m.id, _sdpa(weights=m.code.rstrip("\n"))) for m in _softmax_bugs("scores", "weights")),
    ),
)

# ---------------------------------------------------------------------------------------------
# A numerically stable softmax

# rows of +800 and -800 logits, whatever the seed; then rows spanning 1,600 with the max not first
_LARGE = {"x": [[800.0], [-800.0], [0.0]]}
_WIDE = {"x": [[-800.0, 800.0, 0.0, 0.0], [0.0, -800.0, 800.0, 0.0], [0.0, 0.0, -800.0, 800.0]]}


_softmax = _Variants(
    "e = np.exp({shift})\np = e / {total}\n",
    shift="x - x.max(axis=-1, keepdims=True)",
    total="e.sum(axis=-1, keepdims=True)",
)


STABLE_SOFTMAX: Final = QuestionSpec(
    key="stable_softmax",
    version=2,
    title="A numerically stable softmax over the last axis",
    inputs=(InputSpec("x", shape=("...", "m", "n"), std=2.0),),
    cases=(
        CaseSpec("plain", {"m": 2, "n": 5}, note="2 rows of 5 logits"),
        CaseSpec("square", {"m": 3, "n": 3}, note="3 rows of 3 logits"),
        CaseSpec(
            "large_logits",
            {"m": 3, "n": 4},
            offsets=_LARGE,
            adversarial=True,
            note="rows around +800, -800 and 0: e^800 overflows, e^-800 underflows",
        ),
        CaseSpec(
            "wide_logits",
            {"m": 3, "n": 4},
            offsets=_WIDE,
            adversarial=True,
            note="rows like [-800, 800, 0, 0]: the max is not first and a row spans 1,600 (e^1600 overflows)",
        ),
        CaseSpec("one_key", {"m": 4, "n": 1}, adversarial=True, note="a single logit per row: every weight is 1"),
        CaseSpec("batched", {"m": 3, "n": 4}, batch=(2,), adversarial=True, required=False, note="batched (2, 3, 4)"),
    ),
    required=(NameCheck("p"),),
    reference="z = x - x.max(axis=-1, keepdims=True)\ne = np.exp(z)\np = e / e.sum(axis=-1, keepdims=True)\n",
    equivalents=(
        _softmax(shift="x - np.max(x, axis=-1, keepdims=True)"),
        _softmax(shift="x - x.max(-1, keepdims=True)", total="np.sum(e, -1, keepdims=True)"),
        "p = np.exp(x - x.max(-1)[..., None])\np = p / p.sum(-1)[..., None]\n",
        "p = np.exp(x - np.max(x, axis=-1, keepdims=True))\np /= p.sum(axis=-1, keepdims=True)\n",
        "m = x.max(-1, keepdims=True)\np = np.exp(x - m - np.log(np.exp(x - m).sum(-1, keepdims=True)))\n",
        "m = np.max(x, axis=-1, keepdims=True)\n"
        "p = np.exp(x - (m + np.log(np.sum(np.exp(x - m), -1, keepdims=True))))\n",
    ),
    misconceptions=(
        MisconceptionCase("shift_not_max", _softmax(shift="x - x.min(axis=-1, keepdims=True)")),
        MisconceptionCase("shift_not_max", _softmax(shift="x - x.mean(axis=-1, keepdims=True)")),
        MisconceptionCase("shift_not_max", _softmax(shift="x - x[..., :1]")),
        MisconceptionCase("no_max_subtraction", _softmax(shift="x")),
        MisconceptionCase("softmax_global_max", _softmax(shift="x - x.max()")),
        MisconceptionCase("missing_keepdims", _softmax(shift="x - x.max(axis=-1)")),
        MisconceptionCase("missing_keepdims", _softmax(total="e.sum(axis=-1)")),
        MisconceptionCase("missing_keepdims", _softmax(shift="x - x.max(axis=-1)", total="e.sum(axis=-1)")),
        MisconceptionCase(
            "softmax_wrong_axis",
            _softmax(shift="x - x.max(axis=0, keepdims=True)", total="e.sum(axis=0, keepdims=True)"),
        ),
        MisconceptionCase(
            "axis_from_front",
            _softmax(shift="x - x.max(axis=1, keepdims=True)", total="e.sum(axis=1, keepdims=True)"),
        ),
        MisconceptionCase("linear_normalisation", "p = x / x.sum(axis=-1, keepdims=True)\n"),
    ),
)

# ---------------------------------------------------------------------------------------------
# The causal mask, built and applied


_mask = _Variants(
    "{t}\n{mask}\n{masked}\n{weights}\n",
    mask="mask = np.triu(np.ones((T, T), dtype=bool), k=1)",
    masked="masked = np.where(mask, -np.inf, scores)",
    weights="weights = softmax(masked)",
    t="T = scores.shape[-1]",
)


def _fill(value: str) -> str:
    return _mask(masked=f"masked = np.where(mask, {value}, scores)")


CAUSAL_MASK: Final = QuestionSpec(
    key="causal_mask",
    version=2,
    title="Build the causal mask and apply it to the scores, then the softmax",
    inputs=(InputSpec("scores", shape=("...", "T", "T")),),
    cases=(
        CaseSpec("plain", {"T": 4}, note="T = 4"),
        CaseSpec("longer", {"T": 6}, note="T = 6"),
        CaseSpec("two_tokens", {"T": 2}, note="T = 2"),
        CaseSpec("one_token", {"T": 1}, adversarial=True, note="T = 1: the only token sees itself"),
        CaseSpec(
            "wide_logits",
            {"T": 3},
            offsets={"scores": [[800.0, 0.0, 0.0], [-800.0, 800.0, 0.0], [0.0, -800.0, 800.0]]},
            adversarial=True,
            required=False,
            note="visible scores ≈ [800], [-800, 800], [0, -800, 800]: a hand-written softmax must subtract the max",
        ),
        CaseSpec("batched", {"T": 4}, batch=(2, 3), adversarial=True, required=False, note="batched (2, 3, 4, 4)"),
    ),
    required=(NameCheck("masked", compare="logits"), NameCheck("weights")),
    helpers=("softmax", "masked_fill"),
    reference=_mask(),
    equivalents=(
        _mask(mask="keep = np.tril(np.ones((T, T), dtype=bool))", masked="masked = np.where(keep, scores, -np.inf)"),
        _mask(masked="masked = masked_fill(scores, mask, -np.inf)"),
        _mask(masked="masked = masked_fill(scores, mask, float('-inf'))"),
        _mask(mask="mask = np.triu(np.full((T, T), -np.inf), k=1)", masked="masked = scores + mask"),
        _mask(mask="mask = np.tril(np.ones((T, T))) == 0", masked="masked = np.where(mask, -math.inf, scores)"),
        _fill("-float('inf')"),
        _fill("float('-inf')"),
        _fill("-1e9"),
        _fill("-1e30"),
        _fill("np.finfo(scores.dtype).min"),
        _mask(mask="mask = np.zeros((T, T), dtype=bool)\nmask[np.triu_indices(T, k=1)] = True"),
        _mask(masked="masked = scores.copy()\nmasked[..., mask] = -np.inf"),
        _mask(weights="weights = softmax(masked, axis=-1)"),
    ),
    misconceptions=(
        MisconceptionCase("mask_hides_diagonal", _mask(mask="mask = np.triu(np.ones((T, T), dtype=bool))")),
        MisconceptionCase("mask_transposed", _mask(mask="mask = np.tril(np.ones((T, T), dtype=bool), k=-1)")),
        MisconceptionCase(
            "mask_convention_swapped",
            _mask(
                mask="keep = np.tril(np.ones((T, T), dtype=bool))", masked="masked = np.where(keep, -np.inf, scores)"
            ),
        ),
        MisconceptionCase("mask_fill_zero", _fill("0.0")),
        MisconceptionCase("mask_fill_not_low_enough", _fill("-10.0"), match="visible"),
        MisconceptionCase("mask_after_softmax", _mask(weights="weights = np.where(mask, 0.0, softmax(scores))")),
        MisconceptionCase("missing_causal_mask", _mask(weights="weights = softmax(scores)")),
        MisconceptionCase("softmax_wrong_axis", _mask(weights="weights = softmax(masked, axis=-2)")),
        MisconceptionCase("axis_from_front", _mask(weights="weights = softmax(masked, axis=1)")),
        MisconceptionCase("axis_from_front", _mask(t="T = scores.shape[0]")),
        *(MisconceptionCase(m.id, _mask(weights=m.code.rstrip("\n"))) for m in _softmax_bugs("masked", "weights")),
    ),
)

# ---------------------------------------------------------------------------------------------
# nanoGPT's head split and merge


_heads = _Variants(
    "B, T, C = x.shape\nhs = C // n_head\n{split}\n{merge}\n",
    split="heads = x.reshape(B, T, n_head, hs).transpose(0, 2, 1, 3)",
    merge="merged = y.transpose(0, 2, 1, 3).reshape(B, T, C)",
)


SPLIT_MERGE_HEADS: Final = QuestionSpec(
    key="split_merge_heads",
    version=1,
    title="Split (B, T, C) into heads (B, nh, T, hs) and merge (B, nh, T, hs) back to (B, T, C), as nanoGPT",
    inputs=(
        InputSpec("x", shape=("B", "T", "C")),
        InputSpec("y", shape=("B", "n_head", "T", "hs")),
        InputSpec("n_head", kind="dim", dim="n_head"),
    ),
    cases=(
        CaseSpec("plain", {"B": 2, "T": 3, "C": 8, "n_head": 2, "hs": 4}, note="B = 2, T = 3, C = 8, 2 heads"),
        CaseSpec("three_heads", {"B": 1, "T": 4, "C": 12, "n_head": 3, "hs": 4}, note="B = 1, T = 4, C = 12, 3 heads"),
        CaseSpec("one_token", {"B": 2, "T": 1, "C": 6, "n_head": 3, "hs": 2}, adversarial=True, note="T = 1"),
        CaseSpec("one_head", {"B": 2, "T": 3, "C": 4, "n_head": 1, "hs": 4}, adversarial=True, note="a single head"),
        CaseSpec(
            "square",
            {"B": 1, "T": 3, "C": 9, "n_head": 3, "hs": 3},
            adversarial=True,
            note="T = n_head = hs = 3: a wrong axis order keeps the right shape",
        ),
    ),
    required=(NameCheck("heads"), NameCheck("merged")),
    reference=_heads(),
    equivalents=(
        _heads(split="heads = x.reshape(B, T, n_head, -1).swapaxes(1, 2)"),
        _heads(split="heads = np.transpose(x.reshape(B, T, n_head, C // n_head), (0, 2, 1, 3))"),
        _heads(split="heads = x.reshape(*x.shape[:-1], n_head, -1).swapaxes(1, 2)"),
        _heads(split="heads = np.stack([x[..., h * hs : (h + 1) * hs] for h in range(n_head)], axis=1)"),
        _heads(merge="merged = y.swapaxes(1, 2).reshape(B, T, -1)"),
        _heads(merge="merged = np.moveaxis(y, 1, 2).reshape(B, T, C)"),
        _heads(merge="merged = np.concatenate([y[:, h] for h in range(n_head)], axis=-1)"),
        _heads(merge="merged = np.einsum('bhtd->bthd', y).reshape(B, T, C)"),
        "B, nh, T, hs = y.shape\nmerged = y.transpose(0, 2, 1, 3).reshape(B, T, nh * hs)\n"
        "heads = x.reshape(x.shape[0], x.shape[1], n_head, x.shape[2] // n_head).transpose(0, 2, 1, 3)\n",
    ),
    misconceptions=(
        MisconceptionCase("missing_transpose", _heads(split="heads = x.reshape(B, n_head, T, hs)")),
        MisconceptionCase(
            "split_wrong_order", _heads(split="heads = x.reshape(B, T, hs, n_head).transpose(0, 3, 1, 2)")
        ),
        MisconceptionCase("merge_missing_transpose", _heads(merge="merged = y.reshape(B, T, C)")),
        MisconceptionCase("merge_wrong_order", _heads(merge="merged = y.transpose(0, 2, 3, 1).reshape(B, T, C)")),
        MisconceptionCase("reassembly_forgotten", _heads(merge="merged = y")),
    ),
)

# ---------------------------------------------------------------------------------------------
# One decoding step with a KV cache

_APPEND = "k_cache = np.concatenate([k_cache, k], axis=-2)\nv_cache = np.concatenate([v_cache, v], axis=-2)\n"
_SCORES = "q @ k_cache.swapaxes(-2, -1) / np.sqrt(q.shape[-1])"


_kv = _Variants("{append}{attend}\n", attend=f"y = softmax({_SCORES}) @ v_cache", append=_APPEND)


KV_CACHE_STEP: Final = QuestionSpec(
    key="kv_cache_step",
    version=2,
    title="One decoding step with a KV cache: append the new k and v, attend the new query to the whole cache",
    inputs=(
        InputSpec("q", shape=("...", 1, "d_k")),
        InputSpec("k", shape=("...", 1, "d_k")),
        InputSpec("v", shape=("...", 1, "d_v")),
        InputSpec("k_cache", shape=("...", "t", "d_k")),
        InputSpec("v_cache", shape=("...", "t", "d_v")),
    ),
    cases=(
        CaseSpec("plain", {"t": 3, "d_k": 4, "d_v": 4}, note="3 cached tokens, d = 4"),
        CaseSpec("longer", {"t": 5, "d_k": 8, "d_v": 8}, note="5 cached tokens, d = 8"),
        CaseSpec(
            "empty_cache", {"t": 0, "d_k": 4, "d_v": 4}, adversarial=True, note="the first step: the cache is empty"
        ),
        CaseSpec("dk_ne_dv", {"t": 4, "d_k": 6, "d_v": 3}, adversarial=True, note="d_k = 6, d_v = 3"),
        # One query row: its output y mixes every weight, so a NaN anywhere makes all of y NaN. Two inputs
        # then tell the bugs apart: scores ≈ 800 overflow only without a shift, scores spanning 1,600 with
        # the max (≈ 0) not first overflow only with a shift other than the max.
        CaseSpec(
            "large_logits",
            {"t": 2, "d_k": 4, "d_v": 4},
            offsets={"q": [[20.0]], "k_cache": [[20.0], [20.0]], "k": [[20.0]]},
            adversarial=True,
            required=False,
            note="scores ≈ [800, 800, 800]: e^800 overflows (a hand-written softmax must subtract the row max)",
        ),
        CaseSpec(
            "wide_logits",
            {"t": 2, "d_k": 4, "d_v": 4},
            offsets={"q": [[20.0]], "k_cache": [[-40.0], [0.0]], "k": [[-20.0]]},
            adversarial=True,
            required=False,
            note="scores ≈ [-1600, 0, -800]: the max is not first and a shift by the min, mean or first overflows",
        ),
        CaseSpec(
            "batched",
            {"t": 5, "d_k": 16, "d_v": 16},
            batch=(2, 4),
            adversarial=True,
            required=False,
            note="batched (B, nh) = (2, 4), as in nanoGPT",
        ),
    ),
    required=(NameCheck("k_cache"), NameCheck("v_cache"), NameCheck("y")),
    helpers=("softmax",),
    reference=_kv(),
    equivalents=(
        _kv(append="k_cache = np.concatenate((k_cache, k), axis=-2)\nv_cache = np.concatenate((v_cache, v), -2)\n"),
        _kv(
            attend="scores = q @ np.swapaxes(k_cache, -1, -2) * q.shape[-1] ** -0.5\n"
            "weights = softmax(scores, axis=-1)\ny = weights @ v_cache"
        ),
        _kv(attend="d_k = k.shape[-1]\ny = softmax((q @ k_cache.swapaxes(-2, -1)) / math.sqrt(d_k)) @ v_cache"),
        _kv(
            attend="s = np.einsum('...qd,...kd->...qk', q, k_cache) / np.sqrt(q.shape[-1])\n"
            "y = np.einsum('...qk,...kd->...qd', softmax(s), v_cache)"
        ),
        _kv(
            attend=f"s = {_SCORES}\ne = np.exp(s - s.max(-1, keepdims=True))\n"
            "y = e / e.sum(-1, keepdims=True) @ v_cache"
        ),
    ),
    misconceptions=(
        MisconceptionCase(
            "kv_attend_new_only", _kv(attend="y = softmax(q @ k.swapaxes(-2, -1) / np.sqrt(q.shape[-1])) @ v")
        ),
        MisconceptionCase("kv_append_after_attend", f"y = softmax({_SCORES}) @ v_cache\n" + _APPEND),
        MisconceptionCase(
            "kv_causal_mask_top_left",
            _kv(
                attend=(
                    f"scores = {_SCORES}\n"
                    "S = k_cache.shape[-2]\n"
                    "mask = np.triu(np.ones((1, S), dtype=bool), k=1)\n"
                    "y = softmax(np.where(mask, -np.inf, scores)) @ v_cache"
                )
            ),
        ),
        MisconceptionCase("missing_scale", _kv(attend="y = softmax(q @ k_cache.swapaxes(-2, -1)) @ v_cache")),
        MisconceptionCase(
            "scale_by_dv", _kv(attend="y = softmax(q @ k_cache.swapaxes(-2, -1) / np.sqrt(v.shape[-1])) @ v_cache")
        ),
        MisconceptionCase(
            "t_reverses_all_axes", _kv(attend="y = softmax(q @ k_cache.T / np.sqrt(q.shape[-1])) @ v_cache")
        ),
        MisconceptionCase(
            "axis_from_front",
            _kv(
                append="k_cache = np.concatenate([k_cache, k], axis=0)\n"
                "v_cache = np.concatenate([v_cache, v], axis=0)\n"
            ),
        ),
        MisconceptionCase("axis_from_front", _kv(attend=f"y = softmax({_SCORES}, axis=1) @ v_cache")),
        *(
            MisconceptionCase(m.id, _kv(attend=f"s = {_SCORES}\n" + m.code.rstrip("\n")))
            for m in _softmax_bugs("s", "w", then="y = w @ v_cache")
        ),
    ),
)

# ---------------------------------------------------------------------------------------------
# Lesson 4 (issue 29): RoPE with RoFormer's interleaved pairs

_ROPE_SCAFFOLD = """\
d = q.shape[-1]
theta = ...
m_pos = m + np.arange(q.shape[-2])
n_pos = n + np.arange(k.shape[-2])
cos_q, sin_q = np.cos(m_pos[:, None] * theta), np.sin(m_pos[:, None] * theta)
cos_k, sin_k = np.cos(n_pos[:, None] * theta), np.sin(n_pos[:, None] * theta)
q1, q2 = q[..., 0::2], q[..., 1::2]
k1, k2 = k[..., 0::2], k[..., 1::2]
q_rot = ...
k_rot = ...
"""


_rope = _Variants(
    "{theta}\n{q_rot}\n{k_rot}\n",
    theta="theta = 10000.0 ** (-np.arange(0, d, 2) / d)",
    q_rot="q_rot = np.stack([q1 * cos_q - q2 * sin_q, q1 * sin_q + q2 * cos_q], axis=-1).reshape(q.shape)",
    k_rot="k_rot = np.stack([k1 * cos_k - k2 * sin_k, k1 * sin_k + k2 * cos_k], axis=-1).reshape(k.shape)",
)


def _half(x: str, c: str, s: str) -> str:
    """rotate_half's pairing (i, i + d/2) applied to ``x``: the GPT-NeoX / Hugging Face spelling."""
    return (
        f"{x} * np.concatenate([{c}, {c}], axis=-1) "
        f"+ np.concatenate([-{x}[..., d // 2:], {x}[..., :d // 2]], axis=-1) * np.concatenate([{s}, {s}], axis=-1)"
    )


APPLY_ROPE: Final = QuestionSpec(
    key="apply_rope",
    version=1,
    title="Apply RoPE to q (positions m, m+1, ...) and k (positions n, n+1, ...) with RoFormer's pairs (2i, 2i+1)",
    inputs=(
        InputSpec("q", shape=("...", "T", "d")),
        InputSpec("k", shape=("...", "S", "d")),
        InputSpec("m", kind="value", value=0),
        InputSpec("n", kind="value", value=0),
    ),
    cases=(
        CaseSpec(
            "plain", {"T": 3, "S": 3, "d": 4}, values={"m": 2, "n": 0}, note="3 queries from m = 2, 3 keys from n = 0"
        ),
        CaseSpec("wider", {"T": 4, "S": 4, "d": 8}, values={"m": 10, "n": 7}, note="d = 8, m = 10, n = 7"),
        CaseSpec(
            "far",
            {"T": 2, "S": 2, "d": 6},
            values={"m": 1000, "n": 1003},
            adversarial=True,
            note="positions past 1,000, d = 6 (three pairs)",
        ),
        CaseSpec(
            "decode",
            {"T": 1, "S": 4, "d": 4},
            values={"m": 3, "n": 0},
            adversarial=True,
            note="one query at position 3 after four keys at 0..3 (T ≠ S)",
        ),
        CaseSpec(
            "batched",
            {"T": 3, "S": 3, "d": 8},
            batch=(2, 3),
            values={"m": 5, "n": 1},
            adversarial=True,
            required=False,
            note="batched (B, nh) = (2, 3)",
        ),
    ),
    required=(NameCheck("theta"), NameCheck("q_rot"), NameCheck("k_rot")),
    scaffold=_ROPE_SCAFFOLD,
    reference=_rope(),
    equivalents=(
        _rope(theta="theta = 1.0 / 10000 ** (np.arange(0, d, 2) / d)"),
        _rope(theta="theta = np.exp(-np.log(10000.0) * np.arange(d // 2) * 2 / d)"),
        _rope(theta="theta = np.array([10000 ** (-2 * i / d) for i in range(d // 2)])"),
        _rope(
            q_rot="a = q1 * cos_q - q2 * sin_q\nb = q1 * sin_q + q2 * cos_q\n"
            "q_rot = np.concatenate([a[..., None], b[..., None]], axis=-1).reshape(q.shape)"
        ),
        _rope(k_rot="k_rot = np.stack((k1 * cos_k - k2 * sin_k, k2 * cos_k + k1 * sin_k), -1).reshape(*k.shape)"),
    ),
    misconceptions=(
        MisconceptionCase("rope_theta_exponent", _rope(theta="theta = 10000.0 ** (-np.arange(d // 2) / d)")),
        MisconceptionCase(
            "rope_half_pairing_on_interleaved",
            _rope(q_rot="q_rot = " + _half("q", "cos_q", "sin_q"), k_rot="k_rot = " + _half("k", "cos_k", "sin_k")),
        ),
        MisconceptionCase(
            "rope_query_by_key_position",
            _rope(
                q_rot="q_rot = np.stack([q1 * cos_k - q2 * sin_k, q1 * sin_k + q2 * cos_k], axis=-1).reshape(q.shape)"
            ),
        ),
        MisconceptionCase(
            "rope_pairs_not_interleaved_back",
            _rope(
                q_rot="q_rot = np.concatenate([q1 * cos_q - q2 * sin_q, q1 * sin_q + q2 * cos_q], axis=-1)",
                k_rot="k_rot = np.concatenate([k1 * cos_k - k2 * sin_k, k1 * sin_k + k2 * cos_k], axis=-1)",
            ),
        ),
    ),
)


# Lesson 6: the forward FLOPs of one block per token (issue 29), a count: the T x T work in full


_block_flops = _Variants(
    "{weights}\n{attention}\nflops = weights + attention\n",
    weights="weights = 2 * 12 * d * d",
    attention="attention = 4 * T * d",
)


BLOCK_FLOPS: Final = QuestionSpec(
    key="block_flops",
    version=1,
    title="Forward FLOPs per token of one GPT block (MLP 4d wide): 2mnk per matmul, the T x T work in full",
    inputs=(
        InputSpec("d", kind="dim", dim="d"),
        InputSpec("T", kind="dim", dim="T"),
        InputSpec("n_head", kind="dim", dim="n_head"),
    ),
    cases=(
        CaseSpec("gpt2_small", {"d": 768, "T": 1024, "n_head": 12}, note="GPT-2 small: d = 768, T = 1024, 12 heads"),
        CaseSpec("long_context", {"d": 256, "T": 8192, "n_head": 4}, note="d = 256, T = 8192: the T x T work leads"),
        CaseSpec("one_token", {"d": 64, "T": 1, "n_head": 2}, adversarial=True, note="T = 1: one key"),
        CaseSpec("one_head", {"d": 128, "T": 512, "n_head": 1}, adversarial=True, note="a single head"),
        CaseSpec("many_heads", {"d": 512, "T": 300, "n_head": 16}, adversarial=True, note="16 heads of 32"),
    ),
    required=(NameCheck("weights"), NameCheck("attention"), NameCheck("flops")),
    reference=_block_flops(),
    equivalents=(
        _block_flops(weights="weights = 2 * (4 * d * d + 8 * d * d)"),
        _block_flops(weights="weights = 24 * d ** 2"),
        _block_flops(attention="attention = 2 * T * d + 2 * T * d"),
        _block_flops(attention="hs = d // n_head\nattention = n_head * (2 * T * hs + 2 * T * hs)"),
    ),
    misconceptions=(
        MisconceptionCase("mac_counted_once", _block_flops(weights="weights = 12 * d * d")),
        MisconceptionCase("mlp_as_4d2", _block_flops(weights="weights = 2 * 8 * d * d")),
        MisconceptionCase("forward_counted_as_training", _block_flops(weights="weights = 6 * 12 * d * d")),
        MisconceptionCase("causal_halving", _block_flops(attention="attention = 2 * T * d")),
        MisconceptionCase("attention_flops_times_heads", _block_flops(attention="attention = 4 * T * d * n_head")),
        MisconceptionCase("attention_term_forgotten", _block_flops(attention="attention = 0")),
    ),
)


# ---------------------------------------------------------------------------------------------
# Lesson 5 (issue 29): the whole multi-head attention forward with a padding mask


_mha = _Variants(
    "B, T, C = x.shape\nhs = C // n_head\n{qkv}\n{split}\n{hide}\nif not causal:\n"
    "    hide = np.zeros((T, T), dtype=bool) | pad[:, None, None, :]\n{scores}\n{fill}\n{att}\n{merge}\n{out}\n",
    split="q = q.reshape(B, T, n_head, hs).transpose(0, 2, 1, 3)\n"
    "k = k.reshape(B, T, n_head, hs).transpose(0, 2, 1, 3)\n"
    "v = v.reshape(B, T, n_head, hs).transpose(0, 2, 1, 3)",
    hide="hide = np.triu(np.ones((T, T), dtype=bool), k=1) | pad[:, None, None, :]",
    scores="scores = q @ k.swapaxes(-2, -1) / np.sqrt(hs)",
    fill="scores = np.where(hide, np.finfo(scores.dtype).min, scores)",
    att="att = softmax(scores)",
    merge="y = (att @ v).transpose(0, 2, 1, 3).reshape(B, T, C)",
    out="out = y @ w_proj + b_proj",
    qkv="q, k, v = np.split(x @ w_attn + b_attn, 3, axis=-1)",
)


def _pad(*rows: str) -> list[list[float]]:
    """A padding mask from strings of '.' (a token) and 'p' (padding), one per sample: the case's offsets."""
    return [[1.0 if ch == "p" else 0.0 for ch in row] for row in rows]


_MHA_W = {"std": 0.5}


MHA_FORWARD: Final = QuestionSpec(
    key="mha_forward",
    version=1,
    title="Multi-head self-attention forward with a padding mask (True = padding), causal or not, finfo.min fill",
    inputs=(
        InputSpec("x", shape=("B", "T", "C")),
        InputSpec("w_attn", shape=("C", "C3"), **_MHA_W),  # type: ignore[arg-type]
        InputSpec("b_attn", shape=("C3",), **_MHA_W),  # type: ignore[arg-type]
        InputSpec("w_proj", shape=("C", "C"), **_MHA_W),  # type: ignore[arg-type]
        InputSpec("b_proj", shape=("C",), **_MHA_W),  # type: ignore[arg-type]
        InputSpec("n_head", kind="dim", dim="n_head"),
        # zeros plus the case's pattern (offsets): True exactly at the padding
        InputSpec("pad", kind="uniform", shape=("B", "T"), dtype="bool", low=0.0, high=0.0, decimals=None),
        InputSpec("causal", kind="value", value=True),
    ),
    cases=(
        CaseSpec(
            "right_padded",
            {"B": 2, "T": 4, "C": 8, "C3": 24, "n_head": 2},
            offsets={"pad": _pad("...p", "....")},
            note="B = 2, T = 4, C = 8, 2 heads; the first sample ends in one padding token",
        ),
        CaseSpec(
            "encoder",
            {"B": 2, "T": 5, "C": 8, "C3": 24, "n_head": 4},
            values={"causal": False},
            offsets={"pad": _pad("...pp", ".....")},
            note="causal = False (an encoder): only the padding columns are blocked",
        ),
        CaseSpec(
            "left_padded",
            {"B": 2, "T": 5, "C": 8, "C3": 24, "n_head": 2},
            offsets={"pad": _pad("pp...", "p....")},
            adversarial=True,
            note="left padding under the causal mask: the padding's rows see no key (a finite fill keeps them finite)",
        ),
        CaseSpec(
            "square",
            {"B": 1, "T": 3, "C": 9, "C3": 27, "n_head": 3},
            offsets={"pad": _pad("...")},
            adversarial=True,
            note="T = n_head = hs = 3: a merge in the wrong order keeps the right shape",
        ),
        CaseSpec(
            "batch_of_four",
            {"B": 4, "T": 6, "C": 16, "C3": 48, "n_head": 4},
            offsets={"pad": _pad("......", "....pp", ".....p", "...ppp")},
            adversarial=True,
            note="B = 4, T = 6, C = 16, 4 heads, right padding of 0 to 3 tokens",
        ),
    ),
    required=(NameCheck("att"), NameCheck("out")),
    helpers=("softmax",),
    reference=_mha(),
    rtol=1e-6,
    atol=1e-9,
    equivalents=(
        _mha(
            qkv="qkv = x @ w_attn + b_attn\nq = qkv[..., :C]\nk = qkv[..., C:2 * C]\nv = qkv[..., 2 * C:]",
            split="q = q.reshape(B, T, n_head, -1).swapaxes(1, 2)\nk = k.reshape(B, T, n_head, -1).swapaxes(1, 2)\n"
            "v = v.reshape(B, T, n_head, -1).swapaxes(1, 2)",
        ),
        _mha(
            hide="hide = np.logical_or(~np.tril(np.ones((T, T), dtype=bool)), pad[:, None, None, :])",
            fill="scores = np.where(hide, -1e30, scores)",
        ),
        _mha(fill="scores = np.where(hide, np.finfo(np.float64).min, scores)", att="att = softmax(scores, axis=-1)"),
        _mha(
            scores="scores = np.einsum('bhqd,bhkd->bhqk', q, k) * hs ** -0.5",
            merge="y = np.einsum('bhqk,bhkd->bqhd', att, v).reshape(B, T, C)",
        ),
        _mha(merge="y = np.concatenate([(att @ v)[:, h] for h in range(n_head)], axis=-1)"),
    ),
    misconceptions=(
        MisconceptionCase(
            "mask_convention_swapped",
            _mha(hide="hide = np.tril(np.ones((T, T), dtype=bool)) | pad[:, None, None, :]"),
            note="the causal part written as True = may attend, used as True = blocked",
        ),
        MisconceptionCase(
            "mask_convention_swapped",
            _mha(hide="hide = np.triu(np.ones((T, T), dtype=bool), k=1) | ~pad[:, None, None, :]"),
            note="the padding mask read as True = a real token",
        ),
        MisconceptionCase("merge_missing_transpose", _mha(merge="y = (att @ v).reshape(B, T, C)")),
        MisconceptionCase(
            "missing_transpose",
            _mha(
                split="q = q.reshape(B, n_head, T, hs)\nk = k.reshape(B, n_head, T, hs)\n"
                "v = v.reshape(B, n_head, T, hs)"
            ),
        ),
        MisconceptionCase("scale_by_sqrt_d_model", _mha(scores="scores = q @ k.swapaxes(-2, -1) / np.sqrt(C)")),
        MisconceptionCase("softmax_wrong_axis", _mha(att="att = softmax(scores, axis=-2)")),
        MisconceptionCase(
            "padding_mask_on_queries",
            _mha(hide="hide = np.triu(np.ones((T, T), dtype=bool), k=1) | pad[:, None, :, None]"),
        ),
        MisconceptionCase("fully_masked_rows_nan", _mha(fill="scores = np.where(hide, -np.inf, scores)")),
        MisconceptionCase("mask_fill_zero", _mha(fill="scores = np.where(hide, 0.0, scores)")),
        MisconceptionCase("reassembly_forgotten", _mha(out="out = (att @ v) @ w_proj + b_proj")),
    ),
)


# Lesson 7: one decode step with a grouped-query (GQA) cache (issue 29)

_GQA_GROUP = "n_head, n_kv_head = q.shape[-3], k.shape[-3]\ngroup = n_head // n_kv_head\n"
_GQA_SCORES = "q @ k_all.swapaxes(-2, -1) / np.sqrt(q.shape[-1])"


_gqa = _Variants(
    _GQA_GROUP + "{append}{expand}\n{attend}\n",
    expand="k_all = np.repeat(k_cache, group, axis=-3)\nv_all = np.repeat(v_cache, group, axis=-3)",
    attend=f"y = softmax({_GQA_SCORES}) @ v_all",
    append=_APPEND,
)


GQA_DECODE_STEP: Final = QuestionSpec(
    key="gqa_decode_step",
    version=1,
    title="One decode step with a GQA cache: append k, v of the K/V heads, each group of query heads reads its own",
    inputs=(
        InputSpec("q", shape=("...", "n_head", 1, "hs")),
        InputSpec("k", shape=("...", "n_kv", 1, "hs")),
        InputSpec("v", shape=("...", "n_kv", 1, "hs")),
        InputSpec("k_cache", shape=("...", "n_kv", "t", "hs")),
        InputSpec("v_cache", shape=("...", "n_kv", "t", "hs")),
    ),
    cases=(
        CaseSpec("plain", {"n_head": 4, "n_kv": 2, "t": 3, "hs": 4}, note="4 query heads, 2 K/V heads, 3 cached"),
        CaseSpec("gqa_8_2", {"n_head": 8, "n_kv": 2, "t": 5, "hs": 8}, note="8 query heads in 2 groups of 4"),
        CaseSpec("mqa", {"n_head": 4, "n_kv": 1, "t": 3, "hs": 4}, adversarial=True, note="MQA: one K/V head for all"),
        CaseSpec("mha", {"n_head": 3, "n_kv": 3, "t": 2, "hs": 4}, adversarial=True, note="MHA: groups of one"),
        CaseSpec(
            "empty_cache",
            {"n_head": 4, "n_kv": 2, "t": 0, "hs": 4},
            adversarial=True,
            note="the first step: the cache is empty",
        ),
        CaseSpec(
            "batched",
            {"n_head": 6, "n_kv": 3, "t": 4, "hs": 4},
            batch=(2,),
            adversarial=True,
            required=False,
            note="batched B = 2: (B, n_head, 1, hs)",
        ),
    ),
    required=(NameCheck("k_cache"), NameCheck("v_cache"), NameCheck("y")),
    helpers=("softmax",),
    reference=_gqa(),
    equivalents=(
        _gqa(expand="k_all = k_cache.repeat(group, axis=-3)\nv_all = v_cache.repeat(group, -3)"),
        _gqa(append="k_cache = np.concatenate((k_cache, k), axis=-2)\nv_cache = np.concatenate((v_cache, v), -2)\n"),
        _gqa(
            attend=f"scores = {_GQA_SCORES.replace('np.sqrt(q.shape[-1])', 'math.sqrt(q.shape[-1])')}\n"
            "weights = softmax(scores, axis=-1)\ny = weights @ v_all"
        ),
        _gqa(
            attend="s = np.einsum('...qd,...kd->...qk', q, k_all) * q.shape[-1] ** -0.5\n"
            "y = np.einsum('...qk,...kd->...qd', softmax(s), v_all)"
        ),
    ),
    misconceptions=(
        MisconceptionCase(
            "gqa_tile_not_repeat",
            _gqa(expand="k_all = np.tile(k_cache, (group, 1, 1))\nv_all = np.tile(v_cache, (group, 1, 1))"),
        ),
        MisconceptionCase(
            "kv_append_after_attend",
            _GQA_GROUP
            + "k_all = np.repeat(k_cache, group, axis=-3)\nv_all = np.repeat(v_cache, group, axis=-3)\n"
            + f"y = softmax({_GQA_SCORES}) @ v_all\n"
            + _APPEND,
        ),
        MisconceptionCase(
            "gqa_scale_by_d_model",
            _gqa(attend="y = softmax(q @ k_all.swapaxes(-2, -1) / np.sqrt(n_head * q.shape[-1])) @ v_all"),
        ),
        MisconceptionCase(
            "kv_attend_new_only",
            _gqa(
                attend="k_new, v_new = np.repeat(k, group, axis=-3), np.repeat(v, group, axis=-3)\n"
                "y = softmax(q @ k_new.swapaxes(-2, -1) / np.sqrt(q.shape[-1])) @ v_new"
            ),
        ),
    ),
)

SPECS: Final[dict[str, QuestionSpec]] = {
    s.key: s
    for s in (
        SDPA_THREE_LINES,
        STABLE_SOFTMAX,
        CAUSAL_MASK,
        SPLIT_MERGE_HEADS,
        KV_CACHE_STEP,
        APPLY_ROPE,  # issue 29, lesson 4
        BLOCK_FLOPS,  # issue 29, lesson 6
        MHA_FORWARD,  # issue 29, lesson 5
        GQA_DECODE_STEP,  # issue 29, lesson 7
    )
}


def names() -> list[str]:
    return list(SPECS)


def get(key: str) -> QuestionSpec:
    """The built-in spec with this key; KeyError naming the known keys otherwise."""
    try:
        return SPECS[key]
    except KeyError:
        raise KeyError(f"unknown code question {key!r}; known: {', '.join(SPECS)}") from None
