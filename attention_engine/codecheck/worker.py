"""The backstop: grading in a pre-started worker process with memory and CPU limits.

The interpreter checks every operation's size before numpy runs it (``ops``, ``functions``), so a
submission cannot ask numpy for a big job. This process boundary is for whatever those checks
might miss — a numpy corner case that allocates more than its arguments suggest, a bug of ours:

- the worker is a fresh interpreter (``python -I``: no site packages of the user, no environment
  variables such as the database URL, one BLAS thread), started once and reused;
- after importing numpy and warming every built-in spec it lowers its own limits for good:
  ``RLIMIT_AS`` (address space: what it uses after warm-up plus ``memory_mb``), ``RLIMIT_FSIZE``
  = 0 (it cannot write a file), ``RLIMIT_CORE`` = 0, ``RLIMIT_NOFILE`` (a few descriptors);
- before each request it sets ``RLIMIT_CPU`` to the CPU time used so far plus ``cpu_seconds``,
  so one runaway request is killed by SIGXCPU;
- the parent waits at most ``timeout`` seconds of wall-clock time for the answer, then kills the
  worker (its own child, by pid) and starts a new one on the next request; a worker that died
  (memory limit, SIGXCPU, anything) is restarted the same way. Such submissions come back
  ``rejected`` with ``timeout`` / ``worker_crashed``: never locked, since the cause may be load.

Cost, measured with bench/codecheck.py (one core, parent and worker pinned to it; figures in
bench/README.md): over every built-in spec's submissions the worker's median is 1.26 ms (p95 2.0)
against 1.05 ms (p95 1.7) in process — the round trip (JSON both ways, two context switches) adds
about 0.2 ms. So the worker is the production path and still fits the 5 ms budget 4× over;
``grade_code`` in process stays available for tests and tools. (Issue 25's specs, with 6–7 inputs
and more spellings, measured 2.5 ms on an evening the code before them measured 2.1 ms.) The worker also runs
``gc.freeze()`` after warming up, so its gradings never pay for a full collection of numpy's heap.

The protocol is one JSON object per line on the worker's stdin/stdout:
request ``{"spec": "<built-in key>" | {spec dict}, "code": "...", "seed": 0}``, answer
``CheckResult.to_dict()``; the worker writes ``{"ready": true}`` once warmed up.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import select
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import IO, Any, Final

from .grading import CheckResult, grade_code, rejected
from .messages import Refusal
from .spec import QuestionSpec
from .specs import SPECS

ROOT: Final = str(Path(__file__).resolve().parents[2])  # the directory holding attention_engine/
MAX_ANSWER_BYTES: Final = 4 << 20
_BOOT: Final = (
    "import sys; sys.path.insert(0, sys.argv[1]); "
    "from attention_engine.codecheck.worker import main; main(int(sys.argv[2]), int(sys.argv[3]))"
)


class Sandbox:
    """A worker process to grade in; thread-safe (one request at a time), restarted when needed."""

    def __init__(
        self,
        *,
        timeout: float = 2.0,
        memory_mb: int = 512,
        cpu_seconds: int = 2,
        start_timeout: float = 60.0,
        start: bool = True,
    ) -> None:
        self.timeout = timeout
        self.memory_mb = memory_mb
        self.cpu_seconds = cpu_seconds
        self.start_timeout = start_timeout
        self.restarts = 0
        self._started = False
        self._proc: subprocess.Popen[bytes] | None = None
        self._buffer = b""
        self._lock = threading.Lock()
        if start:
            with self._lock:
                self._ensure_started()

    # --- process management ------------------------------------------------------------------
    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc is not None else None

    def _ensure_started(self) -> None:
        if self._proc is not None and self._proc.poll() is None:
            return
        if self._started:
            self.restarts += 1  # counts replacements, not the first start
        self._started = True
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "OPENBLAS_NUM_THREADS": "1",
            "OMP_NUM_THREADS": "1",
            "MKL_NUM_THREADS": "1",
            "LC_ALL": "C.UTF-8",
        }
        self._proc = subprocess.Popen(
            [sys.executable, "-I", "-c", _BOOT, ROOT, str(self.memory_mb), str(self.cpu_seconds)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
            close_fds=True,
        )
        self._buffer = b""
        ready = self._read_line(self.start_timeout)
        if ready is None or json.loads(ready).get("ready") is not True:
            self._kill()
            raise RuntimeError("the codecheck worker did not start")

    def _kill(self) -> None:
        proc, self._proc = self._proc, None
        if proc is None:
            return
        if proc.poll() is None:
            proc.kill()  # our own child, by its pid
        proc.wait()
        for stream in (proc.stdin, proc.stdout):
            if stream is not None:
                stream.close()

    def close(self) -> None:
        with self._lock:
            self._kill()

    def __enter__(self) -> Sandbox:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _read_line(self, timeout: float) -> bytes | None:
        """One line from the worker within ``timeout`` seconds; None on timeout, EOF or overflow."""
        assert self._proc is not None and self._proc.stdout is not None
        fd = self._proc.stdout.fileno()
        deadline = time.monotonic() + timeout
        while b"\n" not in self._buffer:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return None
            readable, _, _ = select.select([fd], [], [], remaining)
            if not readable:
                return None
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                return None
            self._buffer += chunk
            if len(self._buffer) > MAX_ANSWER_BYTES:
                return None
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line

    # --- grading -----------------------------------------------------------------------------
    def grade_code(self, spec: QuestionSpec, source: str, *, seed: int = 0) -> CheckResult:
        """``grading.grade_code`` in the worker; see the module docstring for what can come back."""
        if not isinstance(source, str):
            return grade_code(spec, source, seed=seed)  # refused without running
        if len(source) > spec.limits.max_source_chars:  # no need to ship a megabyte to refuse it
            return rejected(
                spec,
                seed,
                Refusal(
                    "source_too_long", {"chars": len(source), "limit": spec.limits.max_source_chars}, runnable=False
                ),
            )
        builtin = SPECS.get(spec.key)
        payload: Any = (
            spec.key if builtin is not None and (builtin is spec or builtin.digest == spec.digest) else spec.to_dict()
        )
        request = json.dumps({"spec": payload, "code": source, "seed": seed}).encode() + b"\n"
        with self._lock:
            self._ensure_started()
            assert self._proc is not None and self._proc.stdin is not None
            try:
                self._proc.stdin.write(request)
                self._proc.stdin.flush()
            except (BrokenPipeError, OSError):
                self._kill()
                return rejected(spec, seed, Refusal("worker_crashed", runnable=False))
            line = self._read_line(self.timeout)
            if line is None:
                timed_out = self._proc.poll() is None
                self._kill()
                if timed_out:
                    return rejected(spec, seed, Refusal("timeout", {"seconds": self.timeout}, runnable=False))
                return rejected(spec, seed, Refusal("worker_crashed", runnable=False))
        try:
            return CheckResult.from_dict(json.loads(line))
        except (ValueError, KeyError, TypeError):
            return rejected(spec, seed, Refusal("internal_error", runnable=False))


_SANDBOX: Sandbox | None = None
_SANDBOX_PID: int | None = None
_SANDBOX_LOCK = threading.Lock()


def sandbox() -> Sandbox:
    """This process's sandbox, started on first use (and again in a forked child process)."""
    global _SANDBOX, _SANDBOX_PID
    with _SANDBOX_LOCK:
        if _SANDBOX is None or os.getpid() != _SANDBOX_PID:
            _SANDBOX, _SANDBOX_PID = Sandbox(), os.getpid()
        return _SANDBOX


def prestart() -> threading.Thread:
    """Start this process's sandbox in the background, so the first code answer it grades doesn't wait
    the seconds a worker takes to import numpy and warm every spec. A failure is left for that first
    answer to meet again (and report as ``worker_crashed``)."""

    def start() -> None:
        with contextlib.suppress(OSError, RuntimeError):
            sandbox()

    thread = threading.Thread(target=start, name="codecheck-prestart", daemon=True)
    thread.start()
    return thread


# ---------------------------------------------------------------------------------------------
# The worker side


def _limit_self(memory_mb: int) -> None:
    import resource

    def lower(which: int, value: int) -> None:
        _, hard = resource.getrlimit(which)
        cap = value if hard == resource.RLIM_INFINITY else min(value, hard)
        resource.setrlimit(which, (cap, cap))

    try:
        with open("/proc/self/statm") as f:
            used = int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
        lower(resource.RLIMIT_AS, used + memory_mb * (1 << 20))
    except (OSError, ValueError):  # no /proc (macOS ignores RLIMIT_AS anyway)
        pass
    lower(resource.RLIMIT_FSIZE, 0)
    lower(resource.RLIMIT_CORE, 0)
    lower(resource.RLIMIT_NOFILE, 32)


def _cpu_deadline(cpu_seconds: int) -> None:
    import resource

    usage = resource.getrusage(resource.RUSAGE_SELF)
    soft = math.ceil(usage.ru_utime + usage.ru_stime) + cpu_seconds
    _, hard = resource.getrlimit(resource.RLIMIT_CPU)
    resource.setrlimit(resource.RLIMIT_CPU, (soft if hard == resource.RLIM_INFINITY else min(soft, hard), hard))


def _spec_from(payload: Any, cache: dict[str, QuestionSpec]) -> QuestionSpec:
    if isinstance(payload, str):
        return SPECS[payload]
    text = json.dumps(payload, sort_keys=True)
    found = cache.get(text)
    if found is None:
        if len(cache) > 64:
            cache.clear()
        found = cache[text] = QuestionSpec.from_dict(payload)
    return found


def main(
    memory_mb: int = 512, cpu_seconds: int = 2, stdin: IO[bytes] | None = None, stdout: IO[bytes] | None = None
) -> None:
    """The worker loop: warm up, lower the limits, then answer one request per line."""
    import gc
    import warnings

    from .grading import prepare

    warnings.simplefilter("ignore")
    inp = stdin or sys.stdin.buffer
    out = stdout or sys.stdout.buffer
    for spec in SPECS.values():  # imports, caches and code paths warm before the limits
        prepare(spec, 0)
        grade_code(spec, spec.reference)
        if spec.misconceptions:
            grade_code(spec, spec.misconceptions[0].code)
    gc.collect()
    gc.freeze()  # the warm heap never needs scanning again: no multi-ms collections later
    _limit_self(memory_mb)
    out.write(b'{"ready": true}\n')
    out.flush()
    cache: dict[str, QuestionSpec] = {}
    while True:
        line = inp.readline()
        if not line:
            return
        try:
            request = json.loads(line)
            spec = _spec_from(request["spec"], cache)
            _cpu_deadline(cpu_seconds)
            result = grade_code(spec, str(request["code"]), seed=int(request.get("seed", 0))).to_dict()
        except MemoryError:
            return  # exit: the parent reports worker_crashed and restarts
        except Exception:
            result = {"format": 0}
        out.write(json.dumps(result).encode() + b"\n")
        out.flush()
