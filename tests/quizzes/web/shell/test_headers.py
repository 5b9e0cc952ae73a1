"""Headers on every response: the enforced Content-Security-Policy, Cache-Control, and the favicon."""

from __future__ import annotations

import pytest
from django.urls import reverse

from tests import factories
from tests.quizzes.api.conftest import token_client

pytestmark = pytest.mark.django_db


def test_pages_carry_an_enforced_policy_without_unsafe_inline(learner_client):
    response = learner_client.get(reverse("web:dashboard"))
    policy = response["Content-Security-Policy"]
    assert "Content-Security-Policy-Report-Only" not in response
    assert "default-src 'self'" in policy and "script-src 'self'" in policy
    assert "object-src 'none'" in policy and "frame-ancestors 'none'" in policy and "base-uri 'none'" in policy
    assert "unsafe-inline" not in policy and "unsafe-eval" not in policy
    assert 'style="' not in response.content.decode() and "<style" not in response.content.decode()


def test_swagger_gets_a_nonce_and_redoc_its_own_policy(client):
    docs = client.get("/api/docs/")
    nonce = docs["Content-Security-Policy"].split("'nonce-")[1].split("'")[0]
    assert f'<script nonce="{nonce}">' in docs.content.decode()
    redoc = client.get("/api/redoc/")
    assert "style-src 'self' 'unsafe-inline'" in redoc["Content-Security-Policy"]
    assert "worker-src 'self' blob:" in redoc["Content-Security-Policy"]


def test_the_500_page_style_is_allowed_by_its_hash(client, settings):
    from django.test import RequestFactory
    from django.views.defaults import server_error

    body = server_error(RequestFactory().get("/")).content.decode()
    style = body.split("<style>")[1].split("</style>")[0]
    import base64
    import hashlib

    digest = base64.b64encode(hashlib.sha256(style.encode()).digest()).decode()
    assert f"'sha256-{digest}'" in settings.CONTENT_SECURITY_POLICY["DIRECTIVES"]["style-src"]


def test_learner_pages_and_api_responses_are_not_stored(learner_client, learner):
    for url in (reverse("web:dashboard"), reverse("web:settings"), reverse("web:review_session")):
        assert learner_client.get(url)["Cache-Control"] == "private, no-store", url
    api = token_client(learner)
    assert api.get("/api/v1/reviews/due/")["Cache-Control"] == "private, no-store"
    assert api.get("/api/v1/profile/")["Cache-Control"] == "private, no-store"
    assert api.post("/api/v1/attempts/", {}, format="json")["Cache-Control"] == "private, no-store"  # errors too


def test_etag_resources_are_revalidated_not_forbidden(learner):
    factories.LessonFactory()
    api = token_client(learner)
    first = api.get("/api/v1/lessons/")
    assert first["Cache-Control"] == "private, no-cache" and first["ETag"]
    again = api.get("/api/v1/lessons/", HTTP_IF_NONE_MATCH=first["ETag"])
    assert again.status_code == 304 and again["Cache-Control"] == "private, no-cache"


def test_favicon(client):
    response = client.get("/favicon.ico")
    assert response.status_code == 200 and response["Content-Type"] == "image/x-icon"
    assert b"".join(response.streaming_content)[:4] == b"\x00\x00\x01\x00"
    assert 'rel="icon"' in client.get(reverse("web:lesson_list")).content.decode()
