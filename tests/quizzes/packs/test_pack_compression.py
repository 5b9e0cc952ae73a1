"""Compressed responses (quizzes.sitewide.compression): packs and the API in gzip when asked, the same JSON decoded;
small responses, pages with a CSRF token and clients that do not ask get the plain body."""

from __future__ import annotations

import gzip
import json

import pytest

from tests import factories

pytestmark = pytest.mark.django_db
GZIP = {"HTTP_ACCEPT_ENCODING": "gzip, deflate, br"}


def issued(api) -> dict:
    response = api.post("/api/v1/packs/", {"device": "Pixel 8"}, format="json")
    assert response.status_code == 201, response.content
    return response.json()


def test_a_pack_arrives_gzipped_and_decodes_to_the_same_json(api):
    pack = issued(api)
    plain = api.get(f"/api/v1/packs/{pack['id']}/")
    zipped = api.get(f"/api/v1/packs/{pack['id']}/", **GZIP)
    assert "Content-Encoding" not in plain and plain.json()["items"] == pack["items"]
    assert zipped["Content-Encoding"] == "gzip" and "Accept-Encoding" in zipped["Vary"]
    assert int(zipped["Content-Length"]) == len(zipped.content) < len(plain.content)
    decoded = json.loads(gzip.decompress(zipped.content))
    assert {**decoded, "server_time": None} == {**plain.json(), "server_time": None}


def test_the_compressed_packs_etag_is_weak_and_still_answers_304(api):
    pack = issued(api)
    zipped = api.get(f"/api/v1/packs/{pack['id']}/", **GZIP)
    assert zipped["ETag"].startswith('W/"')
    again = api.get(f"/api/v1/packs/{pack['id']}/", HTTP_IF_NONE_MATCH=zipped["ETag"], **GZIP)
    assert again.status_code == 304


def test_the_issue_response_itself_is_compressed(api):
    response = api.post("/api/v1/packs/", {"device": "Pixel 8"}, format="json", **GZIP)
    assert response.status_code == 201 and response["Content-Encoding"] == "gzip"
    assert json.loads(gzip.decompress(response.content))["item_count"] == 5


def test_an_api_answer_is_compressed_from_the_minimum_size_on(api, world, settings):
    url = f"/api/v1/lessons/{world[1].pk}/"
    plain = api.get(url)
    assert len(plain.content) > 1000
    settings.COMPRESS_MIN_BYTES = len(plain.content)
    lessons = api.get(url, **GZIP)
    assert lessons["Content-Encoding"] == "gzip" and json.loads(gzip.decompress(lessons.content)) == plain.json()
    settings.COMPRESS_MIN_BYTES = len(plain.content) + 1
    assert "Content-Encoding" not in api.get(url, **GZIP)


def test_a_small_answer_is_sent_as_it_is(api, settings):
    ping = api.get("/api/v1/ping/", **GZIP)
    assert len(ping.content) < settings.COMPRESS_MIN_BYTES == 512
    assert "Content-Encoding" not in ping and json.loads(ping.content)


def test_learner_pages_with_a_csrf_token_are_never_compressed(client):
    client.force_login(factories.UserFactory())
    page = client.get("/settings/", **GZIP)
    assert page.status_code == 200 and b"csrfmiddlewaretoken" in page.content
    assert "Content-Encoding" not in page


def test_the_api_docs_html_is_not_compressed_but_the_schema_is(client):
    assert "Content-Encoding" not in client.get("/api/docs/", **GZIP)
    schema = client.get("/api/schema/", **GZIP)
    assert schema["Content-Encoding"] == "gzip" and gzip.decompress(schema.content).startswith(b"openapi")
