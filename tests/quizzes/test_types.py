"""quizzes/ type-checks with mypy and django-stubs (+ djangorestframework-stubs) at the level pyproject.toml sets.

The level is the ``[[tool.mypy.overrides]]`` block for ``quizzes.*`` (every function annotated, untyped
code checked, no unused ``type: ignore``, strict equality, no implicit re-exports). The global ``[tool.mypy]``
settings belong to the tooling (the engine is checked strictly there); this test runs them as they are and
only adds what checking Django code needs: the django-stubs and DRF plugins and the settings module. The
engine's own errors are its own check's business: imported here, it is followed silently.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
PLUGINS = ("mypy_django_plugin.main", "mypy_drf_plugin.main")


def _ini_value(value: Any) -> str:
    if isinstance(value, bool):
        return "True" if value else "False"
    if isinstance(value, list):
        return ", ".join(str(v) for v in value)
    return str(value)


def mypy_ini() -> str:
    """pyproject.toml's mypy settings as an ini file, with the Django plugins and settings module added."""
    tool = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]
    settings = dict(tool.get("mypy", {}))
    overrides = settings.pop("overrides", [])
    settings["plugins"] = list(dict.fromkeys([*settings.get("plugins", []), *PLUGINS]))
    settings.setdefault("python_version", "3.11")
    settings.setdefault("ignore_missing_imports", True)
    lines = ["[mypy]", *(f"{key} = {_ini_value(value)}" for key, value in settings.items())]
    stubs = tool.get("django-stubs", {})
    lines += ["", "[mypy.plugins.django-stubs]"]
    lines.append(f"django_settings_module = {stubs.get('django_settings_module', 'quizsite.settings')}")
    for override in overrides:
        modules = override["module"] if isinstance(override["module"], list) else [override["module"]]
        options = {key: value for key, value in override.items() if key != "module"}
        for module in modules:
            lines += ["", f"[mypy-{module}]", *(f"{key} = {_ini_value(value)}" for key, value in options.items())]
    lines += ["", "[mypy-attention_engine.*]", "follow_imports = silent"]
    return "\n".join(lines) + "\n"


def test_quizzes_type_checks(tmp_path):
    config = tmp_path / "mypy.ini"
    config.write_text(mypy_ini(), encoding="utf-8")
    # A cache outside the repository that outlives the run: the second check takes seconds, not twenty.
    cache = Path(tempfile.gettempdir()) / f"quizsite-mypy-{hashlib.sha256(str(ROOT).encode()).hexdigest()[:12]}"
    env = {**os.environ, "SECRET_KEY": "type-check-only", "DJANGO_SETTINGS_MODULE": "quizsite.settings"}
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", str(config), "--cache-dir", str(cache), "-p", "quizzes"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stdout + result.stderr
