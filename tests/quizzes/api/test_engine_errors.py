"""The engine endpoints, and the one error shape for every kind of 4xx."""

from __future__ import annotations

import pytest

from quizzes.content.attention_demo import demo_matrix
from tests.quizzes.api.helpers import assert_error

pytestmark = pytest.mark.django_db


def test_demo_matrix(api):
    body = api.get("/api/v1/engine/demo/?d_k=64&causal=true&scaled=false").json()
    assert body == demo_matrix(d_k=64, causal=True, scaled=False)
    assert all(row[i + 1 :] == [0.0] * (5 - i) for i, row in enumerate(body["weights"]))  # causal: no future
    default = api.get("/api/v1/engine/demo/").json()
    assert (default["d_k"], default["causal"], default["scaled"]) == (16, False, True)


@pytest.mark.parametrize("query", ["d_k=0", "d_k=65", "d_k=abc", "causal=maybe", "d_k=2.5"])
def test_demo_matrix_validation(api, query):
    assert_error(api.get(f"/api/v1/engine/demo/?{query}"), 400, "validation_error")


def test_variant_preview_is_staff_only(api, staff_api):
    body = {"template": "attention_row_weights", "seed": 3, "params": {}}
    assert_error(api.post("/api/v1/engine/preview/", body, format="json"), 403, "permission_denied")
    preview = staff_api.post("/api/v1/engine/preview/", body, format="json").json()
    assert preview["seed"] == 3 and preview["solution"] and preview["answer"]
    assert [c["correct"] for c in preview["choices"]].count(True) == 1


def test_variant_preview_validation(staff_api):
    url = "/api/v1/engine/preview/"
    assert "template" in assert_error(staff_api.post(url, {"template": "nope"}, format="json"), 400)["error"]["fields"]
    bad_params = {"template": "attention_row_weights", "params": {"unknown": 1}}
    assert "params" in assert_error(staff_api.post(url, bad_params, format="json"), 400)["error"]["fields"]
    assert_error(staff_api.post(url, {"template": "attention_row_weights", "seed": -1}, format="json"), 400)


def test_unknown_api_url_is_json_404(api, anon):
    for client in (api, anon):
        assert_error(client.get("/api/v1/nothing-here/"), 404, "not_found")
        assert_error(client.get("/api/v2/lessons/"), 404, "not_found")


def test_wrong_method_media_type_and_json(api):
    assert_error(api.put("/api/v1/profile/", {}, format="json"), 405, "method_not_allowed")
    assert_error(api.post("/api/v1/reviews/rate/", "rating=3", content_type="application/x-www-form-urlencoded"), 415)
    assert_error(api.post("/api/v1/reviews/rate/", "{not json", content_type="application/json"), 400, "parse_error")
    assert_error(api.post("/api/v1/reviews/rate/", '{"rating": NaN}', content_type="application/json"), 400)
    assert_error(api.get("/api/v1/profile/", HTTP_ACCEPT="text/html"), 406, "not_acceptable")


def test_a_query_parameter_given_twice_is_a_400_naming_it(api):
    for url in ("/api/v1/reviews/forecast/?days=3&days=5", "/api/v1/engine/demo/?d_k=4&d_k=8"):
        body = assert_error(api.get(url), 400, "validation_error")
        assert set(body["error"]["fields"]) <= {"days", "d_k"} and body["error"]["fields"]


def test_a_query_parameter_without_a_value_is_a_400_not_the_default(api):
    body = assert_error(api.get("/api/v1/attempts/?page="), 400, "validation_error")
    assert list(body["error"]["fields"]) == ["page"]


def test_bad_query_values_are_a_400_per_field_and_leave_nothing_for_the_next_request(api):
    """The query serializers are shared between requests: a refused query must not leak into the next one."""
    body = assert_error(api.get("/api/v1/reviews/due/?page=0&page_size=abc"), 400, "validation_error")
    assert set(body["error"]["fields"]) == {"page", "page_size"}
    assert "1" in body["error"]["fields"]["page"][0]  # greater than or equal to 1
    good = api.get("/api/v1/reviews/due/?page_size=5")
    assert good.status_code == 200 and (good.json()["page"], good.json()["page_size"]) == (1, 5)
    assert api.get("/api/v1/reviews/due/?page=0&page_size=abc").json() == body
