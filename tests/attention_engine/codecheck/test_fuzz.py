"""Fuzzing the evaluator: random text, random expressions and random ASTs only ever give a result
or a clear refusal — never an uncaught exception, never a run beyond the limits.

hypothesmith (Hypothesis strategies for whole Python programs) is used as well when it is
installed; our own strategies below always run: they aim at the interesting part of the language
(numpy calls, attributes, subscripts, big numbers, the constructs that must be refused).
"""

import ast
import json
import os
import re
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
LIMITS = Limits(max_array_elements=1 << 14, max_work=1 << 18)     # small, so reaching them is quick
FUZZ = QuestionSpec(
    key="fuzz", version=1, title="fuzz target",
    inputs=(InputSpec("Q", shape=("T", "d")), InputSpec("K", shape=("T", "d")), InputSpec("V", shape=("T", "d")),
            InputSpec("T", kind="dim", dim="T"), InputSpec("causal", kind="value", value=True)),
    cases=(CaseSpec("a", {"T": 4, "d": 8}), CaseSpec("b", {"T": 1, "d": 3}, adversarial=True)),
    required=(NameCheck("out"),),
    helpers=("softmax",),
    reference="out = softmax(Q @ K.swapaxes(-2, -1)) @ V\n",
    limits=LIMITS,
)
EXAMPLES = int(os.environ.get("CODECHECK_FUZZ_EXAMPLES", "200"))     # raise it for a longer hunt
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

NAMES = ["Q", "K", "V", "T", "causal", "out", "np", "math", "softmax", "len", "float", "int", "abs", "print",
         "x", "__import__", "getattr", "eval", "os", "open", "type", "object"]
NP_FUNCS = [*sorted(k for k, v in F.NP.entries.items() if isinstance(v, F.SafeFunction)),
            "lib", "load", "einsum", "kron", "tile", "frombuffer", "__dict__"]
ATTRS = [*sorted(F.ARRAY_ATTRIBUTES | set(F.ARRAY_METHODS)), "ctypes", "base", "__class__", "flags", "data", "f_back"]
KEYWORDS = ["axis", "keepdims", "dtype", "k", "out", "where", "casting", "decimals", "shape"]

atoms = st.one_of(
    st.sampled_from(NAMES),
    st.integers(-(10**20), 10**20).map(str),
    st.sampled_from(["0", "1", "-1", "2", "3", "10**9", "9**9**9", "1e308", "1e999", "0.5", "-0.0", "2**62"]),
    st.floats(allow_nan=False, allow_infinity=False).map(repr),
    st.sampled_from(['"bool"', '"float32"', '"O"', '"x" * 9', "None", "True", "...", "np.inf", "np.newaxis"]),
)


BINOPS = ["+", "-", "*", "/", "//", "%", "**", "@", "<<", ">>", "&", "|", "^", "<", "<=", "==", "!=", ">", "and",
          "or", "in", "is not"]
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
        return draw(st.sampled_from([
            f"({a} {draw(st.sampled_from(BINOPS))} {b})",
            f"({draw(st.sampled_from(['-', '+', '~', 'not ']))}{a})",
            f"np.{draw(st.sampled_from(NP_FUNCS))}({args}{kwargs})",
            f"({a}).{draw(st.sampled_from(ATTRS))}({args}{kwargs})",
            f"({a}).{draw(st.sampled_from(ATTRS))}",
            f"{draw(st.sampled_from(['softmax', 'len', 'float', 'abs', 'max', 'print', 'math.sqrt']))}({args}{kwargs})",
            f"({a})[{index}]",
            f"({a}, {b})",
            f"[{a}, {b}]",
            f"({a} if {b} else {c})",
        ]))

    return build()


expressions = st.recursive(atoms, compound, max_leaves=12)


@st.composite
def statements(draw):
    a, b = draw(expressions), draw(expressions)
    return draw(st.sampled_from([
        f"out = {a}", f"x = {a}", f"out {draw(st.sampled_from(['+=', '*=', '@=', '**=', '<<=']))} {a}",
        f"x = np.zeros((4, 8))\nx[{a}] = {b}", f"if {a}:\n    out = {b}\nelse:\n    out = Q", a,
    ]))


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
    st.one_of(st.integers(-(2**70), 2**70), st.floats(allow_nan=False), st.booleans(), st.none(),
              st.just(...), st.text(max_size=20), st.binary(max_size=4), st.complex_numbers(max_magnitude=5,
                                                                                              allow_nan=False))
    .map(ast.Constant),
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
        return draw(st.sampled_from([
            ast.BinOp(a, draw(st.sampled_from(binops))(), b),
            ast.UnaryOp(draw(st.sampled_from([ast.USub, ast.Not, ast.Invert]))(), a),
            ast.Attribute(a, draw(st.sampled_from(ATTRS)), load),
            ast.Call(ast.Attribute(_name("np"), draw(st.sampled_from(NP_FUNCS)), load), items,
                     [ast.keyword(k, v) for k, v in kws]),
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
        ]))

    return build()


ast_expressions = st.recursive(ast_atoms, ast_compound, max_leaves=10)
@st.composite
def ast_statements(draw):
    a, b = draw(ast_expressions), draw(ast_expressions)
    out = ast.Name("out", ast.Store())
    return draw(st.sampled_from([
        ast.Assign([out], a), ast.Expr(a), ast.If(a, [ast.Assign([out], b)], []), ast.AugAssign(out, ast.Mult(), a),
        ast.While(a, [ast.Pass()], []), ast.Delete([ast.Name("Q", ast.Del())]), ast.Import([ast.alias("os")]),
    ]))


@FUZZ_SETTINGS
@given(st.lists(ast_statements(), min_size=1, max_size=3))
def test_random_asts(body):
    tree = ast.fix_missing_locations(ast.Module(body, []))
    try:
        source = ast.unparse(tree)
    except (ValueError, TypeError, AttributeError, RecursionError):
        return                                  # a tree with no source form: nothing a learner could type
    check_result(source)
    run_directly(source)


# --- whole Python programs, when hypothesmith is installed -------------------------------------

def test_hypothesmith_programs():
    hypothesmith = pytest.importorskip("hypothesmith", reason="hypothesmith is optional (pip install hypothesmith)")

    @settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))
    @given(hypothesmith.from_grammar())
    def inner(source):
        check_result(source)
        run_directly(source)

    inner()
