"""The committed openapi.yaml is the schema the code generates, valid and without warnings."""

from __future__ import annotations

from pathlib import Path

from django.conf import settings
from django.core.management import call_command

COMMAND = "python manage.py spectacular --file openapi.yaml --validate --fail-on-warn"


def test_committed_openapi_yaml_is_current(tmp_path: Path) -> None:
    generated = tmp_path / "openapi.yaml"
    call_command("spectacular", "--file", str(generated), "--validate", "--fail-on-warn")
    committed = Path(settings.BASE_DIR) / "openapi.yaml"
    assert committed.exists(), f"openapi.yaml is missing: run `{COMMAND}` and commit it"
    assert generated.read_text() == committed.read_text(), f"openapi.yaml is out of date: run `{COMMAND}` and commit it"


def test_every_operation_is_documented(client) -> None:
    import yaml

    schema = yaml.safe_load((Path(settings.BASE_DIR) / "openapi.yaml").read_text())
    operations = [op for path in schema["paths"].values() for op in path.values()]
    assert len(operations) >= 27
    for operation in operations:
        assert operation.get("summary"), operation["operationId"]
        assert any(code.startswith("2") for code in operation["responses"]), operation["operationId"]
        assert "406" in operation["responses"]
    names = list(schema["components"]["schemas"])
    assert len(names) == len(set(names))
    assert {"knoxApiToken", "cookieAuth"} <= set(schema["components"]["securitySchemes"])
