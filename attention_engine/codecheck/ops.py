"""The operations learner code may perform, each bounded *before* it runs.

numpy cannot be interrupted in the middle of a call, so nothing here hands numpy a job whose size
is not known and accepted first: every operator computes the broadcast shape (or the matmul shape
and its multiply-adds) in plain Python from the operands' shapes, checks it against the
``Limits``, charges it to the run's work budget, and only then calls numpy. Python integers are
bounded by their bit length before ``**``, ``<<`` and ``*`` (``9**9**9`` would otherwise run for
minutes), Python lists and tuples by their nested item count before ``*`` and ``+``.

Values a run can hold (anything else is refused where it would appear):

- numpy arrays of dtype bool, integer or float (never object, str or complex), at most
  ``max_array_elements`` elements and ``max_ndim`` dimensions, and numpy scalars of those kinds;
- Python bool, int (at most ``max_int_bits`` bits), float, None, Ellipsis, slices, ``range``
  objects (lazy: iterating one is bounded per step), short strings (literal call arguments only),
  lists and tuples of the above;
- numpy dtypes of the allowed kinds (``x.dtype``), for ``np.finfo`` and ``dtype=``;
- the callables and namespaces of ``functions.py`` (``np.finfo(...)`` is such a namespace).

List comprehensions and ``*``-unpacking go through ``iterate`` / ``expand`` / ``unpack_starred``:
each iteration is counted against ``max_iterations`` and charged ``ITERATION_COST`` per syntax node
of the comprehension (``DEAR_NODE`` for a call, a subscript or an attribute); an unpacked value's length is checked
before any item is taken from it.

Every numpy failure is turned into a ``Refusal`` with one of the codes of ``messages.py``.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Final, NoReturn

import numpy as np

from .limits import Limits
from .messages import JSON, Refusal, clean

Shape = tuple[int, ...]

MISSING: Final = object()  # a name with no value yet
POW_COST: Final = 16  # an element of array ** array costs ~50 ns, 16x an add or exp: charged so
# Work charged per syntax node of a list comprehension, per iteration. Running a node through its closure
# and the checks here costs 0.1-2 µs of Python (a call of an allowlisted function on a number is the dearest),
# about what numpy spends on a few hundred elements: at 64 per node (16 nodes for a call, subscript or attribute) a
# run's work budget allows ~16,000 plain node evaluations or ~1,000 calls, so the interpreter's own time stays
# bounded by the same budget as numpy's: the worst comprehension costs about what the worst numpy work does
# (bench/README.md).
ITERATION_COST: Final = 64
DEAR_NODE: Final = 16  # a call, subscript or attribute in a comprehension counts as 16 nodes (µs of checks, not 0.3)


class Context:
    """The state of one run: the names, the work done so far and the limits.

    ``work`` counts element operations: every operator and call adds the size of its result
    (``@`` adds its multiply-adds too), so a straight-line program of at most ``max_nodes`` nodes
    does at most ``max_work`` of them whatever it tries.
    """

    __slots__ = ("env", "iterations", "limits", "max_elements", "max_work", "slot_runner", "work")

    def __init__(
        self, env: dict[str, object], limits: Limits, slot_runner: Callable[[int], None] | None = None
    ) -> None:
        self.env = env
        self.limits = limits
        self.max_elements = limits.max_array_elements
        self.max_work = limits.max_work
        self.work = 0
        self.iterations = 0
        self.slot_runner = slot_runner

    def charge(self, n: int) -> None:
        """Add ``n`` element operations to the run, refusing before the budget is exceeded."""
        total = self.work + n
        if total > self.max_work:  # refused, so not done: work stays within the budget
            raise Refusal("limit_exceeded", {"limit": "work", "requested": total, "allowed": self.max_work})
        self.work = total

    def iteration(self, cost: int) -> None:
        """One more iteration of a list comprehension, costing ``cost`` work; refused past the limits."""
        self.iterations += 1
        if self.iterations > self.limits.max_iterations:
            raise Refusal(
                "limit_exceeded",
                {"limit": "iterations", "requested": self.iterations, "allowed": self.limits.max_iterations},
            )
        self.charge(cost)

    def check_elements(self, n: int) -> None:
        if n > self.max_elements:
            raise Refusal("limit_exceeded", {"limit": "array_elements", "requested": n, "allowed": self.max_elements})

    def check_axes(self, shape: tuple[int, ...]) -> None:
        """No axis longer than the element limit, even in an empty array: numpy does work per axis
        length in places (np.triu of a (0, 10**9, 10**9) array builds a 10**18-element mask)."""
        longest = max(shape, default=0)
        if longest > self.max_elements:
            raise Refusal(
                "limit_exceeded", {"limit": "axis_length", "requested": longest, "allowed": self.max_elements}
            )

    def check_ndim(self, ndim: int) -> None:
        if ndim > self.limits.max_ndim:
            raise Refusal("limit_exceeded", {"limit": "ndim", "requested": ndim, "allowed": self.limits.max_ndim})


# ---------------------------------------------------------------------------------------------
# What a value is


def type_name(v: object) -> str:
    """A short, learner-facing name for the kind of a value."""
    if isinstance(v, np.ndarray):
        return "array"
    if isinstance(v, bool | np.bool_):
        return "bool"
    if isinstance(v, int | np.integer):
        return "int"
    if isinstance(v, float | np.floating):
        return "float"
    if v is None:
        return "None"
    if v is Ellipsis:
        return "ellipsis"
    if isinstance(v, str):
        return "str"
    if isinstance(v, tuple):
        return "tuple"
    if isinstance(v, list):
        return "list"
    if isinstance(v, slice):
        return "slice"
    if isinstance(v, complex | np.complexfloating):
        return "complex"
    if isinstance(v, range):
        return "range"
    if isinstance(v, np.dtype):
        return "dtype"
    if callable(v):
        return "function"
    return "module" if type(v).__name__ == "Namespace" else "object"


NUMBER_TYPES: Final = (bool, int, float, np.bool_, np.integer, np.floating)


def is_number(v: object) -> bool:
    return isinstance(v, NUMBER_TYPES)


def is_array(v: object) -> bool:
    return type(v) is np.ndarray


def is_seq(v: object) -> bool:
    return type(v) is tuple or type(v) is list


def fail(code: str, params: dict[str, JSON] | None = None) -> NoReturn:
    raise Refusal(code, params or {})


# ---------------------------------------------------------------------------------------------
# Checks on values


def type_error(operation: str, *operands: object) -> NoReturn:
    """Refuse ``operation`` on these operands, naming their types."""
    fail("type_error", {"operation": operation, "types": [type_name(v) for v in operands]})


def check_int(ctx: Context, v: int) -> int:
    bits = v.bit_length()
    if bits > ctx.limits.max_int_bits:
        fail("limit_exceeded", {"limit": "integer_bits", "requested": bits, "allowed": ctx.limits.max_int_bits})
    return v


def seq_items(ctx: Context, v: object, budget: int | None = None) -> int:
    """Nested item count of a list/tuple (arrays count 1), stopping as soon as it passes the limit."""
    limit = ctx.limits.max_sequence_items if budget is None else budget
    count = 0
    stack: list[object] = [v]
    while stack:
        item = stack.pop()
        count += 1
        if count > limit:
            fail("limit_exceeded", {"limit": "sequence_items", "requested": count, "allowed": limit})
        if type(item) is tuple or type(item) is list:
            stack.extend(item)
    return count


def check_value(ctx: Context, v: object) -> object:
    """Refuse any result a run may not hold (see the module docstring); return it otherwise."""
    t = type(v)
    if t is np.ndarray:
        arr: np.ndarray[Any, Any] = v  # type: ignore[assignment]
        if arr.dtype.kind not in "biuf":
            fail("dtype_not_allowed", {"dtype": clean(str(arr.dtype))})
        ctx.check_elements(arr.size)
        ctx.check_ndim(arr.ndim)
        ctx.check_axes(arr.shape)
        return arr
    if t is float or t is bool or v is None:
        return v
    if t is int:
        return check_int(ctx, v)  # type: ignore[arg-type]
    if isinstance(v, np.generic):
        if v.dtype.kind not in "biuf":
            fail("unsupported_value", {"type": type_name(v)})
        return v
    if t is tuple or t is list or t is slice or t is range or v is Ellipsis:
        return v
    if isinstance(v, np.dtype):
        if v.kind not in "biuf":
            fail("dtype_not_allowed", {"dtype": clean(str(v))})
        return v
    if t is str:
        if len(v) > ctx.limits.max_string_chars:  # type: ignore[arg-type]
            fail("literal_not_allowed", {"kind": "long_string"})
        return v
    if callable(v) or type(v).__name__ == "Namespace":
        return v
    fail("unsupported_value", {"type": type_name(v)})


def flat_size(ctx: Context, v: object) -> int:
    """Elements numpy would make from a (nested) list/tuple: an upper bound, found without converting."""
    total = 0
    stack: list[object] = [v]
    while stack:
        item = stack.pop()
        if type(item) is tuple or type(item) is list:
            stack.extend(item)
        elif type(item) is np.ndarray:
            total += item.size
        else:
            total += 1
        if total > ctx.max_elements:
            ctx.check_elements(total)
    return total


def as_array(ctx: Context, v: object) -> np.ndarray[Any, Any]:
    """``v`` as an array numpy can compute with, refusing what would be big, object or text."""
    t = type(v)
    if t is np.ndarray:
        return v  # type: ignore[return-value]
    if t is bool or t is float or isinstance(v, np.generic):
        out = np.asarray(v)
    elif t is int:
        if not -(1 << 63) <= v < (1 << 63):  # type: ignore[operator]
            fail("overflow")
        out = np.asarray(v)
    elif t is range:
        ctx.check_elements(len(v))  # type: ignore[arg-type]
        ctx.charge(len(v))  # type: ignore[arg-type]
        out = np.asarray(v)
    elif t is tuple or t is list:
        seq_items(ctx, v)
        size = flat_size(ctx, v)
        ctx.check_elements(size)
        ctx.charge(size)  # a new array: every allocation counts as work
        try:
            out = np.asarray(v)
        except (ValueError, TypeError, OverflowError):
            fail("bad_argument", {"function": "array", "detail": "the nested lists must be rectangular numbers"})
    else:
        type_error("an array operation", v)
    if out.dtype.kind not in "biuf":
        fail("dtype_not_allowed", {"dtype": clean(str(out.dtype))})
    return out


def shape_of(v: object) -> Shape:
    if type(v) is np.ndarray:
        return tuple(v.shape)
    return ()


# ---------------------------------------------------------------------------------------------
# Shapes, computed in Python before numpy runs


def broadcast(*shapes: Shape, operation: str = "broadcasting") -> Shape:
    """numpy's broadcast shape of ``shapes``, or a ``shape_mismatch`` refusal."""
    ndim = max(len(s) for s in shapes)
    out = [1] * ndim
    for i in range(1, ndim + 1):
        d = 1
        for s in shapes:
            if i <= len(s):
                x = s[-i]
                if x != 1:
                    if d not in (1, x):
                        fail("shape_mismatch", {"operation": operation, "shapes": [list(s) for s in shapes]})
                    d = x
        out[-i] = d
    return tuple(out)


def matmul_shape(a: Shape, b: Shape) -> tuple[Shape, int]:
    """(result shape, multiply-adds) of ``a @ b`` under numpy's rules, or a ``matmul_mismatch`` refusal."""
    if not a or not b:
        fail("type_error", {"operation": "@", "types": ["array" if a else "scalar", "array" if b else "scalar"]})
    a2 = (1, *a) if len(a) == 1 else a
    b2 = (*b, 1) if len(b) == 1 else b
    n, k = a2[-2], a2[-1]
    k2, m = b2[-2], b2[-1]
    if k != k2:
        fail("matmul_mismatch", {"left": list(a), "right": list(b)})
    try:
        batch = broadcast(a2[:-2], b2[:-2], operation="@")
    except Refusal:
        fail("matmul_mismatch", {"left": list(a), "right": list(b)})
    shape = batch + ((n,) if len(a) > 1 else ()) + ((m,) if len(b) > 1 else ())
    return shape, math.prod(batch) * n * m * k


# ---------------------------------------------------------------------------------------------
# Operators


def _operator_table() -> tuple[tuple[type[Any], str, Callable[[Any, Any], Any], Callable[[Any, Any], Any]], ...]:
    """Each binary operator once: its AST node, its symbol, the plain and the in-place function."""
    import ast

    return (
        (ast.Add, "+", operator.add, operator.iadd),
        (ast.Sub, "-", operator.sub, operator.isub),
        (ast.Mult, "*", operator.mul, operator.imul),
        (ast.Div, "/", operator.truediv, operator.itruediv),
        (ast.FloorDiv, "//", operator.floordiv, operator.ifloordiv),
        (ast.Mod, "%", operator.mod, operator.imod),
        (ast.Pow, "**", operator.pow, operator.ipow),
        (ast.MatMult, "@", operator.matmul, operator.imatmul),
        (ast.BitAnd, "&", operator.and_, operator.iand),
        (ast.BitOr, "|", operator.or_, operator.ior),
        (ast.BitXor, "^", operator.xor, operator.ixor),
        (ast.LShift, "<<", operator.lshift, operator.ilshift),
        (ast.RShift, ">>", operator.rshift, operator.irshift),
    )


BINARY: Final[dict[type[Any], tuple[str, Callable[[Any, Any], Any]]]] = {
    node: (symbol, fn) for node, symbol, fn, _ in _operator_table()
}
INPLACE: Final[dict[str, Callable[[Any, Any], Any]]] = {symbol: ifn for _, symbol, _, ifn in _operator_table()}


def numpy_failure(exc: BaseException, function: str) -> NoReturn:
    """Turn an exception numpy raised into a learner-facing refusal (never the raw exception)."""
    if isinstance(exc, np.exceptions.AxisError):
        fail("axis_error", {"axis": -1 if exc.axis is None else exc.axis, "ndim": -1 if exc.ndim is None else exc.ndim})
    if isinstance(exc, ZeroDivisionError):
        fail("zero_division")
    if isinstance(exc, OverflowError):
        fail("overflow")
    if isinstance(exc, MemoryError):
        fail("limit_exceeded", {"limit": "array_elements", "requested": -1, "allowed": -1})
    text = str(exc)
    if isinstance(exc, ValueError) and "read-only" in text:
        fail("read_only")
    if isinstance(exc, IndexError):
        fail("index_error", {"detail": clean(text, 120)})
    if isinstance(exc, ValueError) and "truth value" in text:
        fail("truth_value_ambiguous")
    fail("numpy_error", {"function": function, "detail": clean(text, 120)})


NUMPY_ERRORS: Final = (ValueError, TypeError, IndexError, ArithmeticError, MemoryError)


def _numpy_result(ctx: Context, operation: str, fn: Callable[[Any, Any], Any], a: object, b: object) -> object:
    """``fn(a, b)`` once its bounds are checked: what numpy raises becomes a refusal, the result is checked."""
    try:
        result = fn(a, b)
    except NUMPY_ERRORS as exc:
        numpy_failure(exc, operation)
    return check_value(ctx, result)


def _array_operands(ctx: Context, symbol: str, a: object, b: object) -> tuple[object, object]:
    """The operands of ``a <symbol> b`` where one is an array: arrays or numbers, a list or tuple converted."""
    if not (is_array(a) or is_number(a) or is_seq(a)) or not (is_array(b) or is_number(b) or is_seq(b)):
        type_error(symbol, a, b)
    return (as_array(ctx, a) if is_seq(a) else a), (as_array(ctx, b) if is_seq(b) else b)


def _python_int_guard(ctx: Context, symbol: str, a: int, b: int) -> None:
    """Refuse integer operations whose result would exceed ``max_int_bits``, before computing them."""
    limit = ctx.limits.max_int_bits
    if symbol == "**" and b > 0 and abs(a) > 1:
        bits = math.ceil(b * math.log2(abs(a))) + 1 if b < (1 << 40) else 1 << 60
        if bits > limit:
            fail("limit_exceeded", {"limit": "integer_bits", "requested": bits, "allowed": limit})
    elif symbol == "<<" and a != 0:
        bits = a.bit_length() + b
        if bits > limit:
            fail("limit_exceeded", {"limit": "integer_bits", "requested": bits, "allowed": limit})
    elif symbol == "*":
        bits = a.bit_length() + b.bit_length()
        if bits > limit:
            fail("limit_exceeded", {"limit": "integer_bits", "requested": bits, "allowed": limit})


def _seq_op(ctx: Context, symbol: str, a: object, b: object) -> object:
    """``+`` of two lists/tuples and ``*`` of one by an int, bounded by the nested item count."""
    if symbol == "+" and type(a) is type(b):
        seq_items(ctx, a)
        seq_items(ctx, b)
        result = a + b  # type: ignore[operator]
        seq_items(ctx, result)
        return result
    if symbol == "*":
        seq, times = (a, b) if is_seq(a) else (b, a)
        if type(times) is int or isinstance(times, np.integer):
            n = int(times)
            per = seq_items(ctx, seq) - 1  # the items inside, without the list itself
            total = per * max(n, 0)
            if total > ctx.limits.max_sequence_items:
                fail(
                    "limit_exceeded",
                    {"limit": "sequence_items", "requested": total, "allowed": ctx.limits.max_sequence_items},
                )
            return seq * n  # type: ignore[operator]
    type_error(symbol, a, b)


def binop(ctx: Context, symbol: str, a: object, b: object) -> object:
    """``a <symbol> b`` with every bound checked first."""
    if type(a) is np.ndarray or type(b) is np.ndarray:
        a, b = _array_operands(ctx, symbol, a, b)
        sa, sb = shape_of(a), shape_of(b)
        if symbol == "@":
            shape, flops = matmul_shape(sa, sb)
            ctx.check_elements(math.prod(shape))
            ctx.charge(flops + math.prod(shape))
        else:
            shape = broadcast(sa, sb, operation=symbol)
            size = math.prod(shape)
            ctx.check_elements(size)
            ctx.charge(size * (POW_COST if symbol == "**" else 1))
        return _numpy_result(ctx, symbol, BINARY_BY_SYMBOL[symbol], a, b)
    if is_number(a) and is_number(b):
        if isinstance(a, int) and isinstance(b, int):  # Python ints (and bools) grow without bound
            _python_int_guard(ctx, symbol, a, b)
        if symbol == "@":
            type_error("@", a, b)
        ctx.charge(1)
        return _numpy_result(ctx, symbol, BINARY_BY_SYMBOL[symbol], a, b)
    if is_seq(a) or is_seq(b):
        ctx.charge(1)
        return check_value(ctx, _seq_op(ctx, symbol, a, b))
    type_error(symbol, a, b)


BINARY_BY_SYMBOL: Final[dict[str, Callable[[Any, Any], Any]]] = {s: f for s, f in BINARY.values()}


def inplace(ctx: Context, symbol: str, target: object, value: object) -> object:
    """``target <symbol>= value``: in place for an array the learner owns (read-only inputs refuse)."""
    if type(target) is np.ndarray:
        arr: np.ndarray[Any, Any] = target
        if not arr.flags.writeable:
            fail("read_only")
        if not (is_array(value) or is_number(value) or is_seq(value)):
            fail("type_error", {"operation": symbol + "=", "types": ["array", type_name(value)]})
        if is_seq(value):
            value = as_array(ctx, value)
        if symbol == "@":
            return binop(ctx, symbol, arr, value)  # numpy has no in-place @ for most shapes
        shape = broadcast(arr.shape, shape_of(value), operation=symbol + "=")
        if shape != arr.shape:
            fail("shape_mismatch", {"operation": symbol + "=", "shapes": [list(arr.shape), list(shape_of(value))]})
        ctx.charge(arr.size * (POW_COST if symbol == "**" else 1))
        return _numpy_result(ctx, symbol + "=", INPLACE[symbol], arr, value)
    return binop(ctx, symbol, target, value)


def unary(ctx: Context, symbol: str, a: object) -> object:
    if symbol == "not":
        return not truth(a)
    if not (is_array(a) or is_number(a)):
        type_error(symbol, a)
    ctx.charge(max(1, int(getattr(a, "size", 1))))
    try:
        if symbol == "-":
            result = -a  # type: ignore[operator]
        elif symbol == "+":
            result = +a  # type: ignore[operator]
        else:
            if isinstance(a, float | np.floating) or (type(a) is np.ndarray and a.dtype.kind == "f"):
                fail("type_error", {"operation": "~", "types": ["float"]})
            result = ~a  # type: ignore[operator]
    except NUMPY_ERRORS as exc:
        numpy_failure(exc, symbol)
    return check_value(ctx, result)


def truth(v: object) -> bool:
    """Python's truth of ``v``; an array with several elements is refused, as numpy does."""
    if type(v) is np.ndarray:
        if v.size != 1:
            fail("truth_value_ambiguous")
        return bool(v)
    return bool(v)


COMPARE: Final[dict[str, Callable[[Any, Any], Any]]] = {
    "==": operator.eq,
    "!=": operator.ne,
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
    "is": operator.is_,
    "is not": operator.is_not,
}


def compare(ctx: Context, symbol: str, a: object, b: object) -> object:
    if symbol in ("is", "is not"):
        return COMPARE[symbol](a, b)
    if symbol in ("in", "not in"):
        if type(b) is np.ndarray:
            if not (is_number(a) or is_array(a)):
                fail("type_error", {"operation": symbol, "types": [type_name(a), "array"]})
            size = math.prod(broadcast(shape_of(a), b.shape, operation=symbol))
            ctx.check_elements(size)
            ctx.charge(size)
        elif is_seq(b):
            ctx.charge(flat_size(ctx, b))  # each item may be compared with a
        else:
            type_error(symbol, a, b)
        try:
            found = a in b  # type: ignore[operator]
        except NUMPY_ERRORS as exc:
            numpy_failure(exc, symbol)
        return found if symbol == "in" else not found
    if type(a) is np.ndarray or type(b) is np.ndarray:
        a, b = _array_operands(ctx, symbol, a, b)
        size = math.prod(broadcast(shape_of(a), shape_of(b), operation=symbol))
        ctx.check_elements(size)
        ctx.charge(size)
    elif symbol not in ("==", "!=") and not ((is_number(a) and is_number(b)) or (is_seq(a) and is_seq(b))):
        type_error(symbol, a, b)
    else:
        ctx.charge(1)
    return _numpy_result(ctx, symbol, COMPARE[symbol], a, b)


# ---------------------------------------------------------------------------------------------
# Indexing


def _index_int(v: object) -> bool:
    return (type(v) is int or isinstance(v, np.integer)) and not isinstance(v, bool | np.bool_)


def _check_slice(s: slice) -> None:
    for part in (s.start, s.stop, s.step):
        if part is not None and not _index_int(part):
            fail("index_error", {"detail": "slice bounds must be integers or None"})


def index_bound(ctx: Context, shape: Shape, index: object) -> tuple[object, int]:
    """(the index as numpy takes it, an upper bound of the result size) for ``array[index]``."""
    items = list(index) if type(index) is tuple else [index]
    consumed = 0
    advanced: list[Shape] = []
    parts: list[tuple[str, int]] = []  # (kind, dims consumed) per item
    for i, item in enumerate(items):
        if is_seq(item):
            item = items[i] = as_array(ctx, item)
        if _index_int(item):
            parts.append(("int", 1))
        elif item is None or isinstance(item, bool | np.bool_):
            parts.append(("new", 0))
        elif item is Ellipsis:
            parts.append(("ellipsis", 0))
        elif type(item) is slice:
            _check_slice(item)
            parts.append(("slice", 1))
        elif type(item) is np.ndarray:
            if item.dtype.kind == "b":
                parts.append(("adv", item.ndim))
                advanced.append((item.size,))
            elif item.dtype.kind in "iu":
                parts.append(("adv", 1))
                advanced.append(item.shape)
            else:
                fail("index_error", {"detail": "array indices must be integers or booleans"})
        else:
            fail("index_error", {"detail": f"cannot index with a {type_name(item)}"})
        consumed += parts[-1][1]
    if sum(1 for k, _ in parts if k == "ellipsis") > 1:
        fail("index_error", {"detail": "an index can only have a single ellipsis ('...')"})
    if consumed > len(shape):
        fail("index_error", {"detail": f"too many indices for an array with {len(shape)} dimensions"})
    kept = 1
    dim = 0
    for kind, n in parts:
        if kind == "ellipsis":
            fill = len(shape) - consumed
            kept *= math.prod(shape[dim : dim + fill])
            dim += fill
        elif kind == "slice":
            kept *= shape[dim]
            dim += 1
        else:
            dim += n
    kept *= math.prod(shape[dim:])
    adv = 1
    if advanced:
        try:
            adv = math.prod(broadcast(*advanced, operation="indexing"))
        except Refusal:
            fail("index_error", {"detail": "index arrays could not be broadcast together"})
    return (tuple(items) if type(index) is tuple else items[0]), kept * adv


def subscript(ctx: Context, base: object, index: object) -> object:
    if type(base) is np.ndarray:
        idx, bound = index_bound(ctx, base.shape, index)
        ctx.check_elements(bound)
        ctx.charge(max(1, bound))
        try:
            result = base[idx]  # type: ignore[call-overload]   # idx was checked by index_bound
        except NUMPY_ERRORS as exc:
            numpy_failure(exc, "indexing")
        return check_value(ctx, result)
    if is_seq(base):
        if not (_index_int(index) or type(index) is slice):
            type_error("indexing", base, index)
        if type(index) is slice:
            _check_slice(index)
        ctx.charge(1)
        try:
            return check_value(ctx, base[index])  # type: ignore[index]
        except IndexError:
            fail("index_error", {"detail": f"index out of range for a {type_name(base)} of length {len(base)}"})  # type: ignore[arg-type]
    type_error("indexing", base)


def setitem(ctx: Context, base: object, index: object, value: object) -> None:
    if type(base) is not np.ndarray:
        type_error("item assignment", base)
    arr: np.ndarray[Any, Any] = base
    if not arr.flags.writeable:
        fail("read_only")
    idx, bound = index_bound(ctx, arr.shape, index)
    if not (is_array(value) or is_number(value) or is_seq(value)):
        fail("type_error", {"operation": "item assignment", "types": ["array", type_name(value)]})
    if is_seq(value):
        value = as_array(ctx, value)
    ctx.charge(max(1, bound))
    try:
        arr[idx] = value  # type: ignore[call-overload]   # idx was checked by index_bound
    except NUMPY_ERRORS as exc:
        numpy_failure(exc, "item assignment")


def unpack(ctx: Context, value: object, n: int) -> Sequence[object]:
    """``a, b, c = value``: a tuple/list of length n, or an array whose first axis has length n."""
    if is_seq(value):
        items: Sequence[object] = value  # type: ignore[assignment]
    elif type(value) is np.ndarray and value.ndim >= 1:
        if len(value) != n:
            fail("unpack_error", {"expected": n, "got": len(value)})
        ctx.charge(n)
        items = list(value)
    else:
        type_error("unpacking", value)
    if len(items) != n:
        fail("unpack_error", {"expected": n, "got": len(items)})
    return items


# ---------------------------------------------------------------------------------------------
# Iterating and *-unpacking: lengths are known (and checked) before any item is taken


def length_of(ctx: Context, value: object, operation: str) -> int:
    """How many items iterating ``value`` gives: a list, tuple, range, or an array along its first axis."""
    if is_seq(value) or type(value) is range:
        return len(value)  # type: ignore[arg-type]
    if type(value) is np.ndarray and value.ndim >= 1:
        return len(value)
    type_error(operation, value)


def iterate(ctx: Context, value: object, cost: int) -> Iterator[object]:
    """The items of ``value`` for a comprehension; each step is one of the run's ``max_iterations``
    and costs ``cost`` work, charged before the step runs."""
    length_of(ctx, value, "iteration")
    if type(value) is np.ndarray:
        arr: np.ndarray[Any, Any] = value
        for i in range(len(arr)):
            ctx.iteration(cost)
            yield arr[i]  # a view of the row (or a numpy scalar): no copy
        return
    for item in value:  # type: ignore[attr-defined]   # a list, tuple or range: checked above
        ctx.iteration(cost)
        yield item


def expand(ctx: Context, value: object) -> list[object]:
    """``*value`` in a call or a list/tuple display: at most ``max_sequence_items`` items."""
    n = length_of(ctx, value, "*-unpacking")
    if n > ctx.limits.max_sequence_items:
        fail("limit_exceeded", {"limit": "sequence_items", "requested": n, "allowed": ctx.limits.max_sequence_items})
    ctx.charge(max(1, n))
    if type(value) is np.ndarray:
        return [value[i] for i in range(n)]
    items: list[object] = list(value)  # type: ignore[call-overload]
    return items


def unpack_starred(ctx: Context, value: object, before: int, after: int) -> list[object]:
    """``a, *rest, b = value``: the items, with the starred part as one list in its place."""
    n = length_of(ctx, value, "unpacking")
    if n < before + after:
        fail("unpack_error", {"expected": before + after, "got": n})
    items = expand(ctx, value)
    middle: list[object] = items[before : n - after]
    return [*items[:before], middle, *items[n - after :]]


def value_bound(ctx: Context, value: object) -> None:
    """Refuse a value too big to compare before the grader converts it (``np.asarray`` of a list that
    repeats one 65,536-element array a thousand times would make 65 million numbers): at most
    ``max_array_elements`` numbers, lists nested at most ``max_ndim`` deep. Arrays count their size.
    The walk visits each list item once (they are bounded by ``max_sequence_items`` where they are
    made) and gives up, refusing, after 8 times that many."""
    limit, depth_limit = ctx.max_elements, ctx.limits.max_ndim
    total = visited = 0
    stack: list[tuple[object, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        visited += 1
        if type(item) is tuple or type(item) is list:
            if depth >= depth_limit:
                fail("limit_exceeded", {"limit": "value_depth", "requested": depth + 1, "allowed": depth_limit})
            cap = 8 * ctx.limits.max_sequence_items
            if visited + len(stack) + len(item) > cap:
                items = visited + len(stack) + len(item)
                fail("limit_exceeded", {"limit": "sequence_items", "requested": items, "allowed": cap})
            stack.extend((x, depth + 1) for x in item)
        elif type(item) is np.ndarray:
            total += item.size
        else:
            total += 1
    if total > limit:
        fail("limit_exceeded", {"limit": "value_elements", "requested": total, "allowed": limit})
