"""The attack corpus (attacks.json, one entry per line): each is refused with a clear message,
quickly, with bounded memory, in process and in the worker, and the test process is unaffected.

An entry: ``name``; ``code`` (or ``generate``: prefix + repeat_open * times + middle +
repeat_close * times + nothing); ``spec`` ("attack": inputs Q, K, V of shape (4, 8) and one
required name ``out``; or a built-in key); ``kind``: "static" (refused before running, not
runnable) or "runtime" (runs and fails on its first operation past a limit); ``expect``: the
acceptable codes (one of them must be the verdict's or a message's code).
"""

import json
import resource
import time
from pathlib import Path

import pytest

from attention_engine.codecheck import CaseSpec, InputSpec, NameCheck, QuestionSpec, Sandbox, grade_code, specs
from attention_engine.codecheck.messages import english

CORPUS = json.loads((Path(__file__).parent / "attacks.json").read_text())
TIME_LIMIT = 2.0  # seconds per submission: the worker's wall-clock timeout
RSS_GROWTH_LIMIT = 64 << 10  # KiB the test process may grow by while grading the whole corpus

ATTACK = QuestionSpec(
    key="attack",
    version=1,
    title="a target for the attack corpus",
    inputs=(InputSpec("Q", shape=("T", "d")), InputSpec("K", shape=("T", "d")), InputSpec("V", shape=("T", "d"))),
    cases=(CaseSpec("a", {"T": 4, "d": 8}), CaseSpec("b", {"T": 3, "d": 8}, adversarial=True)),
    required=(NameCheck("out"),),
    reference="out = Q @ K.T\n",
)


def source(entry: dict) -> str:
    if "code" in entry:
        return entry["code"]
    g = entry["generate"]
    return g["prefix"] + g["repeat_open"] * g["times"] + g["middle"] + g["repeat_close"] * g["times"]


def spec_of(entry: dict) -> QuestionSpec:
    return ATTACK if entry["spec"] == "attack" else specs.get(entry["spec"])


def assert_refused(entry: dict, result) -> None:
    codes = {result.code} | {m.code for m in result.messages}
    assert codes & set(entry["expect"]), (entry["name"], codes, result.message)
    assert not result.passed and result.verdict in ("rejected", "incorrect")
    assert result.runnable == (entry["kind"] == "runtime"), (entry["name"], result.code)
    assert result.suggested_rating in ((None,) if entry["kind"] == "static" else (1, 2))
    text = json.dumps(result.to_dict(), allow_nan=False)
    assert "Traceback" not in text and "Error:" not in text
    for m in result.messages:
        assert m.message and m.message != m.code.replace("_", " ")  # a real sentence, not a fallback
        assert m.line is None or m.line >= 1
    assert english(result.code, result.params)
    assert result.work <= spec_of(entry).limits.max_work


def test_the_corpus_is_big_and_names_are_unique():
    assert len(CORPUS) >= 40
    assert len({e["name"] for e in CORPUS}) == len(CORPUS)
    assert {e["kind"] for e in CORPUS} == {"static", "runtime"}


def test_the_target_spec_itself_works():
    assert grade_code(ATTACK, "out = Q @ K.swapaxes(-2, -1)").verdict == "correct"


@pytest.mark.parametrize("entry", CORPUS, ids=[e["name"] for e in CORPUS])
def test_each_attack_is_refused_clearly_and_quickly(entry):
    spec = spec_of(entry)
    start = time.perf_counter()
    result = grade_code(spec, source(entry))
    assert time.perf_counter() - start < TIME_LIMIT
    assert_refused(entry, result)


def test_static_refusals_say_where():
    for entry in CORPUS:
        if entry["kind"] == "static" and entry["expect"][0] not in (
            "source_too_long",
            "too_many_lines",
            "too_many_nodes",
            "too_deeply_nested",
        ):
            result = grade_code(spec_of(entry), source(entry))
            assert result.messages[0].line is not None, entry["name"]


def test_the_test_process_is_unaffected():
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    for _ in range(3):
        for entry in CORPUS:
            grade_code(spec_of(entry), source(entry))
    grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    assert grown < RSS_GROWTH_LIMIT, f"RSS grew by {grown} KiB"
    assert grade_code(ATTACK, "out = Q @ K.T").verdict == "correct"  # and still grades


def test_the_worker_refuses_the_corpus_without_ever_dying():
    with Sandbox(timeout=TIME_LIMIT) as box:
        pid = box.pid
        for entry in CORPUS:
            start = time.perf_counter()
            result = box.grade_code(spec_of(entry), source(entry))
            assert time.perf_counter() - start < TIME_LIMIT + 0.5
            assert_refused(entry, result)
        assert box.pid == pid and box.restarts == 0  # the checks held: the backstop never fired
        assert box.grade_code(ATTACK, "out = Q @ K.T").verdict == "correct"
