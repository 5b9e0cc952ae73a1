"""Grading a learner's numeric answer: shape first, then each element within the variant's tolerance.

Learner input never raises: anything unreadable or of the wrong shape is a wrong answer with an
English message saying what was expected. Strings may use commas or spaces between values
(also the full-width "，"), ";" or newlines between matrix rows, brackets, a unicode minus and a
trailing "%".
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from .base import Variant

_ROWS = re.compile(r"[;；\n]|\]\s*[,，]?\s*\[")      # "a, b; c, d" or "[[a, b], [c, d]]"
_ITEMS = re.compile(r"[,，、\s]+")
_BRACKETS = "[]()（）{}"


@dataclass(frozen=True)
class GradeResult:
    correct: bool
    score: float                        # 0..1, partial credit per element (vector) or per row (matrix)
    elements: bool | list | None        # per-element correctness, None when the shape was wrong
    message: str

    def to_dict(self) -> dict:
        return {"correct": self.correct, "score": self.score, "elements": self.elements,
                "message": self.message}


class _Unreadable(ValueError):
    """The response cannot be read as numbers; the message is shown to the learner."""


def _number(token) -> float:
    if isinstance(token, bool | np.bool_) or token is None:
        raise _Unreadable(f"could not read {token!r} as a number")
    if isinstance(token, int | float | np.integer | np.floating):
        return float(token)
    if isinstance(token, str):
        text = token.strip().replace("−", "-").removesuffix("%")
        try:
            return float(text)
        except ValueError:
            raise _Unreadable(f"could not read {token.strip()!r} as a number") from None
    raise _Unreadable(f"could not read {type(token).__name__} as a number")


def _rows(response) -> list[list[float]]:
    """The response as rows of numbers; a scalar or a flat list is a single row."""
    if isinstance(response, np.ndarray):
        response = response.tolist()
    if isinstance(response, str):
        rows = [row.strip(_BRACKETS + " \t") for row in _ROWS.split(response.strip())]
        rows = [[_number(t) for t in _ITEMS.split(row) if t] for row in rows if row.strip(_BRACKETS + " \t,，")]
        if not rows:
            raise _Unreadable("the answer is empty")
        return rows
    if isinstance(response, list | tuple):
        if not response:
            raise _Unreadable("the answer is empty")
        if all(isinstance(r, list | tuple | np.ndarray) for r in response):
            return [[_number(t) for t in row] for row in response]
        return [[_number(t) for t in response]]
    return [[_number(response)]]


def _plural(n: int) -> str:
    return f"{n} value" if n == 1 else f"{n} values"


def _describe_expected(shape: tuple) -> str:
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


def _fit(rows: list[list[float]], shape: tuple) -> np.ndarray | None:
    """The response as an array of the expected shape, or None when it has another shape."""
    if shape == () and len(rows) == 1 and len(rows[0]) == 1:
        return np.array(rows[0][0])
    if len(shape) == 1 and len(rows) == 1 and len(rows[0]) == shape[0]:
        return np.array(rows[0])
    if len(shape) == 2 and len(rows) == shape[0] and all(len(r) == shape[1] for r in rows):
        return np.array(rows)
    return None


def grade(variant: Variant | Mapping, response) -> GradeResult:
    """Grade ``response`` against the variant's answer; see the module docstring for accepted forms."""
    if isinstance(variant, Mapping):
        variant = Variant.from_dict(variant)
    if not isinstance(variant, Variant):
        raise ValueError(f"grade() needs a Variant, got {type(variant).__name__}")
    shape = tuple(variant.answer_shape)
    try:
        rows = _rows(response)
    except _Unreadable as exc:
        return GradeResult(False, 0.0, None, f"{exc}; expected {_describe_expected(shape)}")
    got = _fit(rows, shape)
    if got is None:
        return GradeResult(False, 0.0, None, f"expected {_describe_expected(shape)}, got {_describe_got(rows)}")

    # + 1e-9: a response exactly at the tolerance (0.55 vs 0.54, atol 0.01) passes despite binary floats
    ok = np.isclose(got, np.asarray(variant.answer, dtype=float), rtol=variant.rtol, atol=variant.atol + 1e-9)
    if ok.ndim == 0:
        correct = bool(ok)
        return GradeResult(correct, float(correct), correct, "correct" if correct else "incorrect")
    units = ok if ok.ndim == 1 else ok.all(axis=1)          # (n,) elements or (r,) whole rows
    n_ok, n = int(units.sum()), len(units)
    noun = "values" if ok.ndim == 1 else "rows"
    correct = n_ok == n
    return GradeResult(correct, n_ok / n, ok.tolist(), "correct" if correct else f"{n_ok} of {n} {noun} correct")
