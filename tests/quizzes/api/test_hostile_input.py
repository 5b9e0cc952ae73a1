"""The issue's hand-made bad inputs: each gets a 4xx with a reason in the error shape, none is stored.

Deep nesting, overflowing/non-finite numbers, NUL and lone surrogates in JSON, an echoed surrogate,
bodies over both size limits, and byte-identical idempotent replays. The same inputs (and many more)
run against every operation in test_bad_input_corpus.py; this file pins the exact answers.
"""

from __future__ import annotations

import json

import pytest
from django.core.exceptions import ValidationError

from quizzes.api.parsers import json_depth
from quizzes.models import Attempt, AttemptItem, IdempotencyKey, ReviewLog
from quizzes.practice.services import item_answer
from tests import factories
from tests.quizzes.api.helpers import assert_error

pytestmark = pytest.mark.django_db
JSON = "application/json"


def post_raw(api, url: str, body: str | bytes, **extra):
    data = body.encode("utf-8", "surrogatepass") if isinstance(body, str) else body
    return api.generic("POST", url, data, content_type=JSON, **extra)


@pytest.fixture
def numeric_item(api, lesson):
    factories.NumericQuestionFactory(lesson=lesson, order=1)
    attempt = api.post("/api/v1/attempts/", {"lesson_id": lesson.pk}, format="json").json()
    return AttemptItem.objects.get(pk=attempt["items"][0]["id"])


def test_json_depth_is_measured_without_parsing():
    assert json_depth("1") == 0 and json_depth("[]") == 1 and json_depth('{"a": [1, {"b": 2}]}') == 3
    assert json_depth('["[[[[", "\\"[["]') == 1  # brackets inside strings (and escaped quotes) don't count
    assert json_depth("[" * 100_000 + "]" * 100_000) == 100_000


@pytest.mark.parametrize("url", ["/api/v1/attempts/", "/api/v1/reviews/offline/"])
def test_deeply_nested_json_is_a_400_not_a_recursion_error(api, lesson, url):
    response = post_raw(api, url, "[" * 100_000 + "]" * 100_000)
    body = assert_error(response, 400, "too_deep")
    assert "32 levels" in body["error"]["message"]
    assert not Attempt.objects.exists()


def test_nested_option_id_on_the_answer_route(api, numeric_item):
    deep = "[" * 3000 + "]" * 3000
    response = post_raw(api, f"/api/v1/items/{numeric_item.pk}/answer/", '{"option_id": ' + deep + "}")
    assert_error(response, 400, "too_deep")
    ok_depth = '{"value": ' + "[" * 31 + "1" + "]" * 31 + "}"  # 32 levels with the object: allowed
    assert post_raw(api, f"/api/v1/items/{numeric_item.pk}/answer/", ok_depth).status_code == 200


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("1" + "0" * 400, "1000000000"),
        ("1e400", "1e400"),
        ("-1e400", "-1e400"),
        ("NaN", "NaN"),
        ("Infinity", "Infinity"),
        ("[1, 2e999]", "2e999"),
        ("9223372036854775808", "9223372036854775808"),  # 2**63: one past the signed 64-bit range
    ],
)
def test_numbers_the_api_cannot_hold_are_a_400_naming_the_field(api, numeric_item, raw, shown):
    response = post_raw(api, f"/api/v1/items/{numeric_item.pk}/answer/", '{"value": ' + raw + "}")
    body = assert_error(response, 400, "validation_error")
    (field,) = body["error"]["fields"]
    assert field.startswith("value")
    assert shown in body["error"]["fields"][field][0]
    numeric_item.refresh_from_db()
    assert numeric_item.answered_at is None and not ReviewLog.objects.exists()


def test_largest_64_bit_integer_is_fine(api, numeric_item):
    response = post_raw(api, f"/api/v1/items/{numeric_item.pk}/answer/", '{"value": 9223372036854775807}')
    assert response.status_code == 200
    assert response.json()["item"]["result"]["correct"] is False


@pytest.mark.parametrize(
    ("body", "field", "reason"),
    [
        ('{"value": "a\\u0000b"}', "value", "NUL"),
        ('{"value": "\\ud800"}', "value", "surrogate"),
        ('{"value": ["1", "\\udfff"]}', "value.1", "surrogate"),
        ('{"value": "1", "extra\\u0000key": 1}', "extra\\x00key", "NUL"),
    ],
)
def test_nul_and_lone_surrogates_are_refused_before_the_database(api, numeric_item, body, field, reason):
    response = post_raw(api, f"/api/v1/items/{numeric_item.pk}/answer/", body)
    payload = assert_error(response, 400, "validation_error")
    assert field in payload["error"]["fields"], payload
    assert reason in payload["error"]["fields"][field][0]
    numeric_item.refresh_from_db()
    assert numeric_item.answered_at is None


def test_surrogate_in_a_choice_field_is_not_echoed_into_a_500(api, lesson):
    response = post_raw(api, "/api/v1/attempts/", f'{{"lesson_id": {lesson.pk}, "mode": "\\ud800"}}')
    body = assert_error(response, 400, "validation_error")
    assert "surrogate" in body["error"]["fields"]["mode"][0]
    assert not Attempt.objects.exists()


def test_renderer_replaces_a_surrogate_that_reaches_a_response():
    from quizzes.api.renderers import SafeJSONRenderer

    rendered = SafeJSONRenderer().render({"error": {"message": '"\ud800" is not a valid choice.'}})
    assert json.loads(rendered) == {"error": {"message": '"\ufffd" is not a valid choice.'}}


@pytest.mark.parametrize("size", [600 * 1024, 3 * 1024 * 1024, 6 * 1024 * 1024])
def test_every_size_limit_is_a_json_413(api, lesson, size):
    body = f'{{"lesson_id": {lesson.pk}, "pad": "{"x" * size}"}}'
    response = post_raw(api, "/api/v1/attempts/", body)
    payload = assert_error(response, 413, "payload_too_large")
    assert "bytes" in payload["error"]["message"]
    assert not Attempt.objects.exists()


def test_djangos_own_limit_is_json_on_the_api_too(api, lesson, settings):
    """Our limit raised above Django's: DATA_UPLOAD_MAX_MEMORY_SIZE fires first — still JSON 413."""
    settings.API_MAX_BODY_BYTES = 10 * 1024 * 1024
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1024
    body = f'{{"lesson_id": {lesson.pk}, "pad": "{"x" * 4096}"}}'
    assert_error(post_raw(api, "/api/v1/attempts/", body), 413, "payload_too_large")
    assert_error(
        api.generic("POST", "/api/v1/attempts/", "a=" + "x" * 4096, content_type="application/x-www-form-urlencoded"),
        415,
    )


def test_nul_in_a_query_parameter_names_it(api):
    body = assert_error(api.get("/api/v1/reviews/due/?page_size=1%00"), 400, "validation_error")
    assert list(body["error"]["fields"]) == ["page_size"]


def test_idempotent_replay_is_byte_identical(api, lesson):
    factories.ChoiceQuestionFactory(lesson=lesson, order=1, options=4)
    first = api.post("/api/v1/attempts/", {"lesson_id": lesson.pk}, format="json", HTTP_IDEMPOTENCY_KEY="k-1")
    again = api.post("/api/v1/attempts/", {"lesson_id": lesson.pk}, format="json", HTTP_IDEMPOTENCY_KEY="k-1")
    assert first.status_code == again.status_code == 201
    assert again.headers["Idempotent-Replayed"] == "true"
    assert again.content == first.content  # same bytes, same key order (not a jsonb round trip)
    assert isinstance(IdempotencyKey.objects.get().response_body, str)


# --- the service itself, for callers other than the API ----------------------------------------------


@pytest.mark.parametrize(
    "value",
    [10**400, [10**400, 1], "1e400", "1" + "0" * 400, float("nan"), float("inf"), [[-float("inf")]], "a\x00", "\ud800"],
)
def test_numeric_answer_service_never_raises_overflow_or_data_error(user, lesson, value):
    from quizzes.practice.services import attempt_start

    factories.NumericQuestionFactory(lesson=lesson, order=1)
    attempt = attempt_start(user=user, lesson=lesson)
    item = attempt.items.select_related("question", "attempt").get()
    try:
        outcome = item_answer(user=user, item=item, value=value)
    except ValidationError as exc:  # refused before the grader and the database: nothing stored
        assert "value" in exc.message_dict
        item.refresh_from_db()
        assert item.answered_at is None
        return
    assert outcome.result["correct"] is False
    assert "not a number I can grade" in outcome.result["message"]
    item.refresh_from_db()
    assert item.answered_at is not None


@pytest.mark.postgres
def test_numeric_answer_service_on_postgresql_jsonb(user, lesson):
    """The values that used to raise DataError when the response was saved to jsonb."""
    from quizzes.practice.services import attempt_start

    factories.NumericQuestionFactory(lesson=lesson, order=1)
    item = attempt_start(user=user, lesson=lesson).items.select_related("question", "attempt").get()
    for value in ("a\x00b", "\ud800", float("nan")):
        with pytest.raises(ValidationError):
            item_answer(user=user, item=item, value=value)
    outcome = item_answer(user=user, item=item, value=10**400)
    assert outcome.result["correct"] is False
    item.refresh_from_db()
    assert item.response == 10**400
