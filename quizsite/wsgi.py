"""WSGI entry point (gunicorn quizsite.wsgi).

Imported once per web worker process (gunicorn's default, no --preload), which is when that process's
code-grading sandbox is started, beside the app, unless CODECHECK_PRESTART is off.

Then everything loaded so far (Django, DRF, numpy, our modules: objects that live as long as the process) is
moved out of the garbage collector's reach with ``gc.freeze()``: a full collection no longer walks them, which
was what made some pack builds take 420–480 ms instead of ≈ 230 ms (bench/README.md, issue 17).
"""

import gc
import os

from django.conf import settings
from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "quizsite.settings")

application = get_wsgi_application()

if settings.CODECHECK_PRESTART:
    from attention_engine.codecheck.worker import prestart

    prestart()

gc.freeze()
