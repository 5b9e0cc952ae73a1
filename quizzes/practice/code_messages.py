"""A code check's messages worded in the learner's language when they are displayed.

The checker (attention_engine.codecheck) stores every message as a ``code`` with JSON ``params``
and an English ``message`` (its codes: ``attention_engine/codecheck/messages.py``). Pages and the
API show :func:`word_message` / :func:`word_verdict` instead: the same facts worded here with
gettext in the active language. A code without a wording here, or params that do not fit it, show
the stored English text: what was stored is never lost, only reworded. The misconception's title
comes from the engine's own Chinese and English titles (``misconceptions.describe``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from django.utils import translation
from django.utils.translation import gettext as _

from attention_engine import misconceptions


def _chinese() -> bool:
    return (translation.get_language() or "").lower().startswith("zh")


def misconception_title(mid: str | None) -> str:
    """A named misconception's title in the active language ("" for none)."""
    found = misconceptions.describe(mid)
    if not found:
        return ""
    return found.get("title_zh" if _chinese() else "title_en") or str(mid)


def _shape(shape: Any) -> str:
    dims = [str(d) for d in shape]
    return "(" + ", ".join(dims) + ("," if len(dims) == 1 else "") + ")"


def _where(p: Mapping[str, Any]) -> str:
    if p.get("line") is not None:
        return _("line %(line)s (%(name)s)") % {"line": p["line"], "name": p["name"]}
    return _("%(name)s (computed by the given code)") % {"name": p["name"]}


#: limit_exceeded: what would have been too big (issue 25 added iterations and the size of a value left to compare).
_LIMITS: dict[str, Callable[[Any], str]] = {
    "array_elements": lambda n: _("an array of %(n)s elements") % {"n": n},
    "work": lambda n: _("%(n)s operations in all") % {"n": n},
    "integer_bits": lambda n: _("an integer of %(n)s bits") % {"n": n},
    "sequence_items": lambda n: _("a list of %(n)s items") % {"n": n},
    "ndim": lambda n: _("an array with %(n)s dimensions") % {"n": n},
    "axis_length": lambda n: _("an axis of length %(n)s") % {"n": n},
    "iterations": lambda n: _("%(n)s iterations of list comprehensions") % {"n": n},
    "value_elements": lambda n: _("a value of %(n)s numbers") % {"n": n},
    "value_depth": lambda n: _("lists nested %(n)s deep") % {"n": n},
}


def _needs(p: Mapping[str, Any]) -> str:
    what = _LIMITS[str(p["limit"])](f"{p['requested']:,}")
    return _("this would need %(what)s; at most %(allowed)s are allowed") % {
        "what": what,
        "allowed": f"{p['allowed']:,}",
    }


_WORDING: dict[str, Callable[[Mapping[str, Any]], str]] = {
    # refused before running: nothing locks
    "empty_code": lambda p: _("write your code first"),
    "syntax_error": lambda p: _("this is not valid Python: %(detail)s") % {"detail": p["detail"]},
    "not_allowed": lambda p: (
        _("%(construct)s is not allowed here: write plain assignments with numpy expressions")
        % {"construct": p["construct"]}
    ),
    "unknown_name": lambda p: (
        _("%(name)s is not defined; did you mean %(suggestion)s?") % {"name": p["name"], "suggestion": p["suggestion"]}
        if p.get("suggestion")
        else _("%(name)s is not defined") % {"name": p["name"]}
    ),
    "forbidden_name": lambda p: (
        _("%(name)s is not available here: only the listed numpy functions can be called") % {"name": p["name"]}
    ),
    "private_name": lambda p: (
        _("names starting with an underscore, like %(name)s, are not allowed") % {"name": p["name"]}
    ),
    "attribute_not_allowed": lambda p: _("%(owner)s.%(attribute)s is not available here") % p,
    "keyword_not_allowed": lambda p: _("%(function)s() does not accept %(keyword)s= here") % p,
    "missing_name": lambda p: _("your code must define %(name)s") % {"name": p["name"]},
    "placeholder": lambda p: (
        _("%(name)s is still the placeholder ...: replace it with your line") % {"name": p["name"]}
    ),
    "slot_order": lambda p: _("define %(names)s in this order, one line each") % {"names": ", ".join(p["expected"])},
    "modifies_input": lambda p: (
        _("%(name)s is an input and read-only: assign the result to a new name instead") % {"name": p["name"]}
    ),
    "reserved_name": lambda p: _("%(name)s is a given function or module and cannot be assigned") % {"name": p["name"]},
    "source_too_long": lambda p: _("the code is %(chars)s characters long; at most %(limit)s are accepted") % p,
    "timeout": lambda p: _("the code could not be checked in time; try again"),
    "worker_crashed": lambda p: _("the code could not be checked: it went over the memory or time limit"),
    "internal_error": lambda p: _("the code could not be checked because of an error on our side"),
    # per name, on one input
    "wrong_shape": lambda p: (
        _("%(name)s has shape %(got)s; expected %(expected)s")
        % {"name": p["name"], "got": _shape(p["got"]), "expected": _shape(p["expected"])}
    ),
    "wrong_values": lambda p: (
        _("%(name)s has the right shape but %(mismatched)s of %(total)s values differ")
        % {"name": p["name"], "mismatched": p["mismatched"], "total": p["total"]}
    ),
    "not_defined": lambda p: _("%(name)s is not defined after your lines run") % {"name": p["name"]},
    "wrong_type": lambda p: _("%(name)s is a %(got)s; expected an array") % {"name": p["name"], "got": p["got"]},
    "shape_mismatch": lambda p: (
        _("shapes %(shapes)s cannot be broadcast together for %(operation)s")
        % {"shapes": _(" and ").join(_shape(s) for s in p["shapes"]), "operation": p["operation"]}
    ),
    "matmul_mismatch": lambda p: (
        _("cannot matrix-multiply %(left)s by %(right)s") % {"left": _shape(p["left"]), "right": _shape(p["right"])}
    ),
    "limit_exceeded": _needs,
    # the verdict
    "correct": lambda p: _("correct on all %(cases)s inputs") % {"cases": p["cases"]},
    "works_2d_only": lambda p: (
        _(
            "correct for 2-D inputs, but %(where)s fails on the batched input: count axes from the end "
            "(shape[-1], .swapaxes(-2, -1), axis=-1) so the code works for any batch shape"
        )
        % {"where": _where(p)}
    ),
    "optional_cases_fail": lambda p: (
        _("correct, except %(where)s on the optional input(s) %(cases)s")
        % {"where": _where(p), "cases": ", ".join(p["cases"])}
    ),
    "fails_adversarial": lambda p: (
        _("correct on the plain inputs, but %(where)s fails on %(cases)s")
        % {"where": _where(p), "cases": ", ".join(p["cases"])}
    ),
    "misconception": lambda p: f"{_where(p)}: {misconception_title(p['id'])}",
    "incorrect": lambda p: (
        _("%(where)s gives a wrong result on input %(case)s") % {"where": _where(p), "case": p["case"]}
    ),
    "run_error": lambda p: _("%(where)s fails on input %(case)s") % {"where": _where(p), "case": p["case"]},
    "too_much_work": lambda p: (
        _("%(where)s does too much work on input %(case)s: %(needs)s")
        % {"where": _where(p), "case": p["case"], "needs": _needs(p)}
    ),
}

#: Codes whose text already says where (the verdicts): no "line N" prefix.
_PLACED = {
    "misconception",
    "incorrect",
    "run_error",
    "too_much_work",
    "works_2d_only",
    "optional_cases_fail",
    "fails_adversarial",
}


def word(code: str, params: Mapping[str, Any] | None) -> str | None:
    """A checker code + params in the active language; None when there is no wording or the params do not fit."""
    wording = _WORDING.get(code)
    if wording is None:
        return None
    try:
        return wording(params or {})
    except (KeyError, TypeError, ValueError, IndexError):
        return None


def word_message(message: Mapping[str, Any]) -> str:
    """One stored message (``Message.to_dict()``) with its place: "line 2, column 5: …"."""
    text = word(str(message.get("code")), message.get("params"))
    if text is None:
        return str(message.get("message") or message.get("code") or "")
    line, col = message.get("line"), message.get("col")
    if line is None or message.get("code") in _PLACED:
        return text
    scaffold = message.get("where") == "scaffold"
    if col is not None:
        place = (
            _("the given code, line %(line)s, column %(col)s") if scaffold else _("line %(line)s, column %(col)s")
        ) % {"line": line, "col": col}
    else:
        place = (_("the given code, line %(line)s") if scaffold else _("line %(line)s")) % {"line": line}
    return f"{place}: {text}"


def word_verdict(check: Mapping[str, Any]) -> str:
    """The check's one-line verdict; a refused submission's first message with its line and column."""
    if check.get("verdict") == "rejected":
        first = (check.get("messages") or [{}])[0]
        return word_message(first)
    text = word(str(check.get("code")), check.get("params"))
    return text if text is not None else str(check.get("message") or "")
