"""The interpreter: what it runs, what it refuses, where it says so, and that every bound holds."""

import ast
import re

import numpy as np
import pytest

from attention_engine.codecheck import DEFAULT_LIMITS, Limits, describe_allowlist, messages
from attention_engine.codecheck import functions as F
from attention_engine.codecheck.evaluator import Names, compile_code, run_statements
from attention_engine.codecheck.messages import Refusal, english
from attention_engine.codecheck.ops import Context


def inputs():
    rng = np.random.default_rng(0)
    Q = np.round(rng.standard_normal((4, 8)), 1)
    Q.flags.writeable = False
    return {"Q": Q, "T": 4, "causal": True}


def run(code: str, limits: Limits = DEFAULT_LIMITS, **extra):
    """Compile and run ``code`` with Q (4, 8), T = 4 and the softmax helper; returns (env, context)."""
    given = {**inputs(), **extra}
    arrays = frozenset(k for k, v in given.items() if isinstance(v, np.ndarray))
    env = F.base_names(("softmax",))
    names = Names(frozenset(env), frozenset(given), arrays)
    program = compile_code(code, names, limits)
    env.update(given)
    ctx = Context(env, limits)
    with np.errstate(all="ignore"):
        run_statements(ctx, program.statements, "code")
    return env, ctx


def refusal(code: str, limits: Limits = DEFAULT_LIMITS, **extra) -> Refusal:
    with pytest.raises(Refusal) as info:
        run(code, limits, **extra)
    return info.value


# --- what runs -------------------------------------------------------------------------------


def test_assignments_unpacking_and_augmented_assignment():
    env, _ = run(
        "a, (b, c) = 1, (2.5, True)\nT2, d = Q.shape\nx = y = T2 * d\nx += 1\nz = Q.copy()\nz *= 2\n"
        "z[0, :] = 0\nz[1] += 1"
    )
    assert (env["a"], env["b"], env["c"], env["T2"], env["d"], env["x"], env["y"]) == (1, 2.5, True, 4, 8, 33, 32)
    expected = env["Q"] * 2
    expected[0] = 0
    expected[1] += 1
    assert np.array_equal(env["z"], expected)


def test_subscripts_slices_none_and_ellipsis():
    env, _ = run(
        "a = Q[None, :, 0]\nb = Q[..., ::2]\nc = Q[-1]\nd = Q[1:3, np.newaxis]\ne = Q.shape[-1]\n"
        "f = Q[Q > 0]\ng = Q[[0, 2]]\nh = Q[np.arange(2), 0]"
    )
    Q = env["Q"]
    assert env["a"].shape == (1, 4) and env["b"].shape == (4, 4) and env["c"].shape == (8,)
    assert env["d"].shape == (2, 1, 8) and env["e"] == 8
    assert np.array_equal(env["f"], Q[Q > 0]) and env["g"].shape == (2, 8) and env["h"].shape == (2,)


def test_control_flow_and_logic():
    env, _ = run(
        "if causal and T > 3:\n    a = 1\nelif T == 0:\n    a = 2\nelse:\n    a = 3\n"
        "b = 1 if not causal else None\nc = 1 < T <= 4 < 5\nd = T in (1, 4) and T is not None\n"
        "e = -T + +T - ~1\nf = (Q > 0) & (Q < 1) | ~(Q == 0) ^ (Q != 1)"
    )
    assert (env["a"], env["b"], env["c"], env["d"], env["e"]) == (1, None, True, True, 2)
    assert env["f"].dtype == bool


def test_allowlisted_calls_keywords_and_dtypes():
    env, _ = run(
        "m = np.triu(np.ones((T, T), dtype=bool), k=1)\nn = np.tril(np.ones((T, T)), -1).astype('bool')\n"
        "s = softmax(Q @ Q.T / math.sqrt(8), axis=-1)\nr = s.sum(axis=-1, keepdims=True)\n"
        "q, k, v = np.split(np.concatenate([Q, Q, Q], axis=-1), 3, axis=-1)\n"
        "w = np.where(m, -np.inf, Q @ Q.T)\nx = Q.reshape(2, 2, 8).transpose(1, 0, 2).swapaxes(-1, -2)\n"
        "y = np.full((2, 3), -np.inf)\nz = np.zeros(3, dtype=np.float32) + np.arange(3)\n"
        "f = float(Q[0, 0]) + int(2.7) + abs(-1) + len(Q) + max(1, 2) + round(0.5)\nprint(f, sep='')"
    )
    assert env["m"].dtype == bool and env["n"].dtype == bool and np.allclose(env["r"], 1.0)
    assert np.array_equal(env["q"], env["Q"]) and env["x"].shape == (2, 8, 2)
    assert np.isneginf(env["y"]).all() and env["z"].dtype == np.float64
    assert env["f"] == pytest.approx(float(env["Q"][0, 0]) + 2 + 1 + 4 + 2 + 0)


# --- what is refused before running, and where ---------------------------------------------------


@pytest.mark.parametrize(
    ("code", "expected", "line", "col"),
    [
        ("x = 1\nfor i in Q:\n    pass", "not_allowed", 2, 1),
        ("x = {i for i in Q}", "not_allowed", 1, 5),
        ("x = (i for i in Q)", "not_allowed", 1, 5),
        ("x = Q.__class__", "private_name", 1, 5),
        ("x = _hidden", "private_name", 1, 5),
        ("x = np.linalg.inv(Q)", "attribute_not_allowed", 1, 5),
        ("x = Q.tolist()", "attribute_not_allowed", 1, 5),
        ("x = np.exp(Q, out=Q)", "keyword_not_allowed", 1, 19),
        ("x = Q.max(initial=0)", "keyword_not_allowed", 1, 19),
        ("x = 'abc'", "string_not_allowed", 1, 5),
        ("x = eval('1')", "forbidden_name", 1, 5),
        ("x = sum(Q)", "forbidden_name", 1, 5),
        ("x = Qq", "unknown_name", 1, 5),
        ("np = 1", "reserved_name", 1, 1),
        ("softmax = 1", "reserved_name", 1, 1),
        ("Q += 1", "modifies_input", 1, 1),
        ("Q[0, 0] = 1", "modifies_input", 1, 1),
        ("x = 1 +", "syntax_error", 1, 8),
    ],
)
def test_static_refusals_have_a_position(code, expected, line, col):
    r = refusal(code)
    assert (r.code, r.runnable, r.line, r.col) == (expected, False, line, col)
    assert r.message().message.startswith(f"line {line}, column {col}: ")


def test_rebinding_an_input_first_then_changing_it_is_fine():
    env, _ = run("Q = Q.copy()\nQ *= 0")
    assert not env["Q"].any()


def test_limits_on_source_nodes_and_depth():
    assert refusal("x = 1\n" * 81).code == "too_many_lines"
    assert refusal("x = " + "+".join(["1"] * 30), Limits(max_nodes=20)).code == "too_many_nodes"
    assert refusal("x = " + "-" * 40 + "1").code == "too_deeply_nested"
    assert refusal("x = 1  #" + "x" * 5000).code == "source_too_long"


# --- what fails at run time, before numpy runs ----------------------------------------------------


def test_array_size_is_checked_exactly_at_the_limit():
    limits = Limits(max_array_elements=100)
    run("x = np.ones((10, 10))", limits)
    r = refusal("x = np.ones((10, 11))", limits)
    assert (r.code, r.params, r.runnable) == (
        "limit_exceeded",
        {"limit": "array_elements", "requested": 110, "allowed": 100},
        True,
    )
    assert refusal("a = np.ones(20)\nx = a[:, None] * a", limits).params["requested"] == 400
    assert refusal("a = np.ones((10, 10))\nx = a @ np.ones((10, 1000))", limits).code == "limit_exceeded"
    assert refusal("x = np.triu(np.ones(11))", limits).params["requested"] == 121 + 22  # numpy's mask + 2 aranges
    assert refusal("x = np.zeros((0, 101))", limits).params == {
        "limit": "axis_length",
        "requested": 101,
        "allowed": 100,
    }


def test_work_is_budgeted_per_run():
    limits = Limits(max_work=1000)
    _, ctx = run("a = np.ones(400)\nb = a + a", limits)
    assert 800 <= ctx.work <= 1000
    r = refusal("a = np.ones(400)\nb = a + a\nc = b + b", limits)
    assert r.params["limit"] == "work" and r.line == 3
    assert refusal("a = np.ones((10, 10))\nb = a @ a", Limits(max_work=500)).params["requested"] > 1000


def test_python_integers_and_sequences_are_bounded_before_computing():
    assert refusal("x = 2 ** 300").params == {"limit": "integer_bits", "requested": 301, "allowed": 256}
    run("x = 2 ** 255")
    assert refusal("x = 1 << 300").params["limit"] == "integer_bits"
    assert refusal("x = (1,) * 2000").params["limit"] == "sequence_items"
    assert refusal("x = [[0] * 100] * 100").params["limit"] == "sequence_items"
    run("x = [[0] * 10] * 10")


@pytest.mark.parametrize(
    ("code", "expected", "line", "col"),
    [
        ("x = Q + Q.T", "shape_mismatch", 1, 5),
        ("x = Q @ Q", "matmul_mismatch", 1, 5),
        ("if T > 10:\n    y = 1\nx = y", "name_error", 3, 5),
        ("v = Q[0]\nv[0] = 1", "read_only", 2, 1),
        ("x = Q.sum(axis=2)", "axis_error", 1, 5),
        ("x = Q[9]", "index_error", 1, 5),
        ("x = 1 / 0", "zero_division", 1, 5),
        ("x = 2.0 ** 5000", "overflow", 1, 5),
        ("x = np.exp + 1", "type_error", 1, 5),
        ("x = Q(1)", "not_callable", 1, 5),
        ("x = Q.astype('complex128')", "dtype_not_allowed", 1, 5),
        ("x = (-8) ** 0.5", "unsupported_value", 1, 5),
        ("x = 1 if Q else 2", "truth_value_ambiguous", 1, 5),
        ("a, b = Q.shape[0], 1, 2", "unpack_error", 1, 1),
        ("x = np.concatenate([Q, Q.T])", "numpy_error", 1, 5),
        ("x = np.ones(3, 'x')", "dtype_not_allowed", 1, 5),
        ("x = np.triu(1.0)", "bad_argument", 1, 5),
    ],
)
def test_runtime_errors_are_mapped_to_codes_with_positions(code, expected, line, col):
    r = refusal(code)
    assert (r.code, r.runnable, r.line, r.col) == (expected, True, line, col)
    text = r.message().message
    assert "Traceback" not in text and not text.endswith(expected.replace("_", " "))


def test_inputs_stay_unchanged_whatever_the_code_tries():
    given = inputs()
    before = given["Q"].copy()
    for code in ("v = Q.T\nv *= 0", "v = Q[:]\nv[...] = 0", "v = np.asarray(Q)\nv += 1", "v = Q.reshape(32)\nv[0] = 5"):
        with pytest.raises(Refusal, match="read_only"):
            run(code, Q=given["Q"])
    assert np.array_equal(given["Q"], before)


def test_attribute_access_goes_through_the_allowlist_only():
    assert isinstance(F.get_attribute(None, F.NP, "exp"), F.SafeFunction)  # type: ignore[arg-type]
    for owner, attr in [(F.NP, "lib"), (np.ones(2), "ctypes"), (np.ones(2), "base"), ((1, 2), "index"), (1, "real")]:
        with pytest.raises(Refusal, match="attribute_not_allowed"):
            F.get_attribute(None, owner, attr)  # type: ignore[arg-type]


# --- the tables are consistent ------------------------------------------------------------------

TABLE_CODES = re.findall(r"^``(\w+)``", messages.__doc__, flags=re.M)


def test_every_code_in_the_table_has_its_own_english_text():
    assert len(TABLE_CODES) >= 50
    samples = {
        "shapes": [[4, 5], [4]],
        "left": [4, 8],
        "right": [4, 8],
        "expected": [4, 4],
        "got": [4, 8],
        "limit": "work",
        "requested": 10,
        "allowed": 5,
        "types": ["array", "str"],
        "cases": ["batched"],
        "chars": 1,
        "lines": 1,
        "nodes": 1,
        "detail": "d",
        "construct": "loop",
        "name": "n",
        "owner": "np",
        "attribute": "lib",
        "function": "f",
        "keyword": "out",
        "allowed_keywords": [],
        "kind": "bytes",
        "operation": "+",
        "axis": 2,
        "ndim": 2,
        "type": "complex",
        "dtype": "object",
        "mismatched": 1,
        "total": 2,
        "line": 1,
        "case": "plain",
        "id": "x",
        "title": "t",
        "seconds": 2,
        "error": "x",
    }
    for code in TABLE_CODES:
        params = {**samples, "expected": ["a"] if code == "slot_order" else samples["expected"]}
        if code == "keyword_not_allowed":
            params["allowed"] = ["axis"]
        text = english(code, params)
        assert text and text != code.replace("_", " "), code


def test_every_code_the_package_can_raise_is_in_the_table():
    from pathlib import Path

    import attention_engine.codecheck as package

    raised = set()
    for path in Path(package.__file__).parent.glob("*.py"):
        raised |= set(re.findall(r'(?:fail|Refusal|_refuse|Status|Message)\(\s*"(\w+)"', path.read_text()))
    raised |= {
        "correct",
        "works_2d_only",
        "optional_cases_fail",
        "fails_adversarial",
        "misconception",
        "incorrect",
        "run_error",
    }
    assert raised <= set(TABLE_CODES), raised - set(TABLE_CODES)


def test_the_allowlist_has_no_file_memory_or_module_access():
    allow = describe_allowlist()
    dangerous = {
        "load",
        "save",
        "fromfile",
        "frombuffer",
        "memmap",
        "lib",
        "ctypeslib",
        "einsum_path",
        "kron",
        "outer",
        "os",
        "sys",
        "testing",
        "core",
        "random",
        "__dict__",
    }
    assert not dangerous & set(allow["np"])
    assert not {
        "ctypes",
        "base",
        "data",
        "flags",
        "setflags",
        "view",
        "tofile",
        "dump",
        "resize",
        "fill",
        "put",
        "itemset",
        "tolist",
        "tobytes",
    } & (set(allow["array_methods"]) | set(allow["array_attributes"]))
    for entry in F.NP.entries.values():
        if isinstance(entry, F.SafeFunction):
            assert not entry.keywords & {"out", "where", "casting", "order", "subok", "like", "initial"}, entry.name
    assert set(F.BUILTINS) & F.FORBIDDEN == set()


def test_no_learner_text_reaches_exec_eval_compile_or_getattr():
    from pathlib import Path

    for path in Path(F.__file__).parent.glob("*.py"):
        tree = ast.parse(path.read_text())
        calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)]
        assert not {c.func.id for c in calls} & {"exec", "eval", "compile", "__import__", "setattr"}, path.name
        for c in calls:
            if c.func.id in ("getattr", "hasattr"):  # only ever with a fixed attribute name
                assert isinstance(c.args[1], ast.Constant) and isinstance(c.args[1].value, str), path.name
