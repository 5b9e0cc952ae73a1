"""Seeded numeric question templates: ``names()``, ``get(name)``, ``generate(name, seed, **params)``, ``grade()``.

A variant is a pure function of (template name, template version, params, seed). Changing what a
template generates means adding a new version beside the old one (the old one keeps generating
exactly what it did: stored questions pinned to it never change) and adding its golden digests
(``python -m attention_engine.generators.golden --write``). ``get(name)`` and ``generate(name, …)``
use the newest version unless ``version=`` says otherwise.
"""

from __future__ import annotations

from typing import Any

from .attention import (
    AttentionOutput,
    AttentionOutputV2,
    AttentionOutputV3,
    AttentionRowWeights,
    AttentionRowWeightsV2,
    AttentionRowWeightsV3,
    AttentionRowWeightsV4,
    CausalMaskedWeights,
    CausalMaskedWeightsV2,
    CausalMaskedWeightsV3,
    CausalMaskedWeightsV4,
    MaskFillZeroContrast,
    MaskFillZeroContrastV2,
    MaskFillZeroContrastV3,
    MaskFillZeroContrastV4,
)
from .balanced import (
    AlibiBiasV2,
    AttentionFlopsCrossoverV2,
    CrossMaskCountV2,
    DecodeBandwidthBoundV2,
    FlopsPerTokenV2,
    GPTParamCountV2,
    KVCacheMemoryV4,
    MaskRowsV2,
    MHAParamCountV2,
    PagedBlocksV2,
    RNNGradientDecayV4,
    SpeculativeExpectedTokensV2,
)
from .base import Choice, ParamSpec, Step, Template, Variant
from .costs import AttentionFlopsCrossover, FlopsPerToken, GPTParamCount
from .counting import (
    AttentionMatrixMemory,
    AttentionMatrixMemoryV2,
    AttentionMatrixMemoryV3,
    BertGptPositions,
    BertGptPositionsV2,
    BertGptPositionsV3,
    KVCacheMemory,
    KVCacheMemoryV2,
    KVCacheSavings,
    KVCacheSavingsV2,
    KVCacheSavingsV3,
    NanoGPTParamCount,
    NanoGPTParamCountV2,
    NanoGPTParamCountV3,
    RNNGradientDecay,
    RNNGradientDecayV2,
    RNNGradientDecayV3,
)
from .grading import GradeResult, Unreadable, grade, parse_cell, percent_answer
from .masks import CrossMaskCount, MaskRows, MHAParamCount  # issue 29, lesson 5
from .positional import AlibiBias, RopeRelativeScore, SinusoidalValue  # issue 29, lesson 4
from .scaling import (
    DotProductVariance,
    DotProductVarianceV2,
    DotProductVarianceV3,
    SoftmaxSharpness,
    SoftmaxSharpnessV2,
    SoftmaxSharpnessV3,
)
from .serving import DecodeBandwidthBound, KVCacheMemoryV3, PagedBlocks, SpeculativeExpectedTokens  # lesson 7
from .shapes import (
    FIVE_STEPS,
    FiveStepShapes,
    FiveStepShapesV2,
    FiveStepShapesV3,
    FiveStepShapesV4,
    HeadDimension,
    HeadDimensionV2,
    HeadDimensionV3,
    NanoGPTShapes,
    NanoGPTShapesV2,
    NanoGPTShapesV3,
    NanoGPTShapesV4,
)
from .softmax import OnlineSoftmax, OnlineSoftmaxV2, OnlineSoftmaxV3, StableSoftmax, StableSoftmaxV2, StableSoftmaxV3

_ALL: tuple[Template, ...] = (
    AttentionRowWeights(),
    AttentionOutput(),
    CausalMaskedWeights(),
    MaskFillZeroContrast(),
    FiveStepShapes(),
    DotProductVariance(),
    SoftmaxSharpness(),
    NanoGPTShapes(),
    NanoGPTParamCount(),
    KVCacheSavings(),
    RNNGradientDecay(),
    BertGptPositions(),
    HeadDimension(),
    AttentionMatrixMemory(),
    # version 2: prompts without typing instructions, options that pass the learner's sanity checks
    AttentionRowWeightsV2(),
    AttentionOutputV2(),
    CausalMaskedWeightsV2(),
    MaskFillZeroContrastV2(),
    FiveStepShapesV2(),
    DotProductVarianceV2(),
    SoftmaxSharpnessV2(),
    NanoGPTShapesV2(),
    NanoGPTParamCountV2(),
    KVCacheSavingsV2(),
    RNNGradientDecayV2(),
    BertGptPositionsV2(),
    HeadDimensionV2(),
    AttentionMatrixMemoryV2(),
    # new templates
    KVCacheMemory(),
    OnlineSoftmax(),
    StableSoftmax(),
    # issue 25: options judged as displayed, balanced on their parts, drawn from a pool, the classic offered
    # (version 3; version 2 of the templates above that started at 1); attention_output keeps version 2
    AttentionRowWeightsV3(),
    CausalMaskedWeightsV3(),
    MaskFillZeroContrastV3(),
    FiveStepShapesV3(),
    DotProductVarianceV3(),
    SoftmaxSharpnessV3(),
    NanoGPTShapesV3(),
    NanoGPTParamCountV3(),
    KVCacheSavingsV3(),
    RNNGradientDecayV3(),
    BertGptPositionsV3(),
    HeadDimensionV3(),
    AttentionMatrixMemoryV3(),
    KVCacheMemoryV2(),
    OnlineSoftmaxV2(),
    StableSoftmaxV2(),
    # issue 25 b: nanoGPT's shapes balanced on their sizes
    NanoGPTShapesV4(),
    # issue 25, speed: the same questions computed in plain python on their handful of numbers
    StableSoftmaxV3(),
    OnlineSoftmaxV3(),
    AttentionRowWeightsV4(),
    AttentionOutputV3(),
    CausalMaskedWeightsV4(),
    MaskFillZeroContrastV4(),
    FiveStepShapesV4(),
    # issue 29, lesson 4: positional information
    SinusoidalValue(),
    RopeRelativeScore(),
    AlibiBias(),
    # issue 29, lesson 6: cost accounting (parameters, FLOPs per token, attention's crossover)
    GPTParamCount(),
    FlopsPerToken(),
    AttentionFlopsCrossover(),
    # issue 29, lesson 5: the multi-head attention module and its masks
    MaskRows(),
    MHAParamCount(),
    CrossMaskCount(),
    # issue 29, lesson 7: inference serving (MLA in the KV cache, decode's bandwidth bound, speculative, paged)
    KVCacheMemoryV3(),
    DecodeBandwidthBound(),
    SpeculativeExpectedTokens(),
    PagedBlocks(),
    # the one-number templates with the answer's rank among the options drawn by the seed
    GPTParamCountV2(),
    FlopsPerTokenV2(),
    AttentionFlopsCrossoverV2(),
    MaskRowsV2(),
    MHAParamCountV2(),
    CrossMaskCountV2(),
    AlibiBiasV2(),
    KVCacheMemoryV4(),
    DecodeBandwidthBoundV2(),
    SpeculativeExpectedTokensV2(),
    PagedBlocksV2(),
    RNNGradientDecayV4(),
)
# name -> {version -> template}, every version that was ever published
_TEMPLATES: dict[str, dict[int, Template]] = {}
for _t in _ALL:
    _TEMPLATES.setdefault(_t.name, {})[_t.version] = _t


def names() -> list[str]:
    return sorted(_TEMPLATES)


def versions(name: str) -> list[int]:
    """Every version of a template that can still generate, oldest first."""
    return sorted(_by_version(name))


def _by_version(name: str) -> dict[int, Template]:
    try:
        return _TEMPLATES[name]
    except KeyError:
        raise KeyError(f"unknown template {name!r}; known: {', '.join(names())}") from None


def get(name: str, version: int | None = None) -> Template:
    """The template ``name`` at ``version`` (default: the newest); KeyError naming what exists otherwise."""
    by_version = _by_version(name)
    if version is None:
        return by_version[max(by_version)]
    try:
        return by_version[version]
    except (KeyError, TypeError):
        known = ", ".join(str(v) for v in sorted(by_version))
        raise KeyError(f"template {name!r} has no version {version!r}; known versions: {known}") from None


def generate(name: str, seed: int, *, version: int | None = None, **params: Any) -> Variant:
    return get(name, version).generate(seed, **params)


__all__ = [
    "FIVE_STEPS",
    "Choice",
    "GradeResult",
    "ParamSpec",
    "Step",
    "Template",
    "Unreadable",
    "Variant",
    "generate",
    "get",
    "grade",
    "names",
    "parse_cell",
    "percent_answer",
    "versions",
]
