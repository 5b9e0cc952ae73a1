"""Quiz attempt pages: start, one question per screen, the first click locks, finish, retake, ownership."""

from __future__ import annotations

import datetime as dt
import re

import pytest
import time_machine
from django.urls import reverse

from quizzes.models import Attempt, AttemptItem, Question, ReviewCard
from tests import factories
from tests.quizzes.web.practice.conftest import choose, item_url, start

pytestmark = pytest.mark.django_db


def _without_tokens(html: str) -> str:
    """The page minus its CSRF tokens, which are masked differently on every render."""
    html = re.sub(r'name="csrfmiddlewaretoken" value="[^"]+"', "", html)
    return re.sub(r'"X-CSRFToken": "[^"]+"', "", html)


def _choice_item(attempt: Attempt, position: int = 1) -> AttemptItem:
    return attempt.items.select_related("question").get(position=position - 1)


def test_start_needs_login_and_post(client, quiz_lesson):
    url = reverse("web:attempt_start", args=[quiz_lesson.key])
    response = client.post(url)
    assert response.status_code == 302 and reverse("web:login") in response["Location"]
    factories.UserFactory(username="x")
    client.force_login(factories.UserFactory())
    assert client.get(url).status_code == 405
    assert not Attempt.objects.exists()


def test_start_redirects_to_the_first_item(learner_client, quiz_lesson, user):
    response = learner_client.post(reverse("web:attempt_start", args=[quiz_lesson.key]))
    attempt = Attempt.objects.get(user=user)
    assert response["Location"] == item_url(attempt, 1)


def test_start_unknown_or_unpublished_lesson_is_404(learner_client):
    hidden = factories.LessonFactory(published=False)
    assert learner_client.post(reverse("web:attempt_start", args=["no-such"])).status_code == 404
    assert learner_client.post(reverse("web:attempt_start", args=[hidden.key])).status_code == 404


def test_item_page_shows_progress_and_options_but_no_answer_key(learner_client, quiz_lesson):
    attempt = start(learner_client, quiz_lesson)
    item = _choice_item(attempt)
    question = item.question
    correct = question.options.get(is_correct=True)
    response = learner_client.get(item_url(attempt, 1))
    body = response.content.decode()
    assert response.status_code == 200
    assert "1 / 4" in body  # three choice questions and one numeric
    for option in question.options.all():
        assert option.text in body
    assert correct.feedback not in body
    for option in question.options.all():
        assert option.feedback not in body
    assert "点积的方差" not in body  # the explanation (factory text) stays hidden
    assert "is_correct" not in body and "correct_option" not in body
    assert "disabled" not in body


def test_first_click_locks_and_reload_shows_the_same_state(learner_client, quiz_lesson):
    attempt = start(learner_client, quiz_lesson)
    item = _choice_item(attempt)
    wrong = item.question.options.filter(is_correct=False).first()
    correct = item.question.options.get(is_correct=True)

    response = learner_client.post(item_url(attempt, 1, "answer"), choose(item, wrong))
    assert response.status_code == 302 and response["Location"] == item_url(attempt, 1)
    body = learner_client.get(item_url(attempt, 1)).content.decode()
    assert body.count("disabled") == item.question.options.count()
    assert wrong.feedback in body
    assert correct.feedback not in body  # only the chosen option's feedback
    assert "点积的方差" in body  # the explanation is revealed
    assert "Not quite" in body and "Correct answer" in body
    assert reverse("web:attempt_item", args=[attempt.pk, 2]) in body  # "Next"

    # a second POST (double click, another tab) changes nothing
    again = learner_client.post(item_url(attempt, 1, "answer"), choose(item, correct))
    assert again.status_code == 302
    item.refresh_from_db()
    assert item.chosen_option_id == wrong.pk and item.is_correct is False
    assert _without_tokens(learner_client.get(item_url(attempt, 1)).content.decode()) == _without_tokens(body)


def test_htmx_answer_swaps_only_the_item_region(learner_client, quiz_lesson):
    attempt = start(learner_client, quiz_lesson)
    item = _choice_item(attempt)
    correct = item.question.options.get(is_correct=True)
    response = learner_client.post(
        item_url(attempt, 1, "answer"), choose(item, correct), headers={"HX-Request": "true"}
    )
    body = response.content.decode()
    assert response.status_code == 200
    assert body.lstrip().startswith('<section id="item"')
    assert "<html" not in body
    assert correct.feedback in body and "✓ Correct" in body


def test_an_option_that_is_not_shown_is_a_clear_400_and_leaves_the_item_open(learner_client, quiz_lesson):
    attempt = start(learner_client, quiz_lesson)
    shown = len(_choice_item(attempt).option_order)
    for bad in (str(shown + 1), "0", "abc", ""):
        response = learner_client.post(item_url(attempt, 1, "answer"), {"option": bad})
        assert response.status_code == 400
        assert "Choose one of the options." in response.content.decode()
    assert not _choice_item(attempt).is_answered


def test_option_buttons_carry_positions_not_database_ids(learner_client, quiz_lesson):
    """Ids follow authoring order (the correct option is often written first): they must not reach the page."""
    attempt = start(learner_client, quiz_lesson)
    item = _choice_item(attempt)
    body = learner_client.get(item_url(attempt, 1)).content.decode()
    values = re.findall(r'name="option" value="([^"]+)"', body)
    assert values == [str(n) for n in range(1, len(item.option_order) + 1)]
    assert 'name="option_id"' not in body


def test_another_learners_attempt_is_404_everywhere(client, quiz_lesson, user, other_user):
    client.force_login(other_user)
    attempt = start(client, quiz_lesson)
    client.force_login(user)
    assert client.get(item_url(attempt, 1)).status_code == 404
    assert client.post(item_url(attempt, 1, "answer"), {"option": "1"}).status_code == 404
    assert client.post(reverse("web:attempt_finish", args=[attempt.pk])).status_code == 404
    assert client.get(reverse("web:attempt_summary", args=[attempt.pk])).status_code == 404
    assert client.get(reverse("web:attempt_resume", args=[attempt.pk])).status_code == 404
    assert not AttemptItem.objects.filter(attempt=attempt, answered_at__isnull=False).exists()


def test_positions_outside_the_attempt_are_404(learner_client, quiz_lesson):
    attempt = start(learner_client, quiz_lesson)
    assert learner_client.get(item_url(attempt, 0)).status_code == 404
    assert learner_client.get(item_url(attempt, 5)).status_code == 404


def test_posts_enforce_csrf(csrf_client, quiz_lesson, user):
    assert csrf_client.post(reverse("web:attempt_start", args=[quiz_lesson.key])).status_code == 403
    from quizzes.practice import services

    attempt = services.attempt_start(user=user, lesson=quiz_lesson)
    assert csrf_client.post(item_url(attempt, 1, "answer"), {"option": "1"}).status_code == 403
    assert csrf_client.post(reverse("web:attempt_finish", args=[attempt.pk])).status_code == 403
    assert not _choice_item(attempt).is_answered
    # with the token from the page, the same POST works
    page = csrf_client.get(item_url(attempt, 1))
    token = page.cookies["csrftoken"].value
    response = csrf_client.post(item_url(attempt, 1, "answer"), {"option": "1", "csrfmiddlewaretoken": token})
    assert response.status_code == 302
    assert _choice_item(attempt).is_answered


def test_finish_shows_score_missed_items_and_next_review_in_chinese(client, quiz_lesson):
    learner = factories.LearnerProfileFactory(time_zone="Asia/Shanghai").user
    client.force_login(learner)
    with time_machine.travel(dt.datetime(2026, 11, 29, 2, 0, tzinfo=dt.UTC), tick=False):  # 10:00 in Shanghai
        attempt = start(client, quiz_lesson)
        first = _choice_item(attempt, 1)
        client.post(item_url(attempt, 1, "answer"), choose(first, first.question.options.get(is_correct=True)))
        second = _choice_item(attempt, 2)
        client.post(item_url(attempt, 2, "answer"), choose(second, second.question.options.filter(is_correct=False)[0]))
        response = client.post(reverse("web:attempt_finish", args=[attempt.pk]))
        assert response["Location"] == reverse("web:attempt_summary", args=[attempt.pk])
        body = client.get(response["Location"]).content.decode()
        zh = client.get(response["Location"], headers={"accept-language": "zh-hans"}).content.decode()
    assert "1</strong> / 4" in body
    assert "Score: 25%" in body
    assert item_url(attempt, 2) in body and item_url(attempt, 3) in body and item_url(attempt, 4) in body
    assert item_url(attempt, 1) not in body  # right answers are not "missed"
    assert "2 days from now" in body and "Tue 1 Dec" in body
    assert "12月1日 周二" in zh
    assert ReviewCard.objects.filter(user=learner).count() == 2


def test_summary_of_an_unfinished_attempt_resumes_it(learner_client, quiz_lesson):
    attempt = start(learner_client, quiz_lesson)
    response = learner_client.get(reverse("web:attempt_summary", args=[attempt.pk]))
    assert response["Location"] == reverse("web:attempt_resume", args=[attempt.pk])
    assert learner_client.get(response["Location"])["Location"] == item_url(attempt, 1)


def test_answering_a_finished_attempt_goes_to_the_summary(learner_client, quiz_lesson):
    attempt = start(learner_client, quiz_lesson)
    learner_client.post(reverse("web:attempt_finish", args=[attempt.pk]))
    response = learner_client.post(item_url(attempt, 1, "answer"), {"option": "1"}, follow=True)
    assert "This attempt is finished" in response.content.decode()
    assert not _choice_item(attempt).is_answered


def test_retake_is_a_new_attempt_with_reshuffled_options(learner_client, quiz_lesson):
    first = start(learner_client, quiz_lesson)
    learner_client.post(reverse("web:attempt_finish", args=[first.pk]))
    summary = learner_client.get(reverse("web:attempt_summary", args=[first.pk])).content.decode()
    assert reverse("web:attempt_start", args=[quiz_lesson.key]) in summary
    second = start(learner_client, quiz_lesson)
    assert second.number == first.number + 1
    for a, b in zip(first.items.order_by("position"), second.items.order_by("position"), strict=True):
        if a.question.kind == Question.Kind.CHOICE:
            assert sorted(a.option_order) == sorted(b.option_order)  # same options, order drawn afresh
        else:
            assert a.variant_seed != b.variant_seed


def test_the_end_screen_of_an_attempt_without_answers_shows_no_score(learner_client, quiz_lesson):
    """The same meaning as the API's null score: nothing answered, no score (not 0%)."""
    attempt = start(learner_client, quiz_lesson)
    learner_client.post(reverse("web:attempt_finish", args=[attempt.pk]))
    body = learner_client.get(reverse("web:attempt_summary", args=[attempt.pk])).content.decode()
    assert "0</strong> / 4" in body
    assert "Score: 0%" not in body and "No answers, no score." in body
