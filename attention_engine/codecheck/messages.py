"""Every message the code checker gives: a machine ``code``, JSON ``params`` and an English text.

The app stores the code and params and words them in the learner's language (the engine has no
translations of its own, as in ``generators/grading.py``); the English text is for logs, the CLI
and tests. Learner input never reaches a learner as a Python exception or traceback: errors from
numpy are mapped to one of the codes below, and any text echoed back (a name, an attribute, a
numpy detail) is cut short and stripped of control characters.

Positions are 1-based ``line`` / ``col`` in the learner's own text (``where == "code"``) or in the
question's scaffold (``where == "scaffold"``: the given lines around the learner's).

================================  ======================================================  =========
code                              params                                                  runnable?
================================  ======================================================  =========
*refused before running (the submission locks nothing; fix and resubmit)*
``empty_code``                    {}                                                      no
``source_too_long``               {"chars": 5012, "limit": 4000}                          no
``too_many_lines``                {"lines": 90, "limit": 80}                              no
``syntax_error``                  {"detail": "invalid syntax"}                            no
``too_many_nodes``                {"nodes": 812, "limit": 400}                            no
``too_deeply_nested``             {"limit": 32}                                           no
``not_allowed``                   {"construct": "loop"}                                   no
``private_name``                  {"name": "__class__"}                                   no
``forbidden_name``                {"name": "eval"}                                        no
``unknown_name``                  {"name": "softmx", "suggestion": "softmax" | null}      no
``attribute_not_allowed``         {"owner": "np" | "math" | "array", "attribute": "lib"}  no
``keyword_not_allowed``           {"function": "np.exp", "keyword": "out",                no (also
                                  "allowed": []}                                          at run time)
``string_not_allowed``            {}                                                      no
``literal_not_allowed``           {"kind": "bytes" | "complex" | "large_int" | "long_string"}  no
``reserved_name``                 {"name": "np"}                                          no
``modifies_input``                {"name": "Q"}                                           no
``missing_name``                  {"name": "mask"}                                        no
``placeholder``                   {"name": "scores"}                                      no
``slot_order``                    {"expected": ["scores", "mask", "weights"]}             no
``timeout``                       {"seconds": 2.0}  (the worker backstop fired)           no
``worker_crashed``                {}                (the worker died: memory/CPU limit)   no
``internal_error``                {}                (a bug on our side)                     no
*errors while running (per input; the submission is graded and locks)*
``name_error``                    {"name": "mask"}                                        yes
``limit_exceeded``                {"limit": "array_elements" | "work" | "integer_bits"    yes
                                  | "sequence_items" | "ndim" | "axis_length"
                                  | "iterations" (list comprehensions)
                                  | "value_elements" | "value_depth" (a value left for
                                  the grader to compare: checked before it is converted),
                                  "requested": n, "allowed": n}
``shape_mismatch``                {"operation": "+", "shapes": [[4, 5], [4]]}             yes
``matmul_mismatch``               {"left": [4, 8], "right": [4, 8]}                       yes
``read_only``                     {}                                                      yes
``unpack_error``                  {"expected": 3, "got": 2}                               yes
``axis_error``                    {"axis": 2, "ndim": 2}                                  yes
``index_error``                   {"detail": "index 9 is out of bounds …"}                yes
``zero_division``                 {}                                                      yes
``overflow``                      {}                                                      yes
``type_error``                    {"operation": "+", "types": ["array", "str"]}           yes
``bad_argument``                  {"function": "np.triu", "detail": "…"}                  yes
``not_callable``                  {"type": "array"}                                       yes
``dtype_not_allowed``             {"dtype": "object"}                                     yes
``unsupported_value``             {"type": "complex"}                                     yes
``truth_value_ambiguous``         {}                                                      yes
``numpy_error``                   {"function": "np.concatenate", "detail": "…"}           yes
*comparison of one required name with the reference, on one input*
``ok``                            {"name": "scores"}                                      yes
``wrong_shape``                   {"name": "scores", "expected": [4, 4], "got": [4, 8]}   yes
``wrong_values``                  {"name": "weights", "mismatched": 6, "total": 16,       yes
                                  "max_abs_error": 0.41 | null}
``wrong_type``                    {"name": "mask", "got": "ellipsis"}                     yes
``not_defined``                   {"name": "mask"}                                        yes
*the verdict (``CheckResult.code``)*
``correct``                       {"cases": 5}                                            yes
``works_2d_only``                 {"name": "scores", "line": 1, "cases": ["batched"]}    yes
``optional_cases_fail``           {"name": …, "line": …, "cases": [...]}                  yes
``fails_adversarial``             {"name": …, "line": …, "cases": ["large_logits"]}      yes
``misconception``                 {"id": "mask_hides_diagonal", "name": "mask",           yes
                                  "line": 2, "title": "The mask also hid the diagonal"}
``incorrect``                     {"name": "weights", "line": 3, "case": "causal"}        yes
``run_error``                     {"name": …, "line": …, "case": …, "error": <code>}      yes
``too_much_work``                 {"name": "p", "line": 2, "case": "plain", "limit":      yes
                                  "value_elements", "requested": n, "allowed": n}
                                  (a run_error whose error is ``limit_exceeded``)
================================  ======================================================  =========
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

JSON = Any  # a value json.dumps accepts (dicts, lists, str, int, float, bool, None)

ECHO_CHARS = 60  # learner text echoed back in params is cut to this many characters


def clean(text: str, limit: int = ECHO_CHARS) -> str:
    """``text`` safe to store and show: at most ``limit`` characters, printable, valid UTF-8."""
    cut = text[:limit].encode("utf-8", "replace").decode("utf-8")
    out = "".join(c if c.isprintable() else "\ufffd" for c in cut)
    return out + ("…" if len(text) > limit else "")


def shape_text(shape: JSON) -> str:
    """(4, 8) for [4, 8], (4,) for [4], () for a scalar."""
    if isinstance(shape, list | tuple):
        dims = [str(d) for d in shape]
        return "(" + ", ".join(dims) + ("," if len(dims) == 1 else "") + ")"
    return str(shape)


_CONSTRUCTS = {
    "import": "import",
    "loop": "a loop",
    "comprehension": "a comprehension",
    "lambda": "lambda",
    "function definition": "def",
    "class": "class",
    "with": "with",
    "try": "try/except",
    "global": "global/nonlocal",
    "del": "del",
    "f-string": "an f-string",
    "walrus": ":=",
    "star": "*-unpacking",
    "dict": "a dict",
    "set": "a set",
    "yield": "yield/await",
    "return": "return",
    "raise": "raise",
    "assert": "assert",
    "match": "match",
    "annotation": "an annotation",
    "attribute assignment": "assigning to an attribute",
    "keyword unpacking": "**-unpacking",
}


P = dict[str, JSON]

_LITERALS = {
    "bytes": "bytes literals are not allowed",
    "complex": "complex numbers are not allowed",
    "large_int": "this integer literal is too large",
    "long_string": "this string is too long",
}
# limit_exceeded: what would be too big, and its unit
_LIMITS = {
    "array_elements": ("an array of", "elements"),
    "work": ("a total work of", "operations"),
    "integer_bits": ("an integer of", "bits"),
    "sequence_items": ("a list of", "items"),
    "ndim": ("an array with", "dimensions"),
    "axis_length": ("an axis of length", ""),
    "iterations": ("list comprehensions running", "iterations"),
    "value_elements": ("a value of", "numbers"),
    "value_depth": ("lists nested", "deep"),
}


def _where(p: P) -> str:
    """Where a verdict is about: "line 3 (weights)", or the scaffold's name when no line of theirs."""
    name = p.get("name")
    return f"line {p['line']} ({name})" if p.get("line") is not None else f"{name} (computed by the given code)"


def _needs(p: P) -> str:
    what, unit = _LIMITS.get(str(p["limit"]), (str(p["limit"]), ""))
    amount = f"{p['requested']:,} {unit}".rstrip()
    return f"this would need {what} {amount}; at most {p['allowed']:,} are allowed"


def _unknown_name(p: P) -> str:
    hint = f"; did you mean {p['suggestion']}?" if p.get("suggestion") else ""
    return f"{p['name']} is not defined{hint}"


def _attribute(p: P) -> str:
    if p["owner"] == "array":
        return f"arrays have no allowed attribute .{p['attribute']} here"
    return f"{p['owner']}.{p['attribute']} is not available here"


def _keyword(p: P) -> str:
    allowed = ", ".join(f"{k}=" for k in p.get("allowed") or []) or "none"
    return f"{p['function']}() does not accept {p['keyword']}= here (allowed: {allowed})"


# Each code's English: a format string over the params (and {where}: see _where), or a function of them.
_TEXT: dict[str, str | Callable[[P], str]] = {
    # refused before running
    "empty_code": "write your code first",
    "source_too_long": "the code is {chars} characters long; at most {limit} are accepted",
    "too_many_lines": "the code has {lines} lines; at most {limit} are accepted",
    "syntax_error": "this is not valid Python: {detail}",
    "too_many_nodes": "the code is too long ({nodes} syntax elements, at most {limit})",
    "too_deeply_nested": "the expression is nested too deeply (at most {limit} levels)",
    "not_allowed": lambda p: (
        f"{_CONSTRUCTS.get(str(p['construct']), str(p['construct']))} is not allowed here: "
        "write plain assignments with numpy expressions"
    ),
    "private_name": "names starting with an underscore, like {name}, are not allowed",
    "forbidden_name": "{name} is not available here: only the listed numpy functions can be called",
    "unknown_name": _unknown_name,
    "attribute_not_allowed": _attribute,
    "keyword_not_allowed": _keyword,
    "string_not_allowed": 'text (a string) is only allowed as a short argument, such as dtype="bool"',
    "literal_not_allowed": lambda p: _LITERALS.get(str(p["kind"]), "this literal is not allowed"),
    "reserved_name": "{name} is a given function or module and cannot be assigned",
    "modifies_input": "{name} is an input and read-only: assign the result to a new name instead of changing {name}",
    "missing_name": "your code must define {name}",
    "placeholder": "{name} is still the placeholder ...: replace it with your line",
    "slot_order": lambda p: "define " + ", ".join(p["expected"]) + " in this order, one line each",
    "timeout": "the code could not be checked within {seconds} s",
    "worker_crashed": "the code could not be checked: it went over the memory or time limit",
    "internal_error": "the code could not be checked because of an error on our side",
    # errors while running
    "name_error": "{name} is not defined when this line runs",
    "limit_exceeded": _needs,
    "shape_mismatch": lambda p: (
        f"shapes {' and '.join(shape_text(s) for s in p['shapes'])} cannot be broadcast together for {p['operation']}"
    ),
    "matmul_mismatch": lambda p: (
        f"cannot matrix-multiply {shape_text(p['left'])} by {shape_text(p['right'])}: the left's last axis "
        "must match the right's second-to-last, and batch axes must broadcast"
    ),
    "unpack_error": "expected {expected} values to unpack, got {got}",
    "read_only": "the inputs are read-only: this would change one of them in place",
    "axis_error": "axis {axis} does not exist in an array with {ndim} dimensions",
    "index_error": "bad index: {detail}",
    "zero_division": "division by zero",
    "overflow": "a number got too large",
    "type_error": lambda p: f"{p['operation']} does not work on " + " and ".join(str(t) for t in p["types"]),
    "bad_argument": "bad argument to {function}: {detail}",
    "not_callable": "a {type} cannot be called",
    "dtype_not_allowed": "dtype {dtype} is not allowed (use bool, int64, float32 or float64)",
    "unsupported_value": "a {type} value is not supported here",
    "truth_value_ambiguous": (
        "an array with several elements is neither true nor false: use a single value in if/and/or"
    ),
    "numpy_error": "{function} failed: {detail}",
    # one name against the reference
    "ok": "{name} is correct",
    "wrong_shape": lambda p: f"{p['name']} has shape {shape_text(p['got'])}; expected {shape_text(p['expected'])}",
    "wrong_values": "{name} has the right shape but {mismatched} of {total} values differ",
    "wrong_type": "{name} is a {got}; expected an array",
    "not_defined": "{name} is not defined after your lines run",
    # the verdict
    "correct": "correct on all {cases} inputs",
    "works_2d_only": (
        "correct for 2-D inputs, but {where} fails on the batched input: count axes from the end "
        "(shape[-1], .swapaxes(-2, -1), axis=-1) so the code works for any batch shape"
    ),
    "optional_cases_fail": lambda p: f"correct, except {_where(p)} on the optional input(s) " + ", ".join(p["cases"]),
    "fails_adversarial": lambda p: f"correct on the plain inputs, but {_where(p)} fails on " + ", ".join(p["cases"]),
    "misconception": "{where}: {title}",
    "incorrect": "{where} gives a wrong result on input {case}",
    "run_error": "{where} fails on input {case}",
    "too_much_work": lambda p: f"{_where(p)} does too much work on input {p['case']}: {_needs(p)}",
}


def _english(code: str, p: P) -> str:
    text = _TEXT.get(code)
    if text is None:
        return code
    if callable(text):
        return text(p)
    return text.format(**p, where=_where(p)) if "{where}" in text else text.format(**p)


def english(code: str, params: dict[str, JSON]) -> str:
    """The English text for a code; never raises, whatever the params."""
    try:
        return _english(code, params)
    except (KeyError, TypeError, ValueError):
        return code.replace("_", " ")


@dataclass(frozen=True)
class Message:
    """One thing to tell the learner: what (code, params), and where (line, col in their text)."""

    code: str
    params: dict[str, JSON] = field(default_factory=dict)
    line: int | None = None
    col: int | None = None
    where: str = "code"  # "code" (the learner's text) | "scaffold" (the given lines)
    name: str | None = None  # the required name this is about, if any
    case: str | None = None  # the input it happened on, if any

    @property
    def message(self) -> str:
        text = english(self.code, self.params)
        if self.line is not None and self.code not in ("misconception", "incorrect", "run_error"):
            place = "the given code, line" if self.where == "scaffold" else "line"
            text = f"{place} {self.line}" + (f", column {self.col}" if self.col is not None else "") + f": {text}"
        return text

    def to_dict(self) -> dict[str, JSON]:
        return {
            "code": self.code,
            "params": self.params,
            "message": self.message,
            "line": self.line,
            "col": self.col,
            "where": self.where,
            "name": self.name,
            "case": self.case,
        }

    @classmethod
    def from_dict(cls, data: dict[str, JSON]) -> Message:
        return cls(
            code=data["code"],
            params=dict(data.get("params") or {}),
            line=data.get("line"),
            col=data.get("col"),
            where=data.get("where", "code"),
            name=data.get("name"),
            case=data.get("case"),
        )


class Refusal(Exception):
    """Raised inside the checker for anything learner code may not do; becomes a ``Message``.

    ``runnable`` is False for static refusals (found before anything ran) and True for errors
    raised while running: the app locks only runnable submissions. The position is filled in by
    the innermost syntax node that knows it (``locate``).
    """

    def __init__(self, code: str, params: dict[str, JSON] | None = None, *, runnable: bool = True) -> None:
        super().__init__(code)
        self.code = code
        self.params: dict[str, JSON] = params or {}
        self.runnable = runnable
        self.line: int | None = None
        self.col: int | None = None
        self.where: str | None = None

    def locate(self, line: int | None, col: int | None, where: str) -> Refusal:
        """Set the position unless an inner node already did; returns self for ``raise``."""
        if self.line is None:
            self.line, self.col = line, col
        if self.where is None:
            self.where = where
        return self

    def message(self, *, name: str | None = None, case: str | None = None) -> Message:
        return Message(self.code, self.params, self.line, self.col, self.where or "code", name, case)
