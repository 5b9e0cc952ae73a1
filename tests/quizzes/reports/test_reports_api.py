"""Problem reports through the API (issue 27 item 6): on an answered attempt item, a pack item and a card; bad input;
the learner sees the resolution; the ``reports`` quota's headers."""

from __future__ import annotations

import re
import uuid

import pytest
from django.utils import timezone

from quizzes.models import AttemptItem, ProblemReport, ReviewCard
from quizzes.reports.services import problem_reports_resolve
from tests import factories
from tests.quizzes.api.conftest import token_client
from tests.quizzes.api.helpers import assert_error
from tests.quizzes.packs.conftest import learner, world  # noqa: F401  (fixtures)

pytestmark = pytest.mark.django_db
REPORTS = "/api/v1/reports/"


def answered_attempt(api, lesson) -> dict:
    """Start an attempt and answer its first item (a choice question) with its first option."""
    attempt = api.post("/api/v1/attempts/", {"lesson_id": lesson.pk}, format="json").json()
    item = attempt["items"][0]
    answered = api.post(f"/api/v1/items/{item['id']}/answer/", {"option_id": item["options"][0]["id"]}, format="json")
    assert answered.status_code == 200, answered.content
    return attempt


@pytest.fixture
def two_question_lesson(db):
    lesson = factories.LessonFactory()
    factories.ChoiceQuestionFactory(lesson=lesson, order=1, options=4)
    factories.ChoiceQuestionFactory(lesson=lesson, order=2, options=4)
    return lesson


def test_a_report_on_an_answered_item_carries_the_question_and_shows_as_open_then_resolved(user, two_question_lesson):
    api = token_client(user)
    attempt = answered_attempt(api, two_question_lesson)
    item = attempt["items"][0]
    body = {"attempt_item_id": item["id"], "category": "unclear", "text": "<b>Which</b> axis?"}
    created = api.post(REPORTS, body, format="json")
    assert created.status_code == 201, created.content
    report = created.json()
    assert report["question"]["id"] == item["question"]["id"]
    assert report["prompt"] == item["question"]["prompt"]
    assert (report["origin"], report["attempt_item_id"], report["category"]) == ("item", item["id"], "unclear")
    assert report["text"] == "<b>Which</b> axis?"  # kept as typed: plain text, escaped wherever it is shown
    assert (report["status"], report["resolved_at"]) == ("open", None)

    problem_reports_resolve(reports=ProblemReport.objects.all(), by=factories.UserFactory(is_staff=True))
    (listed,) = api.get(REPORTS).json()["reports"]
    assert listed["id"] == report["id"] and listed["status"] == "resolved" and listed["resolved_at"]


def test_a_numeric_item_report_keeps_its_template_version_and_seed(user):
    lesson = factories.LessonFactory()
    factories.NumericQuestionFactory(lesson=lesson, order=1)
    api = token_client(user)
    attempt = api.post("/api/v1/attempts/", {"lesson_id": lesson.pk}, format="json").json()
    item = AttemptItem.objects.get(pk=attempt["items"][0]["id"])
    item_id = item.pk
    answer = api.post(f"/api/v1/items/{item_id}/answer/", {"value": item.variant["answer"]}, format="json")
    assert answer.status_code == 200, answer.content
    report = api.post(REPORTS, {"attempt_item_id": item_id, "category": "wrong_answer"}, format="json").json()
    assert report["variant_seed"] == item.variant_seed is not None
    assert report["template_version"] == item.template_version is not None
    assert item.variant["prompt"] in report["prompt"]  # the numbers the learner saw


def test_an_item_before_its_lock_is_refused_with_the_reason(user, two_question_lesson):
    api = token_client(user)
    attempt = answered_attempt(api, two_question_lesson)
    unanswered = attempt["items"][1]["id"]
    refused = api.post(REPORTS, {"attempt_item_id": unanswered, "category": "typo"}, format="json")
    error = assert_error(refused, 400)
    assert error["error"]["code"] == "not_revealed" and "Answer this item first" in error["error"]["message"]
    assert not ProblemReport.objects.exists()


def test_another_learners_item_or_card_is_not_found(user, other_user, two_question_lesson):
    attempt = answered_attempt(token_client(other_user), two_question_lesson)
    card = ReviewCard.objects.get(user=other_user)
    api = token_client(user)
    for body in ({"attempt_item_id": attempt["items"][0]["id"]}, {"card_id": card.pk}, {"attempt_item_id": 10**9}):
        assert_error(api.post(REPORTS, {**body, "category": "typo"}, format="json"), 404)
    assert not ProblemReport.objects.exists()


def test_bad_fields_are_named(user, two_question_lesson):
    api = token_client(user)
    item_id = answered_attempt(api, two_question_lesson)["items"][0]["id"]
    unknown = assert_error(api.post(REPORTS, {"attempt_item_id": item_id, "category": "rude"}, format="json"), 400)
    assert "category" in unknown["error"]["fields"]
    long_text = {"attempt_item_id": item_id, "category": "other", "text": "x" * 2001}
    assert "text" in assert_error(api.post(REPORTS, long_text, format="json"), 400)["error"]["fields"]
    exactly = {"attempt_item_id": item_id, "category": "other", "text": "x" * 2000}
    assert api.post(REPORTS, exactly, format="json").status_code == 201
    neither = assert_error(api.post(REPORTS, {"category": "other"}, format="json"), 400)
    both = assert_error(api.post(REPORTS, {"attempt_item_id": item_id, "card_id": 1, "category": "other"}), 400)
    assert neither["error"]["code"] == both["error"]["code"] == "one_origin"
    assert ProblemReport.objects.count() == 1


def test_a_card_and_a_pack_item_after_its_upload_can_be_reported(learner, world):  # noqa: F811
    _user, _lesson, questions = world
    api = token_client(learner)
    card = ReviewCard.objects.get(user=learner, question=questions["prompt"])
    by_card = api.post(REPORTS, {"card_id": card.pk, "category": "unclear"}, format="json")
    assert by_card.status_code == 201 and by_card.json()["prompt"] == questions["prompt"].prompt

    pack = api.post("/api/v1/packs/", {}, format="json").json()
    item = next(i for i in pack["items"] if i["question"]["kind"] == "choice")
    early = assert_error(api.post(REPORTS, {"pack_item_id": item["id"], "category": "typo"}, format="json"), 400)
    assert early["error"]["code"] == "not_revealed"
    entry = {
        "client_uuid": str(uuid.uuid4()),
        "pack_item_id": item["id"],
        "reviewed_at": timezone.now().isoformat(),
        "option_id": item["key"]["correct_option_id"],
    }
    assert api.post("/api/v1/reviews/offline/", {"entries": [entry]}, format="json").status_code == 200
    by_pack = api.post(REPORTS, {"pack_item_id": item["id"], "category": "typo"}, format="json")
    assert by_pack.status_code == 201, by_pack.content
    assert by_pack.json()["origin"] == "pack_item" and by_pack.json()["question"]["key"] == questions["choice"].key
    other = token_client(factories.UserFactory())
    assert_error(other.post(REPORTS, {"pack_item_id": item["id"], "category": "typo"}, format="json"), 404)


def test_reports_have_their_own_quota_with_the_headers(settings, user, two_question_lesson):
    settings.THROTTLE_RATES = {**settings.THROTTLE_RATES, "reports": {"learner": "2/1h"}}
    api = token_client(user)
    item_id = answered_attempt(api, two_question_lesson)["items"][0]["id"]
    body = {"attempt_item_id": item_id, "category": "other"}
    remaining = []
    for _ in range(2):
        response = api.post(REPORTS, body, format="json")
        assert response.status_code == 201
        assert response["RateLimit-Policy"] == '"reports";q=2;w=3600'
        remaining.append(int(re.match(r'^"reports";r=(\d+);t=\d+$', response["RateLimit"]).group(1)))
    assert remaining == [1, 0]
    refused = api.post(REPORTS, body, format="json")
    assert assert_error(refused, 429)["error"]["code"] == "throttled"
    assert 0 < int(refused["Retry-After"]) <= 3600
    assert ProblemReport.objects.count() == 2
