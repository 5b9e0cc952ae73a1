"""A code question as data: what the code receives, what it must define, and how it is checked.

A ``QuestionSpec`` holds no prompt (the app stores the wording, in Chinese) and no Python
callables: every part is JSON (``to_dict``/``from_dict``, versioned by ``SPEC_FORMAT``), so an admin
can author one and the app can store it next to the question. Code inside a spec — the scaffold,
the reference solution, the equivalent spellings, each misconception's buggy version — is run by
the same sandboxed interpreter as the learner's, never by Python itself.

Inputs are drawn, per input case, from ``np.random.default_rng([seed, case_index])``: a case says
its dimensions (``dims``), optional leading batch axes (``batch``, written ``"..."`` in a shape),
fixed values (``values``, e.g. ``causal``), a scale for every random input (large logits) and
offsets added to named inputs (rows of +800 and −800 logits, whatever the seed). Inputs are
read-only arrays: learner code cannot change them in place.
"""

from __future__ import annotations

import hashlib
import json
import keyword
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Final

import numpy as np

from .. import misconceptions
from .functions import HELPER_SOURCES, HELPERS
from .limits import DEFAULT_LIMITS, Limits
from .messages import JSON

SPEC_FORMAT: Final = 1
INPUT_KINDS: Final = ("normal", "uniform", "value", "dim")
INPUT_DTYPES: Final = ("float64", "float32", "int64", "bool")


def _name(value: object, what: str) -> str:
    if not isinstance(value, str) or not value.isidentifier() or keyword.iskeyword(value) or value.startswith("_"):
        raise ValueError(f"{what} must be a plain Python name, got {value!r}")
    return value


def _only(data: Mapping[str, Any], allowed: set[str], what: str) -> None:
    unknown = sorted(set(data) - allowed)
    if unknown:
        raise ValueError(f"unknown {what} fields {unknown}; known: {sorted(allowed)}")


@dataclass(frozen=True)
class InputSpec:
    """One name the code receives, and how to make its value for an input case."""

    name: str
    kind: str = "normal"  # normal | uniform | value | dim
    shape: tuple[int | str, ...] = ()  # ints, dim names of the case, "..." for the case's batch axes
    dtype: str = "float64"
    mean: float = 0.0
    std: float = 1.0
    low: float = -1.0
    high: float = 1.0
    decimals: int | None = 1  # rounded so a worked example is readable by hand
    value: bool | int | float | None = None  # kind="value": the default (a case may override it)
    dim: str | None = None  # kind="dim": the case dimension this int is

    def to_dict(self) -> dict[str, JSON]:
        return {
            "name": self.name,
            "kind": self.kind,
            "shape": list(self.shape),
            "dtype": self.dtype,
            "mean": self.mean,
            "std": self.std,
            "low": self.low,
            "high": self.high,
            "decimals": self.decimals,
            "value": self.value,
            "dim": self.dim,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> InputSpec:
        _only(data, set(cls.__dataclass_fields__), "input")
        spec = cls(**{**data, "shape": tuple(data.get("shape", ()))})
        _name(spec.name, "an input name")
        if spec.kind not in INPUT_KINDS:
            raise ValueError(f"input {spec.name}: kind must be one of {INPUT_KINDS}, got {spec.kind!r}")
        if spec.dtype not in INPUT_DTYPES:
            raise ValueError(f"input {spec.name}: dtype must be one of {INPUT_DTYPES}, got {spec.dtype!r}")
        for d in spec.shape:
            if not ((isinstance(d, int) and d >= 0) or isinstance(d, str)):
                raise ValueError(f"input {spec.name}: shape entries are ints >= 0, dim names or '...'")
        if spec.kind == "dim" and not spec.dim:
            raise ValueError(f"input {spec.name}: kind 'dim' needs the dim it stands for")
        return spec

    @property
    def is_array(self) -> bool:
        return self.kind in ("normal", "uniform")


@dataclass(frozen=True)
class CaseSpec:
    """One input the code runs on. ``adversarial`` cases are the ones plain code may fail (large
    logits, T = 1, d_k ≠ d_v, batched); a failed ``required=False`` case still lets the card pass."""

    name: str
    dims: Mapping[str, int] = field(default_factory=dict)
    batch: tuple[int, ...] = ()
    values: Mapping[str, bool | int | float | None] = field(default_factory=dict)
    offsets: Mapping[str, Any] = field(default_factory=dict)  # name -> nested list added (broadcast) to the draw
    scale: float = 1.0
    adversarial: bool = False
    required: bool = True
    note: str = ""  # English, for the admin and the worked example

    def to_dict(self) -> dict[str, JSON]:
        return {
            "name": self.name,
            "dims": dict(self.dims),
            "batch": list(self.batch),
            "values": dict(self.values),
            "offsets": dict(self.offsets),
            "scale": self.scale,
            "adversarial": self.adversarial,
            "required": self.required,
            "note": self.note,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> CaseSpec:
        _only(data, set(cls.__dataclass_fields__), "case")
        case = cls(
            **{
                **data,
                "batch": tuple(data.get("batch", ())),
                "dims": dict(data.get("dims", {})),
                "values": dict(data.get("values", {})),
                "offsets": dict(data.get("offsets", {})),
            }
        )
        if not case.name or not isinstance(case.name, str):
            raise ValueError("a case needs a name")
        if any(not isinstance(v, int) or v < 0 for v in case.dims.values()):
            raise ValueError(f"case {case.name}: dims must be ints >= 0")
        if any(not isinstance(v, int) or v < 1 for v in case.batch):
            raise ValueError(f"case {case.name}: batch dims must be ints >= 1")
        return case

    @property
    def batched(self) -> bool:
        return bool(self.batch)


COMPARE_MODES: Final = ("values", "truth", "logits")
MATCH_MODES: Final = ("values", "visible")


@dataclass(frozen=True)
class NameCheck:
    """A name compared with the reference, as what it is used for — what the code computes, not how
    an intermediate is spelled. ``broadcast``: equal after broadcasting also counts (a (T, T) mask
    written as (B, nh, T, T) does the same job). ``compare``:

    - ``"values"``: the values, within the spec's tolerance;
    - ``"truth"``: which elements are non-zero (a mask read by ``np.where``: bool, 0/1 and −∞/0 agree);
    - ``"logits"``: the softmax over the last axis that the values give (scores before a softmax:
      a fill of −1e9, −1e30 or ``finfo.min`` gives the same weights as −∞ and passes; −10 does not).
    """

    name: str
    broadcast: bool = False
    compare: str = "values"

    def __post_init__(self) -> None:
        if self.compare not in COMPARE_MODES:
            raise ValueError(f"name check {self.name}: compare must be one of {COMPARE_MODES}, got {self.compare!r}")

    def to_dict(self) -> dict[str, JSON]:
        return {"name": self.name, "broadcast": self.broadcast, "compare": self.compare}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any] | str) -> NameCheck:
        if isinstance(data, str):
            return cls(_name(data, "a checked name"))
        _only(data, {"name", "broadcast", "compare"}, "name check")
        return cls(
            _name(data["name"], "a checked name"),
            bool(data.get("broadcast", False)),
            str(data.get("compare", "values")),
        )


@dataclass(frozen=True)
class MisconceptionCase:
    """A named bug, written as the code a learner with that bug would submit.

    ``match``: when a learner's wrong value counts as this bug's. ``"values"``: it equals the bug's
    value (within tolerance; the same error, for a run that fails). ``"visible"``: it equals the
    bug's value wherever the reference's value is finite, and is finite exactly where the bug's is:
    a family of bugs that differ only in the number they put in the hidden places (a causal mask
    filled with −10, −5 or −1 instead of −∞ is one mistake, written once with −10).
    """

    id: str  # an id of attention_engine.misconceptions
    code: str
    note: str = ""
    match: str = "values"

    def to_dict(self) -> dict[str, JSON]:
        return {"id": self.id, "code": self.code, "note": self.note, "match": self.match}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> MisconceptionCase:
        _only(data, {"id", "code", "note", "match"}, "misconception")
        case = cls(str(data["id"]), str(data["code"]), str(data.get("note", "")), str(data.get("match", "values")))
        if case.id not in misconceptions.MISCONCEPTIONS:
            raise ValueError(f"unknown misconception id {case.id!r}")
        if case.match not in MATCH_MODES:
            raise ValueError(f"misconception {case.id}: match must be one of {MATCH_MODES}, got {case.match!r}")
        return case


@dataclass(frozen=True)
class QuestionSpec:
    """Everything about a code question except its wording. See the module docstring.

    ``required``: the names the learner's code must define, checked where it last assigns them.
    With a ``scaffold`` they are its slots: the scaffold holds a ``name = ...`` line for each, in
    this order, and the learner's lines run there (the seed's TODO lines). ``outputs``: names the
    scaffold itself defines from them, checked after the scaffold ends (``out = weights @ V``).
    """

    key: str
    version: int
    title: str
    inputs: tuple[InputSpec, ...]
    cases: tuple[CaseSpec, ...]
    required: tuple[NameCheck, ...]
    reference: str
    outputs: tuple[NameCheck, ...] = ()
    scaffold: str | None = None
    helpers: tuple[str, ...] = ()
    equivalents: tuple[str, ...] = ()
    misconceptions: tuple[MisconceptionCase, ...] = ()
    rtol: float = 1e-7
    atol: float = 1e-9
    limits: Limits = DEFAULT_LIMITS

    def __post_init__(self) -> None:
        _name(self.key, "a spec key")
        for h in self.helpers:
            if h not in HELPERS:
                raise ValueError(f"unknown helper {h!r}; known: {sorted(HELPERS)}")
        names = [i.name for i in self.inputs]
        if len(set(names)) != len(names):
            raise ValueError("input names must be unique")
        if not self.cases or not self.required:
            raise ValueError("a spec needs at least one case and one required name")
        dims_used = {d for i in self.inputs for d in i.shape if isinstance(d, str) and d != "..."}
        dims_used |= {i.dim for i in self.inputs if i.kind == "dim" and i.dim}
        for case in self.cases:
            missing = sorted(dims_used - set(case.dims))
            if missing:
                raise ValueError(f"case {case.name}: dims {missing} are not given")
        if len({c.name for c in self.cases}) != len(self.cases):
            raise ValueError("case names must be unique")

    # --- serialisation -----------------------------------------------------------------------
    def to_dict(self) -> dict[str, JSON]:
        return {
            "format": SPEC_FORMAT,
            "key": self.key,
            "version": self.version,
            "title": self.title,
            "inputs": [i.to_dict() for i in self.inputs],
            "cases": [c.to_dict() for c in self.cases],
            "required": [r.to_dict() for r in self.required],
            "outputs": [o.to_dict() for o in self.outputs],
            "scaffold": self.scaffold,
            "helpers": list(self.helpers),
            "reference": self.reference,
            "equivalents": list(self.equivalents),
            "misconceptions": [m.to_dict() for m in self.misconceptions],
            "rtol": self.rtol,
            "atol": self.atol,
            "limits": self.limits.to_dict(),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> QuestionSpec:
        if data.get("format") != SPEC_FORMAT:
            raise ValueError(f"spec format {data.get('format')!r} is not {SPEC_FORMAT}")
        _only(data, {"format", *cls.__dataclass_fields__}, "spec")
        return cls(
            key=str(data["key"]),
            version=int(data["version"]),
            title=str(data.get("title", "")),
            inputs=tuple(InputSpec.from_dict(i) for i in data["inputs"]),
            cases=tuple(CaseSpec.from_dict(c) for c in data["cases"]),
            required=tuple(NameCheck.from_dict(r) for r in data["required"]),
            reference=str(data["reference"]),
            outputs=tuple(NameCheck.from_dict(o) for o in data.get("outputs", ())),
            scaffold=data.get("scaffold"),
            helpers=tuple(data.get("helpers", ())),
            equivalents=tuple(str(e) for e in data.get("equivalents", ())),
            misconceptions=tuple(MisconceptionCase.from_dict(m) for m in data.get("misconceptions", ())),
            rtol=float(data.get("rtol", 1e-7)),
            atol=float(data.get("atol", 1e-9)),
            limits=Limits.from_dict(data["limits"]) if "limits" in data else DEFAULT_LIMITS,
        )

    @cached_property
    def digest(self) -> str:
        """A hash of the whole spec: the cache key of its compiled scaffold and reference outputs
        (computed once per spec object: the spec is frozen)."""
        text = json.dumps(self.to_dict(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    @property
    def required_names(self) -> tuple[str, ...]:
        return tuple(r.name for r in self.required)

    @property
    def checked(self) -> tuple[NameCheck, ...]:
        return self.required + self.outputs

    def display_code(self) -> str:
        """The code the learner is shown: the given helpers, then the scaffold with its TODO lines."""
        parts = [HELPER_SOURCES[h] for h in self.helpers]
        if self.scaffold:
            lines = []
            for line in self.scaffold.rstrip("\n").split("\n"):
                stripped = line.strip()
                for r in self.required_names:
                    if stripped.replace(" ", "") == f"{r}=...":
                        line = f"{line}    # TODO: {r}"
                lines.append(line)
            parts.append("\n".join(lines) + "\n")
        return "\n".join(parts)

    def describe(self) -> dict[str, JSON]:
        """What an app shows around the editor, besides its own prompt: the names the code receives
        (shapes in the case dimensions' names), the names it must define, the cases, the code shown."""
        return {
            "key": self.key,
            "version": self.version,
            "title": self.title,
            "inputs": [{"name": i.name, "kind": i.kind, "shape": list(i.shape), "dtype": i.dtype} for i in self.inputs],
            "required": list(self.required_names),
            "outputs": [o.name for o in self.outputs],
            "helpers": list(self.helpers),
            "cases": [
                {"name": c.name, "note": c.note, "adversarial": c.adversarial, "required": c.required}
                for c in self.cases
            ],
            "display_code": self.display_code(),
        }

    # --- inputs -------------------------------------------------------------------------------
    def make_inputs(self, case_index: int, seed: int) -> dict[str, object]:
        """The read-only inputs of one case for one seed (see the module docstring)."""
        case = self.cases[case_index]
        rng = np.random.default_rng([seed, case_index])
        out: dict[str, object] = {}
        for spec in self.inputs:
            if spec.kind == "value":
                out[spec.name] = case.values.get(spec.name, spec.value)
                continue
            if spec.kind == "dim":
                out[spec.name] = int(case.dims[str(spec.dim)])
                continue
            shape: list[int] = []
            for d in spec.shape:
                if d == "...":
                    shape.extend(case.batch)
                elif isinstance(d, str):
                    shape.append(int(case.dims[d]))
                else:
                    shape.append(d)
            if spec.kind == "normal":
                x = spec.mean + spec.std * case.scale * rng.standard_normal(shape)
            else:
                x = rng.uniform(spec.low * case.scale, spec.high * case.scale, shape)
            if spec.name in case.offsets:
                x = x + np.asarray(case.offsets[spec.name], dtype=np.float64)
            if spec.decimals is not None:
                x = np.round(x, spec.decimals)
            arr = np.ascontiguousarray(x, dtype=np.dtype(spec.dtype))
            arr.flags.writeable = False
            out[spec.name] = arr
        return out

    @property
    def array_inputs(self) -> frozenset[str]:
        return frozenset(i.name for i in self.inputs if i.is_array)
