"""The shape of every question template and of the variants it generates.

A variant is a pure function of (template name, version, params, seed): the only randomness is
``np.random.default_rng(seed)``, and ``np.random.default_rng([seed, attempt])`` for the redraws
of degenerate variants (non-finite answer, trivial rows, coinciding distractors), so a redraw is
as reproducible as the first draw.

A template supplies four small pieces; everything else (params, redraws, rounding, choices,
serialisation) lives here once:

- ``draw(rng, p)``: the concrete inputs, already at display precision (the numbers the prompt shows);
- ``solve(inputs)``: answer, distractors (misconception id, wrong value) and worked steps, computed
  from those displayed inputs only, so a learner working by hand gets the graded answer;
- ``prompt(inputs)``: the Chinese question text with LaTeX;
- ``sane(inputs, value)``: the checks a learner can make on an option WITHOUT computing it (shape,
  signs, rows summing to 1, zeros under the mask, ...);
- optionally ``answer_format(inputs)`` (how to type the answer), ``acceptable(inputs, solution)``
  (reject trivial variants) and ``label(value)``.

From version 2 on (``sane_choices = True``) a distractor is offered only if it passes ``sane``
whenever the answer does: otherwise a test-wise learner finds the answer by those checks instead
of by the computation (fixtures/lessons/README.md, "How to write a question").

From the versions of issue 25 on (``cue_rules = True``; version 3 of most templates, 2 of the
newer ones) the choices obey four more rules, each declared by the template and enforced here:

- **as displayed**: the answer itself must pass ``sane`` (else the variant is redrawn), and so must
  every option; ``positive(inputs)`` names the elements a learner knows to be > 0 (a softmax weight
  at a visible key: e^x > 0), and a value showing 0 there, answer or option, is out;
- **parts**: ``parts(inputs, value)`` splits an answer made of several quantities (a pair of counts,
  six shapes) into its parts; the options are then chosen so that every option shares equally many
  parts with the others, so that no vote on the parts (the option sharing the most parts with the
  others, or the fewest) singles out the answer. In practice the distractors of one variant change
  the same parts (the others then read the same in every option), or every part;
- **pool**: the distractors are drawn per seed from a larger pool of named mistakes, at least
  ``min_pool`` of them over the seeds (5 for a template offering 3 distractors);
- **classic**: ``classic`` names the mistake the template is about (GQA's n_head for n_kv_head); it is
  offered whenever it applies to the numbers (its value is not None), or the variant is redrawn;
- **rank** (``balanced_rank``, newer versions of the one-number templates): the seed draws how many
  options are smaller than the answer, so that "the middle value" does not find it (``ranked.py``).
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from itertools import combinations
from operator import eq
from typing import Any, ClassVar, NamedTuple, TypeAlias

import numpy as np
import numpy.typing as npt

from ..core import has_neginf
from .display import Nested, fmt_value, nest, round_flat
from .ranked import RANK_TRIES, RankedPick, RankGoal

# What the pieces of a template pass around. Params and inputs differ per template, so they stay dicts;
# an option's value (a number, a list or a list of rows, as shown) is ``Any`` in sane() and label().
Params: TypeAlias = dict[str, Any]  # resolved params: name -> value, None where drawn from the seed
Inputs: TypeAlias = dict[str, Any]  # one variant's inputs as draw() made them: arrays, ints, bools, strings
Flat: TypeAlias = tuple[tuple[int, ...], list[float]]  # a value as (shape, flat list of floats)
Option: TypeAlias = tuple[str | None, Flat, Nested]  # (misconception, None for the answer; as shown; nested)
Distractor: TypeAlias = tuple[str, Any]  # (misconception id, wrong value or a function computing it or None)

MAX_ATTEMPTS = 64
# Displayed options must differ from the answer (and from each other) by more than 1.5x the
# grading tolerance: a learner whose hand computation is within tolerance is then still closer
# to the correct option than to any distractor.
SEPARATION = 1.5


@dataclass(frozen=True)
class ParamSpec:
    """A template parameter. ``default=None`` means "drawn from the seed within the range/choices"."""

    name: str
    default: Any
    min: float | None = None
    max: float | None = None
    kind: str = "int"  # "int" | "float" | "bool" | "choice"
    choices: tuple[str, ...] = ()

    def describe(self) -> str:
        if self.kind == "choice":
            return "one of " + ", ".join(map(str, self.choices))
        if self.kind == "bool":
            return "true or false"
        noun = "an integer" if self.kind == "int" else "a number"
        return f"{noun} in [{self.min}, {self.max}]"

    def validate(self, value: object) -> Any:
        """The value coerced to the param's kind (CLI strings accepted); ValueError naming the range."""
        if value is None:
            return self.default
        coerced = _coerce(self.kind, value)
        if self.kind == "choice":
            ok = coerced in self.choices
        elif self.kind == "bool":
            ok = coerced is not None
        else:
            ok = coerced is not None and self.min <= coerced <= self.max
        if not ok:
            raise ValueError(f"param {self.name!r} must be {self.describe()}, got {value!r}")
        return coerced


def specs(*params: ParamSpec) -> dict[str, ParamSpec]:
    """A template's params keyed by name, in declaration order."""
    return {p.name: p for p in params}


def _coerce(kind: str, value: object) -> Any:
    """int/float/bool from numbers or their string forms; None when the value does not fit the kind."""
    if isinstance(value, str):
        text = value.strip().lower()
        if kind == "bool":
            return {"true": True, "1": True, "false": False, "0": False}.get(text)
        if kind == "choice":
            return value.strip()
        try:
            value = float(text)
        except ValueError:
            return None
    if kind == "choice":
        return value
    if isinstance(value, bool | np.bool_):
        return bool(value) if kind == "bool" else None
    if not isinstance(value, int | float | np.integer | np.floating) or not np.isfinite(value):
        return None
    if kind == "bool":
        return bool(value) if value in (0, 1) else None
    if kind == "int":
        return int(value) if float(value).is_integer() else None
    return float(value)


@dataclass(frozen=True)
class Choice:
    """One multiple-choice option: the value as displayed, and which misconception produces it."""

    value: Any
    misconception: str | None
    label_zh: str
    label_en: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "value": self.value,
            "misconception": self.misconception,
            "label_zh": self.label_zh,
            "label_en": self.label_en,
        }


@dataclass(frozen=True)
class Step:
    """One line of a worked solution. ``value`` is None for shape-only steps; -inf entries are None.

    ``misconception`` names the mistake a step shows on purpose (e.g. the overflow of a softmax that
    does not subtract the max), so the app can show its explanation there; absent from ``to_dict``
    when None, so the steps of older versions serialise exactly as they did.
    """

    name: str
    formula: str
    value: Any
    shape: tuple[int, ...]
    misconception: str | None = None

    def to_dict(self) -> dict[str, Any]:
        d = {"name": self.name, "formula": self.formula, "value": self.value, "shape": list(self.shape)}
        if self.misconception:
            d["misconception"] = self.misconception
        return d


def step(
    name: str,
    formula: str,
    value: npt.ArrayLike | list[Any] | None = None,
    shape: Sequence[int] | None = None,
    misconception: str | None = None,
) -> Step:
    """A Step from a numpy value: plain JSON-able lists, shape taken from the value unless given."""
    if shape is None and isinstance(value, np.ndarray):
        return Step(name, formula, plain(value), value.shape, misconception)  # shape: a tuple of python ints
    if shape is None:
        shape = () if value is None or type(value) is float or type(value) is int else np.shape(value)
    return Step(name, formula, plain(value), tuple(map(int, shape)), misconception)


def flat(value: object) -> list[Any]:
    """A number, a (nested) list or an array as one flat list of python numbers."""
    if isinstance(value, np.ndarray):
        return value.ravel().tolist()
    if isinstance(value, list | tuple):
        return [x for v in value for x in flat(v)]
    return [value]


def _numbers(xs: list[Any]) -> bool:
    """Python floats and ints only (not bools, numpy scalars or lists): one C-level pass over the types."""
    return set(map(type, xs)) <= _NUMBER_TYPES


_NUMBER_TYPES = frozenset((float, int))


def shuffled(rng: np.random.Generator, n: int) -> list[int]:
    """``rng.permutation(n).tolist()`` without the array: numpy shuffles a list with the same Fisher–Yates
    steps, so the same order from the same draws, at half the cost."""
    order = list(range(n))
    rng.shuffle(order)
    return order


def as_flat(value: Any) -> Flat:
    """(shape, flat list of python floats): what ``np.asarray(value, dtype=float)`` holds. Python numbers, a
    list of them or a list of equal rows of them (the speed versions' values) skip numpy: the same floats,
    a few µs less."""
    if type(value) is float or type(value) is int:
        return (), [float(value)]
    if type(value) is list and value:
        if _numbers(value):
            return (len(value),), list(map(float, value))
        if all(type(row) is list for row in value):
            cols = len(value[0])
            if cols and all(len(row) == cols and _numbers(row) for row in value):
                return (len(value), cols), [float(x) for row in value for x in row]
    a = value if isinstance(value, np.ndarray) and value.dtype == np.float64 else np.asarray(value, dtype=float)
    return a.shape, a.ravel().tolist()


def plain(x: object) -> Any:
    """numpy values -> python floats/ints/lists for JSON; -inf (a masked score) -> None."""
    if isinstance(x, np.ndarray):
        if x.dtype.kind == "f" and 1 <= x.ndim <= 2 and x.size <= 64:  # hand-sized: scan the list once
            out = x.tolist()
            if x.ndim == 1:
                return [None if v == -math.inf else v for v in out] if -math.inf in out else out
            if any(-math.inf in row for row in out):
                return [[None if v == -math.inf else v for v in row] for row in out]
            return out
        if x.dtype.kind == "f" and has_neginf(x):
            return np.where(np.isneginf(x), None, x).tolist()  # type: ignore[call-overload]  # stubs reject None (object array)
        return x.tolist()
    if isinstance(x, np.generic):
        return x.item()
    return x


@dataclass(frozen=True)
class Variant:
    """One concrete question. ``params`` are the resolved params (None = drawn from the seed), so
    ``generate(v.template, v.seed, **v.params)`` reproduces ``v``."""

    template: str
    version: int
    seed: int
    params: Params
    prompt: str
    given: dict[str, Any]
    answer: Nested
    answer_shape: tuple[int, ...]
    atol: float
    rtol: float
    choices: list[Choice] = field(default_factory=list)
    solution: list[Step] = field(default_factory=list)
    # How to type the answer ("写出 3 个数，保留两位小数"): shown only when the learner types it, never
    # beside choices. Empty for versions whose prompt still carries that sentence itself.
    answer_format: str = ""

    @property
    def correct_choice_index(self) -> int:
        return next(i for i, c in enumerate(self.choices) if c.misconception is None)

    def to_dict(self) -> dict[str, Any]:
        d = {
            "template": self.template,
            "version": self.version,
            "seed": self.seed,
            "params": dict(self.params),
            "prompt": self.prompt,
            "given": self.given,
            "answer": self.answer,
            "answer_shape": list(self.answer_shape),
            "atol": self.atol,
            "rtol": self.rtol,
            "choices": [c.to_dict() for c in self.choices],
            "solution": [s.to_dict() for s in self.solution],
        }
        if self.answer_format:  # absent, not "", for versions without it: their stored dicts stay as they were
            d["answer_format"] = self.answer_format
        return d

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Variant:
        return cls(
            template=d["template"],
            version=d["version"],
            seed=d["seed"],
            params=dict(d["params"]),
            prompt=d["prompt"],
            given=d["given"],
            answer=d["answer"],
            answer_shape=tuple(d["answer_shape"]),
            atol=d["atol"],
            rtol=d["rtol"],
            choices=[Choice(**c) for c in d["choices"]],
            solution=[
                Step(s["name"], s["formula"], s["value"], tuple(s["shape"]), s.get("misconception"))
                for s in d["solution"]
            ],
            answer_format=d.get("answer_format", ""),
        )


class Solution(NamedTuple):
    answer: Any  # float or ndarray, full precision from the displayed inputs
    # [(misconception id, wrong value)]; the value may be a function computing it, called only when
    # the option is needed, and None when the mistake does not apply to these numbers
    distractors: list[Distractor]
    steps: list[Step]


class Template(ABC):
    """Base class of question templates; see the module docstring for what a subclass provides."""

    name: ClassVar[str]
    version: ClassVar[int]
    title_zh: ClassVar[str]
    title_en: ClassVar[str]
    source: ClassVar[str]  # the seed document: "000", "001" or "004"
    params: ClassVar[dict[str, ParamSpec]] = {}
    decimals: ClassVar[int | None] = 2  # display rounding of the answer and options ...
    sig: ClassVar[int | None] = None  # ... or significant digits instead
    atol: ClassVar[float] = 0.0
    rtol: ClassVar[float] = 0.0
    hidden: ClassVar[tuple[str, ...]] = ()  # inputs used by solve() but not shown (Monte Carlo samples)
    min_distractors: ClassVar[int] = 2
    max_distractors: ClassVar[int] = 3
    # Offer only distractors that pass sane() whenever the answer does (version 2 on; see the module doc).
    sane_choices: ClassVar[bool] = False
    # The rules of issue 25 (see the module doc): the answer passes its own checks, zeros where a learner
    # knows a value is positive, options balanced on their parts, a pool of mistakes, the classic offered.
    cue_rules: ClassVar[bool] = False
    # The answer (or one of its parts) is asked in percent ("节省百分之多少"): there a learner's "67%" is 67.
    percent_answer: ClassVar[bool] = False
    classic: ClassVar[str | None] = None  # the misconception always offered when it applies (cue_rules)
    # A one-number answer's rank among the options is drawn by the seed (ranked.py), so that "the middle
    # value" is not the answer's tell (cue_rules; the versions of issue 29's review on).
    balanced_rank: ClassVar[bool] = False
    # How to type the answer: version 1 of a template says it at the end of its prompt (TYPING, where the prompt
    # appends it), later versions apart (ANSWER_FORMAT, what ``answer_format`` returns unless it needs the inputs).
    TYPING: ClassVar[str] = ""
    ANSWER_FORMAT: ClassVar[str] = ""

    # --- what a template provides ------------------------------------------------------------
    @abstractmethod
    def draw(self, rng: np.random.Generator, p: Params) -> Inputs:
        """The inputs of one variant, drawn only from ``rng``."""

    @abstractmethod
    def solve(self, inputs: Inputs) -> Solution:
        """The answer, the candidate distractors and the worked solution, from the displayed inputs."""

    @abstractmethod
    def prompt(self, inputs: Inputs) -> str:
        """The question in Chinese, with LaTeX."""

    def answer_format(self, inputs: Inputs) -> str:
        """How to type the answer, in Chinese (shown only for typed answers); "" when the prompt says it."""
        return self.ANSWER_FORMAT

    def sane(self, inputs: Inputs, value: Any) -> bool:
        """Whether ``value`` survives the checks a learner can make without computing the answer.

        ``value`` is an option as shown (a number, a list or a list of rows) and ``inputs`` are the
        variant's inputs (arrays or, from ``Variant.given``, plain lists). Every template says what
        its checks are; this default only asks for finite numbers.
        """
        return all(map(math.isfinite, flat(value)))

    def sane_check(self, inputs: Inputs) -> Callable[[Any], bool]:
        """``sane`` with the inputs bound, made once per variant and applied to every candidate. A
        template whose checks need work on the inputs (a column range, a mask) overrides this to do
        that work once, and its ``sane`` calls it."""
        return partial(self.sane, inputs)

    def positive(self, inputs: Inputs) -> list[bool] | None:
        """Which elements of the answer (flattened) a learner knows to be > 0 without computing them: a
        softmax weight at a visible key. With ``cue_rules`` no option (and no answer) may show 0 there."""
        return None

    def parts(self, inputs: Inputs, value: Any) -> tuple[Any, ...] | None:
        """An option as shown, split into the quantities the question asks for (hashable, compared for
        equality); None for an answer that is one quantity (a number, a row of weights, a shape)."""
        return None

    @property
    def min_pool(self) -> int:
        """How many named mistakes the distractors are drawn from, counted over the seeds: 5 for a
        template offering 3 distractors (each then appears in about 3 variants in 5), 3 for 2."""
        return 2 * self.max_distractors - 1

    def candidate_order(self, p: Params, n: int, rng: np.random.Generator) -> list[int]:
        """The order in which the ``n`` candidate distractors are tried: shuffled by the seed, so which
        misconceptions appear varies between variants; in the listed order when a param ``example``
        fixes the numbers, so that every seed offers the same options (only their order differs)."""
        if p.get("example") is not None:
            return list(range(n))
        return shuffled(rng, n)

    def acceptable(self, inputs: Inputs, solution: Solution) -> bool:
        return True

    def label(self, value: Any) -> tuple[str, str]:
        text = fmt_value(value, self.decimals, self.sig)
        return text, text

    def labels(self, inputs: Inputs, value: Any) -> tuple[str, str]:
        """(zh, en) option labels; override when a label depends on the inputs (a unit chosen per variant)."""
        return self.label(value)

    def check_params(self, p: Params) -> None:  # noqa: B027 (optional hook: most templates have no cross-param rule)
        """Constraints between params (e.g. C divisible by n_head); ValueError naming them."""

    # --- shared machinery --------------------------------------------------------------------
    def resolve_params(self, params: Params) -> Params:
        unknown = sorted(set(params) - set(self.params))
        if unknown:
            raise ValueError(
                f"unknown param {unknown[0]!r} for template {self.name!r}; "
                f"known params: {', '.join(self.params) or 'none'}"
            )
        try:
            p = {name: spec.validate(params.get(name)) for name, spec in self.params.items()}
            self.check_params(p)
        except ValueError as exc:
            raise ValueError(f"template {self.name!r}: {exc}") from None
        return p

    def pick(self, rng: np.random.Generator, p: Params, name: str, options: Sequence[Any] | None = None) -> Any:
        """The author's value for ``name`` if fixed, else one drawn from ``options`` (default: its range)."""
        if p[name] is not None:
            return p[name]
        if options is None:
            spec = self.params[name]
            if spec.kind == "choice":
                options = spec.choices
            elif spec.kind == "bool":
                options = (False, True)
            else:
                assert spec.min is not None and spec.max is not None  # int and float params have a range
                options = range(int(spec.min), int(spec.max) + 1)
        return options[int(rng.integers(len(options)))]

    def generate(self, seed: int, **params: Any) -> Variant:
        if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
            raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
        seed = int(seed)
        p = self.resolve_params(params)
        # the rank a one-number answer is to take (ranked.py): the seed's residue, so that consecutive seeds
        # take every rank in turn and the redraws of one variant keep it
        target = seed % (self.max_distractors + 1) if self.balanced_rank else None
        for attempt in range(MAX_ATTEMPTS):
            rng = np.random.default_rng(seed if attempt == 0 else [seed, attempt])
            inputs = self.draw(rng, p)
            solution = self.solve(inputs)
            exact = as_flat(solution.answer)
            if not all(map(math.isfinite, exact[1])) or not self.acceptable(inputs, solution):
                continue
            goal = RankGoal(target, strict=attempt < RANK_TRIES) if target is not None else None
            if self.cue_rules:
                options = self._ruled_options(exact, solution.distractors, rng, inputs, p, goal)
            else:
                order = self.candidate_order(p, len(solution.distractors), rng)
                options = self._options(exact, solution.distractors, order, inputs)
            if options is None:
                continue
            return self._variant(seed, p, inputs, solution, exact, options, rng)
        raise ValueError(
            f"template {self.name!r}: no usable variant for seed {seed} and params {p} after "
            f"{MAX_ATTEMPTS} draws (answer not finite, trivial, or fewer than {self.min_distractors} "
            "distinct distractors)"
        )

    # Values below travel as (shape, flat list of floats): plain python on purpose, because they have
    # a handful of elements and numpy's per-call overhead would dominate the generation time.

    def _shown(self, value: npt.ArrayLike) -> Flat:
        """A value as displayed: (shape, flat values rounded like the option labels). A flat list of
        python numbers (most count and pair distractors) skips numpy: the same floats, a few µs less."""
        shape, values = as_flat(value)
        return shape, round_flat(values, self.decimals, self.sig)

    def _apart(self, x: Flat, others: list[Flat]) -> bool:
        """x differs from each of ``others`` by more than SEPARATION x the grading tolerance somewhere
        (or in shape). Plain loops: this runs for every pair of options, on a handful of numbers."""
        shape, mine = x
        atol, rtol = self.atol, self.rtol
        tol = SEPARATION * atol + 1e-12  # the whole tolerance when rtol = 0 (most templates)
        for other_shape, theirs in others:
            if other_shape != shape:
                continue
            for a, b in zip(mine, theirs, strict=True):
                limit = SEPARATION * (atol + rtol * max(abs(a), abs(b))) + 1e-12 if rtol else tol
                if abs(a - b) > limit:
                    break  # apart at this entry
            else:
                return False  # within the tolerance everywhere: too close
        return True

    def _options(
        self, exact: Flat, candidates: list[Distractor], order: list[int], inputs: Inputs
    ) -> list[Option] | None:
        """[(None, answer as shown, nested), (misconception, wrong value as shown, nested), ...]: up to max_distractors
        wrong values tried in ``order``, each apart from the answer and from the others and, with
        ``sane_choices``, passing ``sane`` when the answer does (the rule before ``cue_rules``)."""
        answer_shown = (exact[0], round_flat(exact[1], self.decimals, self.sig))
        options: list[Option] = [(None, answer_shown, nest(*answer_shown))]
        taken = [exact, answer_shown]
        check = self.sane_check(inputs) if self.sane_choices else None
        if check is not None and not check(options[0][2]):
            check = None  # the answer itself fails: nothing to match
        for i in order:
            option = self._candidate(candidates[i])
            if option is None or not self._apart(option[1], taken):
                continue
            if check is None or check(option[2]):
                taken.append(option[1])
                options.append(option)
                if len(options) > self.max_distractors:
                    break
        return options if len(options) > self.min_distractors else None

    def _ruled_options(
        self,
        exact: Flat,
        candidates: list[Distractor],
        rng: np.random.Generator,
        inputs: Inputs,
        p: Params,
        goal: RankGoal | None = None,
    ) -> list[Option] | None:
        """``_options`` under the rules of issue 25 (module doc); None asks for a redraw.

        Candidates are computed in candidate order (the classic first) and those that pass the checks
        go to a collector: for one-part answers the first max_distractors that are apart from each
        other; for answers in several parts the first balanced set (``_BalancedSearch``).
        """
        answer_shown = (exact[0], round_flat(exact[1], self.decimals, self.sig))
        answer: Option = (None, answer_shown, nest(*answer_shown))
        shows_right = self._display_check(inputs)
        if not shows_right(answer):
            return None  # the answer itself would fail a check by eye: redraw
        order = self.candidate_order(p, len(candidates), rng)
        classic = next((i for i, (m, v) in enumerate(candidates) if m == self.classic and v is not None), None)
        if classic is not None:
            order.remove(classic)
            order.insert(0, classic)
        split = partial(self.parts, inputs)
        collector: _FirstApart | _BalancedSearch | RankedPick
        ranked = None
        if split(answer[2]) is not None:
            collector = _BalancedSearch(self, answer, split, keep_first=classic is not None)
        elif goal is not None and len(answer_shown[1]) == 1 and p.get("example") is None:
            collector = ranked = RankedPick(self, exact[1][0], answer_shown[1][0], goal, rng, classic is not None)
        else:
            collector = _FirstApart(self)
        for seen, i in enumerate(order):
            if ranked is not None and ranked.hopeless(len(order) - seen):
                return None  # too few candidates left to meet the rank: redraw now rather than after them all
            misconception, value = _computed(candidates[i])
            if ranked is not None and i != classic and ranked.surplus(value):
                continue  # its side has all it can use: skip rounding and checking it
            option = self._candidate((misconception, value))
            ok = option is not None and self._apart(option[1], [exact, answer_shown]) and shows_right(option)
            if i == classic and not ok:
                return None  # the classic applies but cannot be shown: redraw
            found = collector.add(option) if option is not None and ok else None
            if found is not None:
                return [answer, *found]
        found = collector.finish()
        return [answer, *found] if found is not None else None

    def _display_check(self, inputs: Inputs) -> Callable[[Option], bool]:
        """Whether an option passes the checks by eye as displayed: ``sane``, and no 0 where ``positive``."""
        check = self.sane_check(inputs)
        positive = self.positive(inputs)
        # where a shown 0 is refused, worked out once per variant rather than zipped per candidate
        known = [j for j, pos in enumerate(positive) if pos] if positive is not None else []
        n = len(positive) if positive is not None else 0

        def shows_right(option: Option) -> bool:
            shown = option[1][1]
            if positive is not None:
                if len(shown) != n:
                    raise ValueError(f"an option of {len(shown)} elements for {n} positive flags")
                if any(shown[j] == 0 for j in known):
                    return False  # 0.00 where the learner knows the value is positive
            return check(option[2])

        return shows_right

    def _candidate(self, distractor: Distractor) -> Option | None:
        """A candidate as an option (its value computed if lazy), None when it does not apply or is not finite."""
        misconception, value = distractor
        if callable(value):
            value = value()
        if value is None:
            return None
        shown = self._shown(value)
        return (misconception, shown, nest(*shown)) if all(map(math.isfinite, shown[1])) else None

    def _variant(
        self,
        seed: int,
        p: Params,
        inputs: Inputs,
        solution: Solution,
        exact: Flat,
        options: list[Option],
        rng: np.random.Generator,
    ) -> Variant:
        choices = []
        for i in shuffled(rng, len(options)):
            misconception, _, value = options[i]
            label_zh, label_en = self.labels(inputs, value)
            choices.append(Choice(value, misconception, label_zh, label_en))
        return Variant(
            template=self.name,
            version=self.version,
            seed=seed,
            params=p,
            prompt=self.prompt(inputs),
            given={k: plain(v) for k, v in inputs.items() if k not in self.hidden},
            answer=nest(*exact),
            answer_shape=exact[0],
            atol=self.atol,
            rtol=self.rtol,
            choices=choices,
            solution=solution.steps,
            answer_format=self.answer_format(inputs),
        )


def _computed(distractor: Distractor) -> Distractor:
    """A candidate with its value computed if lazy."""
    misconception, value = distractor
    return (misconception, value()) if callable(value) else distractor


class _FirstApart:
    """The distractors of a one-part answer: the first max_distractors candidates apart from each other."""

    def __init__(self, template: Template) -> None:
        self.template = template
        self.options: list[Option] = []

    def add(self, option: Option) -> list[Option] | None:
        """Keeps ``option`` if it is apart from those kept; all of them once there are max_distractors."""
        if self.template._apart(option[1], [o[1] for o in self.options]):
            self.options.append(option)
        return self.options if len(self.options) == self.template.max_distractors else None

    def finish(self) -> list[Option] | None:
        return self.options if len(self.options) >= self.template.min_distractors else None


class _BalancedSearch:
    """The distractors of an answer in several parts (``Template.parts``), chosen so that every option
    shares equally many parts with the other options: then no vote on the parts singles out the
    answer. Candidates arrive one by one, in candidate order; ``add`` returns the first balanced set of
    ``size`` options that the newest one completes (so that no more candidates are computed than
    needed), and once every candidate is in, ``finish`` the first balanced set of a smaller size, down to
    min_distractors. With ``keep_first`` the first candidate (the classic) is in every set."""

    def __init__(
        self, template: Template, answer: Option, split: Callable[[Any], tuple[Any, ...] | None], keep_first: bool
    ) -> None:
        self.template, self.split, self.keep_first = template, split, keep_first
        self.size = template.max_distractors
        self.options: list[Option] = []
        self.parts: list[tuple[Any, ...]] = [self._parts(answer)]  # [0]: the answer's, [c + 1]: options[c]'s
        self.shared: list[list[int]] = [[len(self.parts[0])]]  # parts in common, per pair (the answer: index 0)
        self.apart: dict[tuple[int, int], bool] = {}  # per pair of options, worked out when a set needs it

    def _parts(self, option: Option) -> tuple[Any, ...]:
        parts = self.split(option[2])
        assert parts is not None  # the answer has parts, so every option of its shape does
        return parts

    def add(self, option: Option) -> list[Option] | None:
        mine = self._parts(option)
        common = [sum(map(eq, theirs, mine)) for theirs in self.parts]
        for row, n in zip(self.shared, common, strict=True):
            row.append(n)
        self.shared.append([*common, len(mine)])
        self.parts.append(mine)
        self.options.append(option)
        newest = len(self.options) - 1
        for rest in combinations(range(newest), self.size - 1):
            found = self._balanced((*rest, newest))
            if found is not None:
                return found
        return None

    def finish(self) -> list[Option] | None:
        for size in range(self.size - 1, self.template.min_distractors - 1, -1):
            for combo in combinations(range(len(self.options)), size):
                found = self._balanced(combo)
                if found is not None:
                    return found
        return None

    def _balanced(self, combo: tuple[int, ...]) -> list[Option] | None:
        if self.keep_first and combo[0] != 0:
            return None
        members = (0, *(c + 1 for c in combo))  # the answer and these options
        score = None  # the parts each member shares with the others: the same for all, or not balanced
        for a in members:
            row = self.shared[a]
            mine = sum([row[b] for b in members]) - row[a]
            if score is None:
                score = mine
            elif mine != score:
                return None
        for a, b in combinations(combo, 2):
            if (a, b) not in self.apart:
                self.apart[a, b] = self.template._apart(self.options[a][1], [self.options[b][1]])
            if not self.apart[a, b]:
                return None
        return [self.options[c] for c in combo]
