"""Lesson 4's code card ``apply_rope`` (issue 29): its reference is attention_engine.positional.apply_rope on every
input, and each named mistake is caught on a required input, not only on the optional batched one."""

from __future__ import annotations

import numpy as np

from attention_engine import positional
from attention_engine.codecheck import grade_code, specs
from attention_engine.codecheck.grading import prepare

ROPE = specs.get("apply_rope")


def test_the_reference_rotates_like_the_engine_and_keeps_scores_relative():
    prepared = prepare(ROPE, 0)
    for i, case in enumerate(ROPE.cases):
        inp = prepared.inputs[i]
        out = {k: o.value for k, o in prepared.reference[i].outcomes.items()}
        q, k, m, n = np.array(inp["q"]), np.array(inp["k"]), inp["m"], inp["n"]
        T, S, d = q.shape[-2], k.shape[-2], q.shape[-1]
        np.testing.assert_allclose(out["theta"], 10000.0 ** (-np.arange(0, d, 2) / d))
        np.testing.assert_allclose(out["q_rot"], positional.apply_rope(q, m + np.arange(T)), atol=1e-12)
        np.testing.assert_allclose(out["k_rot"], positional.apply_rope(k, n + np.arange(S)), atol=1e-12)
        # the scores of the rotated vectors are those of q and k at positions shifted back by min(m, n)
        shift = min(m, n)
        again = positional.apply_rope(q, m - shift + np.arange(T)) @ np.swapaxes(
            positional.apply_rope(k, n - shift + np.arange(S)), -2, -1
        )
        scores = out["q_rot"] @ np.swapaxes(out["k_rot"], -2, -1)
        np.testing.assert_allclose(scores, again, atol=1e-9, err_msg=case.name)


def test_every_named_mistake_fails_a_required_input():
    required = {c.name for c in ROPE.cases if c.required}
    for m in ROPE.misconceptions:
        result = grade_code(ROPE, m.code)
        assert (result.verdict, result.misconception) == ("incorrect", m.id)
        failed = {c["name"] for c in result.to_dict()["cases"] if not c["passed"]}
        assert failed & required, (m.id, failed)


def test_the_three_mistakes_of_the_issue_are_named():
    assert {m.id for m in ROPE.misconceptions} >= {
        "rope_half_pairing_on_interleaved",  # rotate_half's (i, i + d/2) on interleaved data
        "rope_theta_exponent",  # 10000^(−i/d)
        "rope_query_by_key_position",  # q rotated by n instead of m
    }


def test_rotating_q_by_n_is_wrong_even_where_the_shapes_match():
    """With as many queries as keys the bug runs without an error: the values, not a crash, expose it."""
    bug = next(m for m in ROPE.misconceptions if m.id == "rope_query_by_key_position")
    cases = {c["name"]: c for c in grade_code(ROPE, bug.code).to_dict()["cases"]}
    assert not cases["plain"]["passed"] and not cases["wider"]["passed"]


def test_the_scaffold_fixes_the_interleaved_pairing_and_shows_three_todo_lines():
    shown = ROPE.display_code()
    assert "q1, q2 = q[..., 0::2], q[..., 1::2]" in shown
    assert shown.count("# TODO") == 3
