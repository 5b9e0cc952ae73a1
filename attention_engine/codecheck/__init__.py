"""Code questions checked by running them safely (issue 15, the engine half).

A learner writes a few lines of numpy (lesson 1's three TODO lines, a stable softmax, a causal
mask, nanoGPT's head split, a KV-cache step). The checker runs them in a sandboxed interpreter on
K = 5 seeded inputs — plain ones and adversarial ones (large logits, T = 1, d_k ≠ d_v, batched) —
compares every required name with the reference solution, and when one differs names the
misconception whose buggy code gives the same values, at the line that defines the name.

For the app
-----------
``specs.get(key)`` / ``SPECS``
    the built-in ``QuestionSpec`` objects; ``QuestionSpec.to_dict()`` / ``from_dict()`` is the JSON
    an admin can author and the app can store; ``validate_spec(spec)`` lists problems ([] = fine);
    ``spec.display_code()`` is the code to show (helpers, scaffold with TODO lines) and
    ``spec.describe()`` the rest an editor page needs (names given with their shapes, names to
    define, the input cases). A broken spec raises ``SpecError`` from the functions below; learner
    code never raises.
``grade_code(spec, code, seed=0) -> CheckResult``
    grading in this process (tests, CLI, and the fast path).
``Sandbox().grade_code(spec, code, seed=0) -> CheckResult`` / ``sandbox()``
    the same in a pre-started worker process with memory and CPU limits, restarted if it dies
    or overruns its wall-clock timeout: what production should call (``sandbox()`` is one per
    process, created on first use). Measured cost: see ``worker.py`` and bench/README.md.
``check_syntax(spec, code) -> Message | None``
    the static checks alone (no run): whether a submission would be runnable.

``seed`` picks the inputs (``default_rng([seed, case])``). A fixed seed per card (0) keeps every
grading on cached reference outputs; a per-attempt seed costs about 1 ms more the first time it is
used (bench/README.md). One worker grades one submission at a time (about 1.3 ms each); grading
in process should run with ``OPENBLAS_NUM_THREADS=1``, as the worker does.

``CheckResult.to_dict()`` (JSON; ``from_dict`` reads it back)::

    {"format": 1, "spec": "sdpa_three_lines", "spec_version": 1, "seed": 0,
     "verdict": "correct" | "accepted" | "incorrect" | "rejected",
     "runnable": bool,            # False = refused before running: lock nothing, let them fix it
     "passed": bool,              # counts as a correct answer (correct or accepted)
     "suggested_rating": 3 | 2 | 1 | null,      # Good / Hard / Again; null when rejected
     "code": str, "params": {...}, "message": str,   # the verdict, see messages.py (too_much_work: a run
                                                     # went past a limit, or left a value too big to compare)
     "misconception": "mask_hides_diagonal" | null,  # an id of attention_engine.misconceptions
     "messages": [{"code", "params", "message", "line", "col", "where", "name", "case"}, ...],
     "lines": [{"line", "end_line", "names", "mark", "code"}, ...],
         # mark: correct | incorrect | fails_optional | error | unchecked
     "cases": [{"name", "adversarial", "required", "batch", "note", "passed"}, ...],
     "example": {"case", "note", "name", "inputs", "input_shapes", "got", "got_shape", "expected",
                 "expected_shape", "error", "truncated"} | null,
     "work": int}                 # the most element operations one run took

Every code, with its params, is listed in ``messages.py``; ``misconceptions.describe(id)`` gives
the Chinese and English title and explanation of a named misconception.

Why an interpreter, and not CPython + numpy in an OS sandbox (issue 25)
-----------------------------------------------------------------------
Issue 25 asked for much more of what numpy users write (``float('-inf')``, ``np.finfo``, ``np.einsum``,
comprehensions, ``*``-unpacking …) and offered a second road: run the learner's code in real CPython
inside bubblewrap/seccomp, as PrairieLearn and Open edX grade in containers or AppArmor jails. We grew
the interpreter instead, for three reasons:

- **It runs everywhere ``make run`` must.** The default setup is Python, pip and git on a laptop: no
  bubblewrap on macOS, and no unprivileged user namespaces in many containers and CI runners. A sandbox
  that only exists on some machines would make the grader behave differently in development and in
  production, or not at all.
- **It bounds work before numpy runs, which an OS sandbox cannot.** numpy cannot be interrupted inside a
  call; in a jail the only bound is an rlimit that kills the process after the fact (``RLIMIT_CPU`` has
  one-second granularity), so every hostile submission costs the full CPU limit and a new process, and
  the verdict is "killed", not "line 3 would make a 10⁹-element array". Here every operation is sized
  from its arguments first (``ops``, ``functions``), so the worst submission the limits allow costs
  under 50 ms on an idle core (bench/README.md) and gets a message with its line — which is what makes a per-request
  grading budget of 2 s meaningful (``quizzes.practice.grading_budget``).
- **It is cheap per run.** Measured on this machine (2 cores, load ≈ 8 from other sessions, bubblewrap
  0.8.0, median of 15): a fresh ``bwrap --unshare-all`` around ``/bin/true`` 5.8 ms; around
  ``python -I -c "import numpy"`` 164 ms (132 ms without bwrap) — against a median grading of
  1.3–2.5 ms in the pre-started worker (bench/README.md). A fresh sandbox per submission is ~100× the cost; reusing one
  sandboxed interpreter across learners would need a fork server and seccomp policy of its own to keep
  one submission from leaving state (monkeypatched numpy, cached modules) for the next.

The cost of the choice is the allowlist: each new function is sized by hand before numpy sees it
(``functions.py`` has one small function per entry, each with attack cases in
tests/attention_engine/codecheck/attacks.json). Issue 25's additions took about 650 lines with their
docstrings (ops, functions, evaluator, grading): still a size one can read and review. Comprehensions were
the one change to the execution model (their iterations are counted and charged to the same work budget,
see ``evaluator``). Should the allowlist ever need to cover general Python (classes, loops over arbitrary
iterables, the whole of numpy), the jail is the better road, and this package's worker process
(``worker.py``) is where it would plug in.

Layout: ``limits`` (the bounds), ``ops`` (operators, each bounded before numpy runs),
``functions`` (the allowlist), ``evaluator`` (parse, static checks, closures), ``spec`` (the data
model), ``specs`` (the built-in questions), ``grading`` (runs, comparison, diagnosis),
``worker`` (the process backstop). Nothing here imports Django.
"""

from .functions import describe_allowlist
from .grading import CheckResult, LineMark, SpecError, check_syntax, grade_code, validate_spec
from .limits import DEFAULT_LIMITS, HARD_LIMITS, MAX_SOURCE_CHARS, Limits
from .messages import Message
from .spec import CaseSpec, InputSpec, MisconceptionCase, NameCheck, QuestionSpec
from .specs import SPECS, get, names
from .worker import Sandbox, sandbox

__all__ = [
    "DEFAULT_LIMITS",
    "HARD_LIMITS",
    "MAX_SOURCE_CHARS",
    "SPECS",
    "CaseSpec",
    "CheckResult",
    "InputSpec",
    "Limits",
    "LineMark",
    "Message",
    "MisconceptionCase",
    "NameCheck",
    "QuestionSpec",
    "Sandbox",
    "SpecError",
    "check_syntax",
    "describe_allowlist",
    "get",
    "grade_code",
    "names",
    "sandbox",
    "validate_spec",
]
