"""Code items on the item page (issue 15): the editor before the lock, a refusal shown in the page and
nothing locked, the reveal after the first runnable submission, the suggested rating accepted or changed."""

from __future__ import annotations

import pytest
from django.urls import reverse
from django.utils import translation

from attention_engine import codecheck, misconceptions
from quizzes.models import ReviewLog
from tests import factories
from tests.quizzes.web.practice.conftest import item_url, start

pytestmark = pytest.mark.django_db

SPEC = codecheck.get("sdpa_three_lines")
REFERENCE_LINES = SPEC.reference.strip().split("\n")
DIAGONAL_BUG = next(m for m in SPEC.misconceptions if m.id == "mask_hides_diagonal")


@pytest.fixture
def code_attempt(learner_client):
    question = factories.CodeQuestionFactory(key="l1-code-three-lines")
    return start(learner_client, question.lesson)


def test_before_the_lock_the_page_shows_the_given_code_and_names_but_never_the_reference(learner_client, code_attempt):
    response = learner_client.get(item_url(code_attempt, 1))
    html = response.content.decode()
    assert response.status_code == 200
    assert 'name="code"' in html and "data-code-editor" in html
    assert "TODO: scores" in html and "np.where(mask, -np.inf, scores)" in html  # the scaffold, read-only
    for line in REFERENCE_LINES:
        assert line not in html  # the reference solution never reaches the page before the lock
    for name in ("scores", "mask", "weights"):
        assert f"<code>{name}</code>" in html
    assert "code_editor.js" in html


def test_a_syntax_error_is_shown_with_line_and_column_and_locks_nothing(learner_client, code_attempt):
    typo = "scores = Q @ K.swapaxes(-2, -1) / np.sqrt(d_k\nmask = np.triu(np.ones((T, T), dtype=bool), k=1)\n"
    response = learner_client.post(item_url(code_attempt, 1, "answer"), {"code": typo})
    html = response.content.decode()
    assert response.status_code == 400
    assert "line 1, column" in html and "not valid Python" in html
    assert "np.sqrt(d_k\n" in html  # the learner's text is kept in the editor
    item = code_attempt.items.get()
    assert not item.is_answered and not ReviewLog.objects.exists()


def test_a_bug_is_named_at_its_line_and_the_rating_can_be_changed(learner_client, code_attempt, user):
    response = learner_client.post(item_url(code_attempt, 1, "answer"), {"code": DIAGONAL_BUG.code})
    assert response.status_code == 302
    html = learner_client.get(item_url(code_attempt, 1)).content.decode()
    title = misconceptions.get("mask_hides_diagonal").title_en
    assert title in html
    assert "line 2 (mask)" in html
    assert "code-line--incorrect" in html and "code-line--correct" in html
    assert "Worked example" in html and "Expected" in html
    for line in REFERENCE_LINES:
        assert line in html  # after the lock: the reference solution
    log = ReviewLog.objects.get(user=user)
    assert log.rating == ReviewLog.Rating.AGAIN  # the suggestion is recorded at the lock
    assert 'rating--1 rating--suggested rating--chosen"' in html

    rate = reverse("web:attempt_rate", args=[code_attempt.pk, 1])
    response = learner_client.post(rate, {"rating": "2"}, follow=True)
    assert "Rated Hard" in response.content.decode()
    log.refresh_from_db()
    assert log.rating == ReviewLog.Rating.HARD
    assert learner_client.post(rate, {"rating": "9"}).status_code == 400


def test_the_page_and_the_reveal_are_worded_in_chinese(learner_client, code_attempt):
    with translation.override("zh-hans"):
        before = learner_client.get(item_url(code_attempt, 1), HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
        typo = learner_client.post(
            item_url(code_attempt, 1, "answer"), {"code": "scores = (\n"}, HTTP_ACCEPT_LANGUAGE="zh-hans"
        ).content.decode()
        learner_client.post(item_url(code_attempt, 1, "answer"), {"code": DIAGONAL_BUG.code})
        html = learner_client.get(item_url(code_attempt, 1), HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert "运行并检查" in before and "Run and check" not in before
    assert "第 1 行第" in typo and "这不是合法的 Python" in typo
    assert misconceptions.get("mask_hides_diagonal").title_zh in html
    assert "第 2 行（mask）" in html


def test_rating_someone_elses_item_is_a_404(client, code_attempt):
    client.force_login(factories.UserFactory())
    assert client.post(reverse("web:attempt_rate", args=[code_attempt.pk, 1]), {"rating": "3"}).status_code == 404


def test_past_the_learners_grading_budget_the_page_says_so_and_locks_nothing(learner_client, code_attempt, settings):
    """Issue 25: a learner who used the minute's code grading (here: one grading's worth) is told to wait."""
    settings.CODECHECK_LEARNER_GRADING_SECONDS = 1e-6
    url = item_url(code_attempt, 1, "answer")
    assert learner_client.post(url, {"code": "scores = (\n"}).status_code == 400  # refused, but graded: counted
    response = learner_client.post(url, {"code": SPEC.reference})
    assert response.status_code == 429 and 1 <= int(response["Retry-After"]) <= 60
    html = response.content.decode()
    assert "code grading this minute" in html and "nothing was graded or locked" in html
    assert SPEC.reference.split("\n")[0] in html  # the learner's text is kept in the editor
    assert not code_attempt.items.get().is_answered and not ReviewLog.objects.exists()
