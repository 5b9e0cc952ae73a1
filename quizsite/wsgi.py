"""WSGI entry point (gunicorn quizsite.wsgi).

Imported once per web worker process (gunicorn's default, no --preload), which is when that process's
code-grading sandbox is started, beside the app, unless CODECHECK_PRESTART is off.
"""

import os

from django.conf import settings
from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "quizsite.settings")

application = get_wsgi_application()

if settings.CODECHECK_PRESTART:
    from attention_engine.codecheck.worker import prestart

    prestart()
