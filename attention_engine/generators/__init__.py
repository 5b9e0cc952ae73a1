"""Seeded numeric question templates: ``names()``, ``get(name)``, ``generate(name, seed, **params)``, ``grade()``.

A variant is a pure function of (template name, template version, params, seed). Changing what a
template generates means adding a new version beside the old one (the old one keeps generating
exactly what it did: stored questions pinned to it never change) and adding its golden digests
(``python -m attention_engine.generators.golden --write``). ``get(name)`` and ``generate(name, …)``
use the newest version unless ``version=`` says otherwise.
"""

from __future__ import annotations

from .attention import AttentionOutput, AttentionRowWeights, CausalMaskedWeights, MaskFillZeroContrast
from .base import Choice, ParamSpec, Step, Template, Variant
from .counting import AttentionMatrixMemory, BertGptPositions, KVCacheSavings, NanoGPTParamCount, RNNGradientDecay
from .grading import GradeResult, grade
from .scaling import DotProductVariance, SoftmaxSharpness
from .shapes import FiveStepShapes, HeadDimension, NanoGPTShapes

_ALL: tuple[Template, ...] = (
    AttentionRowWeights(), AttentionOutput(), CausalMaskedWeights(), MaskFillZeroContrast(),
    FiveStepShapes(), DotProductVariance(), SoftmaxSharpness(), NanoGPTShapes(), NanoGPTParamCount(),
    KVCacheSavings(), RNNGradientDecay(), BertGptPositions(), HeadDimension(), AttentionMatrixMemory(),
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


def generate(name: str, seed: int, *, version: int | None = None, **params) -> Variant:
    return get(name, version).generate(seed, **params)


__all__ = [
    "Choice", "GradeResult", "ParamSpec", "Step", "Template", "Variant",
    "generate", "get", "grade", "names", "versions",
]
