"""Grading learner code: run it on K seeded inputs, compare with the reference, name the bug.

For each input case the learner's code runs (inside the question's scaffold, if it has one), and
each required name is compared with the reference's value at the same point — the end of the
learner's line group that last assigns it — shape first, then values within ``rtol``/``atol``.
A name that differs is then *replaced by the reference value* before the run goes on ("repair"),
so each line is judged on correct inputs: a wrong mask does not also make the softmax line look
wrong, and a learner with two bugs hears about both.

On a mismatch the learner's value is compared with each configured misconception's value for the
same name on the same inputs (misconception code runs the same way, with the same repair); the
first that agrees on every decisive input is named, at the line that defines the name. The
decisive inputs are the required ones where the learner's value is wrong, or, when only optional
inputs fail, those (a `.T` that breaks only the batched input). Two values agree when both are
arrays equal within tolerance (NaN equal to NaN: the naive softmax's NaNs are its signature), or
both runs failed with the same error code.

Verdict and suggested rating (FSRS: 1 Again, 2 Hard, 3 Good; the learner may change it):

- every input passes: ``correct``, 3;
- every *required* input passes, an optional one fails (built-in specs: the batched input):
  ``accepted`` — the card counts as answered correctly — 2 (``works_2d_only``);
- a required input fails but every plain (non-adversarial) one passes: ``incorrect``, 2;
- a plain input fails: ``incorrect``, 1;
- the code was refused before running (syntax, a disallowed construct, a missing name):
  ``rejected``, no rating, ``runnable`` False — the app locks nothing.

Reference and misconception outputs depend only on (spec, seed): they are computed once per
(spec digest, seed) and cached, so grading a submission runs only the learner's code.
"""

from __future__ import annotations

import itertools
import logging
import math
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

import numpy as np

from .. import misconceptions as _misconceptions
from . import functions as F
from . import ops
from .evaluator import Code, Names, Statement, compile_code, run_statements, slot_lines
from .limits import HARD_LIMITS
from .messages import JSON, Message, Refusal
from .ops import MISSING, Context
from .spec import CaseSpec, NameCheck, QuestionSpec

log = logging.getLogger(__name__)
Array = np.ndarray[Any, Any]

RESULT_FORMAT: Final = 1
AGAIN, HARD, GOOD = 1, 2, 3
EXAMPLE_DECIMALS: Final = 3
EXAMPLE_MAX: Final = 8  # rows and columns shown of a worked example


class SpecError(ValueError):
    """The spec itself is broken (its reference fails, a scaffold slot is missing …)."""


# ---------------------------------------------------------------------------------------------
# What a run produced for one name


@dataclass(frozen=True)
class Outcome:
    kind: str  # "value" | "error" | "undefined" | "absent"
    value: object = None
    error: Refusal | None = None


ABSENT: Final = Outcome("absent")  # the line group never ran on this input (mask when not causal)
UNDEFINED: Final = Outcome("undefined")


@dataclass(frozen=True)
class Status:
    code: str  # ok | wrong_shape | wrong_values | wrong_type | not_defined | an error's
    params: dict[str, JSON] = field(default_factory=dict)
    error: Refusal | None = None

    @property
    def ok(self) -> bool:
        return self.code == "ok"


OK: Final = Status("ok")


def _snapshot(v: object) -> object:
    return v.copy() if type(v) is np.ndarray else v


def _as_numeric(v: object) -> np.ndarray[Any, Any] | None:
    """A learner value as an array to compare, or None when it is no number or array at all."""
    if type(v) is np.ndarray:
        return v if v.dtype.kind in "biuf" else None
    if isinstance(v, bool | int | float | np.generic) and not isinstance(v, complex):
        arr = np.asarray(v)
        return arr if arr.dtype.kind in "biuf" else None
    if isinstance(v, tuple | list):
        try:
            arr = np.asarray(v)
        except (ValueError, TypeError, OverflowError):
            return None
        return arr if arr.dtype.kind in "biuf" else None
    return None


def _close(got: Array, exp: Array, rtol: float, atol: float) -> Array | bool:
    """True, or the boolean array of which elements agree (NaN agrees with NaN)."""
    if got.dtype == exp.dtype and np.array_equal(got, exp, equal_nan=got.dtype.kind == "f"):
        return True
    g = got.astype(np.float64, copy=False)
    e = exp.astype(np.float64, copy=False)
    ok = np.asarray(np.isclose(g, e, rtol=rtol, atol=atol, equal_nan=True))  # an array also for 0-d values (a count)
    return True if ok.all() else ok


def _as_weights(x: Array) -> Array:
    """The softmax over the last axis that logits ``x`` give (the grader's own, stable; a row that is −∞
    throughout, or holds NaN or +∞, gives NaN): how ``compare="logits"`` reads a value."""
    x = x.astype(np.float64, copy=False)
    if x.ndim == 0:
        x = x.reshape(1)
    if x.shape[-1] == 0:
        return x
    top = x.max(axis=-1, keepdims=True)
    e = np.exp(x - np.where(np.isfinite(top), top, 0.0))
    weights: Array = e / e.sum(axis=-1, keepdims=True)
    return weights


def _as_compared(x: Array, how: str) -> Array:
    if how == "truth":
        nonzero: Array = x != 0
        return nonzero
    if how == "logits":
        return _as_weights(x)
    return x


def compare(got: Outcome, exp: Outcome, check: NameCheck, rtol: float, atol: float) -> Status:
    """The learner's outcome for one name against the reference's: shape first, then values (read as
    ``check.compare`` says: values, truth or the softmax they give)."""
    name = check.name
    if exp.kind != "value":
        return OK  # the reference did not run this line on this input
    if got.kind == "error":
        assert got.error is not None
        return Status(got.error.code, {"name": name, **got.error.params}, got.error)
    if got.kind in ("undefined", "absent"):
        return Status("not_defined", {"name": name})
    g = _as_numeric(got.value)
    e = _as_numeric(exp.value)
    assert e is not None
    if g is None:
        from .ops import type_name

        return Status("wrong_type", {"name": name, "got": type_name(got.value)})
    if g.shape != e.shape:
        common = _broadcast_or_none(g.shape, e.shape) if check.broadcast else None
        if common is None:
            return Status("wrong_shape", {"name": name, "expected": list(e.shape), "got": list(g.shape)})
        g, e = np.broadcast_to(g, common), np.broadcast_to(e, common)
    with np.errstate(all="ignore"):  # inf - inf in a wrong answer is just "wrong"
        g, e = _as_compared(g, check.compare), _as_compared(e, check.compare)
        ok = _close(g, e, rtol, atol)
        if ok is True:
            return OK
        assert isinstance(ok, np.ndarray)
        bad = ~ok
        diff = np.abs(g.astype(np.float64) - e.astype(np.float64))[bad]
        finite = diff[np.isfinite(diff)]
    return Status(
        "wrong_values",
        {
            "name": name,
            "mismatched": int(bad.sum()),
            "total": int(ok.size),
            "max_abs_error": round(float(finite.max()), 6) if finite.size else None,
        },
    )


def _broadcast_or_none(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...] | None:
    try:
        return tuple(np.broadcast_shapes(a, b))
    except ValueError:
        return None


def agree(
    a: Outcome, b: Outcome, check: NameCheck, rtol: float, atol: float, match: str = "values", ref: Outcome = ABSENT
) -> bool:
    """Whether two runs did the same thing for a name: equal values, or the same error. With
    ``match="visible"`` (see ``MisconceptionCase``) values need agree only where ``ref``'s are finite,
    and be finite in the same places elsewhere."""
    if a.kind == "error" or b.kind == "error":
        return a.kind == b.kind and a.error is not None and b.error is not None and a.error.code == b.error.code
    if a.kind != "value" or b.kind != "value":
        return a.kind == b.kind
    if _as_numeric(b.value) is None:
        return False
    if match == "visible" and ref.kind == "value":
        return _agree_where_visible(a, b, ref, rtol, atol)
    return compare(a, b, check, rtol, atol).ok


def _agree_where_visible(a: Outcome, b: Outcome, ref: Outcome, rtol: float, atol: float) -> bool:
    g, m, e = _as_numeric(a.value), _as_numeric(b.value), _as_numeric(ref.value)
    if g is None or m is None or e is None or not g.shape == m.shape == e.shape:
        return False
    with np.errstate(all="ignore"):
        g, m = g.astype(np.float64, copy=False), m.astype(np.float64, copy=False)
        visible = np.isfinite(e)
        same = np.isclose(g[visible], m[visible], rtol=rtol, atol=atol, equal_nan=True).all()
        return bool(same and np.array_equal(np.isfinite(g[~visible]), np.isfinite(m[~visible])))


# ---------------------------------------------------------------------------------------------
# A submission: compiled code split into the groups whose ends are checked


@dataclass
class Submission:
    code: Code
    groups: list[list[Statement]]
    checkpoints: list[tuple[str, ...]]  # names checked at the end of each group
    defining: dict[str, tuple[int, int]]  # name -> (statement index, line) of its last assignment


@dataclass
class CaseRun:
    outcomes: dict[str, Outcome]
    statuses: dict[str, Status]
    work: int


@dataclass
class MisconceptionRun:
    id: str
    runs: list[CaseRun]
    covers: frozenset[str]  # names whose value this bug changes


class Compiled:
    """The seed-independent part of a spec: names, the compiled scaffold, reference and misconception code."""

    def __init__(self, spec: QuestionSpec) -> None:
        self.spec = spec
        self.base_env = F.base_names(spec.helpers)
        self.checks = {c.name: c for c in spec.checked}
        input_names = frozenset(i.name for i in spec.inputs)
        defined = frozenset(spec.required_names) | frozenset(o.name for o in spec.outputs)
        self.scaffold: Code | None = None
        if spec.scaffold is not None:
            slots = slot_lines(spec.scaffold, HARD_LIMITS)
            missing = [r for r in spec.required_names if r not in slots]
            if missing:
                raise SpecError(f"{spec.key}: the scaffold has no '{missing[0]} = ...' line")
            scaffold_names = Names(frozenset(self.base_env), input_names, spec.array_inputs, defined)
            try:
                self.scaffold = compile_code(
                    spec.scaffold, scaffold_names, HARD_LIMITS, where="scaffold", slots=spec.required_names
                )
            except Refusal as r:
                raise SpecError(f"{spec.key}: the scaffold is refused: {r.message().message}") from None
            defined |= {n for s in self.scaffold.statements for n in s.assigns}
        self.names = Names(frozenset(self.base_env), input_names, spec.array_inputs, defined)
        try:
            self.reference = self.submission(spec.reference)
        except Refusal as r:
            raise SpecError(f"{spec.key}: the reference is refused: {r.message().message}") from None
        self._misconceptions: dict[int, Submission] = {}

    # --- compiling a submission -----------------------------------------------------------
    def submission(self, source: str) -> Submission:
        """Compile ``source`` and split it into checked groups; raises a non-runnable Refusal."""
        spec = self.spec
        code = compile_code(source, self.names, spec.limits)
        last: dict[str, tuple[int, int]] = {}
        for s in code.statements:
            if s.placeholder in spec.required_names:
                raise Refusal("placeholder", {"name": s.placeholder}, runnable=False).locate(s.line, None, "code")
            for name in s.assigns:
                last[name] = (s.index, s.assign_lines.get(name, s.line))
        for name in spec.required_names:
            if name not in last:
                raise Refusal("missing_name", {"name": name}, runnable=False)
        if self.scaffold is not None:
            bounds = [last[n][0] for n in spec.required_names]
            if any(b2 <= b1 for b1, b2 in itertools.pairwise(bounds)):
                raise Refusal("slot_order", {"expected": list(spec.required_names)}, runnable=False)
            checkpoints: list[tuple[str, ...]] = [(n,) for n in spec.required_names]
        else:
            bounds = sorted({last[n][0] for n in spec.required_names})
            checkpoints = [tuple(n for n in spec.required_names if last[n][0] == b) for b in bounds]
        groups: list[list[Statement]] = []
        start = 0
        for b in bounds:
            groups.append(code.statements[start : b + 1])
            start = b + 1
        groups[-1].extend(code.statements[start:])  # anything after the last checked line runs last
        return Submission(code, groups, checkpoints, last)

    def misconception(self, j: int) -> Submission:
        found = self._misconceptions.get(j)
        if found is None:
            m = self.spec.misconceptions[j]
            try:
                found = self._misconceptions[j] = self.submission(m.code)
            except Refusal as r:
                raise SpecError(f"{self.spec.key}: misconception {m.id} is refused: {r.message().message}") from None
        return found


class Prepared:
    """A spec for one seed: its inputs and reference outcomes; misconception outcomes on demand."""

    def __init__(self, compiled: Compiled, seed: int) -> None:
        spec = compiled.spec
        self.compiled = compiled
        self.spec = spec
        self.seed = seed
        self.base_env = compiled.base_env
        self.checks = compiled.checks
        self.scaffold = compiled.scaffold
        self.names = compiled.names
        self.inputs = [spec.make_inputs(i, seed) for i in range(len(spec.cases))]
        self.reference = [self.execute(compiled.reference, i, None) for i in range(len(spec.cases))]
        for case, run in zip(spec.cases, self.reference, strict=True):
            for name, outcome in run.outcomes.items():
                unusable = outcome.kind == "value" and _as_numeric(outcome.value) is None
                if outcome.kind in ("error", "undefined") or unusable:
                    detail = outcome.error.message().message if outcome.error else outcome.kind
                    raise SpecError(f"{spec.key}: the reference fails for {name} on case {case.name}: {detail}")
        self._runs: dict[tuple[int, int], CaseRun] = {}

    def misconception_run(self, j: int, i: int) -> CaseRun:
        """Misconception j's run on case i, computed on first need: grading a wrong submission runs
        only the misconceptions and cases it has to compare with."""
        found = self._runs.get((j, i))
        if found is None:
            found = self._runs[(j, i)] = self.execute(self.compiled.misconception(j), i, self.reference[i])
        return found

    @property
    def misconceptions(self) -> list[MisconceptionRun]:
        """Every misconception's runs on every case, and which names it changes (for spec checks)."""
        found = []
        for j, m in enumerate(self.spec.misconceptions):
            runs = [self.misconception_run(j, i) for i in range(len(self.spec.cases))]
            covers = frozenset(n for run in runs for n, s in run.statuses.items() if not s.ok)
            found.append(MisconceptionRun(m.id, runs, covers))
        return found

    def submission(self, source: str) -> Submission:
        return self.compiled.submission(source)

    # --- running -------------------------------------------------------------------------------
    def execute(self, sub: Submission, case_index: int, repair: CaseRun | None) -> CaseRun:
        """Run a submission on one input; with ``repair`` (the reference's run) each name that
        differs is compared, recorded and replaced by the reference value before the run goes on."""
        spec = self.spec
        env = dict(self.base_env)
        env.update(self.inputs[case_index])
        outcomes: dict[str, Outcome] = {}
        statuses: dict[str, Status] = {}

        def checkpoint(names: tuple[str, ...], error: Refusal | None) -> None:
            for name in names:
                if error is not None:
                    outcome = Outcome("error", error=error.with_traceback(None))  # keep no frames alive
                else:
                    outcome = bounded(env.get(name, MISSING), sub.defining.get(name, (0, None))[1], "code")
                outcomes[name] = outcome
                if repair is not None:
                    expected = repair.outcomes.get(name, ABSENT)
                    status = compare(outcome, expected, self.checks[name], spec.rtol, spec.atol)
                    statuses[name] = status
                    if not status.ok and expected.kind == "value":
                        env[name] = _snapshot(expected.value)

        def run_group(k: int) -> None:
            try:
                run_statements(ctx, sub.groups[k], "code")
            except Refusal as e:
                checkpoint(sub.checkpoints[k], e)
                return
            checkpoint(sub.checkpoints[k], None)

        def bounded(v: object, line: int | None, where: str) -> Outcome:
            """The value as an outcome, unless it is too big to convert and compare (``ops.value_bound``)."""
            if v is MISSING:
                return UNDEFINED
            try:
                ops.value_bound(ctx, v)
            except Refusal as e:
                return Outcome("error", error=e.locate(line, None, where).with_traceback(None))
            return Outcome("value", _snapshot(v))

        ctx = Context(env, spec.limits, run_group)
        scaffold_error: Refusal | None = None
        with np.errstate(all="ignore"):
            if self.scaffold is None:
                for k in range(len(sub.groups)):
                    run_group(k)
            else:
                try:
                    run_statements(ctx, self.scaffold.statements, "scaffold")
                except Refusal as e:
                    scaffold_error = e.with_traceback(None)
        ctx.slot_runner = None  # no reference cycle left behind
        for check in spec.outputs:
            if scaffold_error is None:
                outcomes[check.name] = bounded(env.get(check.name, MISSING), None, "scaffold")
            else:
                outcomes[check.name] = Outcome("error", error=scaffold_error)
        for name in spec.required_names:
            if name not in outcomes:
                outcomes[name] = ABSENT if scaffold_error is None else Outcome("error", error=scaffold_error)
        if repair is not None:
            for name in self.checks:
                if name not in statuses:
                    statuses[name] = compare(
                        outcomes[name], repair.outcomes.get(name, ABSENT), self.checks[name], spec.rtol, spec.atol
                    )
        return CaseRun(outcomes, statuses, ctx.work)

    def name_order(self, sub: Submission) -> list[str]:
        """Checked names in the order the code defines them (the scaffold's outputs last)."""
        return [n for group in sub.checkpoints for n in group] + [o.name for o in self.spec.outputs]


_COMPILED: OrderedDict[str, Compiled] = OrderedDict()
_CACHE: OrderedDict[tuple[str, int], Prepared] = OrderedDict()
_CACHE_LOCK = threading.Lock()
CACHE_SIZE: Final = 128


def _cached(cache: OrderedDict[Any, Any], key: Any, make: Any) -> Any:
    with _CACHE_LOCK:
        found = cache.get(key)
        if found is not None:
            cache.move_to_end(key)
            return found
    made = make()  # outside the lock; two threads may both build it, harmlessly
    with _CACHE_LOCK:
        cache[key] = made
        while len(cache) > CACHE_SIZE:
            cache.popitem(last=False)
    return made


def prepare(spec: QuestionSpec, seed: int = 0) -> Prepared:
    """The spec prepared for ``seed``, from small LRU caches: compiled code per spec digest, inputs
    and reference outcomes per (digest, seed)."""
    digest = spec.digest
    compiled: Compiled = _cached(_COMPILED, digest, lambda: Compiled(spec))
    prepared: Prepared = _cached(_CACHE, (digest, seed), lambda: Prepared(compiled, seed))
    return prepared


# ---------------------------------------------------------------------------------------------
# The result


@dataclass(frozen=True)
class LineMark:
    """What the checker says about one statement of the learner's code."""

    line: int
    end_line: int
    names: tuple[str, ...]  # required names whose value this statement settles
    mark: str  # correct | incorrect | fails_optional | error | unchecked
    code: str | None = None  # for incorrect / error: the code of the first problem

    def to_dict(self) -> dict[str, JSON]:
        return {
            "line": self.line,
            "end_line": self.end_line,
            "names": list(self.names),
            "mark": self.mark,
            "code": self.code,
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> LineMark:
        return cls(int(d["line"]), int(d["end_line"]), tuple(d["names"]), str(d["mark"]), d.get("code"))


@dataclass(frozen=True)
class CheckResult:
    """The outcome of grading one submission; ``to_dict()`` is its JSON form (see the package docs)."""

    spec: str
    spec_version: int
    seed: int
    verdict: str  # correct | accepted | incorrect | rejected
    runnable: bool  # False: refused before running; the app locks nothing
    passed: bool  # counts as a correct answer (correct or accepted)
    suggested_rating: int | None  # 3 Good, 2 Hard, 1 Again; None when rejected
    code: str
    params: dict[str, JSON]
    misconception: str | None = None
    messages: tuple[Message, ...] = ()
    lines: tuple[LineMark, ...] = ()
    cases: tuple[dict[str, JSON], ...] = ()
    example: dict[str, JSON] | None = None
    work: int = 0  # the most element operations one run took

    @property
    def message(self) -> str:
        return Message(self.code, self.params).message if self.verdict != "rejected" else self.messages[0].message

    def to_dict(self) -> dict[str, JSON]:
        return {
            "format": RESULT_FORMAT,
            "spec": self.spec,
            "spec_version": self.spec_version,
            "seed": self.seed,
            "verdict": self.verdict,
            "runnable": self.runnable,
            "passed": self.passed,
            "suggested_rating": self.suggested_rating,
            "code": self.code,
            "params": self.params,
            "message": self.message,
            "misconception": self.misconception,
            "messages": [m.to_dict() for m in self.messages],
            "lines": [m.to_dict() for m in self.lines],
            "cases": [dict(c) for c in self.cases],
            "example": self.example,
            "work": self.work,
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> CheckResult:
        if d.get("format") != RESULT_FORMAT:
            raise ValueError(f"result format {d.get('format')!r} is not {RESULT_FORMAT}")
        return cls(
            spec=str(d["spec"]),
            spec_version=int(d["spec_version"]),
            seed=int(d["seed"]),
            verdict=str(d["verdict"]),
            runnable=bool(d["runnable"]),
            passed=bool(d["passed"]),
            suggested_rating=d["suggested_rating"],
            code=str(d["code"]),
            params=dict(d["params"]),
            misconception=d.get("misconception"),
            messages=tuple(Message.from_dict(m) for m in d.get("messages", ())),
            lines=tuple(LineMark.from_dict(m) for m in d.get("lines", ())),
            cases=tuple(d.get("cases", ())),
            example=d.get("example"),
            work=int(d.get("work", 0)),
        )


def rejected(spec: QuestionSpec, seed: int, refusal: Refusal) -> CheckResult:
    msg = refusal.message()
    return CheckResult(
        spec.key, spec.version, seed, "rejected", False, False, None, refusal.code, dict(refusal.params), None, (msg,)
    )


# ---------------------------------------------------------------------------------------------
# Display


def _display(v: object) -> JSON:
    """A value rounded for a worked example, as JSON (non-finite numbers as "nan", "inf", "-inf")."""
    if type(v) is np.ndarray:
        a: np.ndarray[Any, Any] = v
        while a.ndim > 2:
            a = a[0]
        if a.ndim == 2:
            a = a[:EXAMPLE_MAX, :EXAMPLE_MAX]
        elif a.ndim == 1:
            a = a[: EXAMPLE_MAX * EXAMPLE_MAX]
        return _plain(a.tolist())
    if isinstance(v, np.generic):
        return _plain(v.item())
    if isinstance(v, bool | int | float) or v is None:
        return _plain(v)
    if isinstance(v, tuple | list):
        return _plain([_display(x) for x in v][: EXAMPLE_MAX * EXAMPLE_MAX])
    return str(type(v).__name__)


def _plain(v: Any) -> JSON:
    if isinstance(v, list):
        return [_plain(x) for x in v]
    if isinstance(v, bool) or v is None or isinstance(v, str):
        return v
    if isinstance(v, int):
        return v
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        r = round(v, EXAMPLE_DECIMALS)
        return 0.0 if r == 0 else r
    return str(v)


def _shown_shape(v: object) -> list[int] | None:
    a = _as_numeric(v)
    return None if a is None else list(a.shape)


def _example(prepared: Prepared, run: CaseRun, case_index: int, name: str) -> dict[str, JSON]:
    case = prepared.spec.cases[case_index]
    got = run.outcomes.get(name, ABSENT)
    exp = prepared.reference[case_index].outcomes[name]
    inputs = {k: _display(v) for k, v in prepared.inputs[case_index].items()}
    shapes = {k: list(v.shape) for k, v in prepared.inputs[case_index].items() if type(v) is np.ndarray}
    return {
        "case": case.name,
        "note": case.note,
        "name": name,
        "inputs": inputs,
        "input_shapes": shapes,
        "got": _display(got.value) if got.kind == "value" else None,
        "got_shape": _shown_shape(got.value) if got.kind == "value" else None,
        "expected": _display(exp.value),
        "expected_shape": _shown_shape(exp.value),
        "error": got.error.message(name=name, case=case.name).to_dict() if got.error is not None else None,
        "truncated": any(d > EXAMPLE_MAX for d in (_shown_shape(exp.value) or [])[-2:])
        or len(_shown_shape(exp.value) or []) > 2,
    }


# ---------------------------------------------------------------------------------------------
# Diagnosis


def _case_dict(case: CaseSpec, passed: bool) -> dict[str, JSON]:
    return {
        "name": case.name,
        "adversarial": case.adversarial,
        "required": case.required,
        "batch": list(case.batch),
        "note": case.note,
        "passed": passed,
    }


def _named(prepared: Prepared, runs: Sequence[CaseRun], name: str, decisive: list[int]) -> str | None:
    """The first misconception that agrees with the learner for ``name`` on every decisive case.
    The learner differs from the reference there, so agreeing means the misconception does too."""
    spec = prepared.spec
    check = prepared.checks[name]
    for j, m in enumerate(spec.misconceptions):
        if all(
            agree(
                runs[i].outcomes[name],
                prepared.misconception_run(j, i).outcomes.get(name, ABSENT),
                check,
                spec.rtol,
                spec.atol,
                m.match,
                prepared.reference[i].outcomes.get(name, ABSENT),
            )
            for i in decisive
        ):
            return m.id
    return None


def _decisive(cases: Sequence[CaseSpec], bad: list[int]) -> list[int]:
    """The failed cases a verdict is judged on: the required ones, or all of them when only optional ones failed."""
    return [i for i in bad if cases[i].required] or bad


def _name_message(
    prepared: Prepared, sub: Submission, runs: Sequence[CaseRun], name: str, bad: list[int], named: str | None
) -> Message:
    """The message for one checked name that fails on the cases ``bad``: the misconception it matches, the
    error it raised or how its value differs, on the first decisive case."""
    cases = prepared.spec.cases
    first = _decisive(cases, bad)[0]
    status = runs[first].statuses[name]
    line = sub.defining[name][1] if name in sub.defining else None
    where = "code" if name in sub.defining else "scaffold"
    if named is not None:
        m = _misconceptions.get(named)
        params: dict[str, JSON] = {"id": m.id, "name": name, "line": line, "title": m.title_en}
        return Message("misconception", params, line, None, where, name, cases[first].name)
    if status.error is not None:
        return status.error.message(name=name, case=cases[first].name)
    return Message(status.code, status.params, line, None, where, name, cases[first].name)


@dataclass(frozen=True)
class _Failure:
    """What the headline of a failed check is chosen from: the main failing name on its first decisive case."""

    passed: bool  # every required case passed (only optional ones failed)
    plain_ok: bool  # every plain (non-adversarial) case passed
    all_batched: bool  # every failed case is a batched one
    misconception: str | None  # the misconception matching the main name
    error_code: str | None  # the error the main name raised on its first decisive case, if any
    error_params: Mapping[str, JSON]
    case: str  # that case's name
    failed: list[str]  # every failed case's name
    required_failed: list[str]  # the failed required cases' names


def _misconception_params(f: _Failure) -> dict[str, JSON]:
    m = _misconceptions.get(str(f.misconception))
    return {"id": m.id, "title": m.title_en}


#: The headline of a check that is not correct: the first row whose test holds gives the code and the
#: params (besides the main name and its line). The first two rows are the accepted verdicts.
_HEADLINES: Final[tuple[tuple[Callable[[_Failure], bool], str, Callable[[_Failure], dict[str, JSON]]], ...]] = (
    (lambda f: f.passed and f.all_batched, "works_2d_only", lambda f: {"cases": f.failed}),
    (lambda f: f.passed, "optional_cases_fail", lambda f: {"cases": f.failed}),
    (lambda f: f.misconception is not None, "misconception", _misconception_params),
    (lambda f: f.error_code == "limit_exceeded", "too_much_work", lambda f: {"case": f.case, **f.error_params}),
    (lambda f: f.plain_ok, "fails_adversarial", lambda f: {"cases": f.required_failed}),
    (lambda f: f.error_code is not None, "run_error", lambda f: {"case": f.case, "error": f.error_code}),
    (lambda f: True, "incorrect", lambda f: {"case": f.case}),
)


def _headline(failure: _Failure) -> tuple[str, dict[str, JSON]]:
    return next((code, params(failure)) for test, code, params in _HEADLINES if test(failure))


def _main_failure(
    cases: Sequence[CaseSpec],
    runs: Sequence[CaseRun],
    order: Sequence[str],
    failing: Mapping[str, list[int]],
    named: Mapping[str, str | None],
    *,
    passed: bool,
    plain_ok: bool,
) -> tuple[str, int, _Failure]:
    """The name the headline is about (the first failing a required case, else the first failing), its first
    decisive case, and the facts the headline is chosen from."""
    main = next((n for n in order if any(cases[i].required for i in failing[n])), None) or next(
        n for n in order if failing[n]
    )
    bad = failing[main]
    first = _decisive(cases, bad)[0]
    failed_cases = sorted({i for n in order for i in failing[n]})
    error = runs[first].statuses[main].error
    failure = _Failure(
        passed=passed,
        plain_ok=plain_ok,
        all_batched=all(cases[i].batched for i in failed_cases),
        misconception=named.get(main),
        error_code=error.code if error is not None else None,
        error_params=error.params if error is not None else {},
        case=cases[first].name,
        failed=[cases[i].name for i in failed_cases],
        required_failed=[cases[i].name for i in failed_cases if cases[i].required],
    )
    return main, first, failure


def diagnose(prepared: Prepared, sub: Submission, runs: Sequence[CaseRun]) -> CheckResult:
    spec = prepared.spec
    cases = spec.cases
    order = prepared.name_order(sub)
    failing = {n: [i for i, r in enumerate(runs) if not r.statuses[n].ok] for n in order}
    case_ok = [all(r.statuses[n].ok for n in order) for r in runs]
    passed = all(ok for ok, c in zip(case_ok, cases, strict=True) if c.required)
    plain_ok = all(ok for ok, c in zip(case_ok, cases, strict=True) if not c.adversarial)
    work = max(r.work for r in runs)
    case_dicts = tuple(_case_dict(c, ok) for c, ok in zip(cases, case_ok, strict=True))
    named = {n: _named(prepared, runs, n, _decisive(cases, failing[n])) for n in order if failing[n]}
    messages = tuple(_name_message(prepared, sub, runs, n, failing[n], named[n]) for n in named)
    lines = _line_marks(sub, runs, failing, cases, order)
    if all(case_ok):
        return CheckResult(
            spec.key,
            spec.version,
            prepared.seed,
            "correct",
            True,
            True,
            GOOD,
            "correct",
            {"cases": len(cases)},
            None,
            (),
            lines,
            case_dicts,
            None,
            work,
        )

    main, first, failure = _main_failure(cases, runs, order, failing, named, passed=passed, plain_ok=plain_ok)
    code, params = _headline(failure)
    verdict, rating = ("accepted", HARD) if passed else ("incorrect", HARD if plain_ok else AGAIN)
    return CheckResult(
        spec.key,
        spec.version,
        prepared.seed,
        verdict,
        True,
        passed,
        rating,
        code,
        {"name": main, "line": sub.defining[main][1] if main in sub.defining else None, **params},
        failure.misconception,
        messages,
        lines,
        case_dicts,
        _example(prepared, runs[first], first, main),
        work,
    )


def _line_marks(
    sub: Submission,
    runs: Sequence[CaseRun],
    failing: Mapping[str, list[int]],
    cases: Sequence[CaseSpec],
    order: Sequence[str],
) -> tuple[LineMark, ...]:
    settles: dict[int, list[str]] = {}
    for n in order:
        if n in sub.defining:
            settles.setdefault(sub.defining[n][0], []).append(n)
    errors: list[tuple[int, str, bool]] = []  # (line, code, on a required input) of errors in the code
    for r, case in zip(runs, cases, strict=True):
        for st in r.statuses.values():
            if st.error is not None and st.error.where == "code" and st.error.line is not None:
                errors.append((st.error.line, st.error.code, case.required))
    marks = []
    for s in sub.code.statements:
        names = tuple(settles.get(s.index, ()))
        own = [(c, req) for ln, c, req in errors if s.line <= ln <= s.end_line]
        bad = [(n, i) for n in names for i in failing[n]]
        bad_required = [(n, i) for n, i in bad if cases[i].required]
        if any(req for _, req in own):
            mark, code = "error", next(c for c, req in own if req)
        elif bad_required:
            n, i = bad_required[0]
            mark, code = "incorrect", runs[i].statuses[n].code
        elif own or bad:
            mark, code = "fails_optional", own[0][0] if own else runs[bad[0][1]].statuses[bad[0][0]].code
        else:
            mark, code = ("correct" if names else "unchecked"), None
        marks.append(LineMark(s.line, s.end_line, names, mark, code))
    return tuple(marks)


# ---------------------------------------------------------------------------------------------
# Entry points


def grade_code(spec: QuestionSpec, source: str, *, seed: int = 0) -> CheckResult:
    """Grade ``source`` for ``spec`` in this process (the fast path; see ``worker.Sandbox`` for the
    backstopped one). Never raises on learner input: anything wrong is in the result."""
    if not isinstance(source, str):
        return rejected(spec, seed, Refusal("syntax_error", {"detail": "the code must be text"}, runnable=False))
    prepared = prepare(spec, seed)
    try:
        sub = prepared.submission(source)
    except Refusal as r:
        return rejected(spec, seed, r)
    except Exception:  # pragma: no cover - a bug of ours, never the learner's problem to read
        log.exception("codecheck: compiling a submission failed")
        return rejected(spec, seed, Refusal("internal_error", runnable=False))
    try:
        runs = [prepared.execute(sub, i, prepared.reference[i]) for i in range(len(spec.cases))]
        return diagnose(prepared, sub, runs)
    except Exception:  # pragma: no cover
        log.exception("codecheck: running a submission failed")
        return rejected(spec, seed, Refusal("internal_error", runnable=False))


def check_syntax(spec: QuestionSpec, source: str) -> Message | None:
    """The static checks only (no run): None if the code would run, else why it would be refused."""
    try:
        prepare(spec, 0).submission(source)
    except Refusal as r:
        return r.message()
    return None


def validate_spec(spec: QuestionSpec, seeds: Sequence[int] = (0,)) -> list[str]:
    """Problems with a spec, for the admin: [] when its reference runs, every equivalent spelling
    passes and every misconception is refused by nothing, changes some name and is named."""
    problems: list[str] = []
    for seed in seeds:
        try:
            prepared = prepare(spec, seed)
        except SpecError as e:
            return [str(e)]
        for m, run in zip(spec.misconceptions, prepared.misconceptions, strict=True):
            if not run.covers:
                problems.append(f"seed {seed}: misconception {m.id} gives the reference's values on every case")
                continue
            result = grade_code(spec, m.code, seed=seed)
            if result.misconception != m.id and m.id not in {msg.params.get("id") for msg in result.messages}:
                problems.append(f"seed {seed}: misconception {m.id} is diagnosed as {result.misconception!r}")
        for i, source in enumerate(spec.equivalents):
            result = grade_code(spec, source, seed=seed)
            if result.verdict != "correct":
                problems.append(f"seed {seed}: equivalent spelling #{i} is {result.verdict}: {result.message}")
    return problems
