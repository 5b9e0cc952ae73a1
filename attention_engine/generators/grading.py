"""Grading a learner's numeric answer: shape first, then each element within the variant's tolerance.

Learner input never raises: anything unreadable, non-finite or of the wrong shape is a wrong answer
saying what was expected — except an *ambiguous* one (code ``ambiguous``), which an app should refuse
without locking, since the learner meant a number and only the notation is in doubt.

**One number** (a cell: a grid's input box, a JSON string, one item of a list) — :func:`parse_cell`, the
one grammar every caller uses (the web's answer grid, the API, the offline packs, the admin preview):

* read after Unicode NFKC, so full-width digits and signs are plain ones ("１２．５" = 12.5, "－１" = -1), and
  with the minus sign U+2212 ("−0.5") read as "-"; surrounding spaces are ignored;
* a point is the decimal mark: "0.25", ".5", "-1.5", "+2", scientific "1e-3", "2.5E+4";
* a space may group thousands, in groups of exactly three digits: "1 000", "12 345.5" (a thin or no-break
  space too);
* refused as **ambiguous** (code ``ambiguous``, params ``reason``): a comma between digits ("1,5" is 1.5 in
  much of the world and 15 or two values elsewhere; "1,000" is a thousand or one) — ``reason: "comma"``;
  and a "%" ("50%" is 0.5 as a weight or a probability but 50 when a question asks for a percentage) —
  ``reason: "percent"`` — except where the template asks for a percentage (``percent_answer``:
  kv_cache_savings' saving), where one trailing "%" is the unit: "67%" = 67;
* anything else ("zero", "1/2", "1_000", "0x1f") is unreadable; "inf", "nan" and "1e400" are not finite.

**Several numbers in one text** (the API's text form, "0.54, 0.46" or "1 0; 0 1"): values are separated by
commas (also "，" and "、") or spaces, matrix rows by ";" (also "；"), newlines or "], [", and the whole may be
in brackets; each value is then one cell as above. A separator that is also a list delimiter cannot be
part of a number there, so "1 000" reads as two values. When the answer is **a single number** the whole
text (brackets aside) is first read as one cell, as the web's one answer box is: "1 000" = 1000, "1,5"
ambiguous; a text that is not one number is then read as a list, so "0.5 0.5" is "expected a single number,
got 2 values" (the web's one box calls it not a number; both are wrong, neither is graded as a number).

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
``ambiguous``      {"token": "1,5", "reason": "comma" | "percent",             '1,5' is ambiguous …
                   "expected": []}
=================  ==========================================================  ===========================
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from .base import Variant

_ROWS = re.compile(r"[;；\n]|\]\s*[,，]?\s*\[")  # "a, b; c, d" or "[[a, b], [c, d]]"
_ITEMS = re.compile(r"[,，、\s]+")
_PLAIN = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")  # 0.25, .5, 1., -1.5e-3
_GROUPED = re.compile(r"[+-]?\d{1,3}(?: \d{3})+(?:\.\d+)?(?:[eE][+-]?\d+)?")  # 1 000, 12 345.5
_COMMA_IN_NUMBER = re.compile(r"\d,\d")  # "1,5", "1,000": a comma decimal or a thousands comma
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


class Unreadable(ValueError):
    """The response cannot be read as finite numbers: ``code`` (unreadable, not_finite, empty, ambiguous),
    ``token`` and, for ``ambiguous``, ``reason`` (comma, percent) say why."""

    def __init__(self, code: str, token: str = "", reason: str = ""):
        # Echoed text is stored and rendered later: no control characters (NUL breaks jsonb), no lone surrogates.
        cut = token[:TOKEN_CHARS].encode("utf-8", "replace").decode("utf-8")
        self.code, self.token = code, "".join(c if c.isprintable() else "\ufffd" for c in cut)
        self.reason = reason
        super().__init__(code)

    def message(self) -> str:
        if self.code == "empty":
            return "the answer is empty"
        if self.code == "not_finite":
            return f"{self.token!r} is not a number I can grade (too large, infinite or NaN)"
        if self.code == "ambiguous" and self.reason == "percent":
            return f"{self.token!r} is ambiguous: 0.5 for a weight or a probability, the number alone for a percentage"
        if self.code == "ambiguous":
            return f"{self.token!r} is ambiguous: use a point for decimals (1.5) and a space for thousands (1 000)"
        return f"could not read {self.token!r} as a number"

    def params(self, expected: list[int]) -> dict[str, Any]:
        if self.code == "empty":
            return {"expected": expected}
        if self.code == "ambiguous":
            return {"token": self.token, "reason": self.reason, "expected": expected}
        return {"token": self.token, "expected": expected}


def _finite(x: float, token: str) -> float:
    if not math.isfinite(x):
        raise Unreadable("not_finite", token)
    return x


def percent_answer(variant: Variant | Mapping[str, Any]) -> bool:
    """Whether the variant's template asks for a percentage, so that a trailing "%" is its unit."""
    from . import get  # the registry imports this module

    name, version = (
        (variant.template, variant.version)
        if isinstance(variant, Variant)
        else (variant.get("template"), variant.get("version"))
    )
    try:
        return bool(get(str(name), int(version) if version is not None else None).percent_answer)
    except (KeyError, ValueError, TypeError):
        return False


def _number(token: object, percent: bool = False) -> float:
    if isinstance(token, bool | np.bool_) or token is None:
        raise Unreadable("unreadable", repr(token))
    if isinstance(token, int | np.integer):
        try:
            return float(token)
        except OverflowError:  # an int too large for a float, e.g. 10**400
            raise Unreadable("not_finite", f"~1e{int(int(token).bit_length() * math.log10(2))}") from None
    if isinstance(token, float | np.floating):
        return _finite(float(token), repr(float(token)))
    if isinstance(token, str):
        return parse_cell(token, percent=percent)
    raise Unreadable("unreadable", type(token).__name__)


def _normal(text: str) -> str:
    return unicodedata.normalize("NFKC", text).replace("\u2212", "-").strip()


def parse_cell(text: str, *, percent: bool = False) -> float:
    """One number typed by a learner, by the grammar in the module docstring; raises :class:`Unreadable`.
    ``percent``: the question asks for a percentage, so one trailing "%" is its unit."""
    cleaned = _normal(text)
    if not cleaned:
        raise Unreadable("empty")
    if percent and cleaned.endswith("%") and cleaned.count("%") == 1:
        cleaned = cleaned[:-1].rstrip()
    if "%" in cleaned:
        raise Unreadable("ambiguous", text.strip(), reason="percent")
    if _COMMA_IN_NUMBER.search(cleaned):
        raise Unreadable("ambiguous", text.strip(), reason="comma")
    if _PLAIN.fullmatch(cleaned) or _GROUPED.fullmatch(cleaned):
        return _finite(float(cleaned.replace(" ", "")), text.strip())
    try:
        value = float(cleaned)
    except ValueError:
        value = 0.0
    if not math.isfinite(value):  # "inf", "nan", "-Infinity"
        raise Unreadable("not_finite", text.strip())
    raise Unreadable("unreadable", text.strip())


def _text_rows(response: str, *, single: bool, percent: bool) -> list[list[float]]:
    if single and not _ROWS.search(response):
        try:
            return [[parse_cell(response.strip(_BRACKETS + " \t"), percent=percent)]]
        except Unreadable as exc:
            if exc.code in ("ambiguous", "not_finite", "empty"):
                raise
        # not one number: read as a list, so "0.5 0.5" is two values where one was expected
    response = _normal(response)
    if percent:  # "67 %": the unit belongs to its number, not a value of its own
        response = re.sub(r"\s+%", "%", response)
    texts = [row.strip(_BRACKETS + " \t") for row in _ROWS.split(response)]
    rows = [[_number(t, percent) for t in _ITEMS.split(row) if t] for row in texts if row.strip(_BRACKETS + " \t,，")]
    if not rows:
        raise Unreadable("empty")
    return rows


def _rows(response: object, *, single: bool = False, percent: bool = False) -> list[list[float]]:
    """The response as rows of numbers; a scalar or a flat list is a single row. ``single``: the answer is one
    number, so a text is first read as one cell."""
    if isinstance(response, np.ndarray):
        response = response.tolist()
    if isinstance(response, str):
        return _text_rows(response, single=single, percent=percent)
    if isinstance(response, list | tuple):
        if not response:
            raise Unreadable("empty")
        if all(isinstance(r, list | tuple | np.ndarray) for r in response):
            return [[_number(t, percent) for t in row] for row in response]
        return [[_number(t, percent) for t in response]]
    return [[_number(response, percent)]]


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
        rows = _rows(response, single=shape == (), percent=percent_answer(variant))
    except Unreadable as exc:
        params = exc.params(expected)
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
