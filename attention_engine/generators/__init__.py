"""Seeded numeric question templates: ``names()``, ``get(name)``, ``generate(name, seed, **params)``, ``grade()``.

A variant is a pure function of (template name, template version, params, seed). Changing what a
template generates means bumping its ``version`` and regenerating the golden digests
(``python -m attention_engine.generators.golden --write``).
"""

from __future__ import annotations

from .attention import AttentionOutput, AttentionRowWeights, CausalMaskedWeights, MaskFillZeroContrast
from .base import Choice, ParamSpec, Step, Template, Variant
from .counting import AttentionMatrixMemory, BertGptPositions, KVCacheSavings, NanoGPTParamCount, RNNGradientDecay
from .grading import GradeResult, grade
from .scaling import DotProductVariance, SoftmaxSharpness
from .shapes import FiveStepShapes, HeadDimension, NanoGPTShapes

_TEMPLATES: dict[str, Template] = {
    t.name: t
    for t in (
        AttentionRowWeights(), AttentionOutput(), CausalMaskedWeights(), MaskFillZeroContrast(),
        FiveStepShapes(), DotProductVariance(), SoftmaxSharpness(), NanoGPTShapes(), NanoGPTParamCount(),
        KVCacheSavings(), RNNGradientDecay(), BertGptPositions(), HeadDimension(), AttentionMatrixMemory(),
    )
}


def names() -> list[str]:
    return sorted(_TEMPLATES)


def get(name: str) -> Template:
    try:
        return _TEMPLATES[name]
    except KeyError:
        raise KeyError(f"unknown template {name!r}; known: {', '.join(names())}") from None


def generate(name: str, seed: int, **params) -> Variant:
    return get(name).generate(seed, **params)


__all__ = [
    "Choice", "GradeResult", "ParamSpec", "Step", "Template", "Variant",
    "generate", "get", "grade", "names",
]
