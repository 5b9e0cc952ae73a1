"""The worker backstop: same answers as in process, limits applied, restarted after a timeout or a
death, and nothing of the parent's environment inside."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from attention_engine.codecheck import (
    CaseSpec,
    InputSpec,
    Limits,
    NameCheck,
    QuestionSpec,
    Sandbox,
    grade_code,
    sandbox,
    specs,
)
from attention_engine.codecheck.worker import ROOT

SDPA = specs.get("sdpa_three_lines")

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the worker's limits are Linux rlimits")


@pytest.fixture(scope="module")
def box():
    with Sandbox() as b:
        yield b


def limits_of(pid: int) -> dict[str, str]:
    rows = Path(f"/proc/{pid}/limits").read_text().splitlines()[1:]
    return {row[:26].strip(): row[26:47].strip() for row in rows}


@pytest.mark.parametrize(
    "code",
    [
        SDPA.reference,
        *[m.code for m in SDPA.misconceptions[:4]],
        "scores = Q @ K.T\nmask = msk\nweights = 1",
        "import os",
    ],
)
def test_the_worker_answers_exactly_as_in_process(box, code):
    assert box.grade_code(SDPA, code).to_dict() == grade_code(SDPA, code).to_dict()


def test_a_spec_that_is_not_built_in_travels_as_data(box):
    custom = QuestionSpec.from_dict({**specs.get("stable_softmax").to_dict(), "key": "my_softmax", "version": 3})
    result = box.grade_code(custom, "e = np.exp(x)\np = e / e.sum(-1, keepdims=True)")
    assert (result.spec, result.spec_version, result.misconception) == ("my_softmax", 3, "no_max_subtraction")


def test_the_worker_runs_with_lowered_limits_and_a_clean_environment(box):
    box.grade_code(SDPA, SDPA.reference)
    limits = limits_of(box.pid)
    assert limits["Max file size"] == "0" and limits["Max core file size"] == "0"
    assert limits["Max open files"] == "32"
    assert limits["Max address space"] != "unlimited" and int(limits["Max address space"]) < 2 << 30
    assert limits["Max cpu time"] != "unlimited"
    environ = Path(f"/proc/{box.pid}/environ").read_bytes().split(b"\0")
    assert b"OPENBLAS_NUM_THREADS=1" in environ
    assert not [e for e in environ if e.startswith((b"DATABASE_URL", b"SECRET", b"DJANGO", b"REDIS"))]


SLOW = QuestionSpec(  # a spec allowing 16x the default work, for a slow run
    key="slow",
    version=1,
    title="slow",
    inputs=(InputSpec("x", shape=("n",)),),
    cases=tuple(CaseSpec(f"c{i}", {"n": 4}) for i in range(3)),
    required=(NameCheck("y"),),
    reference="y = x",
    limits=Limits(max_array_elements=1 << 20, max_work=1 << 24),
)
SLOW_CODE = "a = np.ones(1 << 20)\n" + "b = np.exp(a)\n" * 14 + "y = x"  # ~15M element operations per input


def test_a_timeout_kills_the_worker_and_the_next_request_restarts_it():
    with Sandbox(timeout=0.01) as b:  # far shorter than the slow grading: always overruns
        first_pid = b.pid
        result = b.grade_code(SLOW, SLOW_CODE)
        assert (result.verdict, result.code, result.runnable, result.suggested_rating) == (
            "rejected",
            "timeout",
            False,
            None,
        )
        assert b.pid is None
        b.timeout = 30.0
        assert b.grade_code(SLOW, SLOW_CODE).verdict == "correct"
        assert b.restarts == 1 and b.pid != first_pid


def test_a_dead_worker_is_reported_and_replaced():
    with Sandbox() as b:
        os.kill(b.pid, signal.SIGKILL)  # our own child, by pid
        time.sleep(0.05)
        results = [b.grade_code(SDPA, SDPA.reference).code for _ in range(2)]
        assert results[-1] == "correct" and set(results) <= {"correct", "worker_crashed"}
        assert b.restarts == 1


def test_the_address_space_limit_stops_what_the_checks_would_miss():
    """The backstop itself, without the checks: a process limited as the worker is cannot allocate 2 GiB."""
    script = (
        "import sys; sys.path.insert(0, sys.argv[1]); import numpy as np; "
        "from attention_engine.codecheck.worker import _limit_self; _limit_self(256)\n"
        "try:\n    np.ones(1 << 28)\nexcept MemoryError:\n    print('refused')\n"
    )
    out = subprocess.run(
        [sys.executable, "-I", "-c", script, ROOT],
        capture_output=True,
        text=True,
        timeout=60,
        env={"OPENBLAS_NUM_THREADS": "1", "PATH": os.environ.get("PATH", "")},
    )
    assert out.stdout.strip() == "refused"


def test_one_sandbox_per_process():
    a = sandbox()
    assert sandbox() is a and a.pid is not None
    assert a.grade_code(SDPA, SDPA.reference).passed


def test_a_megabyte_is_refused_without_being_sent(box):
    result = box.grade_code(SDPA, "x" * (1 << 20))
    assert (result.code, result.params["chars"]) == ("source_too_long", 1 << 20)
