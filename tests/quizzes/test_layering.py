"""The layering contract of quizzes/README.md, enforced.

* The import contracts in pyproject.toml (``lint-imports``): the engine imports nothing from Django,
  quizzes or quizsite; quizzes never imports the project; interface layers (web, api, admin, tasks,
  management commands, template tags, sitewide) never import each other; domain packages never
  import an interface layer and depend downwards only (operations | notifications → practice →
  reviews → content → accounts → core).
* An interface layer never touches the ORM: no ``Model.objects``, no filter/annotate/aggregate, no
  save/create/delete, no transaction — it calls one selector or service (the rule "a view never
  filters the ORM for a business rule", checked by reading the code).
* The shared filters are spelled once: "published", "suspended" and "retired" appear as query
  conditions only in the QuerySet modules.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from importlinter.cli import lint_imports

ROOT = Path(__file__).resolve().parents[2]
QUIZZES = ROOT / "quizzes"
INTERFACE_LAYERS = ("web", "api", "admin", "templatetags", "management", "sitewide", "tasks.py")
ORM_CALLS = {
    "filter",
    "exclude",
    "annotate",
    "aggregate",
    "raw",
    "extra",
    "save",
    "delete",
    "create",
    "get_or_create",
    "update_or_create",
    "bulk_create",
    "bulk_update",
    "select_for_update",
    "atomic",
}


def interface_files() -> list[Path]:
    files: list[Path] = []
    for name in INTERFACE_LAYERS:
        path = QUIZZES / name
        files.extend([path] if path.is_file() else sorted(path.rglob("*.py")))
    return files


def orm_uses(source: str, label: str) -> list[str]:
    """``label:line: what`` for every ORM access in a module (attribute ``objects`` or a call of ORM_CALLS)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Attribute) and node.attr == "objects":
            found.append(f"{label}:{node.lineno}: .objects")
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in ORM_CALLS:
            if isinstance(node.func.value, ast.Name) and node.func.value.id == "register":
                continue  # a template library's @register.filter
            found.append(f"{label}:{node.lineno}: .{node.func.attr}()")
    return found


def test_the_import_contracts_hold(capsys):
    exit_code = lint_imports(config_filename=str(ROOT / "pyproject.toml"), no_cache=True, no_logo=True)
    assert exit_code == 0, capsys.readouterr().out


def test_interface_layers_never_query_or_write_the_orm():
    files = interface_files()
    assert len(files) > 30  # the scan sees the layers (a moved directory must not silently empty it)
    uses = [use for path in files for use in orm_uses(path.read_text(encoding="utf-8"), str(path.relative_to(ROOT)))]
    assert uses == []


@pytest.mark.parametrize(
    "source", ["Lesson.objects.all()", "lesson.questions.filter(kind='choice')", "form.save()", "transaction.atomic()"]
)
def test_the_orm_scan_finds_what_it_forbids(source):
    assert orm_uses(source, "view.py")


SHARED_FILTER = re.compile(r"\b(?:\w+__)?(?:published|suspended|retired)(?:__\w+)?\s*=\s*(?:True|False)\b")


def test_the_shared_filters_are_spelled_only_in_the_queryset_modules():
    spelled = []
    for path in sorted(QUIZZES.rglob("*.py")):
        if "migrations" in path.parts or path.name == "querysets.py":
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            code = line.split("#", 1)[0]
            if SHARED_FILTER.search(code) and ("filter(" in code or "exclude(" in code or "Q(" in code):
                spelled.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert spelled == []
