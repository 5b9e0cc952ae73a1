"""Code items over the API (issue 15): the item before the lock (given code and names, no reference),
``{"code": …}`` answers graded in the sandbox, a refusal that locks nothing, the rate endpoint."""

from __future__ import annotations

import pytest

from attention_engine import codecheck
from quizzes.models import AttemptItem, ReviewLog
from tests import factories
from tests.quizzes.api.helpers import answer_leaks, assert_error, strings_in

pytestmark = pytest.mark.django_db

SPEC = codecheck.get("sdpa_three_lines")
BUG = next(m for m in SPEC.misconceptions if m.id == "softmax_wrong_axis")


@pytest.fixture
def code_item(api, lesson):
    factories.CodeQuestionFactory(lesson=lesson, key="l1-code-three-lines")
    response = api.post("/api/v1/attempts/", {"lesson_id": lesson.pk}, format="json")
    assert response.status_code == 201
    return response.json()["items"][0]


def answer(api, item, code, **extra):
    return api.post(f"/api/v1/items/{item['id']}/answer/", {"code": code}, format="json", **extra)


def test_before_the_lock_the_item_shows_the_given_code_and_names_never_the_reference(api, code_item):
    assert code_item["question"]["kind"] == "code"
    code = code_item["code"]
    assert code["spec"] == SPEC.key and code["display_code"] == SPEC.display_code()
    assert code["required"] == ["scores", "mask", "weights"]
    assert {i["name"]: i["shape_text"] for i in code["inputs"]}["Q"] == "(..., T, d_k)"
    assert not answer_leaks(code_item)
    texts = " ".join(strings_in(code_item))
    for line in SPEC.reference.strip().split("\n"):
        assert line not in texts


def test_a_bug_is_named_and_the_result_has_the_check_structure(api, code_item, user):
    response = answer(api, code_item, BUG.code)
    assert response.status_code == 200, response.json()
    result = response.json()["item"]["result"]
    assert result["kind"] == "code" and result["correct"] is False
    check = result["check"]
    assert check["verdict"] == "incorrect" and check["misconception"] == BUG.id
    assert check["params"]["line"] == 3 and check["params"]["name"] == "weights"
    assert [m["mark"] for m in check["lines"]] == ["correct", "correct", "incorrect"]
    assert check["example"]["name"] == "weights" and check["example"]["expected"] != check["example"]["got"]
    assert result["suggested_rating"] == ReviewLog.Rating.AGAIN
    assert result["reference"] == SPEC.reference
    assert response.json()["item"]["response"]["code"] == BUG.code
    assert ReviewLog.objects.get(user=user).source == ReviewLog.Source.API


def test_code_that_cannot_run_is_a_400_with_line_and_column_and_locks_nothing(api, code_item):
    response = answer(api, code_item, "scores = Q @ K.swapaxes(-2, -1) / np.sqrt(d_k)\nmask = open('x')\nweights = 1\n")
    body = assert_error(response, 400, "code_not_runnable")
    first = body["check"]["messages"][0]
    assert first["code"] == "forbidden_name" and first["line"] == 2 and first["col"] is not None
    assert "line 2, column" in body["error"]["message"]
    assert body["error"]["fields"]["code"]
    assert not AttemptItem.objects.get(pk=code_item["id"]).is_answered
    fixed = answer(api, code_item, SPEC.reference)
    assert fixed.status_code == 200 and fixed.json()["item"]["result"]["correct"] is True


def test_a_code_item_needs_code_as_text(api, code_item):
    assert_error(api.post(f"/api/v1/items/{code_item['id']}/answer/", {"value": 3}, format="json"), 400)
    assert_error(api.post(f"/api/v1/items/{code_item['id']}/answer/", {"code": 3}, format="json"), 400)


def test_a_different_answer_after_the_lock_is_409(api, code_item):
    assert answer(api, code_item, BUG.code).status_code == 200
    assert answer(api, code_item, BUG.code).json()["replayed"] is True
    body = assert_error(answer(api, code_item, SPEC.reference), 409, "answer_locked")
    assert body["item"]["result"]["check"]["misconception"] == BUG.id


def test_rate_accepts_or_changes_the_suggested_rating(api, other_api, code_item, user):
    url = f"/api/v1/items/{code_item['id']}/rate/"
    assert_error(api.post(url, {"rating": 3}, format="json"), 400)  # not answered yet
    answer(api, code_item, SPEC.reference)
    assert ReviewLog.objects.get(user=user).rating == ReviewLog.Rating.GOOD
    response = api.post(url, {"rating": 2}, format="json")
    assert response.status_code == 200
    assert response.json()["rating"] == 2 and response.json()["item"]["result"]["suggested_rating"] == 3
    assert ReviewLog.objects.get(user=user).rating == ReviewLog.Rating.HARD
    assert_error(api.post(url, {"rating": 5}, format="json"), 400)
    assert_error(api.post(url, {"rating": "3"}, format="json"), 400)
    assert_error(other_api.post(url, {"rating": 3}, format="json"), 404)


def test_the_engines_attack_corpus_through_the_api_is_refused_clearly_never_a_500(api, user, lesson, settings):
    """Every entry of tests/attention_engine/codecheck/attacks.json sent as a code answer: refused before
    running → 400 code_not_runnable (or the API's own size limit, 413) with the item still open; refused
    while running → 200, locked and graded wrong."""
    from quizzes.practice.services import attempt_start
    from tests.attention_engine.codecheck.test_attacks import ATTACK, CORPUS, source

    # 195 answers from one learner in well under a minute: above the answers quota (tests/quizzes/api/test_quotas.py
    # tests that), which this test is not about
    settings.THROTTLE_RATES = {**settings.THROTTLE_RATES, "answers": {"learner": f"{10 * len(CORPUS)}/1m"}}
    factories.CodeQuestionFactory(lesson=lesson, key="attack", code_spec=ATTACK.to_dict())
    for key in codecheck.names():
        factories.CodeQuestionFactory(lesson=lesson, key=key.replace("_", "-"), code_spec=key)
    items: dict[str, AttemptItem] = {}
    for entry in CORPUS:
        if entry["spec"] not in items or items[entry["spec"]].is_answered:
            for item in attempt_start(user=user, lesson=lesson).items.select_related("question"):
                items["attack" if item.question.key == "attack" else item.question.code_spec] = item
        item = items[entry["spec"]]
        code = source(entry)
        response = api.post(f"/api/v1/items/{item.pk}/answer/", {"code": code}, format="json")
        body = response.json()
        assert "Traceback" not in response.content.decode()
        item.refresh_from_db()
        if entry["kind"] == "static":
            if len(code) > settings.API_MAX_BODY_BYTES:
                assert_error(response, 413, "payload_too_large")
            else:
                assert response.status_code == 400, (entry["name"], body)
                assert body["error"]["code"] in ("code_not_runnable", "validation_error"), (entry["name"], body)
            assert not item.is_answered, entry["name"]
        else:
            assert response.status_code == 200, (entry["name"], body)
            assert body["item"]["result"]["correct"] is False and item.is_answered
