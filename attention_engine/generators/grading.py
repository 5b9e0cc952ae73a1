"""Grading a learner's numeric answer: shape first, then each element within the variant's tolerance.

Learner input never raises: anything unreadable, non-finite or of the wrong shape is a wrong answer
saying what was expected. Strings may use commas or spaces between values (also the full-width "，"),
";" or newlines between matrix rows, brackets, a unicode minus and a trailing "%".

Every result carries a ``code`` with JSON ``params`` besides the English ``message``, so an app can
store the code and word it in the learner's language when it displays the result (the engine has
no translations of its own):

=================  ==========================================================  ===========================
code               params                                                      message
=================  ==========================================================  ===========================
``correct``        {}                                                          correct
``incorrect``      {}  (a single number, wrong)                                incorrect
``partly_correct`` {"correct": 1, "total": 2, "unit": "values" | "rows"}       1 of 2 values correct
``wrong_shape``    {"expected": [3, 3], "got": [3, 2, 3]} (got: row lengths)   expected a 3×3 matrix, got …
``unreadable``     {"token": "zero", "expected": [2]}                          could not read 'zero' …
``empty``          {"expected": [2]}                                           the answer is empty; …
``not_finite``     {"token": "1e400", "expected": [2]}                         '1e400' is not a number …
=================  ==========================================================  ===========================
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from .base import Variant

_ROWS = re.compile(r"[;；\n]|\]\s*[,，]?\s*\[")  # "a, b; c, d" or "[[a, b], [c, d]]"
_ITEMS = re.compile(r"[,，、\s]+")
_BRACKETS = "[]()（）{}"


@dataclass(frozen=True)
class GradeResult:
    correct: bool
    score: float  # 0..1, partial credit per element (vector) or per row (matrix)
    elements: bool | list[bool] | list[list[bool]] | None  # per-element correctness, None when the shape was wrong
    message: str  # English, for the CLI and logs; apps word ``code`` themselves
    code: str = "correct"
    params: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "correct": self.correct,
            "score": self.score,
            "elements": self.elements,
            "message": self.message,
            "code": self.code,
            "params": self.params,
        }


TOKEN_CHARS = 40  # a token echoed back in a message is cut to this many characters


class _Unreadable(ValueError):
    """The response cannot be read as finite numbers: ``code`` and ``token`` say why."""

    def __init__(self, code: str, token: str = ""):
        # Echoed text is stored and rendered later: no control characters (NUL breaks jsonb), no lone surrogates.
        cut = token[:TOKEN_CHARS].encode("utf-8", "replace").decode("utf-8")
        self.code, self.token = code, "".join(c if c.isprintable() else "\ufffd" for c in cut)
        super().__init__(code)

    def message(self) -> str:
        if self.code == "empty":
            return "the answer is empty"
        if self.code == "not_finite":
            return f"{self.token!r} is not a number I can grade (too large, infinite or NaN)"
        return f"could not read {self.token!r} as a number"


def _finite(x: float, token: str) -> float:
    if not math.isfinite(x):
        raise _Unreadable("not_finite", token)
    return x


def _number(token: object) -> float:
    if isinstance(token, bool | np.bool_) or token is None:
        raise _Unreadable("unreadable", repr(token))
    if isinstance(token, int | np.integer):
        try:
            return float(token)
        except OverflowError:  # an int too large for a float, e.g. 10**400
            raise _Unreadable("not_finite", f"~1e{int(int(token).bit_length() * math.log10(2))}") from None
    if isinstance(token, float | np.floating):
        return _finite(float(token), repr(float(token)))
    if isinstance(token, str):
        text = token.strip().replace("−", "-").removesuffix("%")
        try:
            value = float(text)
        except ValueError:
            raise _Unreadable("unreadable", token.strip()) from None
        return _finite(value, token.strip())
    raise _Unreadable("unreadable", type(token).__name__)


def _rows(response: object) -> list[list[float]]:
    """The response as rows of numbers; a scalar or a flat list is a single row."""
    if isinstance(response, np.ndarray):
        response = response.tolist()
    if isinstance(response, str):
        texts = [row.strip(_BRACKETS + " \t") for row in _ROWS.split(response.strip())]
        rows = [[_number(t) for t in _ITEMS.split(row) if t] for row in texts if row.strip(_BRACKETS + " \t,，")]
        if not rows:
            raise _Unreadable("empty")
        return rows
    if isinstance(response, list | tuple):
        if not response:
            raise _Unreadable("empty")
        if all(isinstance(r, list | tuple | np.ndarray) for r in response):
            return [[_number(t) for t in row] for row in response]
        return [[_number(t) for t in response]]
    return [[_number(response)]]


def _plural(n: int) -> str:
    return f"{n} value" if n == 1 else f"{n} values"


def _describe_expected(shape: tuple[int, ...]) -> str:
    if shape == ():
        return "a single number"
    if len(shape) == 1:
        return _plural(shape[0])
    return f"a {shape[0]}×{shape[1]} matrix"


def _describe_got(rows: list[list[float]]) -> str:
    if len(rows) == 1:
        return _plural(len(rows[0]))
    lengths = {len(r) for r in rows}
    if len(lengths) == 1:
        return f"a {len(rows)}×{len(rows[0])} matrix"
    return "rows of lengths " + ", ".join(str(len(r)) for r in rows)


def _fit(rows: list[list[float]], shape: tuple[int, ...]) -> npt.NDArray[np.float64] | None:
    """The response as an array of the expected shape, or None when it has another shape."""
    if shape == () and len(rows) == 1 and len(rows[0]) == 1:
        return np.array(rows[0][0])
    if len(shape) == 1 and len(rows) == 1 and len(rows[0]) == shape[0]:
        return np.array(rows[0])
    if len(shape) == 2 and len(rows) == shape[0] and all(len(r) == shape[1] for r in rows):
        return np.array(rows)
    return None


def grade(variant: Variant | Mapping[str, Any], response: object) -> GradeResult:
    """Grade ``response`` against the variant's answer; see the module docstring for accepted forms."""
    if isinstance(variant, Mapping):
        variant = Variant.from_dict(variant)
    if not isinstance(variant, Variant):
        raise ValueError(f"grade() needs a Variant, got {type(variant).__name__}")
    shape = tuple(variant.answer_shape)
    expected = list(shape)
    try:
        rows = _rows(response)
    except _Unreadable as exc:
        params = {"expected": expected} if exc.code == "empty" else {"token": exc.token, "expected": expected}
        return GradeResult(False, 0.0, None, f"{exc.message()}; expected {_describe_expected(shape)}", exc.code, params)
    got = _fit(rows, shape)
    if got is None:
        return GradeResult(
            False,
            0.0,
            None,
            f"expected {_describe_expected(shape)}, got {_describe_got(rows)}",
            "wrong_shape",
            {"expected": expected, "got": [len(r) for r in rows]},
        )

    # + 1e-9: a response exactly at the tolerance (0.55 vs 0.54, atol 0.01) passes despite binary floats
    ok = np.isclose(got, np.asarray(variant.answer, dtype=float), rtol=variant.rtol, atol=variant.atol + 1e-9)
    if ok.ndim == 0:
        correct = bool(ok)
        return GradeResult(correct, float(correct), correct, *(("correct",) * 2 if correct else ("incorrect",) * 2))
    units = ok if ok.ndim == 1 else ok.all(axis=1)  # (n,) elements or (r,) whole rows
    n_ok, n = int(units.sum()), len(units)
    noun = "values" if ok.ndim == 1 else "rows"
    if n_ok == n:
        return GradeResult(True, 1.0, ok.tolist(), "correct", "correct")
    return GradeResult(
        False,
        n_ok / n,
        ok.tolist(),
        f"{n_ok} of {n} {noun} correct",
        "partly_correct",
        {"correct": n_ok, "total": n, "unit": noun},
    )
