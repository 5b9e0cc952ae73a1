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
                                  | "sequence_items" | "ndim" | "axis_length",
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
================================  ======================================================  =========
"""

from __future__ import annotations

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


def _english(code: str, p: dict[str, JSON]) -> str:
    name = p.get("name")
    where = f"line {p['line']} ({name})" if p.get("line") is not None else f"{name} (computed by the given code)"
    if code == "empty_code":
        return "write your code first"
    if code == "source_too_long":
        return f"the code is {p['chars']} characters long; at most {p['limit']} are accepted"
    if code == "too_many_lines":
        return f"the code has {p['lines']} lines; at most {p['limit']} are accepted"
    if code == "syntax_error":
        return f"this is not valid Python: {p['detail']}"
    if code == "too_many_nodes":
        return f"the code is too long ({p['nodes']} syntax elements, at most {p['limit']})"
    if code == "too_deeply_nested":
        return f"the expression is nested too deeply (at most {p['limit']} levels)"
    if code == "not_allowed":
        what = _CONSTRUCTS.get(str(p["construct"]), str(p["construct"]))
        return f"{what} is not allowed here: write plain assignments with numpy expressions"
    if code == "private_name":
        return f"names starting with an underscore, like {name}, are not allowed"
    if code == "forbidden_name":
        return f"{name} is not available here: only the listed numpy functions can be called"
    if code == "unknown_name":
        hint = f"; did you mean {p['suggestion']}?" if p.get("suggestion") else ""
        return f"{name} is not defined{hint}"
    if code == "attribute_not_allowed":
        if p["owner"] == "array":
            return f"arrays have no allowed attribute .{p['attribute']} here"
        return f"{p['owner']}.{p['attribute']} is not available here"
    if code == "keyword_not_allowed":
        allowed = ", ".join(f"{k}=" for k in p.get("allowed") or []) or "none"
        return f"{p['function']}() does not accept {p['keyword']}= here (allowed: {allowed})"
    if code == "string_not_allowed":
        return 'text (a string) is only allowed as a short argument, such as dtype="bool"'
    if code == "literal_not_allowed":
        return {
            "bytes": "bytes literals are not allowed",
            "complex": "complex numbers are not allowed",
            "large_int": "this integer literal is too large",
            "long_string": "this string is too long",
        }.get(str(p["kind"]), "this literal is not allowed")
    if code == "reserved_name":
        return f"{name} is a given function or module and cannot be assigned"
    if code == "modifies_input":
        return f"{name} is an input and read-only: assign the result to a new name instead of changing {name}"
    if code == "missing_name":
        return f"your code must define {name}"
    if code == "placeholder":
        return f"{name} is still the placeholder ...: replace it with your line"
    if code == "slot_order":
        return "define " + ", ".join(p["expected"]) + " in this order, one line each"
    if code == "timeout":
        return f"the code could not be checked within {p['seconds']} s"
    if code == "worker_crashed":
        return "the code could not be checked: it went over the memory or time limit"
    if code == "internal_error":
        return "the code could not be checked because of an error on our side"
    if code == "name_error":
        return f"{name} is not defined when this line runs"
    if code == "limit_exceeded":
        what = {
            "array_elements": "an array of",
            "work": "a total work of",
            "integer_bits": "an integer of",
            "sequence_items": "a list of",
            "ndim": "an array with",
            "axis_length": "an axis of length",
        }.get(str(p["limit"]), str(p["limit"]))
        unit = {
            "array_elements": "elements",
            "work": "operations",
            "integer_bits": "bits",
            "sequence_items": "items",
            "ndim": "dimensions",
            "axis_length": "",
        }.get(str(p["limit"]), "")
        amount = f"{p['requested']:,} {unit}".rstrip()
        return f"this would need {what} {amount}; at most {p['allowed']:,} are allowed"
    if code == "shape_mismatch":
        shapes = " and ".join(shape_text(s) for s in p["shapes"])
        return f"shapes {shapes} cannot be broadcast together for {p['operation']}"
    if code == "matmul_mismatch":
        return (
            f"cannot matrix-multiply {shape_text(p['left'])} by {shape_text(p['right'])}: the left's last axis "
            f"must match the right's second-to-last, and batch axes must broadcast"
        )
    if code == "unpack_error":
        return f"expected {p['expected']} values to unpack, got {p['got']}"
    if code == "read_only":
        return "the inputs are read-only: this would change one of them in place"
    if code == "axis_error":
        return f"axis {p['axis']} does not exist in an array with {p['ndim']} dimensions"
    if code == "index_error":
        return f"bad index: {p['detail']}"
    if code == "zero_division":
        return "division by zero"
    if code == "overflow":
        return "a number got too large"
    if code == "type_error":
        return f"{p['operation']} does not work on " + " and ".join(str(t) for t in p["types"])
    if code == "bad_argument":
        return f"bad argument to {p['function']}: {p['detail']}"
    if code == "not_callable":
        return f"a {p['type']} cannot be called"
    if code == "dtype_not_allowed":
        return f"dtype {p['dtype']} is not allowed (use bool, int64, float32 or float64)"
    if code == "unsupported_value":
        return f"a {p['type']} value is not supported here"
    if code == "truth_value_ambiguous":
        return "an array with several elements is neither true nor false: use a single value in if/and/or"
    if code == "numpy_error":
        return f"{p['function']} failed: {p['detail']}"
    if code == "ok":
        return f"{name} is correct"
    if code == "wrong_shape":
        return f"{name} has shape {shape_text(p['got'])}; expected {shape_text(p['expected'])}"
    if code == "wrong_values":
        return f"{name} has the right shape but {p['mismatched']} of {p['total']} values differ"
    if code == "wrong_type":
        return f"{name} is a {p['got']}; expected an array"
    if code == "not_defined":
        return f"{name} is not defined after your lines run"
    if code == "correct":
        return f"correct on all {p['cases']} inputs"
    if code == "works_2d_only":
        return (
            f"correct for 2-D inputs, but {where} fails on the batched input: count axes from the end "
            f"(shape[-1], .swapaxes(-2, -1), axis=-1) so the code works for any batch shape"
        )
    if code == "optional_cases_fail":
        return f"correct, except {where} on the optional input(s) " + ", ".join(p["cases"])
    if code == "fails_adversarial":
        return f"correct on the plain inputs, but {where} fails on " + ", ".join(p["cases"])
    if code == "misconception":
        return f"{where}: {p['title']}"
    if code == "incorrect":
        return f"{where} gives a wrong result on input {p['case']}"
    if code == "run_error":
        return f"{where} fails on input {p['case']}"
    return code


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
