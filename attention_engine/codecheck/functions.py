"""The allowlist: every function, constant, array method and attribute learner code can reach.

Nothing else is reachable. ``np`` and ``math`` in learner code are not the modules but
``Namespace`` objects holding only the entries below; attribute access on an array goes through
``ARRAY_ATTRIBUTES`` / ``ARRAY_METHODS`` by name, never through ``getattr`` on a name the learner
chose. Each callable is a ``SafeFunction``: its positional parameters, the keywords it accepts
(``out=``, ``where=``, ``dtype=object``, ``casting=`` … are simply not among them), and an
implementation that converts and checks every argument, computes the size of the result from the
argument *shapes*, checks it and charges it to the run (``ops.Context``) before calling numpy.
Shape-creating calls (``np.ones``, ``np.full``, ``np.arange``, ``np.triu`` of a vector, which makes
an (n, n) matrix) are sized from their arguments the same way.

dtypes are limited to bool, int32/int64 and float32/float64, given as ``bool``/``int``/``float``,
``np.float64``-style names or the strings "bool", "int64", "float32", "float64".

Functions whose result size is a product of their arguments are sized before numpy runs, from the
arguments alone: ``np.einsum`` parses its subscripts here (letters, one ``...`` per operand, ``->``)
and is charged its whole index space (numpy's loop without ``optimize``, which is never passed: the
keyword and the interleaved operand/sublist form are refused), ``np.repeat``/``np.tile`` multiply
the shape by counts checked first, ``np.triu_indices`` is charged the (n, m) mask numpy builds.
``np.finfo(dtype)`` gives a namespace of plain numbers (``.min``, ``.max``, ``.eps``, ``.tiny`` …) for
float32/float64 only. ``range``, ``enumerate`` and ``zip`` exist for list comprehensions; the last two
make small lists (bounded by ``max_sequence_items``).

Functions deliberately left out, although numpy has them: anything touching files, memory or
buffers (``np.load``/``save``/``fromfile``/``frombuffer``, ``np.lib``, ``np.ctypeslib``,
``as_strided``), ``np.einsum_path`` and ufunc methods (``np.logaddexp.reduce``: attributes of a
function are never reachable), and products the exercises never need (``np.kron``, ``np.outer``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

import numpy as np

from . import ops
from .messages import JSON, Refusal, clean
from .ops import Context, as_array, fail, is_number, is_seq, type_name

Bound = dict[str, object]
Impl = Callable[[Context, Bound], object]
Array = np.ndarray[Any, Any]


@dataclass(frozen=True, eq=False)
class SafeFunction:
    """A callable learner code may use, under the name it is written with (``np.exp``, ``.max``)."""

    name: str
    params: tuple[str, ...]
    impl: Impl = field(repr=False)
    required: int = 1
    keywords: frozenset[str] = frozenset()
    varargs: bool = False  # extra positionals go to "*" (reshape(2, 3), transpose(1, 0))
    dtype: np.dtype[Any] | None = None  # set when this name is also a dtype (float, np.float32, bool)

    def __call__(self, *args: object, **kwargs: object) -> object:  # pragma: no cover - never called directly
        raise TypeError("SafeFunction objects are invoked through invoke() with a Context")

    def invoke(self, ctx: Context, args: list[object], kwargs: dict[str, object]) -> object:
        bound: Bound = {}
        if len(args) > len(self.params):
            if not self.varargs:
                fail(
                    "bad_argument",
                    {"function": self.name, "detail": f"takes at most {len(self.params)} positional arguments"},
                )
            bound["*"] = tuple(args[len(self.params) :])
        for name, value in zip(self.params, args, strict=False):
            bound[name] = value
        for key, value in kwargs.items():
            if key not in self.keywords:
                fail(
                    "keyword_not_allowed",
                    {"function": self.name, "keyword": clean(key), "allowed": sorted(self.keywords)},
                )
            if key in bound:
                fail("bad_argument", {"function": self.name, "detail": f"got two values for {key}"})
            bound[key] = value
        for name in self.params[: self.required]:
            if name not in bound:
                fail("bad_argument", {"function": self.name, "detail": f"missing argument {name}"})
        ctx.charge(1)
        try:
            result = self.impl(ctx, bound)
        except Refusal:
            raise
        except ops.NUMPY_ERRORS as exc:
            ops.numpy_failure(exc, self.name)
        return ops.check_value(ctx, result)


@dataclass(frozen=True, eq=False)
class BoundMethod:
    """``array.method`` before it is called: the method and the array it belongs to."""

    function: SafeFunction
    owner: object

    def __call__(self, *args: object, **kwargs: object) -> object:  # pragma: no cover
        raise TypeError("BoundMethod objects are invoked through invoke() with a Context")

    def invoke(self, ctx: Context, args: list[object], kwargs: dict[str, object]) -> object:
        return self.function.invoke(ctx, [self.owner, *args], kwargs)


class Namespace:
    """``np`` / ``math`` as learner code sees them: only the allowlisted names, nothing else."""

    __slots__ = ("entries", "name")

    def __init__(self, name: str, entries: Mapping[str, object]) -> None:
        self.name = name
        self.entries = dict(entries)

    def __repr__(self) -> str:
        return f"<{self.name}>"


# ---------------------------------------------------------------------------------------------
# Argument conversion: each refuses anything but what the parameter needs


def _int(v: object, what: str, fn: str, lo: int = -(1 << 31), hi: int = 1 << 31) -> int:
    if isinstance(v, bool | np.bool_) or not (type(v) is int or isinstance(v, np.integer)):
        fail("bad_argument", {"function": fn, "detail": f"{what} must be an integer, got a {type_name(v)}"})
    n = int(v)
    if not lo <= n <= hi:
        fail("bad_argument", {"function": fn, "detail": f"{what} must be between {lo} and {hi}"})
    return n


def _bool(v: object, what: str, fn: str) -> bool:
    if not isinstance(v, bool | np.bool_):
        fail("bad_argument", {"function": fn, "detail": f"{what} must be True or False"})
    return bool(v)


def _number(v: object, what: str, fn: str) -> float | int | bool:
    if type(v) is np.ndarray and v.size == 1 and v.dtype.kind in "biuf":
        v = v.item()
    if not is_number(v):
        fail("bad_argument", {"function": fn, "detail": f"{what} must be a number, got a {type_name(v)}"})
    if isinstance(v, np.generic):
        return v.item()  # type: ignore[no-any-return]
    return v  # type: ignore[return-value]


def _axis(v: object, fn: str, allow_tuple: bool = True) -> int | tuple[int, ...] | None:
    if v is None:
        return None
    if is_seq(v) and allow_tuple:
        items = list(v)  # type: ignore[call-overload]
        if len(items) > 64:
            fail("bad_argument", {"function": fn, "detail": "too many axes"})
        return tuple(_int(a, "axis", fn, -64, 64) for a in items)
    return _int(v, "axis", fn, -64, 64)


def _shape(ctx: Context, v: object, fn: str, allow_minus_one: bool = False) -> tuple[int, ...]:
    """A shape argument (an int or a list/tuple of ints), with its size checked against the limits."""
    dims = list(v) if is_seq(v) else [v]  # type: ignore[call-overload]
    if len(dims) > ctx.limits.max_ndim:
        ctx.check_ndim(len(dims))
    out = tuple(_int(d, "a shape entry", fn, -1 if allow_minus_one else 0, 1 << 62) for d in dims)
    if allow_minus_one and out.count(-1) > 1:
        fail("bad_argument", {"function": fn, "detail": "only one dimension can be -1"})
    ctx.check_axes(out)
    size = math.prod(d for d in out if d != -1)
    ctx.check_elements(size)
    return out


DTYPES: Final[dict[str, np.dtype[Any]]] = {
    "bool": np.dtype(bool),
    "bool_": np.dtype(bool),
    "int": np.dtype(np.int64),
    "int64": np.dtype(np.int64),
    "int32": np.dtype(np.int32),
    "float": np.dtype(np.float64),
    "float64": np.dtype(np.float64),
    "float32": np.dtype(np.float32),
    "double": np.dtype(np.float64),
}


def _dtype(v: object, fn: str) -> np.dtype[Any] | None:
    if v is None:
        return None
    if isinstance(v, SafeFunction) and v.dtype is not None:
        return v.dtype
    if isinstance(v, str) and v in DTYPES:
        return DTYPES[v]
    if isinstance(v, np.dtype) and v in DTYPES.values():
        return v
    shown = v if isinstance(v, str) else (v.name if isinstance(v, SafeFunction) else type_name(v))
    fail("dtype_not_allowed", {"dtype": clean(str(shown))})


def _arrays(ctx: Context, v: object, fn: str) -> list[Array]:
    if not is_seq(v):
        fail("bad_argument", {"function": fn, "detail": "expects a list or tuple of arrays"})
    items = list(v)  # type: ignore[call-overload]
    if not items or len(items) > 64:
        fail("bad_argument", {"function": fn, "detail": "expects between 1 and 64 arrays"})
    return [as_array(ctx, a) for a in items]


def _tuple(v: object) -> tuple[object, ...]:
    assert isinstance(v, tuple | list)
    return tuple(v)


def _sized(ctx: Context, n: int) -> None:
    ctx.check_elements(n)
    ctx.charge(n)


# ---------------------------------------------------------------------------------------------
# Implementations


def _elementwise(fn: Callable[..., Any]) -> Impl:
    def impl(ctx: Context, b: Bound) -> object:
        x = as_array(ctx, b["x"])
        _sized(ctx, x.size)
        return fn(x)

    return impl


def _elementwise2(fn: Callable[..., Any], name: str) -> Impl:
    def impl(ctx: Context, b: Bound) -> object:
        x, y = as_array(ctx, b["x1"]), as_array(ctx, b["x2"])
        _sized(ctx, math.prod(ops.broadcast(x.shape, y.shape, operation=name)))
        return fn(x, y)

    return impl


_REDUCE: Final[dict[str, Callable[..., Any]]] = {
    "max": np.max,
    "min": np.min,
    "sum": np.sum,
    "mean": np.mean,
    "argmax": np.argmax,
    "argmin": np.argmin,
    "any": np.any,
    "all": np.all,
}


def reduced_size(shape: tuple[int, ...], axis: int | tuple[int, ...] | None) -> int:
    """Elements of a reduction's result. Not always fewer than the input's: summing the empty axis of
    a (0, 10**9) array gives 10**9 zeros."""
    if axis is None:
        return 1
    axes = {a % len(shape) for a in (axis if isinstance(axis, tuple) else (axis,)) if -len(shape) <= a < len(shape)}
    return math.prod(d for i, d in enumerate(shape) if i not in axes)


def _reduction(method: str, name: str) -> Impl:
    def impl(ctx: Context, b: Bound) -> object:
        x = as_array(ctx, b["a"])
        axis = _axis(b.get("axis"), name, allow_tuple=not method.startswith("arg"))
        keepdims = _bool(b.get("keepdims", False), "keepdims", name)
        out = reduced_size(x.shape, axis)
        ctx.check_elements(out)
        _sized(ctx, max(1, x.size, out))
        if method == "mean":
            axes = range(x.ndim) if axis is None else (axis if isinstance(axis, tuple) else (axis,))
            if any(-x.ndim <= a < x.ndim and x.shape[a] == 0 for a in axes) or x.size == 0:
                fail("bad_argument", {"function": name, "detail": "the mean of an empty selection is undefined"})
        return _REDUCE[method](x, axis=axis, keepdims=keepdims)

    return impl


def _where(ctx: Context, b: Bound) -> object:
    c, x, y = as_array(ctx, b["condition"]), as_array(ctx, b["x"]), as_array(ctx, b["y"])
    _sized(ctx, math.prod(ops.broadcast(c.shape, x.shape, y.shape, operation="np.where")))
    return np.where(c, x, y)


def _tri(lower: bool) -> Impl:
    name = "np.tril" if lower else "np.triu"

    def impl(ctx: Context, b: Bound) -> object:
        m = as_array(ctx, b["m"])
        k = _int(b.get("k", 0), "k", name)
        if m.ndim == 0:
            fail("bad_argument", {"function": name, "detail": "needs an array with at least 1 dimension"})
        n, k_ = (m.shape[0], m.shape[0]) if m.ndim == 1 else m.shape[-2:]
        mask = n * k_ + n + k_  # numpy builds an (n, m) mask from two aranges, whatever the batch
        ctx.check_elements(mask)
        size = m.size * m.shape[0] if m.ndim == 1 else m.size  # a vector becomes an (n, n) matrix
        _sized(ctx, size + mask)
        return np.tril(m, k) if lower else np.triu(m, k)

    return impl


def _filled(kind: str) -> Impl:
    name = f"np.{kind}"

    def impl(ctx: Context, b: Bound) -> object:
        shape = _shape(ctx, b["shape"], name)
        dtype = _dtype(b.get("dtype"), name)
        _sized(ctx, math.prod(shape))
        if kind == "full":
            fill = _number(b["fill_value"], "fill_value", name)
            return np.full(shape, fill, dtype=dtype)
        return (np.ones if kind == "ones" else np.zeros)(shape, dtype=dtype or np.float64)

    return impl


def _filled_like(kind: str) -> Impl:
    name = f"np.{kind}_like"

    def impl(ctx: Context, b: Bound) -> object:
        a = as_array(ctx, b["a"])
        dtype = _dtype(b.get("dtype"), name)
        _sized(ctx, a.size)
        if kind == "full":
            return np.full_like(a, _number(b["fill_value"], "fill_value", name), dtype=dtype)
        return (np.ones_like if kind == "ones" else np.zeros_like)(a, dtype=dtype)

    return impl


def _eye(ctx: Context, b: Bound) -> object:
    n = _int(b["N"], "N", "np.eye", 0)
    m = n if b.get("M") is None else _int(b["M"], "M", "np.eye", 0)
    ctx.check_axes((n, m))
    _sized(ctx, n * m)
    return np.eye(n, m, _int(b.get("k", 0), "k", "np.eye"), dtype=_dtype(b.get("dtype"), "np.eye") or np.float64)


def _arange(ctx: Context, b: Bound) -> object:
    start = _number(b["start"], "start", "np.arange")
    stop = None if b.get("stop") is None else _number(b["stop"], "stop", "np.arange")
    step = 1 if b.get("step") is None else _number(b["step"], "step", "np.arange")
    if stop is None:
        start, stop = 0, start
    if not all(math.isfinite(float(v)) for v in (start, stop, step)) or step == 0:
        fail("bad_argument", {"function": "np.arange", "detail": "start, stop and step must be finite, step not 0"})
    length = max(0, math.ceil((float(stop) - float(start)) / float(step)))
    _sized(ctx, length)
    return np.arange(start, stop, step, dtype=_dtype(b.get("dtype"), "np.arange"))


def _concatenate(stack: bool) -> Impl:
    name = "np.stack" if stack else "np.concatenate"

    def impl(ctx: Context, b: Bound) -> object:
        arrays = _arrays(ctx, b["arrays"], name)
        raw = b.get("axis", 0)
        axis = None if raw is None else _int(raw, "axis", name, -64, 64)
        _sized(ctx, sum(a.size for a in arrays))
        if stack:
            ctx.check_ndim(arrays[0].ndim + 1)
            return np.stack(arrays, axis=axis if axis is not None else 0)
        return np.concatenate(arrays, axis=axis)

    return impl


def _transpose(ctx: Context, b: Bound) -> object:
    a = as_array(ctx, b["a"])
    axes = b.get("axes")
    if "*" in b:  # a.transpose(1, 0)
        axes = (axes, *_tuple(b["*"]))
    if axes is None:
        return np.transpose(a)
    items = _tuple(axes) if is_seq(axes) else (axes,)
    return np.transpose(a, tuple(_int(x, "axes", "transpose", -64, 64) for x in items))


def _swapaxes(ctx: Context, b: Bound) -> object:
    a = as_array(ctx, b["a"])
    axis1 = _int(b["axis1"], "axis1", "swapaxes", -64, 64)
    return np.swapaxes(a, axis1, _int(b["axis2"], "axis2", "swapaxes", -64, 64))


def _moveaxis(ctx: Context, b: Bound) -> object:
    a = as_array(ctx, b["a"])
    return np.moveaxis(a, _axis(b["source"], "np.moveaxis"), _axis(b["destination"], "np.moveaxis"))  # type: ignore[arg-type]


def _expand_dims(ctx: Context, b: Bound) -> object:
    a = as_array(ctx, b["a"])
    axis = _axis(b["axis"], "np.expand_dims")
    ctx.check_ndim(a.ndim + (len(axis) if isinstance(axis, tuple) else 1))
    return np.expand_dims(a, axis)  # type: ignore[arg-type]


def _squeeze(ctx: Context, b: Bound) -> object:
    return np.squeeze(as_array(ctx, b["a"]), _axis(b.get("axis"), "squeeze"))


def _reshape(ctx: Context, b: Bound) -> object:
    a = as_array(ctx, b["a"])
    shape = b["shape"]
    if "*" in b:  # a.reshape(B, T, C)
        shape = (shape, *b["*"])  # type: ignore[misc]
    dims = _shape(ctx, shape, "reshape", allow_minus_one=True)
    _sized(ctx, a.size)
    return a.reshape(dims)


def _matmul(ctx: Context, b: Bound) -> object:
    return ops.binop(ctx, "@", as_array(ctx, b["x1"]), as_array(ctx, b["x2"]))


def _array(copy: bool) -> Impl:
    def impl(ctx: Context, b: Bound) -> object:
        a = as_array(ctx, b["object"])
        dtype = _dtype(b.get("dtype"), "np.array")
        _sized(ctx, a.size)
        return np.array(a, dtype=dtype, copy=True) if copy else np.asarray(a, dtype=dtype)

    return impl


def _split(ctx: Context, b: Bound) -> object:
    a = as_array(ctx, b["ary"])
    sections = b["indices_or_sections"]
    if is_seq(sections):
        cuts = [_int(s, "indices", "np.split", -(1 << 31)) for s in sections]  # type: ignore[attr-defined]
        if len(cuts) > 63:
            fail("bad_argument", {"function": "np.split", "detail": "at most 64 pieces"})
        parts: object = cuts
    else:
        parts = _int(sections, "sections", "np.split", 1, 64)
    _sized(ctx, a.size)
    return list(np.split(a, parts, axis=_int(b.get("axis", 0), "axis", "np.split", -64, 64)))  # type: ignore[call-overload]


def _clip(ctx: Context, b: Bound) -> object:
    a, lo, hi = as_array(ctx, b["a"]), as_array(ctx, b["a_min"]), as_array(ctx, b["a_max"])
    _sized(ctx, math.prod(ops.broadcast(a.shape, lo.shape, hi.shape, operation="np.clip")))
    return np.clip(a, lo, hi)


def _convert(dtype: np.dtype[Any], name: str) -> Impl:
    def impl(ctx: Context, b: Bound) -> object:
        x = b["x"]
        if isinstance(x, str) and dtype.kind == "f":  # np.float32('-inf')
            return dtype.type(_from_text(x, name))
        if is_number(x):
            return dtype.type(x)
        a = as_array(ctx, x)
        _sized(ctx, a.size)
        return a.astype(dtype)

    return impl


def _astype(ctx: Context, b: Bound) -> object:
    a = as_array(ctx, b["a"])
    dtype = _dtype(b["dtype"], ".astype")
    _sized(ctx, a.size)
    return a.astype(dtype)


def _copy(ctx: Context, b: Bound) -> object:
    a = as_array(ctx, b["a"])
    _sized(ctx, a.size)
    return a.copy()


def _flatten(ctx: Context, b: Bound) -> object:
    a = as_array(ctx, b["a"])
    _sized(ctx, a.size)
    return a.reshape(-1).copy()


def _math(fn: Callable[[float], float], name: str) -> Impl:
    def impl(ctx: Context, b: Bound) -> object:
        x = _number(b["x"], "x", name)
        try:
            return fn(x)
        except ValueError:
            fail("bad_argument", {"function": name, "detail": "the argument is outside the function's domain"})

    return impl


def _len(ctx: Context, b: Bound) -> object:
    x = b["obj"]
    if type(x) is np.ndarray:
        if x.ndim == 0:
            fail("type_error", {"operation": "len", "types": ["0-d array"]})
        return len(x)
    if is_seq(x) or isinstance(x, str | range):
        return len(x)  # type: ignore[arg-type]
    fail("type_error", {"operation": "len", "types": [type_name(x)]})


def _abs(ctx: Context, b: Bound) -> object:
    x = b["x"]
    if is_number(x):
        return abs(x)  # type: ignore[arg-type]
    a = as_array(ctx, x)
    _sized(ctx, a.size)
    return np.abs(a)


def _scalar_of(x: object, name: str) -> object:
    if type(x) is np.ndarray:
        if x.size != 1:
            fail("bad_argument", {"function": name, "detail": "only an array with one element can be converted"})
        return x.item()
    if not is_number(x):
        fail("bad_argument", {"function": name, "detail": f"cannot convert a {type_name(x)}"})
    return x


def _from_text(text: str, name: str) -> float:
    """``float('-inf')``, ``float('1e-9')``: Python's own parse of a literal of at most ``max_string_chars``
    characters (so its cost is bounded); anything it cannot read is a bad argument, never an exception."""
    try:
        return float(text)
    except ValueError:
        fail("bad_argument", {"function": name, "detail": f"cannot read {clean(text)!r} as a number"})


def _float(ctx: Context, b: Bound) -> object:
    x = b["x"]
    if isinstance(x, str):
        return _from_text(x, "float")
    return float(_scalar_of(x, "float"))  # type: ignore[arg-type]


def _intfn(ctx: Context, b: Bound) -> object:
    return ops.check_int(ctx, int(_scalar_of(b["x"], "int")))  # type: ignore[call-overload]


def _boolfn(ctx: Context, b: Bound) -> object:
    return ops.truth(b["x"])


def _minmax(pick: Callable[..., Any], name: str) -> Impl:
    def impl(ctx: Context, b: Bound) -> object:
        values = [b["a"], b["b"], *b.get("*", ())]  # type: ignore[misc]
        if len(values) > 16:
            fail("bad_argument", {"function": name, "detail": "at most 16 numbers"})
        return pick(_number(v, "argument", name) for v in values)

    return impl


def _round(ctx: Context, b: Bound) -> object:
    x = _number(b["number"], "number", "round")
    nd = b.get("ndigits")
    return round(x) if nd is None else round(x, _int(nd, "ndigits", "round", -32, 32))


def _print(ctx: Context, b: Bound) -> object:
    return None  # accepted so a stray print() does not fail a card; prints nothing


def _np_round(ctx: Context, b: Bound) -> object:
    a = as_array(ctx, b["a"])
    _sized(ctx, a.size)
    return np.round(a, _int(b.get("decimals", 0), "decimals", "round", -32, 32))


# --- sized from their arguments: einsum, repeat, tile, the triangle indices ---------------------

_LETTERS: Final = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")


def _einsum_term(term: str) -> tuple[list[str], int | None]:
    """One operand's subscripts: its letters and where its ``...`` stands (None if it has none)."""
    ellipsis = None
    if "..." in term:
        ellipsis = term.index("...")
        term = term[:ellipsis] + term[ellipsis + 3 :]
        if "." in term:
            fail("bad_argument", {"function": "np.einsum", "detail": "at most one '...' per operand"})
    if not set(term) <= _LETTERS:
        fail("bad_argument", {"function": "np.einsum", "detail": "subscripts are letters, ',', '...' and '->'"})
    return list(term), ellipsis


def _einsum(ctx: Context, b: Bound) -> object:
    subscripts = b["subscripts"]
    if not isinstance(subscripts, str):
        detail = "the first argument is the subscripts, like 'ij,jk->ik'"
        fail("bad_argument", {"function": "np.einsum", "detail": detail})
    operands = [as_array(ctx, x) for x in b.get("*", ())]  # type: ignore[attr-defined]
    if not 1 <= len(operands) <= 4:
        fail("bad_argument", {"function": "np.einsum", "detail": "takes 1 to 4 arrays after the subscripts"})
    text = subscripts.replace(" ", "")
    left, arrow, right = text.partition("->")
    terms = left.split(",")
    if len(terms) != len(operands) or "->" in right:
        fail("bad_argument", {"function": "np.einsum", "detail": f"the subscripts name {len(terms)} operands"})
    dims: dict[str, int] = {}
    batch: list[tuple[int, ...]] = []
    counts: dict[str, int] = {}
    for i, (term, x) in enumerate(zip(terms, operands, strict=True)):
        letters, at = _einsum_term(term)
        extra = x.ndim - len(letters)
        if extra < 0 or (at is None and extra):
            detail = f"operand {i} has {x.ndim} dimensions but its subscripts {clean(term)!r} name {len(letters)}"
            fail("bad_argument", {"function": "np.einsum", "detail": detail})
        shape = x.shape if at is None else x.shape[:at] + x.shape[at + extra :]
        if at is not None:
            batch.append(x.shape[at : at + extra])
        for letter, d in zip(letters, shape, strict=True):
            counts[letter] = counts.get(letter, 0) + 1
            if dims.get(letter, 1) not in (1, d) and d != 1:
                fail("shape_mismatch", {"operation": "np.einsum", "shapes": [list(o.shape) for o in operands]})
            dims[letter] = max(dims.get(letter, 1), d) if d else 0
    broadcast = ops.broadcast(*batch, operation="np.einsum") if batch else ()
    if arrow:
        out, _ = _einsum_term(right)
        if len(set(out)) != len(out) or not set(out) <= set(dims):
            fail("bad_argument", {"function": "np.einsum", "detail": "each output letter once, and only input letters"})
    else:  # numpy's implicit output: the letters used once, in alphabetical order
        out = sorted(letter for letter, n in counts.items() if n == 1)
    out_shape = (*broadcast, *(dims[letter] for letter in out))
    ctx.check_ndim(len(out_shape))
    ctx.check_axes(out_shape)
    size = math.prod(out_shape)
    ctx.check_elements(size)
    loop = math.prod(broadcast) * math.prod(dims.values())  # numpy's whole index space, without optimize
    ctx.charge(loop * len(operands) + size)
    return np.einsum(text, *operands)


def _append(ctx: Context, b: Bound) -> object:
    a, v = as_array(ctx, b["arr"]), as_array(ctx, b["values"])
    raw = b.get("axis")
    axis = None if raw is None else _int(raw, "axis", "np.append", -64, 64)
    _sized(ctx, a.size + v.size)
    return np.append(a, v, axis=axis)


def _tri_indices(lower: bool) -> Impl:
    name = "np.tril_indices" if lower else "np.triu_indices"

    def impl(ctx: Context, b: Bound) -> object:
        n = _int(b["n"], "n", name, 0)
        k = _int(b.get("k", 0), "k", name)
        m = n if b.get("m") is None else _int(b["m"], "m", name, 0)
        ctx.check_axes((n, m))
        ctx.check_elements(n * m)
        _sized(ctx, 3 * n * m)  # numpy builds the (n, m) triangle, then the two index arrays
        return (np.tril_indices if lower else np.triu_indices)(n, k, m)

    return impl


def _repeat(ctx: Context, b: Bound) -> object:
    x = as_array(ctx, b["a"])
    raw = b.get("axis")
    axis = None if raw is None else _int(raw, "axis", "np.repeat", -64, 64)
    if axis is not None and not -x.ndim <= axis < x.ndim:
        fail("axis_error", {"axis": axis, "ndim": x.ndim})
    length = x.size if axis is None else x.shape[axis]
    rest = 1 if axis is None else math.prod(d for i, d in enumerate(x.shape) if i != axis % x.ndim)
    raw_repeats = b["repeats"]
    repeats: int | Array
    if not (is_seq(raw_repeats) or type(raw_repeats) is np.ndarray):
        repeats = _int(raw_repeats, "repeats", "np.repeat", 0, ctx.max_elements)
        total = length * repeats
    else:
        counts = as_array(ctx, raw_repeats)
        if counts.dtype.kind not in "iu" or counts.ndim > 1 or counts.size not in (1, length):
            fail("bad_argument", {"function": "np.repeat", "detail": "repeats: an integer, or one per item"})
        if counts.size and (counts.min() < 0 or counts.max() > ctx.max_elements):
            fail("bad_argument", {"function": "np.repeat", "detail": f"repeats must be 0 to {ctx.max_elements}"})
        total = int(counts.sum()) * (length if counts.size == 1 else 1)
        repeats = counts
    ctx.check_axes((total,))
    _sized(ctx, total * rest)
    return np.repeat(x, repeats, axis=axis)


def _tile(ctx: Context, b: Bound) -> object:
    x = as_array(ctx, b["A"])
    raw = b["reps"]
    reps = list(_tuple(raw)) if is_seq(raw) else [raw]
    if len(reps) > ctx.limits.max_ndim:
        ctx.check_ndim(len(reps))
    counts = [_int(r, "reps", "np.tile", 0, ctx.max_elements) for r in reps]
    ndim = max(x.ndim, len(counts))
    shape = (1,) * (ndim - x.ndim) + x.shape
    counts = [1] * (ndim - len(counts)) + counts
    out = tuple(d * r for d, r in zip(shape, counts, strict=True))
    ctx.check_ndim(ndim)
    ctx.check_axes(out)
    _sized(ctx, math.prod(out))
    return np.tile(x, counts)


def _moment(kind: str, name: str) -> Impl:
    """``np.var`` / ``np.std`` (and the methods), with ``ddof``."""

    def impl(ctx: Context, b: Bound) -> object:
        x = as_array(ctx, b["a"])
        axis = _axis(b.get("axis"), name)
        keepdims = _bool(b.get("keepdims", False), "keepdims", name)
        ddof = _int(b.get("ddof", 0), "ddof", name, 0)
        out = reduced_size(x.shape, axis)
        ctx.check_elements(out)
        _sized(ctx, 4 * max(1, x.size, out))  # the mean, the deviations, their squares, the sum
        axes = range(x.ndim) if axis is None else (axis if isinstance(axis, tuple) else (axis,))
        if x.size == 0 or any(-x.ndim <= a < x.ndim and x.shape[a] == 0 for a in axes):
            fail("bad_argument", {"function": name, "detail": "the variance of an empty selection is undefined"})
        return (np.var if kind == "var" else np.std)(x, axis=axis, keepdims=keepdims, ddof=ddof)

    return impl


_FINFO_NAMES: Final = ("min", "max", "eps", "tiny", "smallest_normal", "resolution", "bits", "dtype")


def _finfo_namespace(dtype: np.dtype[Any]) -> Namespace:
    info = np.finfo(dtype)
    values = {
        "min": info.min,
        "max": info.max,
        "eps": info.eps,
        "tiny": info.tiny,
        "smallest_normal": info.smallest_normal,
        "resolution": info.resolution,
        "bits": int(info.bits),
        "dtype": np.dtype(dtype),
    }
    assert set(values) == set(_FINFO_NAMES)
    return Namespace(f"np.finfo({dtype.name})", values)


FINFO: Final[dict[str, Namespace]] = {n: _finfo_namespace(np.dtype(n)) for n in ("float32", "float64")}


def _finfo(ctx: Context, b: Bound) -> object:
    """``np.finfo(scores.dtype).min``: float32 and float64 only (an int or bool dtype is a bad argument)."""
    v = b["dtype"]
    if type(v) is np.ndarray or isinstance(v, np.generic):
        dtype: np.dtype[Any] | None = v.dtype
    elif type(v) is float:
        dtype = np.dtype(np.float64)
    else:
        dtype = _dtype(v, "np.finfo")
    found = FINFO.get(dtype.name if dtype is not None else "")
    if found is None:
        fail("bad_argument", {"function": "np.finfo", "detail": "needs a float dtype: float32 or float64"})
    return found


# --- for list comprehensions ------------------------------------------------------------------


def _range(ctx: Context, b: Bound) -> object:
    start = _int(b["start"], "start", "range")
    stop = None if b.get("stop") is None else _int(b["stop"], "stop", "range")
    step = 1 if b.get("step") is None else _int(b["step"], "step", "range")
    if step == 0:
        fail("bad_argument", {"function": "range", "detail": "step must not be 0"})
    return range(start) if stop is None else range(start, stop, step)


def _pairs(ctx: Context, n: int, width: int) -> None:
    """A list of ``n`` tuples of ``width`` items: refused before it is made if it would pass the item limit."""
    items, allowed = n * (1 + width), ctx.limits.max_sequence_items
    if items > allowed:
        fail("limit_exceeded", {"limit": "sequence_items", "requested": items, "allowed": allowed})
    ctx.charge(max(1, items))


def _enumerate(ctx: Context, b: Bound) -> object:
    x = b["iterable"]
    start = _int(b.get("start", 0), "start", "enumerate")
    _pairs(ctx, ops.length_of(ctx, x, "enumerate"), 2)
    return [(start + i, item) for i, item in enumerate(ops.expand(ctx, x))]


def _zip(ctx: Context, b: Bound) -> object:
    parts = [b["a"], *b.get("*", ())]  # type: ignore[misc]
    if len(parts) > 16:
        fail("bad_argument", {"function": "zip", "detail": "at most 16 sequences"})
    n = min(ops.length_of(ctx, p, "zip") for p in parts)
    _pairs(ctx, n, len(parts))
    return list(zip(*(ops.expand(ctx, p[:n]) for p in parts), strict=True))


# --- helpers a question can hand to the learner ---------------------------------------------


def _softmax(ctx: Context, b: Bound) -> object:
    x = as_array(ctx, b["x"])
    axis = _int(b.get("axis", -1), "axis", "softmax", -64, 64)
    if x.size == 0:
        fail("bad_argument", {"function": "softmax", "detail": "the softmax of an empty array is undefined"})
    _sized(ctx, 4 * max(1, x.size))
    x = x - x.max(axis=axis, keepdims=True)  # stable: subtract the max first (lesson 1's helper)
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def _masked_fill(ctx: Context, b: Bound) -> object:
    x, mask = as_array(ctx, b["x"]), as_array(ctx, b["mask"])
    value = _number(b["value"], "value", "masked_fill")
    if mask.dtype.kind != "b":
        fail("bad_argument", {"function": "masked_fill", "detail": "mask must be a boolean array"})
    _sized(ctx, math.prod(ops.broadcast(x.shape, mask.shape, operation="masked_fill")))
    return np.where(mask, value, x)  # like torch's masked_fill: True = replaced


HELPER_SOURCES: Final[dict[str, str]] = {
    "softmax": (
        "def softmax(x, axis=-1):\n"
        "    x = x - x.max(axis=axis, keepdims=True)          # 数值稳定：先减最大值\n"
        "    e = np.exp(x)\n"
        "    return e / e.sum(axis=axis, keepdims=True)\n"
    ),
    "masked_fill": (
        "def masked_fill(x, mask, value):\n"
        "    return np.where(mask, value, x)                  # like torch's masked_fill: True = replaced\n"
    ),
}

# ---------------------------------------------------------------------------------------------
# The tables


def _f(
    name: str,
    params: tuple[str, ...],
    impl: Impl,
    required: int = 1,
    keywords: tuple[str, ...] = (),
    varargs: bool = False,
    dtype: np.dtype[Any] | None = None,
) -> SafeFunction:
    return SafeFunction(name, params, impl, required, frozenset(keywords), varargs, dtype)


def _np_functions() -> dict[str, object]:
    table: dict[str, object] = {}
    unary: list[tuple[str, Callable[..., Any]]] = [
        ("sqrt", np.sqrt),
        ("exp", np.exp),
        ("log", np.log),
        ("abs", np.abs),
        ("absolute", np.abs),
        ("square", np.square),
        ("tanh", np.tanh),
        ("sin", np.sin),
        ("cos", np.cos),
        ("sign", np.sign),
        ("isinf", np.isinf),
        ("isnan", np.isnan),
        ("isfinite", np.isfinite),
        ("isneginf", np.isneginf),
        ("isposinf", np.isposinf),
        ("logical_not", np.logical_not),
        ("negative", np.negative),
    ]
    for n, fn in unary:
        table[n] = _f(f"np.{n}", ("x",), _elementwise(fn))
    for n, fn in [
        ("maximum", np.maximum),
        ("minimum", np.minimum),
        ("logaddexp", np.logaddexp),
        ("logical_and", np.logical_and),
        ("logical_or", np.logical_or),
        ("logical_xor", np.logical_xor),
    ]:
        table[n] = _f(f"np.{n}", ("x1", "x2"), _elementwise2(fn, f"np.{n}"), 2)
    for n, method in [
        ("max", "max"),
        ("amax", "max"),
        ("min", "min"),
        ("amin", "min"),
        ("sum", "sum"),
        ("mean", "mean"),
        ("argmax", "argmax"),
        ("argmin", "argmin"),
        ("any", "any"),
        ("all", "all"),
    ]:
        table[n] = _f(f"np.{n}", ("a", "axis"), _reduction(method, f"np.{n}"), 1, ("axis", "keepdims"))
    table.update(
        {
            "where": _f("np.where", ("condition", "x", "y"), _where, 3),
            "triu": _f("np.triu", ("m", "k"), _tri(False), 1, ("k",)),
            "tril": _f("np.tril", ("m", "k"), _tri(True), 1, ("k",)),
            "ones": _f("np.ones", ("shape", "dtype"), _filled("ones"), 1, ("dtype",)),
            "zeros": _f("np.zeros", ("shape", "dtype"), _filled("zeros"), 1, ("dtype",)),
            "full": _f("np.full", ("shape", "fill_value", "dtype"), _filled("full"), 2, ("dtype",)),
            "ones_like": _f("np.ones_like", ("a", "dtype"), _filled_like("ones"), 1, ("dtype",)),
            "zeros_like": _f("np.zeros_like", ("a", "dtype"), _filled_like("zeros"), 1, ("dtype",)),
            "full_like": _f("np.full_like", ("a", "fill_value", "dtype"), _filled_like("full"), 2, ("dtype",)),
            "eye": _f("np.eye", ("N", "M", "k", "dtype"), _eye, 1, ("M", "k", "dtype")),
            "arange": _f("np.arange", ("start", "stop", "step"), _arange, 1, ("start", "stop", "step", "dtype")),
            "concatenate": _f("np.concatenate", ("arrays", "axis"), _concatenate(False), 1, ("axis",)),
            "stack": _f("np.stack", ("arrays", "axis"), _concatenate(True), 1, ("axis",)),
            "transpose": _f("np.transpose", ("a", "axes"), _transpose, 1, ("axes",)),
            "swapaxes": _f("np.swapaxes", ("a", "axis1", "axis2"), _swapaxes, 3),
            "moveaxis": _f("np.moveaxis", ("a", "source", "destination"), _moveaxis, 3),
            "expand_dims": _f("np.expand_dims", ("a", "axis"), _expand_dims, 2, ("axis",)),
            "squeeze": _f("np.squeeze", ("a", "axis"), _squeeze, 1, ("axis",)),
            "reshape": _f("np.reshape", ("a", "shape"), _reshape, 2, ("shape",)),
            "matmul": _f("np.matmul", ("x1", "x2"), _matmul, 2),
            "array": _f("np.array", ("object", "dtype"), _array(True), 1, ("dtype",)),
            "asarray": _f("np.asarray", ("object", "dtype"), _array(False), 1, ("dtype",)),
            "split": _f("np.split", ("ary", "indices_or_sections", "axis"), _split, 2, ("axis",)),
            "clip": _f("np.clip", ("a", "a_min", "a_max"), _clip, 3),
            "round": _f("np.round", ("a", "decimals"), _np_round, 1, ("decimals",)),
            "einsum": _f("np.einsum", ("subscripts",), _einsum, 1, varargs=True),
            "append": _f("np.append", ("arr", "values", "axis"), _append, 2, ("axis",)),
            "triu_indices": _f("np.triu_indices", ("n", "k", "m"), _tri_indices(False), 1, ("k", "m")),
            "tril_indices": _f("np.tril_indices", ("n", "k", "m"), _tri_indices(True), 1, ("k", "m")),
            "repeat": _f("np.repeat", ("a", "repeats", "axis"), _repeat, 2, ("axis",)),
            "tile": _f("np.tile", ("A", "reps"), _tile, 2),
            "var": _f("np.var", ("a", "axis"), _moment("var", "np.var"), 1, ("axis", "keepdims", "ddof")),
            "std": _f("np.std", ("a", "axis"), _moment("std", "np.std"), 1, ("axis", "keepdims", "ddof")),
            "finfo": _f("np.finfo", ("dtype",), _finfo),
            "inf": math.inf,
            "nan": math.nan,
            "pi": math.pi,
            "e": math.e,
            "newaxis": None,
        }
    )
    for n in ("float64", "float32", "int64", "int32", "bool_"):
        dt = DTYPES[n]
        table[n] = _f(f"np.{n}", ("x",), _convert(dt, f"np.{n}"), dtype=dt)
    return table


NP: Final = Namespace("np", _np_functions())
MATH: Final = Namespace(
    "math",
    {
        "sqrt": _f("math.sqrt", ("x",), _math(math.sqrt, "math.sqrt")),
        "exp": _f("math.exp", ("x",), _math(math.exp, "math.exp")),
        "log": _f("math.log", ("x",), _math(math.log, "math.log")),
        "inf": math.inf,
        "nan": math.nan,
        "pi": math.pi,
        "e": math.e,
    },
)

ARRAY_ATTRIBUTES: Final = frozenset({"T", "shape", "ndim", "size", "dtype"})
# Attributes of the namespaces functions return (np.finfo(...).eps); np.x and math.x are checked in their own tables.
OTHER_ATTRIBUTES: Final = frozenset(_FINFO_NAMES)
ARRAY_METHODS: Final[dict[str, SafeFunction]] = {
    **{
        n: _f(f".{n}", ("a", "axis"), _reduction(n, f".{n}"), 1, ("axis", "keepdims"))
        for n in ("max", "min", "sum", "mean", "argmax", "argmin", "any", "all")
    },
    "swapaxes": _f(".swapaxes", ("a", "axis1", "axis2"), _swapaxes, 3),
    "transpose": _f(".transpose", ("a", "axes"), _transpose, 1, varargs=True),
    "reshape": _f(".reshape", ("a", "shape"), _reshape, 2, varargs=True),
    "astype": _f(".astype", ("a", "dtype"), _astype, 2),
    "copy": _f(".copy", ("a",), _copy),
    "squeeze": _f(".squeeze", ("a", "axis"), _squeeze, 1, ("axis",)),
    "flatten": _f(".flatten", ("a",), _flatten),
    "ravel": _f(".ravel", ("a",), _flatten),
    "round": _f(".round", ("a", "decimals"), _np_round, 1, ("decimals",)),
    "repeat": _f(".repeat", ("a", "repeats", "axis"), _repeat, 2, ("axis",)),
    "var": _f(".var", ("a", "axis"), _moment("var", ".var"), 1, ("axis", "keepdims", "ddof")),
    "std": _f(".std", ("a", "axis"), _moment("std", ".std"), 1, ("axis", "keepdims", "ddof")),
}

BUILTINS: Final[dict[str, SafeFunction]] = {
    "len": _f("len", ("obj",), _len),
    "abs": _f("abs", ("x",), _abs),
    "float": _f("float", ("x",), _float, dtype=DTYPES["float"]),
    "int": _f("int", ("x",), _intfn, dtype=DTYPES["int"]),
    "bool": _f("bool", ("x",), _boolfn, dtype=DTYPES["bool"]),
    "min": _f("min", ("a", "b"), _minmax(min, "min"), 2, varargs=True),
    "max": _f("max", ("a", "b"), _minmax(max, "max"), 2, varargs=True),
    "round": _f("round", ("number", "ndigits"), _round, 1, ("ndigits",)),
    "print": _f("print", (), _print, 0, ("sep", "end"), varargs=True),
    "range": _f("range", ("start", "stop", "step"), _range),
    "enumerate": _f("enumerate", ("iterable", "start"), _enumerate, 1, ("start",)),
    "zip": _f("zip", ("a",), _zip, 1, varargs=True),
}

HELPERS: Final[dict[str, SafeFunction]] = {
    "softmax": _f("softmax", ("x", "axis"), _softmax, 1, ("axis",)),
    "masked_fill": _f("masked_fill", ("x", "mask", "value"), _masked_fill, 3),
}

# Names that exist in Python but are never available: refused by name, with their own message.
FORBIDDEN: Final = frozenset(
    {
        "eval",
        "exec",
        "compile",
        "open",
        "getattr",
        "setattr",
        "delattr",
        "hasattr",
        "globals",
        "locals",
        "vars",
        "dir",
        "type",
        "input",
        "breakpoint",
        "help",
        "memoryview",
        "object",
        "super",
        "exit",
        "quit",
        "id",
        "hash",
        "iter",
        "next",
        "classmethod",
        "staticmethod",
        "property",
        "isinstance",
        "issubclass",
        "callable",
        "format",
        "repr",
        "ascii",
        "chr",
        "ord",
        "bytes",
        "bytearray",
        "frozenset",
        "set",
        "dict",
        "list",
        "tuple",
        "map",
        "filter",
        "sorted",
        "reversed",
        "sum",
        "any",
        "all",
        "slice",
        "str",
        "complex",
        "divmod",
        "pow",
        "bin",
        "hex",
        "oct",
        "aiter",
        "anext",
        "license",
        "credits",
        "copyright",
        "os",
        "sys",
        "subprocess",
        "builtins",
        "importlib",
        "torch",
        "numpy",
        "ctypes",
        "pickle",
        "shutil",
        "socket",
        "signal",
        "resource",
        "gc",
        "inspect",
        "code",
        "codecs",
        "io",
        "pathlib",
        "marshal",
        "threading",
        "multiprocessing",
        "asyncio",
        "time",
        "random",
        "scipy",
        "jax",
    }
)


def base_names(helpers: tuple[str, ...]) -> dict[str, object]:
    """The names every run starts with: np, math, the few builtins, and the question's helpers."""
    env: dict[str, object] = {"np": NP, "math": MATH}
    env.update(BUILTINS)
    for h in helpers:
        env[h] = HELPERS[h]
    return env


def get_attribute(ctx: Context, base: object, attr: str) -> object:
    """``base.attr`` for the allowlisted cases only."""
    if type(base) is Namespace:
        if attr not in base.entries:
            fail("attribute_not_allowed", {"owner": base.name, "attribute": clean(attr)})
        return base.entries[attr]
    if type(base) is np.ndarray or (isinstance(base, np.generic) and base.dtype.kind in "biuf"):
        arr: Array = base if type(base) is np.ndarray else np.asarray(base)
        if attr == "T":
            return arr.T
        if attr == "shape":
            return tuple(int(d) for d in arr.shape)
        if attr == "ndim":
            return arr.ndim
        if attr == "size":
            return arr.size
        if attr == "dtype":
            return arr.dtype
        method = ARRAY_METHODS.get(attr)
        if method is not None:
            return BoundMethod(method, arr)
        fail("attribute_not_allowed", {"owner": "array", "attribute": clean(attr)})
    fail("attribute_not_allowed", {"owner": type_name(base), "attribute": clean(attr)})


def call(ctx: Context, fn: object, args: list[object], kwargs: dict[str, object]) -> object:
    if type(fn) is SafeFunction or type(fn) is BoundMethod:
        return fn.invoke(ctx, args, kwargs)
    fail("not_callable", {"type": type_name(fn)})


def keywords_of(callee: str) -> frozenset[str] | None:
    """Keywords allowed for a callee written as ``np.x`` / ``math.x`` / ``name`` / ``.method``;
    None when it is not statically known."""
    if callee.startswith("np."):
        entry = NP.entries.get(callee[3:])
    elif callee.startswith("math."):
        entry = MATH.entries.get(callee[5:])
    elif callee.startswith("."):
        entry = ARRAY_METHODS.get(callee[1:])
    else:
        entry = BUILTINS.get(callee) or HELPERS.get(callee)
    return entry.keywords if isinstance(entry, SafeFunction) else None


def describe_allowlist() -> dict[str, JSON]:
    """The allowlist as data, for the app's help text and the docs."""
    return {
        "np": sorted(NP.entries),
        "math": sorted(MATH.entries),
        "array_attributes": sorted(ARRAY_ATTRIBUTES),
        "finfo_attributes": sorted(OTHER_ATTRIBUTES),
        "array_methods": sorted(ARRAY_METHODS),
        "builtins": sorted(BUILTINS),
        "helpers": sorted(HELPERS),
        "dtypes": sorted(DTYPES),
    }
