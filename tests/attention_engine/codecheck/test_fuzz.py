"""Fuzzing the evaluator: random text, random expressions and random ASTs only ever give a result
or a clear refusal — never an uncaught exception, never a run beyond the limits.

hypothesmith (Hypothesis strategies for whole Python programs, in requirements-dev.txt) feeds whole
programs; our own strategies aim at the interesting part of the language
(numpy calls, attributes, subscripts, big numbers, the constructs that must be refused).
"""

import ast
import json
import os
import re
import resource
import time

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from attention_engine.codecheck import CaseSpec, InputSpec, Limits, NameCheck, QuestionSpec, grade_code, messages
from attention_engine.codecheck import functions as F
from attention_engine.codecheck.evaluator import Names, compile_code, run_statements
from attention_engine.codecheck.messages import Refusal
from attention_engine.codecheck.ops import Context

CODES = set(re.findall(r"^``(\w+)``", messages.__doc__, flags=re.M))
LIMITS = Limits(max_array_elements=1 << 14, max_work=1 << 18)  # small, so reaching them is quick
FUZZ = QuestionSpec(
    key="fuzz",
    version=1,
    title="fuzz target",
    inputs=(
        InputSpec("Q", shape=("T", "d")),
        InputSpec("K", shape=("T", "d")),
        InputSpec("V", shape=("T", "d")),
        InputSpec("T", kind="dim", dim="T"),
        InputSpec("causal", kind="value", value=True),
    ),
    cases=(CaseSpec("a", {"T": 4, "d": 8}), CaseSpec("b", {"T": 1, "d": 3}, adversarial=True)),
    required=(NameCheck("out"),),
    helpers=("softmax",),
    reference="out = softmax(Q @ K.swapaxes(-2, -1)) @ V\n",
    limits=LIMITS,
)
EXAMPLES = int(os.environ.get("CODECHECK_FUZZ_EXAMPLES", "200"))  # raise it for a longer hunt
FUZZ_SETTINGS = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def check_result(source: str) -> None:
    start = time.perf_counter()
    result = grade_code(FUZZ, source)
    assert time.perf_counter() - start < 2.0
    assert result.code != "internal_error", source
    assert result.verdict in ("correct", "accepted", "incorrect", "rejected")
    assert result.code in CODES and all(m.code in CODES for m in result.messages), (result.code, source)
    assert result.work <= LIMITS.max_work
    if not result.runnable:
        assert result.verdict == "rejected" and result.suggested_rating is None
    json.dumps(result.to_dict(), allow_nan=False)
    assert result.message


def run_directly(source: str) -> None:
    """The interpreter alone, without grading's safety net: only a Refusal may come out."""
    env = F.base_names(("softmax",))
    inputs = FUZZ.make_inputs(0, 0)
    names = Names(frozenset(env), frozenset(inputs), FUZZ.array_inputs)
    try:
        program = compile_code(source, names, LIMITS)
    except Refusal as r:
        assert not r.runnable and r.code in CODES
        return
    env.update(inputs)
    ctx = Context(env, LIMITS)
    try:
        with np.errstate(all="ignore"):
            run_statements(ctx, program.statements, "code")
    except Refusal as r:
        assert r.runnable and r.code in CODES and r.line is not None
    assert ctx.work <= LIMITS.max_work
    for value in env.values():
        if isinstance(value, np.ndarray):
            assert value.size <= LIMITS.max_array_elements and value.dtype.kind in "biuf"
        if isinstance(value, int) and not isinstance(value, bool):
            assert value.bit_length() <= LIMITS.max_int_bits


# --- random text ----------------------------------------------------------------------------

CODE_CHARS = st.sampled_from([*"QKVTnpx0129.,:;()[]{}+-*/%@<>=!&|^~ \n\t'\"#_eilrsuw", "np.", "**", "K.T"])


@FUZZ_SETTINGS
@given(st.text(max_size=300))
def test_random_text(text):
    check_result(text)
    run_directly(text)


@FUZZ_SETTINGS
@given(st.lists(CODE_CHARS, max_size=120).map("".join))
def test_random_code_like_text(text):
    check_result("out = " + text)
    run_directly(text)


# --- random expressions ----------------------------------------------------------------------

NAMES = [
    "Q",
    "K",
    "V",
    "T",
    "causal",
    "out",
    "np",
    "math",
    "softmax",
    "len",
    "float",
    "int",
    "abs",
    "print",
    "x",
    "__import__",
    "getattr",
    "eval",
    "os",
    "open",
    "type",
    "object",
]
NP_FUNCS = [
    *sorted(k for k, v in F.NP.entries.items() if isinstance(v, F.SafeFunction)),
    "lib",
    "load",
    "einsum",
    "kron",
    "tile",
    "frombuffer",
    "__dict__",
]
ATTRS = [*sorted(F.ARRAY_ATTRIBUTES | set(F.ARRAY_METHODS)), "ctypes", "base", "__class__", "flags", "data", "f_back"]
CALLEES = ["softmax", "len", "float", "abs", "max", "print", "math.sqrt"]
KEYWORDS = ["axis", "keepdims", "dtype", "k", "out", "where", "casting", "decimals", "shape"]

atoms = st.one_of(
    st.sampled_from(NAMES),
    st.integers(-(10**20), 10**20).map(str),
    st.sampled_from(["0", "1", "-1", "2", "3", "10**9", "9**9**9", "1e308", "1e999", "0.5", "-0.0", "2**62"]),
    st.floats(allow_nan=False, allow_infinity=False).map(repr),
    st.sampled_from(['"bool"', '"float32"', '"O"', '"x" * 9', "None", "True", "...", "np.inf", "np.newaxis"]),
)


BINOPS = [
    "+",
    "-",
    "*",
    "/",
    "//",
    "%",
    "**",
    "@",
    "<<",
    ">>",
    "&",
    "|",
    "^",
    "<",
    "<=",
    "==",
    "!=",
    ">",
    "and",
    "or",
    "in",
    "is not",
]
INDICES = [":", "::-1", "1:", "None", "...", "..., None", ":, None", "-1"]


def compound(inner):
    """One more level of expression around ``inner`` (a composite, so its repr stays short)."""

    @st.composite
    def build(draw):
        a, b, c = draw(inner), draw(inner), draw(inner)
        args = ", ".join(draw(st.lists(inner, max_size=3)))
        kws = draw(st.lists(st.tuples(st.sampled_from(KEYWORDS), inner), max_size=2, unique_by=lambda t: t[0]))
        kwargs = "".join(f", {k}={v}" for k, v in kws)
        index = draw(st.one_of(st.just(b), st.sampled_from(INDICES)))
        return draw(
            st.sampled_from(
                [
                    f"({a} {draw(st.sampled_from(BINOPS))} {b})",
                    f"({draw(st.sampled_from(['-', '+', '~', 'not ']))}{a})",
                    f"np.{draw(st.sampled_from(NP_FUNCS))}({args}{kwargs})",
                    f"({a}).{draw(st.sampled_from(ATTRS))}({args}{kwargs})",
                    f"({a}).{draw(st.sampled_from(ATTRS))}",
                    f"{draw(st.sampled_from(CALLEES))}({args}{kwargs})",
                    f"({a})[{index}]",
                    f"({a}, {b})",
                    f"[{a}, {b}]",
                    f"({a} if {b} else {c})",
                    # issue 25: comprehensions, *-unpacking, einsum, float of text
                    f"[{a} for i in {b}]",
                    f"[{a} for i in range({b}) for j in range({c}) if {a}]",
                    f"[[i for i in {b}] for j in {c}]",
                    f"[*{a}]",
                    f"({a}, *{b})",
                    f"np.ones(*{a})",
                    f"np.einsum({draw(st.sampled_from(SUBSCRIPTS))}, {a}, {b})",
                    f"float({draw(st.sampled_from(TEXTS))})",
                ]
            )
        )

    return build()


SUBSCRIPTS = ["'ij,jk->ik'", "'i,j->ij'", "'...i,...j->...ij'", "'ii'", "'ij'", "'i,i->ii'", "'é,j'", "3"]
TEXTS = ["'-inf'", "'nan'", "'1e999'", "' 2_0 '", "'0x10'", "'١٢'", "'inf' * 2", "Q"]
expressions = st.recursive(atoms, compound, max_leaves=12)


@st.composite
def statements(draw):
    a, b = draw(expressions), draw(expressions)
    return draw(
        st.sampled_from(
            [
                f"out = {a}",
                f"x = {a}",
                f"out {draw(st.sampled_from(['+=', '*=', '@=', '**=', '<<=']))} {a}",
                f"x = np.zeros((4, 8))\nx[{a}] = {b}",
                f"if {a}:\n    out = {b}\nelse:\n    out = Q",
                a,
            ]
        )
    )


@FUZZ_SETTINGS
@given(st.lists(statements(), min_size=1, max_size=4).map("\n".join))
def test_random_expression_programs(source):
    check_result(source)
    run_directly(source)


@FUZZ_SETTINGS
@given(expressions)
def test_random_expressions_assigned_to_the_answer(expr):
    check_result(f"out = {expr}")


# --- random ASTs ---------------------------------------------------------------------------


def _name(n: str) -> ast.expr:
    return ast.Name(n, ast.Load())


ast_atoms = st.one_of(
    st.sampled_from(NAMES).map(_name),
    st.one_of(
        st.integers(-(2**70), 2**70),
        st.floats(allow_nan=False),
        st.booleans(),
        st.none(),
        st.just(...),
        st.text(max_size=20),
        st.binary(max_size=4),
        st.complex_numbers(max_magnitude=5, allow_nan=False),
    ).map(ast.Constant),
)


def ast_compound(inner):
    """One more level of AST around ``inner``, allowed constructs and refused ones alike."""
    binops = [ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Pow, ast.MatMult, ast.LShift, ast.Mod, ast.BitAnd]

    @st.composite
    def build(draw):
        a, b, c = draw(inner), draw(inner), draw(inner)
        items = draw(st.lists(inner, max_size=3))
        kws = draw(st.lists(st.tuples(st.sampled_from(KEYWORDS), inner), max_size=2, unique_by=lambda t: t[0]))
        load = ast.Load()
        return draw(
            st.sampled_from(
                [
                    ast.BinOp(a, draw(st.sampled_from(binops))(), b),
                    ast.UnaryOp(draw(st.sampled_from([ast.USub, ast.Not, ast.Invert]))(), a),
                    ast.Attribute(a, draw(st.sampled_from(ATTRS)), load),
                    ast.Call(
                        ast.Attribute(_name("np"), draw(st.sampled_from(NP_FUNCS)), load),
                        items,
                        [ast.keyword(k, v) for k, v in kws],
                    ),
                    ast.Subscript(a, b, load),
                    ast.Subscript(a, ast.Slice(b, None, None), load),
                    ast.Tuple(items, load),
                    ast.List(items, load),
                    ast.IfExp(a, b, c),
                    ast.Compare(a, [ast.Lt()], [b]),
                    # constructs that must be refused
                    ast.Lambda(ast.arguments([], [], None, [], [], None, []), a),
                    ast.ListComp(a, [ast.comprehension(ast.Name("i", ast.Store()), _name("Q"), [], 0)]),
                    ast.JoinedStr([ast.FormattedValue(a, -1, None)]),
                    ast.Starred(a, load),
                    ast.Dict([a], [b]),
                    ast.NamedExpr(ast.Name("w", ast.Store()), a),
                ]
            )
        )

    return build()


ast_expressions = st.recursive(ast_atoms, ast_compound, max_leaves=10)


@st.composite
def ast_statements(draw):
    a, b = draw(ast_expressions), draw(ast_expressions)
    out = ast.Name("out", ast.Store())
    return draw(
        st.sampled_from(
            [
                ast.Assign([out], a),
                ast.Expr(a),
                ast.If(a, [ast.Assign([out], b)], []),
                ast.AugAssign(out, ast.Mult(), a),
                ast.While(a, [ast.Pass()], []),
                ast.Delete([ast.Name("Q", ast.Del())]),
                ast.Import([ast.alias("os")]),
            ]
        )
    )


@FUZZ_SETTINGS
@given(st.lists(ast_statements(), min_size=1, max_size=3))
def test_random_asts(body):
    tree = ast.fix_missing_locations(ast.Module(body, []))
    try:
        source = ast.unparse(tree)
    except (ValueError, TypeError, AttributeError, RecursionError):
        return  # a tree with no source form: nothing a learner could type
    check_result(source)
    run_directly(source)


# --- whole Python programs (hypothesmith, from requirements-dev.txt) --------------------------------


def test_hypothesmith_programs():
    import hypothesmith

    @settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))
    @given(hypothesmith.from_grammar())
    def inner(source):
        check_result(source)
        run_directly(source)

    inner()


# --- the checks before each operation are exact ---------------------------------------------------

SHAPED = st.sampled_from(
    [
        "np.zeros((0, 10**9))",
        "np.zeros((10**9, 0))",
        "np.ones((3, 0))",
        "np.eye(0, 10**9)",
        "np.zeros(0)",
        "Q",
        "np.ones(60000)",
        "np.ones((128, 128))",
        "np.ones((2, 1, 3))",
        "np.arange(6)",
        "Q > 0",
        "Q.T",
        "T",
        "1",
        "-1",
        "0",
        "2",
        "None",
        "(0, 1)",
        "[0, 0]",
        "10**9",
        "np.ones((0, 3, 10**7))",
    ]
)
CALLS = sorted(k for k, v in F.NP.entries.items() if isinstance(v, F.SafeFunction))
METHODS = sorted(F.ARRAY_METHODS)


def shaped_compound(inner):
    @st.composite
    def build(draw):
        a, b, c = draw(inner), draw(inner), draw(inner)
        kw = draw(
            st.sampled_from(
                ["", ", axis=0", ", axis=-1", ", axis=1", ", keepdims=True", ", axis=0, keepdims=True", ", k=1"]
            )
        )
        return draw(
            st.sampled_from(
                [
                    f"np.{draw(st.sampled_from(CALLS))}({a}{kw})",
                    f"np.{draw(st.sampled_from(CALLS))}({a}, {b}{kw})",
                    f"np.{draw(st.sampled_from(CALLS))}({a}, {b}, {c})",
                    f"({a}).{draw(st.sampled_from(METHODS))}({kw.lstrip(', ')})",
                    f"({a}).{draw(st.sampled_from(METHODS))}({b})",
                    f"({a} {draw(st.sampled_from(['+', '*', '@', '<', '&']))} {b})",
                    f"({a})[{draw(st.sampled_from([':, None', 'None', '0', '[0, 0, 0]', '..., None', ':0']))}]",
                    f"[{a}, {b}]",
                    f"np.einsum({draw(st.sampled_from(SUBSCRIPTS))}, {a}, {b})",
                    f"np.stack([{a} for i in range({b})])",
                    f"np.repeat({a}, {b}{kw})",
                    f"np.tile({a}, ({b}, {c}))",
                ]
            )
        )

    return build()


@FUZZ_SETTINGS
@given(st.recursive(SHAPED, shaped_compound, max_leaves=6))
def test_no_operation_makes_an_array_its_checks_did_not_allow(monkeypatch_session, expr):
    """check_value (run after each operation) never sees an array over the limit: the size was
    known, and refused, before numpy ran. Empty arrays with a huge axis are the classic trap
    (summing the empty axis of a (0, 10**9) array gives 10**9 zeros)."""
    run_directly(f"out = {expr}")


@pytest.fixture(scope="module")
def monkeypatch_session():
    from attention_engine.codecheck import ops

    original = ops.check_value

    def strict(ctx, v):
        if isinstance(v, np.ndarray):
            assert v.size <= ctx.max_elements, f"an array of {v.size} elements was made before any check"
        return original(ctx, v)

    mp = pytest.MonkeyPatch()
    mp.setattr(ops, "check_value", strict)
    yield mp
    mp.undo()


ATOMS = [
    "np.zeros((0, 10**9))",
    "np.zeros((10**9, 0))",
    "np.ones((3, 0))",
    "np.zeros((0, 3, 10**7))",
    "Q",
    "Q > 0",
    "np.ones((128, 128))",
    "np.ones((2, 1, 3))",
    "np.arange(6)",
    "T",
    "0",
    "-1",
    "2",
    "10**9",
    "(0, 1)",
    "[0, 0]",
    "None",
    "True",
    "'i,j->ij'",
    "'-inf'",
    "range(10**9)",
]
KWARGS = ["", ", axis=0", ", axis=1", ", axis=-1", ", keepdims=True", ", axis=0, keepdims=True", ", axis=(0, 1)"]


def test_every_call_on_empty_and_huge_shapes_is_sized_before_it_runs(monkeypatch_session):
    """Exhaustively: every allowlisted function and method, on every awkward argument, with every
    axis/keepdims combination (and a second argument from the same list). Besides the results, the
    process's peak memory must not grow: numpy's own temporaries count too (np.triu of an empty
    (10**9, 0) array used to build a 10**9-element arange inside numpy)."""
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    programs = [f"out = np.{f}({a}{kw})" for f in CALLS for a in ATOMS for kw in KWARGS]
    programs += [f"out = ({a}).{m}({kw.lstrip(', ')})" for m in METHODS for a in ATOMS for kw in KWARGS]
    programs += [f"out = np.{f}({a}, {b})" for f in CALLS for a in ATOMS[:9] for b in ATOMS]
    programs += [f"out = ({a}).{m}({b})" for m in METHODS for a in ATOMS[:9] for b in ATOMS]
    programs += [f"out = {a} {op} {b}" for a in ATOMS for b in ATOMS for op in ("+", "@", "<", "&")]
    for source in programs:
        run_directly(source)
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 64 << 10  # KiB
