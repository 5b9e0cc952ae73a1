"""A numeric answer's grading message, worded in the learner's language when it is displayed.

When a typed numeric answer locks, ``item_answer`` stores the engine's ``GradeResult`` in the item's
result as ``message`` (English, as the engine words it), ``message_code`` and ``message_params``
(the codes and params documented in ``attention_engine.generators.grading``). The pages and the API
show :func:`grade_message` instead of ``message``: the same facts, worded here with gettext in the
active language (the request's), e.g. "2 of 3 rows correct" / "3 行中有 2 行正确".

A result stored before codes existed (no ``message_code``), an unknown code or params that do not
fit it show the stored ``message`` unchanged: what was stored is never lost, only reworded.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import ngettext


def _count(n: int) -> str:
    return ngettext("%(count)d value", "%(count)d values", n) % {"count": n}


def describe_shape(shape: Sequence[int]) -> str:
    """What an answer of ``shape`` is: "a single number", "3 values", "a 3×3 matrix"."""
    shape = [int(n) for n in shape]
    if not shape:
        return _("a single number")
    if len(shape) == 1:
        return _count(shape[0])
    if len(shape) == 2:
        return _("a %(rows)d×%(cols)d matrix") % {"rows": shape[0], "cols": shape[1]}
    raise ValueError(f"no wording for shape {shape}")


def describe_rows(lengths: Sequence[int]) -> str:
    """What the learner typed, from its row lengths: "3 values", "a 2×3 matrix", "rows of lengths 3, 2"."""
    lengths = [int(n) for n in lengths]
    if not lengths:
        raise ValueError("no rows")
    if len(lengths) == 1:
        return _count(lengths[0])
    if len(set(lengths)) == 1:
        return _("a %(rows)d×%(cols)d matrix") % {"rows": len(lengths), "cols": lengths[0]}
    return _("rows of lengths %(lengths)s") % {"lengths": ", ".join(str(n) for n in lengths)}


def _partly_correct(p: Mapping[str, Any]) -> str:
    values = {"correct": int(p["correct"]), "total": int(p["total"])}
    if p["unit"] == "rows":
        return _("%(correct)d of %(total)d rows correct") % values
    if p["unit"] == "values":
        return _("%(correct)d of %(total)d values correct") % values
    raise ValueError(f"unknown unit {p['unit']!r}")


def why_ambiguous(token: str, reason: str) -> str:
    """Why a typed number is refused without locking (the engine's ``ambiguous`` code: a comma or a "%")."""
    if reason == "percent":
        return _(
            "“%(token)s” is ambiguous: for a weight or a probability type 0.5, not 50%%; "
            "for a percentage type the number alone."
        ) % {"token": token}
    return _(
        "“%(token)s” is ambiguous: use a point for decimals (1.5) and a space for thousands (1 000), never a comma."
    ) % {"token": token}


def why_unreadable(code: str, token: str, reason: str = "") -> str:
    """Why one typed cell is not a number (the engine's ``Unreadable`` codes), for the answer grid's cell."""
    if code == "ambiguous":
        return why_ambiguous(token, reason)
    if code == "not_finite":
        return _("“%(text)s” is too large, infinite or not a number.") % {"text": token}
    return _("“%(text)s” is not a number.") % {"text": token}


_WORDING: dict[str, Callable[[Mapping[str, Any]], str]] = {
    "correct": lambda p: _("correct"),
    "incorrect": lambda p: _("incorrect"),
    "partly_correct": _partly_correct,
    "wrong_shape": lambda p: (
        _("expected %(expected)s, got %(got)s")
        % {"expected": describe_shape(p["expected"]), "got": describe_rows(p["got"])}
    ),
    "unreadable": lambda p: (
        _("could not read '%(token)s' as a number; expected %(expected)s")
        % {"token": str(p["token"]), "expected": describe_shape(p["expected"])}
    ),
    "empty": lambda p: _("the answer is empty; expected %(expected)s") % {"expected": describe_shape(p["expected"])},
    "ambiguous": lambda p: why_ambiguous(str(p["token"]), str(p["reason"])),
    "not_finite": lambda p: (
        _("'%(token)s' is not a number that can be graded (too large, infinite or NaN); expected %(expected)s")
        % {"token": str(p["token"]), "expected": describe_shape(p["expected"])}
    ),
}


def word_grade(code: str, params: Mapping[str, Any] | None) -> str | None:
    """A grading code + params in the active language; None when the code is unknown or the params do not fit."""
    wording = _WORDING.get(code)
    if wording is None:
        return None
    try:
        return wording(params or {})
    except (KeyError, TypeError, ValueError):
        return None


def grade_message(result: Mapping[str, Any] | None) -> str:
    """The message of a locked item's stored result, in the active language ("" when there is none)."""
    if not result:
        return ""
    if isinstance(result.get("check"), dict):  # a code answer: the checker's verdict (quizzes.practice.code_messages)
        from quizzes.practice.code_messages import word_verdict

        return word_verdict(result["check"])
    stored = result.get("message") or ""
    code = result.get("message_code")
    if not code:
        return stored
    worded = word_grade(code, result.get("message_params"))
    return stored if worded is None else worded
