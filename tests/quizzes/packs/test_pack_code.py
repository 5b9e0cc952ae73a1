"""Code items in review packs: what the pack carries (the given code, the names, the reference solution to
show after an answer) and the server's grade at upload, which must equal online grading of the same code."""

from __future__ import annotations

import datetime as dt
import uuid

import pytest
import time_machine
from django.utils import timezone

from attention_engine import codecheck
from quizzes.models import PackItem, Question, ReviewLog
from quizzes.practice.services import attempt_start, item_answer
from tests import factories
from tests.quizzes.api.conftest import token_client
from tests.quizzes.api.helpers import assert_error

pytestmark = pytest.mark.django_db
PACKS = "/api/v1/packs/"
UPLOAD = "/api/v1/reviews/offline/"
SPEC = codecheck.get("sdpa_three_lines")
BUG = next(m for m in SPEC.misconceptions if m.id == "softmax_wrong_axis")
UNRUNNABLE = "scores = Q @ K.swapaxes(-2, -1) / np.sqrt(d_k)\nmask = open('x')\nweights = 1\n"


@pytest.fixture
def code_question(world):
    """The world's learner also studied a code card a week ago (a wrong answer: it is due again now)."""
    user = world[0]
    with time_machine.travel(timezone.now() - dt.timedelta(days=7), tick=False):
        lesson = factories.LessonFactory()
        question = factories.CodeQuestionFactory(lesson=lesson, key="l9-code-three-lines")
        (item,) = attempt_start(user=user, lesson=lesson).items.all()
        item_answer(user=user, item=item, code=BUG.code)
    return question


@pytest.fixture
def pack(api, code_question):
    response = api.post(PACKS, {}, format="json")
    assert response.status_code == 201, response.content
    return response.json()


@pytest.fixture
def code_item(pack, code_question):
    return next(i for i in pack["items"] if i["question"]["id"] == code_question.pk)


def entry(item, at, **what):
    return {"client_uuid": str(uuid.uuid4()), "pack_item_id": item["id"], "reviewed_at": at.isoformat(), **what}


def upload(api, *entries):
    response = api.post(UPLOAD, {"entries": list(entries)}, format="json")
    assert response.status_code == 200, response.content
    return response.json()["entries"]


def newest_log(user, question_id) -> ReviewLog:
    return ReviewLog.objects.filter(user=user, card__question_id=question_id).order_by("-reviewed_at", "-id").first()


def online(question, code: str) -> tuple[int, dict, int | None]:
    """A new learner answers the same question online with ``code``: (status, body, the rating logged)."""
    stranger = factories.UserFactory(date_joined=timezone.now() - dt.timedelta(days=30))
    api = token_client(stranger)
    attempt = api.post("/api/v1/attempts/", {"lesson_id": question.lesson_id}, format="json").json()
    response = api.post(f"/api/v1/items/{attempt['items'][0]['id']}/answer/", {"code": code}, format="json")
    log = ReviewLog.objects.filter(user=stranger).first()
    return response.status_code, response.json(), log.rating if log else None


class TestContents:
    def test_a_code_item_carries_the_given_code_the_names_and_the_reference(self, code_item):
        assert code_item["question"]["kind"] == "code"
        code = code_item["code"]
        assert code["spec"] == SPEC.key and code["display_code"] == SPEC.display_code()
        assert code["required"] == ["scores", "mask", "weights"]
        assert {i["name"]: i["shape_text"] for i in code["inputs"]}["Q"] == "(..., T, d_k)"
        key = code_item["key"]
        # the key on purpose (issue 17): the reference solution, shown after the learner's answer
        assert key["reference_solution"] == SPEC.reference and key["graded_at_upload"] is True
        assert key["correct_option_id"] is None and key["correct_value"] is None and key["test_vectors"] == []
        assert code_item["options"] == [] and code_item["numeric"] is None and code_item["self_rated"] is None

    def test_other_kinds_are_graded_on_the_phone(self, pack, code_item):
        others = [i for i in pack["items"] if i["id"] != code_item["id"]]
        assert len(others) == 5 and all(i["code"] is None for i in others)
        assert all(i["key"]["graded_at_upload"] is False for i in others if i["key"] is not None)


class TestServerGradesCode:
    @pytest.mark.parametrize(
        "code",
        [SPEC.reference, *(m.code for m in SPEC.misconceptions)],
        ids=["reference", *(m.id for m in SPEC.misconceptions)],
    )
    def test_the_upload_is_graded_as_online(self, api, learner, code_question, code_item, code):
        (outcome,) = upload(api, entry(code_item, timezone.now(), code=code, shown_correct=True))
        status, body, online_rating = online(code_question, code)
        assert outcome["status"] == "applied" and status == 200
        graded, result = outcome["graded"], body["item"]["result"]
        for field in ("correct", "score", "check", "suggested_rating", "misconception", "reference", "message_display"):
            assert graded[field] == result[field], field
        assert outcome["overrides_client"] is (not result["correct"])
        log = newest_log(learner, code_question.pk)
        assert log.source == ReviewLog.Source.OFFLINE and not log.client_graded
        assert log.rating == online_rating == result["suggested_rating"]  # Good, Hard (accepted) or Again
        assert PackItem.objects.get(pk=code_item["id"]).response == code

    def test_code_that_cannot_run_is_rejected_with_the_checkers_message_and_locks_nothing(
        self, api, learner, code_question, code_item
    ):
        logs_before = ReviewLog.objects.filter(user=learner).count()
        (outcome,) = upload(api, entry(code_item, timezone.now(), code=UNRUNNABLE))
        status, body, _rating = online(code_question, UNRUNNABLE)
        assert status == 400 and body["error"]["code"] == "code_not_runnable"
        assert (outcome["status"], outcome["reason"]) == ("rejected", "code_not_runnable")
        assert outcome["message"] == body["error"]["message"] and "line 2, column" in outcome["message"]
        assert not PackItem.objects.get(pk=code_item["id"]).is_answered
        assert ReviewLog.objects.filter(user=learner).count() == logs_before
        (fixed,) = upload(api, entry(code_item, timezone.now(), code=SPEC.reference))
        assert fixed["status"] == "applied" and fixed["graded"]["correct"] is True

    def test_code_must_be_text(self, api, code_item):
        (empty,) = upload(api, entry(code_item, timezone.now(), code="   "))
        assert (empty["status"], empty["reason"]) == ("rejected", "unreadable_answer")
        assert_error(api.post(UPLOAD, {"entries": [entry(code_item, timezone.now(), code=3)]}, format="json"), 400)

    def test_a_changed_question_is_graded_against_the_packs_copy(self, api, learner, code_question, code_item):
        other = codecheck.get("stable_softmax")
        Question.objects.filter(pk=code_question.pk).update(code_spec=other.key, published=False, explanation="新")
        (outcome,) = upload(api, entry(code_item, timezone.now(), code=SPEC.reference))
        assert outcome["status"] == "applied" and outcome["graded"]["correct"] is True
        assert outcome["graded"]["reference"] == SPEC.reference and outcome["graded"]["explanation"] != "新"
        assert newest_log(learner, code_question.pk).rating == ReviewLog.Rating.GOOD

    def test_the_deprecated_correct_form_still_works_for_code(self, api, learner, code_question):
        body = {"client_uuid": str(uuid.uuid4()), "question_id": code_question.pk, "correct": False}
        (outcome,) = upload(api, {**body, "reviewed_at": timezone.now().isoformat()})
        assert outcome["status"] == "applied" and outcome["graded"] is None
        log = newest_log(learner, code_question.pk)
        assert log.client_graded is True and log.rating == ReviewLog.Rating.AGAIN
