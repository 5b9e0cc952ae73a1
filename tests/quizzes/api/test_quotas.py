"""Per-learner quotas (quizzes.accounts.throttle.learner_quota) through the API: RateLimit-Policy / RateLimit
(draft-ietf-httpapi-ratelimit-headers-11) on every counted response, 429 + Retry-After once spent, per learner."""

from __future__ import annotations

import re
import uuid

import pytest
from django.utils import timezone

from tests import factories
from tests.quizzes.api.conftest import token_client
from tests.quizzes.api.helpers import assert_error

pytestmark = pytest.mark.django_db
POLICY = re.compile(r'^"(?P<name>[a-z_]+)";q=(?P<q>\d+);w=(?P<w>\d+)$')
STATE = re.compile(r'^"(?P<name>[a-z_]+)";r=(?P<r>\d+);t=(?P<t>\d+)$')


def quota(response) -> tuple[dict, dict]:
    policy, state = POLICY.match(response["RateLimit-Policy"]), STATE.match(response["RateLimit"])
    assert policy and state, (response.get("RateLimit-Policy"), response.get("RateLimit"))
    return policy.groupdict(), state.groupdict()


def rate(settings, scope: str, value: str) -> None:
    settings.THROTTLE_RATES = {**settings.THROTTLE_RATES, scope: {"learner": value}}


def upload(api, learner_question):
    entry = {
        "client_uuid": str(uuid.uuid4()),
        "question_id": learner_question.pk,
        "rating": 3,
        "reviewed_at": timezone.now().isoformat(),
    }
    return api.post("/api/v1/reviews/offline/", {"entries": [entry]}, format="json")


@pytest.fixture
def prompt(db):
    return factories.PromptQuestionFactory(lesson=factories.LessonFactory())


def test_offline_uploads_count_down_then_429_with_retry_after_and_the_headers(settings, prompt):
    rate(settings, "offline_uploads", "3/1h")
    learner = factories.UserFactory()
    api = token_client(learner)
    seen = []
    for _ in range(3):
        response = upload(api, prompt)
        assert response.status_code == 200, response.content
        policy, state = quota(response)
        assert policy == {"name": "offline_uploads", "q": "3", "w": "3600"}
        seen.append(int(state["r"]))
        assert 0 < int(state["t"]) <= 3600
    assert seen == [2, 1, 0]
    refused = upload(api, prompt)
    error = assert_error(refused, 429)
    assert error["error"]["code"] == "throttled" and "try again in" in error["error"]["message"]
    policy, state = quota(refused)
    assert state["r"] == "0" and int(refused["Retry-After"]) == int(state["t"]) > 0
    other = upload(token_client(factories.UserFactory()), prompt)  # another learner: their own quota
    assert other.status_code == 200 and quota(other)[1]["r"] == "2"


def test_pack_creation_has_its_own_quota(settings, prompt):
    rate(settings, "packs", "1/1h")
    api = token_client(factories.UserFactory())
    first = api.post("/api/v1/packs/", {}, format="json")
    assert first.status_code == 201 and quota(first)[0]["name"] == "packs"
    assert assert_error(api.post("/api/v1/packs/", {}, format="json"), 429)
    assert upload(api, prompt).status_code == 200  # uploads are counted apart


def test_answers_carry_the_headers_and_trip_per_learner(settings):
    rate(settings, "answers", "2/1m")
    learner = factories.UserFactory()
    lesson = factories.LessonFactory()
    factories.ChoiceQuestionFactory(lesson=lesson, order=1, options=4)
    api = token_client(learner)
    attempt = api.post("/api/v1/attempts/", {"lesson_id": lesson.pk}, format="json").json()
    item = attempt["items"][0]
    url = f"/api/v1/items/{item['id']}/answer/"
    body = {"option_id": item["options"][0]["id"]}
    first = api.post(url, body, format="json")
    assert first.status_code == 200, first.content
    assert quota(first) == (
        {"name": "answers", "q": "2", "w": "60"},
        {"name": "answers", "r": "1", "t": quota(first)[1]["t"]},
    )
    assert api.post(url, body, format="json").status_code == 200  # the same answer again: replayed, still counted
    refused = api.post(url, body, format="json")
    assert assert_error(refused, 429) and int(refused["Retry-After"]) <= 60
