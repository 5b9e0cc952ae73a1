"""The project's bad-input corpus, sent to EVERY API operation and EVERY web form.

Operations are read from the committed OpenAPI schema (test_schema.py keeps it equal to the code, and a
check below fails if a v1 URL pattern is missing from it), so a new operation is covered as soon as it
exists; request fields come from its request-body component, query parameters from its parameters.
Web forms are found by rendering every page of the "web" URL namespace (signed in and signed out) and
reading its ``<form>`` elements, so a new form is covered too.

For every request: no 5xx; on the API a 4xx in the documented error shape; and nothing stored (row
counts of every model unchanged). The corpus: deep nesting, huge/non-finite numbers, NUL, lone
surrogates, RTL/emoji text, 3 MB and 6 MB bodies, wrong content types, the wrong JSON type in every
field, out-of-range numbers, page sizes and durations, bad Authorization and Idempotency-Key headers.

Runs on SQLite and, marked ``postgres``, on PostgreSQL in CI (jsonb and text columns are where NUL fails).
"""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
import yaml
from django.apps import apps
from django.conf import settings as django_settings
from django.test import Client
from django.urls import URLPattern, reverse
from knox.models import AuthToken
from rest_framework.test import APIClient

from quizzes.accounts.services import api_token_create
from quizzes.models import AttemptItem, Lesson, Question, ReviewCard
from quizzes.packs.services import pack_issue
from quizzes.practice.services import attempt_start
from quizzes.privacy.services import data_export_request
from quizzes.reviews.services import card_rate
from tests import factories
from tests.quizzes.api.helpers import assert_error

MB = 1024 * 1024
RAW = object()  # marks a value that is inserted into the JSON text as-is (numbers JSON can't round-trip)


def _schema() -> dict:
    return yaml.safe_load((Path(django_settings.BASE_DIR) / "openapi.yaml").read_text())


SCHEMA = _schema()


def _resolve(node: dict) -> dict:
    while "$ref" in node:
        node = SCHEMA["components"]["schemas"][node["$ref"].rsplit("/", 1)[1]]
    return node


def operations() -> list[tuple[str, str, dict]]:
    return [
        (method, path, operation)
        for path, item in SCHEMA["paths"].items()
        for method, operation in item.items()
        if method in ("get", "post", "put", "patch", "delete")
    ]


def _ids(op) -> str:
    return op[2]["operationId"]


# --- the corpus ------------------------------------------------------------------------------------

RTL = "\u202eevil\u202c مرحبا"
EMOJI = "🙂" * 50 + "👩‍👩‍👧"
DEEP_LIST = "[" * 100_000 + "]" * 100_000
DEEP_OBJECT = '{"a":' * 5_000 + "1" + "}" * 5_000

ROOT_BODIES: list[tuple[str, bytes, str]] = [
    ("deep-list", DEEP_LIST.encode(), "application/json"),
    ("deep-object", DEEP_OBJECT.encode(), "application/json"),
    ("huge-int", ("1" + "0" * 400).encode(), "application/json"),
    ("nan", b"NaN", "application/json"),
    ("infinity", b"-Infinity", "application/json"),
    ("nul-string", b'"\\u0000"', "application/json"),
    ("surrogate", b'"\\ud800"', "application/json"),
    ("nul-key", b'{"\\u0000": 1}', "application/json"),
    ("bad-utf8", b'{"a": "\xff\xfe"}', "application/json"),
    ("truncated", b'{"a": [1, 2', "application/json"),
    ("list", b"[]", "application/json"),
    ("string", b'"hello"', "application/json"),
    ("number", b"1", "application/json"),
    ("null", b"null", "application/json"),
    ("bool", b"true", "application/json"),
    ("rtl-emoji", json.dumps({RTL: EMOJI}, ensure_ascii=False).encode(), "application/json"),
    ("text/plain", b'{"a": 1}', "text/plain"),
    ("form", b"a=1&b=2", "application/x-www-form-urlencoded"),
    (
        "multipart",
        b"--x\r\nContent-Disposition: form-data; name=a\r\n\r\n1\r\n--x--\r\n",
        "multipart/form-data; boundary=x",
    ),
    ("xml", b"<a>1</a>", "application/xml"),
    ("no-type", b'{"a": 1}', ""),
]
SIZES = [("3MB", 3 * MB), ("6MB", 6 * MB)]
#: Bodies no JSON reader accepts (sent even to operations without a request body, through Idempotency-Key).
UNREADABLE = {
    "deep-list",
    "deep-object",
    "huge-int",
    "nan",
    "infinity",
    "nul-string",
    "surrogate",
    "nul-key",
    "bad-utf8",
    "truncated",
}


def _required(operation: dict) -> list[str]:
    content = (operation.get("requestBody") or {}).get("content", {}).get("application/json")
    return _resolve(content["schema"]).get("required", []) if content else []


def _wrong_values(prop: dict) -> list[tuple[str, Any]]:  # noqa: C901 - one branch per JSON type, read top to bottom
    """Values of the wrong type or out of range for a field of this schema (never a valid value)."""
    prop = _resolve(prop)
    kind = prop.get("type")
    common = [
        ("nul", "a\x00b"),
        ("surrogate", "\ud800"),
        ("1e400", (RAW, "1e400")),
        ("NaN", (RAW, "NaN")),
        ("huge", (RAW, "1" + "0" * 30)),
        ("deep", (RAW, "[" * 3000 + "]" * 3000)),
        ("object", {"x": [1]}),
    ]
    if kind == "string":
        values = [("null", None), ("bool", True), ("int", 1), ("float", 1.5), ("list", ["a"]), ("long", "x" * 20_000)]
        if "enum" in prop or prop.get("format") in ("uuid", "date-time", "date"):
            values += [("rtl", RTL), ("emoji", EMOJI)]
        return common + values
    if kind in ("integer", "number"):
        values = [
            ("null", None),
            ("bool", True),
            ("string", "1"),
            ("list", [1]),
            ("rtl", RTL),
            ("emoji", EMOJI),
            ("min-64", (RAW, str(-(2**63) - 1))),
            ("2^63", (RAW, str(2**63))),
        ]
        if kind == "integer":
            values.append(("fraction", 1.5))
        if "minimum" in prop:
            values.append(("below-min", prop["minimum"] - 1))
        if "maximum" in prop:
            values.append(("above-max", prop["maximum"] + 1))
        return common + values
    if kind == "boolean":
        return [*common, ("null", None), ("string", "true"), ("int", 1), ("list", [True])]
    if kind == "array":
        values = [("null", None), ("string", "x"), ("int", 1), ("items", [None, 1, "x"])]
        if prop.get("minItems"):
            values.append(("too-few", []))
        if prop.get("maxItems"):
            values.append(("too-many", [{}] * (prop["maxItems"] + 1)))
        return common + values
    if kind == "object":
        return [*common[:-1], ("null", None), ("string", "x"), ("list", [1]), ("deep", (RAW, DEEP_OBJECT))]
    # free JSON (e.g. a numeric answer's value): only what is never a readable answer
    return [*common, ("null", None), ("bool", True)]


def _encode(value: Any) -> str:
    if isinstance(value, tuple) and value and value[0] is RAW:
        return value[1]
    return json.dumps(value, ensure_ascii=False)


def _body(fields: dict[str, Any]) -> bytes:
    text = "{" + ", ".join(f"{json.dumps(k)}: {_encode(v)}" for k, v in fields.items()) + "}"
    return text.encode("utf-8", "surrogatepass")


def _field_bodies(operation: dict) -> list[tuple[str, bytes]]:
    content = (operation.get("requestBody") or {}).get("content", {}).get("application/json")
    if not content:
        return []
    schema = _resolve(content["schema"])
    bodies = []
    for name, prop in schema.get("properties", {}).items():
        for label, value in _wrong_values(prop):
            bodies.append((f"{name}={label}", _body({name: value})))
        prop = _resolve(prop)
        if prop.get("type") == "array" and "$ref" in prop.get("items", {}):  # one bad field inside one item
            for sub, sub_prop in _resolve(prop["items"]).get("properties", {}).items():
                for label, value in _wrong_values(sub_prop):
                    inner = "{" + f"{json.dumps(sub)}: {_encode(value)}" + "}"
                    bodies.append(
                        (
                            f"{name}.0.{sub}={label}",
                            ("{" + f'"{name}": [{inner}]' + "}").encode("utf-8", "surrogatepass"),
                        )
                    )
    return bodies


QUERY_VALUES = [
    "-1",
    "0",
    "99999999999999999999",
    "1e400",
    "NaN",
    "Infinity",
    "a%00b",
    "%F0%9F%99%82",
    "%E2%80%AE",
    "",
    "1&{name}=2",
    "%ED%A0%80",
    "x" * 5000,
]


def _query_strings(operation: dict) -> list[tuple[str, str]]:
    found = []
    for parameter in operation.get("parameters", []):
        if parameter.get("in") != "query":
            continue
        name = parameter["name"]
        kind = _resolve(parameter.get("schema", {})).get("type")
        for value in QUERY_VALUES:
            if kind == "boolean" and value in ("0",):
                continue  # a valid boolean
            found.append((f"?{name}={value[:20]}", f"{name}={value.format(name=name)}"))
    return found


# --- the data a corpus must not change ----------------------------------------------------------------


def row_counts() -> dict[str, int]:
    """Rows of every model (sessions excluded: a test client's log-in makes one)."""
    return {
        m._meta.label: m._default_manager.count()
        for m in apps.get_models()
        if m._meta.label not in ("sessions.Session",) and not m._meta.proxy
    }


CHECKPOINT_TEACHING = [
    {
        "key": "check",
        "title": "小测",
        "body": "正文。",
        "figure": "",
        "checkpoint": {
            "prompt": "哪一个？",
            "explanation": "讲解。",
            "options": [
                {"key": "a", "text": "甲", "correct": True, "feedback": ""},
                {"key": "b", "text": "乙", "correct": False, "feedback": ""},
            ],
        },
    }
]


@pytest.fixture
def world(db):
    """A staff learner (so staff-only operations validate too) with lessons, an attempt, cards, a token."""
    user = factories.UserFactory(is_staff=True)
    lesson = factories.LessonFactory(teaching=CHECKPOINT_TEACHING)  # the lesson page's checkpoint form too
    factories.ChoiceQuestionFactory(lesson=lesson, order=1, options=4)
    numeric = factories.NumericQuestionFactory(lesson=lesson, order=2)
    prompt = factories.PromptQuestionFactory(lesson=lesson, order=3)
    card_rate(user=user, question=prompt, rating=3)
    attempt = attempt_start(user=user, lesson=Lesson.objects.get(pk=lesson.pk))
    item = AttemptItem.objects.get(attempt=attempt, question=numeric)
    _instance, token = AuthToken.objects.create(user=user)
    ids = {
        "lesson_id": lesson.pk,
        "attempt_id": attempt.pk,
        "item_id": item.pk,
        "card_id": ReviewCard.objects.get(user=user, question=prompt).pk,
        "question_id": prompt.pk,
        "pack_id": pack_issue(user=user).pk,
        "export_id": data_export_request(user=user).export.pk,
        "section_key": "check",
        "device_pk": api_token_create(user=user, device_id="corpus-phone", platform="android").device.pk,
    }
    return {"user": user, "token": token, "ids": ids, "prompt": prompt, "lesson": lesson, "attempt": attempt}


def _url(path: str, ids: dict[str, int]) -> str:
    return re.sub(r"\{(\w+)\}", lambda m: str(ids[m.group(1)]), path)


def _check_api(response, label: str) -> None:
    assert response.status_code < 500, (label, response.status_code, response.content[:300])
    assert 400 <= response.status_code < 500, (label, response.status_code, response.content[:300])
    assert_error(response, response.status_code)


def test_every_v1_route_is_in_the_schema_the_corpus_reads():
    from quizzes.api.urls import v1

    documented = {path for path in SCHEMA["paths"]}
    for pattern in v1:
        assert isinstance(pattern, URLPattern)
        route = "/api/v1/" + re.sub(r"<\w+:(\w+)>", r"{\1}", str(pattern.pattern))
        assert route in documented, f"{route} is not in openapi.yaml: the corpus would miss it"


@pytest.mark.parametrize("op", operations(), ids=_ids)
def test_corpus_against_every_api_operation(op, world):  # noqa: C901 - one block per input family of the corpus
    method, path, operation = op
    url = _url(path, world["ids"])
    client = APIClient()
    authed = {"HTTP_AUTHORIZATION": f"Token {world['token']}"}
    before = row_counts()
    sent = 0

    def send(label: str, body: bytes | None = None, content_type: str = "application/json", query: str = "", **extra):
        nonlocal sent
        headers = {**authed, **extra}
        target = url + (("?" + query) if query else "")
        if body is None:
            response = getattr(client, method)(target, **headers)
        else:
            response = client.generic(method.upper(), target, body, content_type=content_type, **headers)
        _check_api(response, f"{operation['operationId']} {label}")
        sent += 1

    has_body = "requestBody" in operation
    idempotent = any(p.get("name") == "Idempotency-Key" for p in operation.get("parameters", []))
    for label, size in SIZES:  # any route: the guard answers before a view reads anything
        send(label, b'{"pad": "' + b"x" * size + b'"}')
    if has_body or idempotent:  # bodies are read (an Idempotency-Key hashes the body too)
        key = {"HTTP_IDEMPOTENCY_KEY": "corpus-key"} if idempotent and not has_body else {}
        for label, body, content_type in ROOT_BODIES:
            if not has_body and label not in UNREADABLE:
                continue  # a body-less operation ignores a readable body (the key hashes it): only unreadable ones
            if label == "rtl-emoji" and not _required(operation):
                continue  # unknown keys are ignored by design: with no required field, that is a valid empty request
            send(label, body, content_type, **key)
    for label, body in _field_bodies(operation):
        send(label, body)
    for label, query in _query_strings(operation):
        send(label, query=query)
    if idempotent:
        for label, key in [("empty", " "), ("long", "k" * 256), ("nul", "a\x00b"), ("control", "a\tb\x7f")]:
            send(f"Idempotency-Key {label}", b"{}" if has_body else None, HTTP_IDEMPOTENCY_KEY=key)
    if operation.get("security") != [] and operation["operationId"] != "auth_login":
        for label, header in [
            ("nul", "Token a\x00b"),
            ("long", "Token " + "A" * 10_000),
            ("rtl", "Token " + RTL),
            ("scheme", "Basic Zm9vOmJhcg=="),
            ("bare", "Token"),
        ]:
            response = getattr(client, method)(
                url, HTTP_AUTHORIZATION=header.encode("utf-8", "replace").decode("latin-1")
            )
            _check_api(response, f"{operation['operationId']} Authorization {label}")
            sent += 1
    for label, suffix in [("huge-id", "99999999999999999999999"), ("negative", "-1")]:
        if "{" in path:
            bad = re.sub(r"\{\w+\}", suffix, path, count=1)
            response = client.generic(
                method.upper(), _url(bad, world["ids"]), b"{}", content_type="application/json", **authed
            )
            _check_api(response, f"{operation['operationId']} {label}")
            sent += 1
    assert row_counts() == before, f"{operation['operationId']}: the corpus changed stored data"
    assert sent >= 2
    print(f"corpus: {operation['operationId']}: {sent} requests")


@pytest.mark.postgres
@pytest.mark.parametrize("op", [o for o in operations() if "requestBody" in o[2]], ids=_ids)
def test_corpus_on_postgresql(op, world):
    """The same, marked so CI runs it on PostgreSQL (where NUL in text/jsonb raises instead of storing)."""
    test_corpus_against_every_api_operation(op, world)


# --- web forms ---------------------------------------------------------------------------------------


class _Forms(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.forms: list[dict] = []

    def handle_starttag(self, tag: str, attrs: list) -> None:
        a = dict(attrs)
        if tag == "form":
            self.forms.append(
                {"action": a.get("action") or "", "method": (a.get("method") or "get").lower(), "fields": {}}
            )
        elif tag in ("input", "textarea", "select", "button") and self.forms and a.get("name"):
            if a.get("type") in ("checkbox", "radio") and "checked" not in a:
                self.forms[-1]["fields"].setdefault(a["name"], "")
            else:
                self.forms[-1]["fields"][a["name"]] = a.get("value") or ""


def _web_urls(world) -> list[str]:
    lesson, prompt = world["lesson"], world["prompt"]
    args = {
        "key": lesson.key,
        "lesson_key": lesson.key,
        "attempt_id": world["attempt"].pk,
        "position": 2,
        "question_key": prompt.key,
        "section": "check",
        "export_id": world["ids"]["export_id"],
        "session_id": 1,  # the settings page's sign-out forms (POST only: a GET finds no form there)
        "device_id": world["ids"]["device_pk"],
        "item_id": world["ids"]["item_id"],  # "report a problem" with an item or a card
        "card_id": world["ids"]["card_id"],
    }
    urls = []
    from quizzes.web import urls as web_urls

    for pattern in web_urls.urlpatterns:
        names = re.findall(r"<(?:\w+:)?(\w+)>", str(pattern.pattern))
        if {"uidb64", "token"} & set(names):
            continue
        urls.append(reverse(f"web:{pattern.name}", kwargs={n: args[n] for n in names}))
    return urls


def _discover_forms(client: Client, world) -> dict[tuple[str, str], dict]:
    found: dict[tuple[str, str], dict] = {}
    for url in _web_urls(world):
        response = client.get(url, follow=True)
        if response.status_code != 200 or "text/html" not in response["Content-Type"]:
            continue
        parser = _Forms()
        parser.feed(response.content.decode())
        for form in parser.forms:
            action = form["action"] or response.request["PATH_INFO"]
            found.setdefault((form["method"], action), form)
    return found


WEB_VALUES = [
    ("nul", "a\x00b", True),
    ("rtl", RTL, False),
    ("emoji", EMOJI, False),
    ("long", "x" * 20_000, False),
    ("huge", "9" * 400, False),
    ("1e400", "1e400", False),
    ("NaN", "NaN", False),
    ("negative", "-1", False),
]


def test_corpus_against_every_web_form(world):  # noqa: C901 - one block per input family of the corpus
    learner = world["user"]
    forms = {}
    for signed_in in (True, False):
        client = Client()
        if signed_in:
            client.force_login(learner)
        for key, form in _discover_forms(client, world).items():
            forms.setdefault(key, (signed_in, form))
    actions = {action for (_m, action) in forms}
    for expected in ("web:login", "web:signup", "web:password_reset", "web:settings", "web:password_change"):
        assert reverse(expected) in actions, f"no form found for {expected}"
    assert len(forms) >= 10, sorted(forms)
    sent = 0
    for (method, action), (signed_in, form) in sorted(forms.items()):
        if action.startswith(reverse("web:logout")):
            continue  # logging out is its own purpose; it has no input
        for field in form["fields"] or {"_": ""}:
            for label, value, must_refuse in WEB_VALUES:
                client = Client()
                if signed_in:
                    client.force_login(learner)
                before = row_counts()
                data = {**form["fields"], field: value}
                if method == "post":
                    response = client.post(action, data)
                else:
                    response = client.get(action, data)
                where = f"{method.upper()} {action} {field}={label}"
                assert response.status_code < 500, (where, response.status_code)
                if must_refuse:
                    assert response.status_code == 400, (where, response.status_code)
                    assert quote(field)[:20] in response.content.decode() or field in response.content.decode()
                    assert row_counts() == before, where
                sent += 1
        for label, size in SIZES:
            client = Client()
            if signed_in:
                client.force_login(learner)
            before = row_counts()
            body = "&".join(f"{k}={v}" for k, v in form["fields"].items()) + "&pad=" + "x" * size
            response = client.generic(method.upper(), action, body, content_type="application/x-www-form-urlencoded")
            assert 400 <= response.status_code < 500 or method == "get", (action, label, response.status_code)
            assert row_counts() == before, (action, label)
            sent += 1
    assert sent > 100
    assert Question.objects.exists()
    print(f"corpus: {len(forms)} web forms: {sent} requests")


@pytest.mark.postgres
def test_web_corpus_on_postgresql(world):
    test_corpus_against_every_web_form(world)
