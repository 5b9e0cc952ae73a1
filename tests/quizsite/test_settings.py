"""Settings come from the environment; the defaults need nothing installed."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings
from django.utils import translation

ROOT = Path(__file__).resolve().parents[2]

PROBE = """
import json, django
from django.conf import settings
django.setup()
from quizsite.celery import app
print(json.dumps({
    "db": settings.DATABASES["default"]["ENGINE"],
    "db_name": str(settings.DATABASES["default"]["NAME"]),
    "cache": settings.CACHES["default"]["BACKEND"],
    "eager": settings.CELERY_TASK_ALWAYS_EAGER,
    "broker": app.conf.broker_url,
    "debug": settings.DEBUG,
    "hosts": settings.ALLOWED_HOSTS,
    "learner_cache": settings.LEARNER_CACHE_SECONDS,
}))
"""


def probe(**env: str) -> subprocess.CompletedProcess:
    clean = {
        k: v
        for k, v in os.environ.items()
        if k not in {"DATABASE_URL", "REDIS_URL", "SECRET_KEY", "DEBUG", "SINGLE_PROCESS", "LEARNER_CACHE_SECONDS"}
    }
    clean.update(env, DJANGO_SETTINGS_MODULE="quizsite.settings")
    return subprocess.run(
        [sys.executable, "-c", PROBE], cwd=ROOT, env=clean, capture_output=True, text=True, timeout=60, check=False
    )


def test_defaults_need_nothing_installed():
    done = probe(DEBUG="true")
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout)
    assert got["db"] == "django.db.backends.sqlite3"
    assert got["db_name"] == str(ROOT / "db.sqlite3")
    assert got["cache"].endswith("LocMemCache")
    assert got["eager"] is True
    assert got["debug"] is True
    assert got["learner_cache"] == 0  # local memory is per process: off unless one process serves everything


def test_make_run_caches_learners_in_local_memory_as_its_one_process():
    done = probe(DEBUG="true", SINGLE_PROCESS="true")
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout)
    assert got["cache"].endswith("LocMemCache") and got["learner_cache"] == 300
    assert 'os.environ.setdefault("SINGLE_PROCESS", "true")' in (ROOT / "scripts" / "run_dev.py").read_text()


def test_a_learner_cache_in_local_memory_is_refused_where_several_processes_serve():
    done = probe(DEBUG="true", LEARNER_CACHE_SECONDS="300")
    assert done.returncode != 0
    assert "LEARNER_CACHE_SECONDS > 0 needs REDIS_URL" in done.stderr


def test_database_and_redis_urls_switch_to_postgres_and_redis():
    done = probe(
        SECRET_KEY="x" * 50,
        ALLOWED_HOSTS="quiz.example.com",
        DATABASE_URL="postgres://u:p@db.example:5432/quiz",
        REDIS_URL="redis://cache.example:6379/1",
    )
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout)
    assert got["db"] == "django.db.backends.postgresql"
    assert got["cache"] == "django_redis.cache.RedisCache"
    assert got["broker"] == "redis://cache.example:6379/1"
    assert got["eager"] is False
    assert got["debug"] is False
    assert got["hosts"] == ["quiz.example.com"]


def test_production_refuses_the_development_secret_key():
    done = probe()
    assert done.returncode != 0
    assert "SECRET_KEY must be set" in done.stderr


def test_time_and_languages():
    assert settings.USE_TZ is True
    assert settings.TIME_ZONE == "UTC"
    assert [code for code, _name in settings.LANGUAGES] == ["en", "zh-hans"]
    assert "django.middleware.locale.LocaleMiddleware" in settings.MIDDLEWARE


@pytest.mark.parametrize(
    ("english", "chinese"),
    [("Lessons", "课程"), ("Nothing in this lesson is due for review.", "本课暂时没有到期需要复习的题目。")],
)
def test_ui_strings_are_translated_to_simplified_chinese(english, chinese):
    with translation.override("zh-hans"):
        assert translation.gettext(english) == chinese


def _po_entries(path: Path) -> list[tuple[str, str]]:
    """(msgid, first msgstr) pairs of a .po file; enough parsing for our own file. A msgid with a context
    (pgettext) is keyed as the compiled catalogue keys it: ``context + "\x04" + msgid``."""
    entries, field, values = [], None, {}
    for raw in [*path.read_text(encoding="utf-8").splitlines(), ""]:
        line = raw.strip()
        if not line:
            if "msgid" in values:
                msgid = f"{values['msgctxt']}\x04{values['msgid']}" if "msgctxt" in values else values["msgid"]
                entries.append((msgid, values.get("msgstr", values.get("msgstr[0]", ""))))
            field, values = None, {}
        elif line.startswith("#"):
            continue
        elif line.startswith('"') and field:
            values[field] += json.loads(line)
        else:
            field, _space, quoted = line.partition(" ")
            values[field] = json.loads(quoted)
    return [(msgid, msgstr) for msgid, msgstr in entries if msgid]


def test_every_ui_string_is_translated_and_compiled():
    import gettext

    messages = ROOT / "quizzes" / "locale" / "zh_Hans" / "LC_MESSAGES"
    entries = _po_entries(messages / "django.po")
    assert entries
    assert [msgid for msgid, msgstr in entries if not msgstr] == []
    with (messages / "django.mo").open("rb") as compiled:
        catalog = gettext.GNUTranslations(compiled)
    stale = [msgid for msgid, msgstr in entries if catalog.gettext(msgid) != msgstr]
    assert stale == [], "django.mo is older than django.po: run `python manage.py compilemessages`"
