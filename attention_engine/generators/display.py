"""How numbers look in prompts, options and answers: one place, so every template rounds alike.

The graded answer is computed from the numbers as displayed, and distractors are compared after
this rounding, so the learner never sees two options that print the same.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from math import floor
from typing import Any, SupportsIndex, TypeAlias

import numpy as np
import numpy.typing as npt

# A value as an option, an answer or a step shows it: a number, a list, or a list of rows.
Nested: TypeAlias = float | list[float] | list[list[float]]


def round_flat(values: Iterable[float], decimals: int | None = None, sig: int | None = None) -> list[float]:
    """Round to ``decimals`` places, or to ``sig`` significant digits (for values spanning decades).

    Python's correctly rounded round()/format(), so a rounded value always equals its printed label.
    round(v, d) is the float nearest to the decimal k / 10^d, k the integer nearest to v·10^d; where
    v·10^d is clearly not a tie that k is floor(v·10^d + 0.5) and the float nearest to k / 10^d is
    k / 10^d (a correctly rounded division), the same number at a third of round()'s cost. Near a tie,
    past ±1e9 and for anything but a float, round() itself decides.
    """
    if sig is not None:
        spec = f".{sig}g"
        return [float(format(v, spec)) + 0.0 for v in values]
    values = values if type(values) is list else list(values)
    try:  # whole floats (counts, shapes) already show as they are: round(v, d) is v for every d >= 0
        if (decimals is None or decimals >= 0) and all(map(float.is_integer, values)):
            return [v + 0.0 for v in values]  # + 0.0 turns -0.0 into 0.0
    except TypeError:  # not all floats (ints): the loop below decides
        pass
    if decimals is None or not 0 <= decimals <= 6:
        return [round(v, decimals) + 0.0 for v in values]  # + 0.0 turns -0.0 into 0.0
    scale = 10.0**decimals  # exact
    out = []
    for v in values:  # a plain loop: this runs on every element of every candidate
        y = v * scale
        if type(y) is float and -1e9 < y < 1e9:  # finite python floats (and ints)
            k = floor(y + 0.5)
            if -0.4999 < y - k < 0.4999:  # v·10^d's rounding error is < 1e-6 here: k is the nearest integer
                out.append(k / scale + 0.0)  # + 0.0 turns -0.0 into 0.0
                continue
        out.append(round(v, decimals) + 0.0)
    return out


def nest(shape: tuple[int, ...], flat: list[float]) -> Nested:
    """A flat list back to a scalar, a list or a list of rows."""
    if shape == ():
        return flat[0]
    if len(shape) == 1:
        return flat
    cols = shape[1]
    return [flat[r * cols : (r + 1) * cols] for r in range(shape[0])]


def fmt_many(values: Iterable[float], decimals: int | None = None, sig: int | None = None) -> list[str]:
    """Numbers as shown: fixed decimals, or significant digits; never "-0.00"."""
    spec = f".{sig}g" if sig is not None else f".{decimals}f"
    known = _known(spec)
    out = []
    for x in values:
        text = known.get(x)
        if text is None:
            text = known[x] = _fmt(x, spec)
        out.append(text)
    return out


# spec -> {number: text}: prompts and options print the same few hundred numbers over and over (inputs
# in tenths, options rounded to hundredths), and float formatting is the costly part
_TEXTS: dict[str, dict[float, str]] = {}


def _known(spec: str) -> dict[float, str]:
    """The memo of ``spec``'s texts, started afresh once it holds 4,096 numbers."""
    known = _TEXTS.get(spec)
    if known is None or len(known) >= 4096:
        known = _TEXTS[spec] = {}
    return known


def _fmt(x: float, spec: str) -> str:
    """One number in ``spec``, "-0.00" shown as "0.00"."""
    text = format(x, spec)
    return text[1:] if text[0] == "-" and not text.strip("-0.") else text  # "-0.00" -> "0.00"


def fmt(x: float, decimals: int | None = None, sig: int | None = None) -> str:
    spec = f".{sig}g" if sig is not None else f".{decimals}f"
    known = _known(spec)
    text = known.get(x)
    if text is None:
        text = known[x] = _fmt(x, spec)
    return text


def fmt_value(value: Any, decimals: int | None = None, sig: int | None = None) -> str:
    """A scalar, vector or matrix in the form grade() reads back: "0.35", "[0.54, 0.46]", "[1, 0; 0.4, 0.6]"."""
    if isinstance(value, np.ndarray):
        value = value.tolist()
    if not isinstance(value, list):
        return fmt(value, decimals, sig)
    if not value or not isinstance(value[0], list):  # a vector, the common case: one row
        return "[" + ", ".join(fmt_many(value, decimals, sig)) + "]"
    cols = len(value[0])
    if any(len(row) != cols for row in value):
        return "[" + "; ".join(", ".join(fmt_many(row, decimals, sig)) for row in value) + "]"
    texts = fmt_many([x for row in value for x in row], decimals, sig)  # one call for the matrix
    return "[" + "; ".join(", ".join(texts[r : r + cols]) for r in range(0, len(texts), cols)) + "]"


def fmt_shape(shape: Iterable[SupportsIndex]) -> str:
    """(4, 16) for a shape given as any sequence of ints."""
    return "(" + ", ".join(map(str, map(int, shape))) + ")"


def latex_matrix(m: npt.ArrayLike, decimals: int) -> str:
    r"""\begin{bmatrix} a & b \\ c & d \end{bmatrix} with every entry shown to ``decimals`` places."""
    rows: Any = m
    cols = len(rows[0]) if type(rows) is list and rows and type(rows[0]) is list else 0
    if cols and all(type(row) is list and len(row) == cols for row in rows):  # equal rows of python numbers: no numpy
        entries = fmt_many([float(x) for row in rows for x in row], decimals)
    else:
        a = np.asarray(m, dtype=float)
        cols = a.shape[-1]
        entries = fmt_many(a.ravel().tolist(), decimals)  # one call for the whole matrix
    body = r" \\ ".join(" & ".join(entries[r : r + cols]) for r in range(0, len(entries), cols))
    return r"\begin{bmatrix} " + body + r" \end{bmatrix}"


def latex_row(v: npt.NDArray[Any] | Sequence[float], decimals: int) -> str:
    r"""A row vector as [a,\ b,\ c]."""
    return "[" + r",\ ".join(fmt_many(v.tolist() if isinstance(v, np.ndarray) else v, decimals)) + "]"
