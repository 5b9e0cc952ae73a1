"""The review session: empty state with the next due date, due items in order, quiz via review attempts."""

from __future__ import annotations

import datetime as dt

import pytest
import time_machine
from django.urls import reverse

from quizzes.models import Attempt, Question
from quizzes.practice import services
from quizzes.reviews.services import card_rate
from tests import factories
from tests.quizzes.web.practice.conftest import choose

pytestmark = pytest.mark.django_db
STUDY = dt.datetime(2026, 11, 29, 9, 0, tzinfo=dt.UTC)


def _study_everything(user, lesson):
    """Answer the lesson's quiz (all right) and rate its prompt and recall card, on STUDY day."""
    attempt = services.attempt_start(user=user, lesson=lesson, now=STUDY)
    for item in attempt.items.select_related("question"):
        if item.question.kind == Question.Kind.CHOICE:
            services.item_answer(
                user=user, item=item, option_id=item.question.options.get(is_correct=True).pk, now=STUDY
            )
        else:
            services.item_answer(user=user, item=item, value=item.variant["answer"], now=STUDY)
    for question in lesson.questions.filter(kind__in=Question.SELF_RATED_KINDS):
        card_rate(user=user, question=question, rating=3, reviewed_at=STUDY)


def test_empty_state_before_any_study(learner_client):
    body = learner_client.get(reverse("web:review_session")).content.decode()
    assert "data-empty-state" in body and "Nothing is scheduled yet" in body


def test_empty_state_says_when_the_next_review_is_due(learner_client, user, quiz_lesson):
    factories.LearnerProfileFactory(user=user, time_zone="UTC")
    with time_machine.travel(STUDY, tick=False):
        _study_everything(user, quiz_lesson)
        body = learner_client.get(reverse("web:review_session")).content.decode()
    assert "Nothing is due right now." in body
    assert "2 days from now" in body and "Tue 1 Dec" in body


def test_review_session_runs_in_order_to_its_end(learner_client, user, quiz_lesson):
    factories.LearnerProfileFactory(user=user, time_zone="UTC")
    with time_machine.travel(STUDY, tick=False):
        _study_everything(user, quiz_lesson)
    with time_machine.travel(STUDY + dt.timedelta(days=2, hours=1), tick=False):
        page = learner_client.get(reverse("web:review_session")).content.decode()
        assert "0 / 6 reviewed today" in page
        assert "4 quiz questions, options reshuffled" in page
        plan = page[page.index('class="review-plan"') :]
        assert plan.index("Quiz: 4 questions") < plan.index("Interview prompt") < plan.index("Recall card")

        # the quiz part: a review attempt with exactly the due quiz items; a second start resumes it
        start = learner_client.post(reverse("web:review_quiz", args=[quiz_lesson.key]))
        attempt = Attempt.objects.get(user=user, mode=Attempt.Mode.REVIEW)
        assert learner_client.post(reverse("web:review_quiz", args=[quiz_lesson.key]))["Location"] == start["Location"]
        assert attempt.items.count() == 4
        for item in attempt.items.select_related("question").order_by("position"):
            url = reverse("web:attempt_answer", args=[attempt.pk, item.position + 1])
            if item.question.kind == Question.Kind.CHOICE:
                learner_client.post(url, choose(item, item.question.options.get(is_correct=True)))
            else:
                answer = item.variant["answer"]
                learner_client.post(url, {f"cell_{i}": str(v) for i, v in enumerate(answer)})
        assert not attempt.items.filter(answered_at__isnull=True).exists()
        done = learner_client.post(reverse("web:attempt_finish", args=[attempt.pk]), follow=True)
        body = done.content.decode()
        assert "4 of 4 correct in this review" in body
        assert "4 / 6 reviewed today" in body
        assert reverse("web:interview_prompt", args=[quiz_lesson.questions.get(kind="prompt").key]) in body

        # then the interview prompt, then the recall card (last), each returning to the session
        prompt = quiz_lesson.questions.get(kind="prompt")
        recall = quiz_lesson.questions.get(kind="recall")
        back = learner_client.post(
            reverse("web:interview_rate", args=[prompt.key]), {"rating": 3, "next": reverse("web:review_session")}
        )
        assert back["Location"] == reverse("web:review_session")
        body = learner_client.get(back["Location"]).content.decode()
        assert reverse("web:recall_card", args=[recall.key]) in body
        learner_client.post(reverse("web:recall_rate", args=[recall.key]), {"rating": 3})
        body = learner_client.get(reverse("web:review_session")).content.decode()
    assert "Review finished: 6 items reviewed today." in body
    assert "data-empty-state" in body


def test_review_quiz_with_nothing_due_explains(learner_client, quiz_lesson):
    response = learner_client.post(reverse("web:review_quiz", args=[quiz_lesson.key]), follow=True)
    assert "Nothing in this lesson is due for review." in response.content.decode()
    assert not Attempt.objects.exists()
