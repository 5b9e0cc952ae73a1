"""Each web worker starts its code-grading sandbox when it boots (quizsite/wsgi.py), so the first learner to
submit code to a freshly started or restarted worker doesn't wait the seconds the sandbox takes to start."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.ops.conftest import start_gunicorn, wait_for, web_env

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def _children(pid: int) -> list[int]:
    tasks = Path(f"/proc/{pid}/task")
    found: list[int] = []
    for task in tasks.iterdir() if tasks.exists() else []:
        children = (task / "children").read_text().split()
        found += [int(child) for child in children]
    return found


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def _start_gunicorn(tmp_path, redis_url: str, **extra: str) -> subprocess.Popen:
    return start_gunicorn(web_env(redis_url, **extra), tmp_path / "gunicorn.log", workers=2)[0]


def _sandboxes_per_worker(server: subprocess.Popen) -> dict[int, int]:
    workers = [pid for pid in _children(server.pid) if "gunicorn" in _cmdline(pid)]
    return {w: sum("codecheck.worker" in _cmdline(c) for c in _children(w)) for w in workers}


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="reads process trees from Linux's /proc")
def test_every_web_worker_has_its_sandbox_before_any_code_answer(tmp_path, redis_url):
    server = _start_gunicorn(tmp_path, redis_url)
    try:
        per_worker = wait_for(
            lambda: (found := _sandboxes_per_worker(server)) and len(found) == 2 and all(found.values()) and found,
            timeout=60,
            what="a codecheck sandbox under each of the 2 gunicorn workers",
        )
        assert list(per_worker.values()) == [1, 1]
    finally:
        server.terminate()
        server.wait(timeout=15)


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="reads process trees from Linux's /proc")
def test_prestart_can_be_turned_off(tmp_path, redis_url):
    server = _start_gunicorn(tmp_path, redis_url, CODECHECK_PRESTART="false")
    try:
        wait_for(lambda: len(_sandboxes_per_worker(server)) == 2, timeout=30, what="2 gunicorn workers")
        # the first code answer would start it; nothing has asked
        assert set(_sandboxes_per_worker(server).values()) == {0}
    finally:
        server.terminate()
        server.wait(timeout=15)
