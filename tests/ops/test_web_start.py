"""The web process's start-up (quizsite/wsgi.py): what it loaded is frozen out of the garbage collector's full
passes, which otherwise walk every long-lived object and stall a request now and then (issue 17's pack builds)."""

import subprocess
import sys

from tests.ops.conftest import ROOT, production_env

PROBE = "import gc, quizsite.wsgi; print(gc.get_freeze_count(), len(gc.get_objects()))"


def test_a_web_process_freezes_what_it_loaded_before_serving():
    env = production_env(CODECHECK_PRESTART="false")
    done = subprocess.run([sys.executable, "-c", PROBE], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    frozen, tracked = map(int, done.stdout.split())
    assert frozen > 50_000  # Django, DRF, numpy and the app's modules
    assert tracked < frozen / 10  # what a full collection still walks: next to nothing
