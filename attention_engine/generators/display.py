"""How numbers look in prompts, options and answers: one place, so every template rounds alike.

The graded answer is computed from the numbers as displayed, and distractors are compared after
this rounding, so the learner never sees two options that print the same.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import lru_cache
from itertools import repeat
from typing import Any, SupportsIndex, TypeAlias

import numpy as np
import numpy.typing as npt

# A value as an option, an answer or a step shows it: a number, a list, or a list of rows.
Nested: TypeAlias = float | list[float] | list[list[float]]


def round_flat(values: Iterable[float], decimals: int | None = None, sig: int | None = None) -> list[float]:
    """Round to ``decimals`` places, or to ``sig`` significant digits (for values spanning decades).

    Python's correctly rounded round()/format(), so a rounded value always equals its printed label.
    """
    if sig is None:
        return [round(v, decimals) + 0.0 for v in values]  # + 0.0 turns -0.0 into 0.0
    spec = f".{sig}g"
    return [float(format(v, spec)) + 0.0 for v in values]


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
    return list(map(_fmt, values, repeat(spec)))


@lru_cache(maxsize=4096)
def _fmt(x: float, spec: str) -> str:
    """One number, memoised: prompts and options print the same few hundred numbers over and over
    (inputs in tenths, options rounded to hundredths), and float formatting is the costly part."""
    text = format(x, spec)
    return text[1:] if text[0] == "-" and not text.strip("-0.") else text  # "-0.00" -> "0.00"


def fmt(x: float, decimals: int | None = None, sig: int | None = None) -> str:
    return fmt_many((x,), decimals, sig)[0]


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
    a = np.asarray(m, dtype=float)
    cols = a.shape[-1]
    entries = fmt_many(a.ravel().tolist(), decimals)  # one call for the whole matrix
    body = r" \\ ".join(" & ".join(entries[r : r + cols]) for r in range(0, len(entries), cols))
    return r"\begin{bmatrix} " + body + r" \end{bmatrix}"


def latex_row(v: npt.NDArray[Any] | Sequence[float], decimals: int) -> str:
    r"""A row vector as [a,\ b,\ c]."""
    return "[" + r",\ ".join(fmt_many(v.tolist() if isinstance(v, np.ndarray) else v, decimals)) + "]"
