"""A small interpreter for the subset of Python a learner needs to write attention in numpy.

Learner text is never given to ``exec``, ``eval`` or ``compile``-to-bytecode. It is parsed with
``ast.parse`` (after its length and line count are checked, so the parser only ever sees a few
kilobytes), checked node by node against an allowlist, and turned into a tree of small Python
closures that do exactly what each node means — and no more:

- statements: assignment (to names, tuple/list unpacking with one ``*rest``, array items),
  augmented assignment, ``if``/``elif``/``else``, bare expressions, ``pass``;
- expressions: numbers, True/False/None, ``...``, arithmetic and ``@``, comparisons, ``and``/``or``/
  ``not``, unary ``-``/``+``/``~``, ``x if c else y``, subscripts and slices (``None``/``...``
  included), tuples and lists, ``*x`` in calls, displays and subscripts, list comprehensions
  (nested ``for``, ``if`` filters), calls and attributes from ``functions.py``; strings only as
  short call arguments (``dtype="bool"``, ``float('-inf')``, einsum's subscripts).

Everything else is refused before anything runs, with its line and column: imports, loops
(``for``/``while`` statements), set/dict comprehensions and generator expressions, ``lambda``,
``def``, ``class``, ``with``, ``try``, ``global``, ``del``, f-strings, ``**`` unpacking, ``:=``,
names starting with ``_`` (so no dunders), Python builtins other than a handful, attributes other
than the allowlisted ones.

Why every run is bounded before numpy sees a job. Outside a list comprehension each node runs at
most once (no loops, no function definitions), so the AST node limit bounds the number of
operations, and each operation is bounded by ``ops`` before numpy runs. A comprehension is the one
place a node runs many times, so it carries its own bound instead of that argument: every
iteration, at any nesting level, is counted against the run's ``max_iterations`` (4,096 by
default, all comprehensions together, so nesting multiplies into the same count rather than past
it) and charged ``ops.ITERATION_COST`` work per syntax node of the comprehension (a call, a
subscript or an attribute counts ``ops.DEAR_NODE`` nodes: their checks cost µs), on the same
``max_work`` budget numpy's element operations draw from (with the default limits the charge binds
first: a comprehension has at least four nodes, so 4,096 iterations already cost the whole 2²⁰ budget;
``max_iterations`` bounds specs that raise ``max_work``); the operations inside are charged as
anywhere else, and the list it builds is held to ``max_sequence_items`` as it grows. So the work of
a run — the interpreter's own steps as well as numpy's — is bounded by ``max_work`` whatever the
code does, and each numpy call is still sized before it is made. ``*x`` takes its length first and
refuses more than ``max_sequence_items`` items before taking any. Loop names are bound while the
comprehension runs and restored after (they do not leak, as in Python 3).

Why not a library: ``asteval`` (the candidate the issue names) interprets a much larger language
(loops, comprehensions, ``def``, try/except, its own symbol table holding most of numpy) and
blocks danger by denylisting attribute names; its history includes escapes through exactly
such reachable objects (format-string and frame-walking tricks). Configuring it down to this
allowlist would leave most of its code unused but still reachable, and it does not bound the size
of numpy results before calling numpy, which is the half of the job that matters here. This module
is about 700 lines of code (``functions.py`` holds the allowlist, ``ops.py`` the bounds) that only
know what they allow. Why not CPython itself in an OS sandbox: see the package docstring.
"""

from __future__ import annotations

import ast
import builtins
import difflib
import textwrap
import warnings
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any, Final, NoReturn

from . import functions as F
from . import ops
from .limits import Limits
from .messages import Refusal, clean
from .ops import MISSING, Context

Expr = Callable[[Context], object]
Store = Callable[[Context, object], None]
Run = Callable[[Context], None]

_NOT_ALLOWED: Final[dict[type[ast.AST], str]] = {
    ast.Import: "import",
    ast.ImportFrom: "import",
    ast.For: "loop",
    ast.AsyncFor: "loop",
    ast.While: "loop",
    ast.SetComp: "comprehension",
    ast.DictComp: "comprehension",
    ast.GeneratorExp: "comprehension",
    ast.Lambda: "lambda",
    ast.FunctionDef: "function definition",
    ast.AsyncFunctionDef: "function definition",
    ast.ClassDef: "class",
    ast.With: "with",
    ast.AsyncWith: "with",
    ast.Try: "try",
    ast.TryStar: "try",
    ast.Global: "global",
    ast.Nonlocal: "global",
    ast.Delete: "del",
    ast.JoinedStr: "f-string",
    ast.FormattedValue: "f-string",
    ast.NamedExpr: "walrus",
    ast.Dict: "dict",
    ast.Set: "set",
    ast.Await: "yield",
    ast.Yield: "yield",
    ast.YieldFrom: "yield",
    ast.Return: "return",
    ast.Raise: "raise",
    ast.Assert: "assert",
    ast.Match: "match",
    ast.AnnAssign: "annotation",
}
_ALLOWED: Final = (
    ast.Module,
    ast.Expr,
    ast.Assign,
    ast.AugAssign,
    ast.If,
    ast.Pass,
    ast.Name,
    ast.Constant,
    ast.BinOp,
    ast.UnaryOp,
    ast.BoolOp,
    ast.Compare,
    ast.Call,
    ast.keyword,
    ast.Attribute,
    ast.Subscript,
    ast.Slice,
    ast.Tuple,
    ast.List,
    ast.IfExp,
    ast.ListComp,
    ast.comprehension,
    ast.Starred,
    ast.expr_context,
    ast.operator,
    ast.unaryop,
    ast.boolop,
    ast.cmpop,
)
_UNARY: Final[dict[type[ast.unaryop], str]] = {ast.USub: "-", ast.UAdd: "+", ast.Invert: "~", ast.Not: "not"}
_COMPARE: Final[dict[type[ast.cmpop], str]] = {
    ast.Eq: "==",
    ast.NotEq: "!=",
    ast.Lt: "<",
    ast.LtE: "<=",
    ast.Gt: ">",
    ast.GtE: ">=",
    ast.Is: "is",
    ast.IsNot: "is not",
    ast.In: "in",
    ast.NotIn: "not in",
}
MAX_LITERAL_INT: Final = 1 << 64


@dataclass(frozen=True)
class Names:
    """What the names in a piece of code can refer to, for the checks made before running it."""

    base: frozenset[str]  # np, math, the builtins, the question's helpers: never assigned
    inputs: frozenset[str]  # names the code receives
    array_inputs: frozenset[str]  # of those, the read-only arrays (cannot be changed in place)
    defined: frozenset[str] = frozenset()  # names the surrounding scaffold defines (T, d_k, scores, ...)


@dataclass
class Statement:
    """One top-level statement of compiled code, with what it assigns and where."""

    run: Run
    index: int
    line: int
    end_line: int
    assigns: tuple[str, ...]  # names bound or changed in place, in order
    assign_lines: dict[str, int] = field(default_factory=dict)  # name -> line of its last assignment here
    placeholder: str | None = None  # "name = ..." (a slot in a scaffold, a TODO left as is)


@dataclass
class Code:
    statements: list[Statement]
    where: str  # "code" | "scaffold"
    indent: int = 0  # columns removed from every line (pasted indented code)


def _refuse(code: str, params: dict[str, Any], node: ast.AST | None, where: str, shift: int) -> Refusal:
    r = Refusal(code, params, runnable=False)
    line = getattr(node, "lineno", None)
    col = getattr(node, "col_offset", None)
    return r.locate(line, None if col is None else col + 1 + shift, where)


# ---------------------------------------------------------------------------------------------
# Parsing and the static checks


def _dedent(source: str) -> tuple[str, int]:
    text = textwrap.dedent(source)
    for before, after in zip(source.split("\n"), text.split("\n"), strict=False):
        if before.strip():
            return text, len(before) - len(after)
    return text, 0


def parse(source: str, limits: Limits, where: str = "code") -> tuple[ast.Module, int]:
    """The AST of ``source`` after the size checks; refusals carry line and column."""
    if len(source) > limits.max_source_chars:
        raise _refuse("source_too_long", {"chars": len(source), "limit": limits.max_source_chars}, None, where, 0)
    source = source.replace("\r\n", "\n").replace("\r", "\n")
    if not source.strip():
        raise _refuse("empty_code", {}, None, where, 0)
    lines = source.count("\n") + 1
    if lines > limits.max_lines:
        raise _refuse("too_many_lines", {"lines": lines, "limit": limits.max_lines}, None, where, 0)
    text, shift = _dedent(source)
    if "\0" in text:  # the parser refuses these without a position
        at = text.index("\0")
        line = text.count("\n", 0, at) + 1
        col = at - (text.rfind("\n", 0, at) + 1) + 1 + shift
        r = Refusal("syntax_error", {"detail": "the code contains a null character"}, runnable=False)
        raise r.locate(line, col, where)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # e.g. invalid escape sequences: refused below anyway
            tree = ast.parse(text, mode="exec")
    except (SyntaxError, ValueError) as exc:
        if not isinstance(exc, SyntaxError):
            raise _refuse("syntax_error", {"detail": "invalid source text"}, None, where, 0) from None
        r = Refusal("syntax_error", {"detail": clean(exc.msg or "invalid syntax", 80)}, runnable=False)
        offset = None if exc.offset is None else exc.offset + shift
        raise r.locate(exc.lineno, offset, where) from None
    except (RecursionError, MemoryError):
        raise _refuse("too_deeply_nested", {"limit": limits.max_depth}, None, where, 0) from None
    return tree, shift


def _callee(func: ast.expr) -> str | None:
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        if isinstance(func.value, ast.Name) and func.value.id in ("np", "math"):
            return f"{func.value.id}.{func.attr}"
        return "." + func.attr
    return None


def _assigned_names(tree: ast.AST) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
    return names


def _root_name(node: ast.expr) -> str | None:
    while isinstance(node, ast.Subscript):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def check(tree: ast.Module, names: Names, limits: Limits, where: str, shift: int) -> None:
    """Every static rule. Two iterative walks (a deep tree must not recurse here): first the size,
    depth and kinds of construct, outermost first (a loop is "a loop", not "range is not
    available"); then names, attributes, literals and keywords in evaluation order (left to
    right, inner before outer), so the problem reported is the one that would happen first."""
    known = names.base | names.inputs | names.defined | _assigned_names(tree)
    count = 0
    stack: list[tuple[ast.AST, int]] = [(tree, 0)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, ast.stmt | ast.expr | ast.keyword):
            count += 1
            if count > limits.max_nodes:
                nodes = sum(1 for n in ast.walk(tree) if isinstance(n, ast.stmt | ast.expr | ast.keyword))
                raise _refuse("too_many_nodes", {"nodes": nodes, "limit": limits.max_nodes}, None, where, shift)
        if depth > limits.max_depth:
            raise _refuse("too_deeply_nested", {"limit": limits.max_depth}, node, where, shift)
        kind = type(node)
        if kind in _NOT_ALLOWED:
            raise _refuse("not_allowed", {"construct": _NOT_ALLOWED[kind]}, node, where, shift)
        if not isinstance(node, _ALLOWED):
            raise _refuse("not_allowed", {"construct": clean(kind.__name__)}, node, where, shift)
        stack.extend((child, depth + 1) for child in reversed(list(ast.iter_child_nodes(node))))
    post: list[tuple[ast.AST, ast.AST | None, bool]] = [(tree, None, False)]
    while post:
        node, parent, expanded = post.pop()
        if expanded:
            _check_node(node, parent, names, known, limits, where, shift)
            continue
        post.append((node, parent, True))
        post.extend((child, node, False) for child in reversed(list(ast.iter_child_nodes(node))))
    _check_inputs_unchanged(tree, names, where, shift)


def _check_node(
    node: ast.AST, parent: ast.AST | None, names: Names, known: frozenset[str], limits: Limits, where: str, shift: int
) -> None:
    if isinstance(node, ast.Constant):
        v = node.value
        if isinstance(v, str):
            in_call = isinstance(parent, ast.keyword) or (isinstance(parent, ast.Call) and node in parent.args)
            if not in_call:
                raise _refuse("string_not_allowed", {}, node, where, shift)
            if len(v) > limits.max_string_chars:
                raise _refuse("literal_not_allowed", {"kind": "long_string"}, node, where, shift)
        elif isinstance(v, bytes):
            raise _refuse("literal_not_allowed", {"kind": "bytes"}, node, where, shift)
        elif isinstance(v, complex):
            raise _refuse("literal_not_allowed", {"kind": "complex"}, node, where, shift)
        elif isinstance(v, int) and not isinstance(v, bool) and abs(v) > MAX_LITERAL_INT:
            raise _refuse("literal_not_allowed", {"kind": "large_int"}, node, where, shift)
    elif isinstance(node, ast.Name):
        if node.id.startswith("_") and node.id != "_":  # the throwaway name `_` is fine: no dunder
            raise _refuse("private_name", {"name": clean(node.id)}, node, where, shift)
        if isinstance(node.ctx, ast.Store):
            if node.id in names.base or node.id in F.FORBIDDEN:
                raise _refuse("reserved_name", {"name": node.id}, node, where, shift)
        elif node.id not in known:
            if node.id in F.FORBIDDEN or node.id in _BUILTIN_NAMES:
                raise _refuse("forbidden_name", {"name": node.id}, node, where, shift)
            close = difflib.get_close_matches(node.id, sorted(known), 1, 0.75)
            raise _refuse(
                "unknown_name", {"name": clean(node.id), "suggestion": close[0] if close else None}, node, where, shift
            )
    elif isinstance(node, ast.Attribute):
        if node.attr.startswith("_"):
            raise _refuse("private_name", {"name": clean(node.attr)}, node, where, shift)
        if not isinstance(node.ctx, ast.Load):
            raise _refuse("not_allowed", {"construct": "attribute assignment"}, node, where, shift)
        base = node.value.id if isinstance(node.value, ast.Name) else None
        if base == "np" or base == "math":
            space = F.NP if base == "np" else F.MATH
            if node.attr not in space.entries:
                raise _refuse(
                    "attribute_not_allowed", {"owner": base, "attribute": clean(node.attr)}, node, where, shift
                )
        elif node.attr not in F.ARRAY_ATTRIBUTES | F.OTHER_ATTRIBUTES and node.attr not in F.ARRAY_METHODS:
            raise _refuse(
                "attribute_not_allowed", {"owner": "array", "attribute": clean(node.attr)}, node, where, shift
            )
    elif isinstance(node, ast.comprehension) and node.is_async:
        raise _refuse("not_allowed", {"construct": "yield"}, node.iter, where, shift)
    elif isinstance(node, ast.Call):
        callee = _callee(node.func)
        allowed = F.keywords_of(callee) if callee is not None else None
        for kw in node.keywords:
            if kw.arg is None:
                raise _refuse("not_allowed", {"construct": "keyword unpacking"}, kw.value, where, shift)
            if allowed is not None and kw.arg not in allowed:
                raise _refuse(
                    "keyword_not_allowed",
                    {"function": callee, "keyword": clean(kw.arg), "allowed": sorted(allowed)},
                    kw.value,
                    where,
                    shift,
                )


_BUILTIN_NAMES: Final = frozenset(vars(builtins))


def _check_inputs_unchanged(tree: ast.Module, names: Names, where: str, shift: int) -> None:
    """``Q *= 0`` / ``Q[0] = 0`` on a read-only input, before the learner rebinds Q, is refused here."""
    rebound: set[str] = set()
    for stmt in _statements_in_order(tree.body):
        if isinstance(stmt, ast.AugAssign):
            root = _root_name(stmt.target)
            if root in names.array_inputs and root not in rebound:
                raise _refuse("modifies_input", {"name": root}, stmt.target, where, shift)
        elif isinstance(stmt, ast.Assign):
            for target in stmt.targets:
                if isinstance(target, ast.Subscript):
                    root = _root_name(target)
                    if root in names.array_inputs and root not in rebound:
                        raise _refuse("modifies_input", {"name": root}, target, where, shift)
            for target in stmt.targets:
                for n in ast.walk(target):
                    if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
                        rebound.add(n.id)


def _statements_in_order(body: Iterable[ast.stmt]) -> Iterable[ast.stmt]:
    for stmt in body:
        yield stmt
        if isinstance(stmt, ast.If):
            yield from _statements_in_order(stmt.body)
            yield from _statements_in_order(stmt.orelse)


# ---------------------------------------------------------------------------------------------
# Compiling to closures


class _At:
    """A compiled node's position. A refusal raised inside ``with at:`` leaves with this position
    unless an inner node already gave it one: the one rule for every closure below that calls into
    ``ops`` or ``functions``. A slotted class rather than ``contextlib``: it runs on every operation."""

    __slots__ = ("col", "line", "where")

    def __init__(self, line: int | None, col: int | None, where: str) -> None:
        self.line, self.col, self.where = line, col, where

    def locate(self, refusal: Refusal) -> Refusal:
        return refusal.locate(self.line, self.col, self.where)

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        if isinstance(exc, Refusal):
            raise self.locate(exc) from None


class _Compiler:
    """Turns checked AST nodes into closures; positions are shifted by the removed indentation."""

    def __init__(self, where: str, shift: int, slots: tuple[str, ...]) -> None:
        self.where = where
        self.shift = shift
        self.slots = slots

    def at(self, node: ast.AST) -> _At:
        line = getattr(node, "lineno", None)
        col = getattr(node, "col_offset", None)
        return _At(line, None if col is None else col + 1 + self.shift, self.where)

    # --- expressions ---------------------------------------------------------------------
    def expr(self, node: ast.expr) -> Expr:
        at = self.at(node)

        if isinstance(node, ast.Constant):
            value = node.value
            return lambda ctx: value

        if isinstance(node, ast.Name):
            name = node.id

            def load(ctx: Context) -> object:
                v = ctx.env.get(name, MISSING)
                if v is MISSING:
                    raise at.locate(Refusal("name_error", {"name": clean(name)}))
                return v

            return load

        if isinstance(node, ast.Attribute):
            attr = node.attr
            if isinstance(node.value, ast.Name) and node.value.id in ("np", "math"):
                entry = (F.NP if node.value.id == "np" else F.MATH).entries[attr]
                return lambda ctx: entry  # np and math cannot be reassigned (reserved names)
            base = self.expr(node.value)

            def attribute(ctx: Context) -> object:
                b = base(ctx)
                with at:
                    return F.get_attribute(ctx, b, attr)

            return attribute

        if isinstance(node, ast.Call):
            fn = self.expr(node.func)
            args = self.items(node.args)
            kws = [(str(k.arg), self.expr(k.value)) for k in node.keywords]

            def call(ctx: Context) -> object:
                f = fn(ctx)
                a = args(ctx)
                kw = {k: v(ctx) for k, v in kws}
                with at:
                    return F.call(ctx, f, a, kw)

            return call

        if isinstance(node, ast.BinOp):
            left, right = self.expr(node.left), self.expr(node.right)
            symbol = ops.BINARY[type(node.op)][0]

            def binop(ctx: Context) -> object:
                a = left(ctx)
                b = right(ctx)
                with at:
                    return ops.binop(ctx, symbol, a, b)

            return binop

        if isinstance(node, ast.UnaryOp):
            operand = self.expr(node.operand)
            usym = _UNARY[type(node.op)]

            def unary(ctx: Context) -> object:
                a = operand(ctx)
                with at:
                    return ops.unary(ctx, usym, a)

            return unary

        if isinstance(node, ast.BoolOp):
            parts = [self.expr(v) for v in node.values]
            is_and = isinstance(node.op, ast.And)

            def boolop(ctx: Context) -> object:
                v: object = None
                with at:  # once, not per operand: an operand's own refusals already carry their position
                    for p in parts:
                        v = p(ctx)
                        if ops.truth(v) != is_and:
                            return v
                return v

            return boolop

        if isinstance(node, ast.Compare):
            first = self.expr(node.left)
            pairs = [(_COMPARE[type(o)], self.expr(c)) for o, c in zip(node.ops, node.comparators, strict=True)]

            def compare(ctx: Context) -> object:
                a = first(ctx)
                result: object = True
                with at:
                    for i, (sym, rf) in enumerate(pairs):
                        b = rf(ctx)
                        result = ops.compare(ctx, sym, a, b)
                        if i + 1 < len(pairs) and not ops.truth(result):
                            return result
                        a = b
                return result

            return compare

        if isinstance(node, ast.IfExp):
            test, body, orelse = self.expr(node.test), self.expr(node.body), self.expr(node.orelse)

            def ifexp(ctx: Context) -> object:
                t = test(ctx)
                with at:
                    ok = ops.truth(t)
                return body(ctx) if ok else orelse(ctx)

            return ifexp

        if isinstance(node, ast.Subscript):
            base, index = self.expr(node.value), self.index(node.slice)

            def subscript(ctx: Context) -> object:
                b = base(ctx)
                i = index(ctx)
                with at:
                    return ops.subscript(ctx, b, i)

            return subscript

        if isinstance(node, ast.Tuple | ast.List):
            items = self.items(node.elts)
            make: Callable[[Iterable[object]], object] = tuple if isinstance(node, ast.Tuple) else list

            def sequence(ctx: Context) -> object:
                value = make(items(ctx))
                with at:
                    ops.seq_items(ctx, value)
                return value

            return sequence

        if isinstance(node, ast.ListComp):
            return self.listcomp(node)

        raise at.locate(Refusal("not_allowed", {"construct": clean(type(node).__name__)}, runnable=False))

    def items(self, nodes: list[ast.expr]) -> Callable[[Context], list[object]]:
        """The values of call arguments or display items, ``*x`` expanded in place (bounded by ``ops.expand``)."""
        parts: list[tuple[bool, Expr, _At]] = []
        for e in nodes:
            starred = isinstance(e, ast.Starred)
            parts.append((starred, self.expr(e.value if isinstance(e, ast.Starred) else e), self.at(e)))
        if not any(p[0] for p in parts):
            plain = [p[1] for p in parts]
            return lambda ctx: [x(ctx) for x in plain]

        def values(ctx: Context) -> list[object]:
            out: list[object] = []
            for starred, x, at in parts:
                v = x(ctx)
                if not starred:
                    out.append(v)
                    continue
                with at:
                    out.extend(ops.expand(ctx, v))
            return out

        return values

    def listcomp(self, node: ast.ListComp) -> Expr:
        """``[elt for target in iter if cond ...]``: the loop names bound while it runs, restored after
        (they do not leak, as in Python 3). Each iteration at any level is one of the run's
        ``max_iterations`` and costs ``ITERATION_COST`` per syntax node of the whole comprehension (a call,
        a subscript or an attribute counts ``DEAR_NODE`` nodes: each costs microseconds of checks)."""
        at = self.at(node)
        cost = ops.ITERATION_COST * sum(
            ops.DEAR_NODE if isinstance(n, ast.Call | ast.Subscript | ast.Attribute) else 1
            for n in ast.walk(node)
            if isinstance(n, ast.expr)
        )
        levels = [(self.expr(g.iter), self.store(g.target), [self.expr(c) for c in g.ifs]) for g in node.generators]
        element = self.expr(node.elt)
        bound = sorted({n.id for g in node.generators for n in ast.walk(g.target) if isinstance(n, ast.Name)})

        def listcomp(ctx: Context) -> object:
            out: list[object] = []
            room = [ctx.limits.max_sequence_items - 1]  # items left for the list (the list itself is one)

            def level(k: int) -> None:
                source, target, conditions = levels[k]
                iterable = source(ctx)
                with at:
                    steps = ops.iterate(ctx, iterable, cost)
                    for item in steps:
                        target(ctx, item)
                        if not all(ops.truth(c(ctx)) for c in conditions):
                            continue
                        if k + 1 < len(levels):
                            level(k + 1)
                            continue
                        value = element(ctx)
                        room[0] -= _items_within(ctx, value, room[0])
                        out.append(value)

            saved = {name: ctx.env.get(name, MISSING) for name in bound}
            try:
                level(0)
            finally:
                for name, old in saved.items():
                    if old is MISSING:
                        ctx.env.pop(name, None)
                    else:
                        ctx.env[name] = old
            return out

        return listcomp

    def index(self, node: ast.expr) -> Expr:
        if isinstance(node, ast.Slice):
            parts = [None if p is None else self.expr(p) for p in (node.lower, node.upper, node.step)]
            lo, hi, st = parts
            return lambda ctx: slice(lo(ctx) if lo else None, hi(ctx) if hi else None, st(ctx) if st else None)
        if isinstance(node, ast.Tuple):
            if any(isinstance(e, ast.Starred) for e in node.elts):  # x[*idx] (Python 3.11)
                values = self.items(node.elts)
                return lambda ctx: tuple(values(ctx))
            items = [self.index(e) for e in node.elts]
            return lambda ctx: tuple(x(ctx) for x in items)
        return self.expr(node)

    # --- assignment targets ----------------------------------------------------------------
    def store(self, node: ast.expr) -> Store:
        at = self.at(node)
        if isinstance(node, ast.Name):
            name = node.id

            def bind(ctx: Context, v: object) -> None:
                ctx.env[name] = v

            return bind
        if isinstance(node, ast.Tuple | ast.List) and any(isinstance(e, ast.Starred) for e in node.elts):
            star = next(i for i, e in enumerate(node.elts) if isinstance(e, ast.Starred))
            targets = [self.store(e.value if isinstance(e, ast.Starred) else e) for e in node.elts]
            before, after = star, len(node.elts) - star - 1

            def unpack_starred(ctx: Context, v: object) -> None:
                with at:
                    items = ops.unpack_starred(ctx, v, before, after)
                for sub, item in zip(targets, items, strict=True):
                    sub(ctx, item)

            return unpack_starred
        if isinstance(node, ast.Tuple | ast.List):
            subs = [self.store(e) for e in node.elts]
            n = len(subs)

            def unpack(ctx: Context, v: object) -> None:
                with at:
                    items = ops.unpack(ctx, v, n)
                for sub, item in zip(subs, items, strict=True):
                    sub(ctx, item)

            return unpack
        if isinstance(node, ast.Subscript):
            base, index = self.expr(node.value), self.index(node.slice)

            def setitem(ctx: Context, v: object) -> None:
                b = base(ctx)
                i = index(ctx)
                with at:
                    ops.setitem(ctx, b, i, v)

            return setitem
        raise at.locate(Refusal("not_allowed", {"construct": "attribute assignment"}, runnable=False))

    # --- statements ------------------------------------------------------------------------
    def stmt(self, node: ast.stmt) -> Run:
        at = self.at(node)
        if isinstance(node, ast.Assign):
            slot_name = _placeholder_name(node)
            if slot_name is not None and slot_name in self.slots:
                k = self.slots.index(slot_name)

                def slot(ctx: Context) -> None:
                    assert ctx.slot_runner is not None
                    ctx.slot_runner(k)

                return slot
            value = self.expr(node.value)
            stores = [self.store(t) for t in node.targets]
            if len(stores) == 1:
                only = stores[0]

                def assign1(ctx: Context) -> None:
                    only(ctx, value(ctx))

                return assign1

            def assign(ctx: Context) -> None:
                v = value(ctx)
                for s in stores:
                    s(ctx, v)

            return assign

        if isinstance(node, ast.AugAssign):
            symbol = ops.BINARY[type(node.op)][0]
            value = self.expr(node.value)
            target = node.target
            if isinstance(target, ast.Name):
                name = target.id
                target_at = self.at(target)

                def augname(ctx: Context) -> None:
                    cur = ctx.env.get(name, MISSING)
                    if cur is MISSING:
                        raise target_at.locate(Refusal("name_error", {"name": clean(name)}))
                    v = value(ctx)
                    with at:
                        ctx.env[name] = ops.inplace(ctx, symbol, cur, v)

                return augname
            assert isinstance(target, ast.Subscript)
            base, index = self.expr(target.value), self.index(target.slice)

            def augitem(ctx: Context) -> None:
                b = base(ctx)
                i = index(ctx)
                v = value(ctx)
                with at:
                    cur = ops.subscript(ctx, b, i)
                    ops.setitem(ctx, b, i, ops.inplace(ctx, symbol, cur, v))

            return augitem

        if isinstance(node, ast.Expr):
            ev = self.expr(node.value)

            def expression(ctx: Context) -> None:
                ev(ctx)

            return expression

        if isinstance(node, ast.If):
            test = self.expr(node.test)
            body = [self.stmt(s) for s in node.body]
            orelse = [self.stmt(s) for s in node.orelse]

            def if_(ctx: Context) -> None:
                t = test(ctx)
                with at:
                    ok = ops.truth(t)
                for s in body if ok else orelse:
                    s(ctx)

            return if_

        if isinstance(node, ast.Pass):
            return lambda ctx: None
        raise at.locate(Refusal("not_allowed", {"construct": clean(type(node).__name__)}, runnable=False))


def _items_within(ctx: Context, value: object, room: int) -> int:
    """The list items ``value`` adds to a comprehension's list (itself and, for a list/tuple, what it
    holds), refused as soon as they pass the ``room`` left under ``max_sequence_items``."""
    if not ops.is_seq(value):
        if room < 1:
            _too_many_items(ctx)
        return 1
    try:
        return ops.seq_items(ctx, value, room)
    except Refusal:
        _too_many_items(ctx)


def _too_many_items(ctx: Context) -> NoReturn:
    allowed = ctx.limits.max_sequence_items
    raise Refusal("limit_exceeded", {"limit": "sequence_items", "requested": allowed + 1, "allowed": allowed})


def _assignments(stmt: ast.stmt) -> tuple[tuple[str, ...], dict[str, int]]:
    """Names a statement binds or changes in place (``x[...] =``, ``x +=``), with their last line."""
    order: list[str] = []
    lines: dict[str, int] = {}
    for s in _statements_in_order([stmt]):
        targets: list[ast.expr] = []
        if isinstance(s, ast.Assign):
            targets = list(s.targets)
        elif isinstance(s, ast.AugAssign):
            targets = [s.target]
        for t in targets:
            for n in ast.walk(t):
                name = n.id if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store) else None
                if isinstance(n, ast.Subscript) and isinstance(n.ctx, ast.Store):
                    name = _root_name(n)
                if name is not None:
                    if name not in lines:
                        order.append(name)
                    lines[name] = s.lineno
    return tuple(order), lines


def _placeholder_name(node: ast.AST) -> str | None:
    """``name`` if ``node`` is the statement ``name = ...`` (a scaffold's slot, a TODO left as is)."""
    if (
        isinstance(node, ast.Assign)
        and len(node.targets) == 1
        and isinstance(node.targets[0], ast.Name)
        and isinstance(node.value, ast.Constant)
        and node.value.value is Ellipsis
    ):
        return node.targets[0].id
    return None


def compile_code(
    source: str, names: Names, limits: Limits, *, where: str = "code", slots: tuple[str, ...] = ()
) -> Code:
    """Parse, check and compile ``source``; raises a non-runnable ``Refusal`` for anything refused.

    ``slots`` (scaffolds only): names whose ``name = ...`` statements are the places the learner's
    lines run (``Context.slot_runner(k)`` is called there).
    """
    tree, shift = parse(source, limits, where)
    check(tree, names, limits, where, shift)
    compiler = _Compiler(where, shift, slots)
    statements = []
    for i, node in enumerate(tree.body):
        assigns, lines = _assignments(node)
        end = getattr(node, "end_lineno", None) or node.lineno
        statements.append(Statement(compiler.stmt(node), i, node.lineno, end, assigns, lines, _placeholder_name(node)))
    return Code(statements, where, shift)


def slot_lines(source: str, limits: Limits) -> dict[str, tuple[int, int]]:
    """For a scaffold: each ``name = ...`` placeholder's (line, indentation), found anywhere in it."""
    tree, _ = parse(source, limits, "scaffold")
    out: dict[str, tuple[int, int]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and (name := _placeholder_name(node)) is not None:
            out[name] = (node.lineno, node.col_offset)
    return out


def run_statements(ctx: Context, statements: Iterable[Statement], where: str) -> None:
    """Run statements in order; a refusal leaves with its position (the statement's, if no node set one)."""
    for s in statements:
        try:
            s.run(ctx)
        except Refusal as e:
            raise e.locate(s.line, None, where) from None
