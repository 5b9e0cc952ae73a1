"""The same typed number gets the same verdict in the browser and in the app (issue 26: one number grammar).

Each input is typed into the web's answer box (a form post) and sent to the API as the answer's text, by two
learners with the same question; the verdicts must agree: right, wrong, or refused without locking (an
ambiguous comma or "%"). Only a text that is not one number differs by design, and only in how it ends: the
page refuses it and keeps what was typed, the API locks it as a wrong answer saying it could not be read (or,
for "1 0 0 0", that it is several values) — both read it as "not a number" by the same grammar.
"""

from __future__ import annotations

import pytest
from django.test import Client

from quizzes.models import AttemptItem
from quizzes.web.practice_forms import NumericAnswerForm
from tests import factories
from tests.quizzes.api.conftest import token_client
from tests.quizzes.web.practice.conftest import item_url, start

pytestmark = pytest.mark.django_db

# (typed, verdict) for a number question whose answer is 1000 ± 0.5 (kind=number, one value)
THOUSAND = [
    ("1000", "right"),
    ("1 000", "right"),  # a space groups thousands in a single-value answer
    ("1\u202f000", "right"),
    ("１０００", "right"),  # full-width digits
    ("1e3", "right"),
    ("1000.4", "right"),
    ("1001", "wrong"),
    ("-1000", "wrong"),
    ("−1000", "wrong"),  # the unicode minus is a minus
    ("1,000", "refused"),  # a thousand, or one: ambiguous
    ("1000%", "refused"),
    ("1 0 0 0", "unreadable"),
    ("a thousand", "unreadable"),
]

# (typed, verdict) for an answer of 0.5 ± 0.01 (a weight)
HALF = [
    ("0.5", "right"),
    (".5", "right"),
    ("０．５", "right"),
    ("0,5", "refused"),  # a comma decimal: ambiguous
    ("50%", "refused"),  # 0.5 as a weight, 50 as a percentage: refused, not guessed
    ("1/2", "unreadable"),
    ("-0.5", "wrong"),
    ("−0.5", "wrong"),
]


def _web_verdict(client: Client, lesson, typed: str) -> str:
    attempt = start(client, lesson)
    response = client.post(item_url(attempt, 1, "answer"), {"value": typed})
    item = attempt.items.get()
    if not item.is_answered:
        assert response.status_code == 400
        body = response.content.decode()
        return "refused" if "” is ambiguous" in body else "unreadable"
    return "right" if item.is_correct else "wrong"


def _api_verdict(api, lesson, typed: str) -> str:
    started = api.post("/api/v1/attempts/", {"lesson_id": lesson.pk}, format="json")
    assert started.status_code == 201, started.content
    item_id = started.json()["items"][0]["id"]
    response = api.post(f"/api/v1/items/{item_id}/answer/", {"value": typed}, format="json")
    if response.status_code == 400:
        assert not AttemptItem.objects.get(pk=item_id).is_answered
        return "refused" if "” is ambiguous" in response.content.decode() else "unreadable"
    assert response.status_code == 200, response.content
    result = response.json()["item"]["result"]
    if result["message_code"] in ("unreadable", "not_finite", "wrong_shape"):  # not read as one number
        return "unreadable"
    return "right" if result["correct"] else "wrong"


def _clients():
    web = Client()
    web.force_login(factories.UserFactory())
    return web, token_client(factories.UserFactory())


@pytest.mark.parametrize(
    ("answer", "tolerance", "typed", "verdict"),
    [(1000.0, 0.5, t, v) for t, v in THOUSAND] + [(0.5, 0.01, t, v) for t, v in HALF],
)
def test_the_page_and_the_api_agree(lesson, answer, tolerance, typed, verdict):
    factories.NumberQuestionFactory(
        lesson=lesson, order=1, number_answer=answer, number_tolerance=tolerance, number_unit=""
    )
    web, api = _clients()
    assert (_web_verdict(web, lesson, typed), _api_verdict(api, lesson, typed)) == (verdict, verdict)


@pytest.mark.parametrize(
    ("transform", "verdict"),
    [
        (str, "right"),
        (lambda v: str(v).translate(str.maketrans("0123456789.-", "０１２３４５６７８９．－")), "right"),
        (lambda v: str(v).replace(".", ","), "refused"),
        (lambda v: f"{v * 100:g}%", "refused"),
    ],
    ids=["plain", "full-width", "comma-decimal", "percent"],
)
def test_a_grid_and_the_apis_list_of_cells_agree(lesson, transform, verdict):
    """A vector answer: one box per value on the page, a JSON list of strings in the API — the same cells."""
    factories.NumericQuestionFactory(lesson=lesson, template="attention_row_weights", order=1)
    web, api = _clients()

    attempt = start(web, lesson)
    item = attempt.items.get()
    cells = [transform(round(v, 4)) for v in item.variant["answer"]]
    response = web.post(item_url(attempt, 1, "answer"), {f"cell_{i}": c for i, c in enumerate(cells)})
    item.refresh_from_db()
    web_verdict = ("right" if item.is_correct else "wrong") if item.is_answered else "refused"
    assert web_verdict == "refused" or response.status_code in (200, 302)

    started = api.post("/api/v1/attempts/", {"lesson_id": lesson.pk}, format="json").json()
    api_item = AttemptItem.objects.get(pk=started["items"][0]["id"])
    api_cells = [transform(round(v, 4)) for v in api_item.variant["answer"]]
    answered = api.post(f"/api/v1/items/{api_item.pk}/answer/", {"value": api_cells}, format="json")
    if answered.status_code == 400:
        api_verdict = "refused"
    else:
        api_verdict = "right" if answered.json()["item"]["result"]["correct"] else "wrong"
    assert (web_verdict, api_verdict) == (verdict, verdict)


def test_the_web_grid_reads_a_percentage_where_the_question_asks_for_one():
    data = {"cell_0": "15", "cell_1": "5", "cell_2": "67%"}
    assert NumericAnswerForm(data, shape=[3], percent=True).is_valid()
    refused = NumericAnswerForm(data, shape=[3])
    assert not refused.is_valid() and "cell_2" in refused.errors
