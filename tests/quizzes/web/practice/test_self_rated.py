"""Interview prompts, recall cards and the mock interview: write, reveal, rate (card_rate), summary."""

from __future__ import annotations

import datetime as dt

import pytest
import time_machine
from django.urls import reverse

from quizzes.models import ReviewCard, ReviewLog
from quizzes.reviews.selectors.ratings import rating_preview
from quizzes.web.views.common import interval_label as _interval_label
from tests import factories

pytestmark = pytest.mark.django_db
NOW = dt.datetime(2026, 11, 29, 9, 0, tzinfo=dt.UTC)


@pytest.fixture
def prompt(lesson):
    return factories.PromptQuestionFactory(lesson=lesson, prompt="请解释为什么要除以根号 d_k。")


@pytest.fixture
def recall(lesson):
    return factories.RecallQuestionFactory(lesson=lesson)


def test_prompt_page_asks_before_it_reveals(learner_client, prompt):
    body = learner_client.get(reverse("web:interview_prompt", args=[prompt.key])).content.decode()
    assert "请解释为什么要除以根号" in body
    assert 'name="answer"' in body and 'data-countdown="120"' in body
    assert prompt.reference_answer not in body
    for point in prompt.rubric:
        assert point not in body


def test_reveal_keeps_the_answer_and_shows_reference_rubric_and_intervals(learner_client, prompt):
    url = reverse("web:interview_prompt", args=[prompt.key])
    response = learner_client.post(url, {"answer": "方差会随 d_k 变大"})
    assert response.status_code == 302 and response["Location"].startswith(url + "?reveal=1")
    body = learner_client.get(response["Location"]).content.decode()
    assert "方差会随 d_k 变大" in body
    assert prompt.reference_answer in body
    for point in prompt.rubric:
        assert point in body
    assert body.count('type="checkbox" data-rubric') == len(prompt.rubric)
    for label in ("Again", "Hard", "Good", "Easy"):
        assert f'<span class="rating__label">{label}</span>' in body
    assert "2 days" in body  # a first study comes back in two days, whatever the rating
    # going back to edit: the text is still there
    assert "方差会随 d_k 变大" in learner_client.get(url).content.decode()


@pytest.mark.parametrize("rating", [1, 3, 4])
def test_rating_updates_the_card_as_the_preview_said(learner_client, user, prompt, rating):
    with time_machine.travel(NOW, tick=False):
        factories.LearnerProfileFactory(user=user)
        card = ReviewCard.objects.create(user=user, question=prompt, due=NOW)
        ReviewLog.objects.create(user=user, card=card, rating=3, reviewed_at=NOW - dt.timedelta(days=5))
        from quizzes.reviews.services import card_replay

        card_replay(card=card)
        previews = {p.rating: p for p in rating_preview(user=user, question=prompt)}
        page = learner_client.get(reverse("web:interview_prompt", args=[prompt.key]) + "?reveal=1").content.decode()
        response = learner_client.post(reverse("web:interview_rate", args=[prompt.key]), {"rating": rating})
    assert response.status_code == 302
    assert response["Location"] == reverse("web:lesson_detail", args=[prompt.lesson.key])
    card = ReviewCard.objects.get(user=user, question=prompt)
    assert card.due == previews[rating].due
    assert f'<span class="rating__interval">{_interval_label(previews[rating].interval)}</span>' in page


def test_rating_follows_a_safe_next_and_ignores_an_offsite_one(learner_client, prompt):
    rate = reverse("web:interview_rate", args=[prompt.key])
    response = learner_client.post(rate, {"rating": 3, "next": reverse("web:review_session")})
    assert response["Location"] == reverse("web:review_session")
    response = learner_client.post(rate, {"rating": 3, "next": "https://evil.example/"})
    assert response["Location"] == reverse("web:lesson_detail", args=[prompt.lesson.key])


def test_bad_ratings_are_400_and_store_nothing(learner_client, prompt):
    rate = reverse("web:interview_rate", args=[prompt.key])
    for bad in ("0", "5", "good", ""):
        assert learner_client.post(rate, {"rating": bad}).status_code == 400
    assert not ReviewCard.objects.exists()


def test_wrong_kind_or_unknown_question_is_404(learner_client, prompt, recall, choice_question):
    assert learner_client.get(reverse("web:interview_prompt", args=[recall.key])).status_code == 404
    assert learner_client.get(reverse("web:interview_prompt", args=[choice_question.key])).status_code == 404
    assert learner_client.get(reverse("web:recall_card", args=[prompt.key])).status_code == 404
    assert learner_client.post(reverse("web:interview_rate", args=["nope"]), {"rating": 3}).status_code == 404
    prompt.published = False
    prompt.save()
    assert learner_client.get(reverse("web:interview_prompt", args=[prompt.key])).status_code == 404


def test_self_rated_posts_enforce_csrf(csrf_client, prompt, recall):
    assert csrf_client.post(reverse("web:interview_rate", args=[prompt.key]), {"rating": 3}).status_code == 403
    assert csrf_client.post(reverse("web:recall_rate", args=[recall.key]), {"rating": 3}).status_code == 403
    assert csrf_client.post(reverse("web:interview_prompt", args=[prompt.key]), {"answer": "x"}).status_code == 403
    assert csrf_client.post(reverse("web:interview_mock"), {"n": 2}).status_code == 403
    assert not ReviewCard.objects.exists()


def test_pages_need_login(client, prompt, recall):
    for url in (
        reverse("web:interview_prompt", args=[prompt.key]),
        reverse("web:recall_card", args=[recall.key]),
        reverse("web:interview_index"),
        reverse("web:interview_mock"),
        reverse("web:review_session"),
    ):
        response = client.get(url)
        assert response.status_code == 302 and reverse("web:login") in response["Location"]


def test_recall_card_compares_lines_side_by_side_and_rates(learner_client, user, recall):
    url = reverse("web:recall_card", args=[recall.key])
    first = learner_client.get(url).content.decode()
    for line in recall.expected_lines:
        assert line not in first
    typed = "scores = q @ k.T / sqrt(d_k)\nweights = softmax(scores)"
    revealed = learner_client.get(learner_client.post(url, {"answer": typed})["Location"]).content.decode()
    for line in recall.expected_lines:
        assert line in revealed
    assert "weights = softmax(scores)" in revealed
    assert revealed.count("recall-compare--same") == 1  # the first line matches
    response = learner_client.post(reverse("web:recall_rate", args=[recall.key]), {"rating": 2})
    assert response.status_code == 302
    card = ReviewCard.objects.get(user=user, question=recall)
    assert card.logs.get().rating == 2


def test_interview_index_lists_prompts(learner_client, prompt):
    body = learner_client.get(reverse("web:interview_index")).content.decode()
    assert reverse("web:interview_prompt", args=[prompt.key]) in body
    assert reverse("web:interview_mock") in body


@pytest.mark.parametrize("n", ["0", "11", "abc", "-3", "2.5"])
def test_mock_interview_validates_n(learner_client, prompt, n):
    response = learner_client.get(reverse("web:interview_mock"), {"n": n})
    assert response.status_code == 400
    assert "whole number from 1 to 10" in response.content.decode()
    assert learner_client.post(reverse("web:interview_mock"), {"n": n}).status_code == 400


def test_mock_interview_runs_prompt_by_prompt_to_a_summary(learner_client, user, lesson):
    other = factories.LessonFactory()
    prompts = [factories.PromptQuestionFactory(lesson=lesson), factories.PromptQuestionFactory(lesson=other)]
    prompts.append(factories.PromptQuestionFactory(lesson=other))
    intro = learner_client.get(reverse("web:interview_mock"))
    assert intro.status_code == 200 and "3 random prompts" in intro.content.decode()  # default 5, only 3 exist
    response = learner_client.post(reverse("web:interview_mock"), {"n": 2})
    assert response.status_code == 302
    asked = learner_client.session["practice:mock"]["ids"]
    assert len(asked) == 2 and len(set(asked)) == 2
    for position, question_id in enumerate(asked, start=1):
        key = next(p.key for p in prompts if p.pk == question_id)
        assert response["Location"] == reverse("web:interview_prompt", args=[key]) + f"?mock={position}"
        page = learner_client.get(response["Location"]).content.decode()
        assert f"{position} / 2" in page and 'data-countdown="120"' in page
        reveal = learner_client.post(reverse("web:interview_prompt", args=[key]), {"answer": "…", "mock": position})
        assert f"mock={position}" in reveal["Location"]
        revealed = learner_client.get(reveal["Location"]).content.decode()
        assert f'name="mock_index" value="{position}"' in revealed
        response = learner_client.post(
            reverse("web:interview_rate", args=[key]), {"rating": 4 if position == 1 else 1, "mock_index": position}
        )
    assert response["Location"] == reverse("web:interview_mock_summary")
    summary = learner_client.get(response["Location"]).content.decode()
    assert "2 of 2 prompts rated: 1 Good or Easy, 1 Again or Hard." in summary
    assert "Easy" in summary and "Again" in summary
    assert "data-next-step=" in summary  # the end screen offers the next thing
    assert ReviewCard.objects.filter(user=user, question_id__in=asked).count() == 2
