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
     "code": str, "params": {...}, "message": str,   # the verdict, see messages.py
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

Layout: ``limits`` (the bounds), ``ops`` (operators, each bounded before numpy runs),
``functions`` (the allowlist), ``evaluator`` (parse, static checks, closures), ``spec`` (the data
model), ``specs`` (the built-in questions), ``grading`` (runs, comparison, diagnosis),
``worker`` (the process backstop). Nothing here imports Django.
"""

from .functions import describe_allowlist
from .grading import CheckResult, LineMark, SpecError, check_syntax, grade_code, validate_spec
from .limits import DEFAULT_LIMITS, HARD_LIMITS, Limits
from .messages import Message
from .spec import CaseSpec, InputSpec, MisconceptionCase, NameCheck, QuestionSpec
from .specs import SPECS, get, names
from .worker import Sandbox, sandbox

__all__ = [
    "DEFAULT_LIMITS",
    "HARD_LIMITS",
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
