"""Assertions shared by the API tests."""

from __future__ import annotations

from typing import Any

#: Keys that carry answer data; none may appear in anything a client gets before an item locks.
ANSWER_KEY_PARTS = ("correct", "feedback", "explanation", "solution", "misconception", "rubric", "reference")
ANSWER_KEYS = {"answer", "expected_lines", "result", "elements"}


def answer_leaks(data: Any, path: str = "$") -> list[str]:
    """Paths of every key in ``data`` (recursively) that names answer data, or a non-null ``result``."""
    found: list[str] = []
    if isinstance(data, dict):
        for key, value in data.items():
            lowered = str(key).lower()
            if any(part in lowered for part in ANSWER_KEY_PARTS) or (lowered in ANSWER_KEYS and value is not None):
                found.append(f"{path}.{key}")
            found.extend(answer_leaks(value, f"{path}.{key}"))
    elif isinstance(data, list):
        for index, value in enumerate(data):
            found.extend(answer_leaks(value, f"{path}[{index}]"))
    return found


def strings_in(data: Any) -> list[str]:
    if isinstance(data, dict):
        return [s for k, v in data.items() for s in (str(k), *strings_in(v))]
    if isinstance(data, list):
        return [s for v in data for s in strings_in(v)]
    return [str(data)] if data is not None else []


def assert_error(response, status: int, code: str | None = None) -> dict:
    """The documented error shape: {"error": {"code", "message", "fields"}}."""
    assert response.status_code == status, (response.status_code, getattr(response, "data", response.content))
    body = response.json()
    assert set(body["error"]) == {"code", "message", "fields"}, body
    assert isinstance(body["error"]["message"], str) and body["error"]["message"]
    assert isinstance(body["error"]["fields"], dict)
    if code is not None:
        assert body["error"]["code"] == code, body
    return body
