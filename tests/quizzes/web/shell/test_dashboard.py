"""The landing page and the dashboard: due count, next review, charts, mastery, streak, query count."""

from __future__ import annotations

import datetime as dt
import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from quizzes.reviews.services import card_rate
from tests import factories
from tests.factories import utc

pytestmark = pytest.mark.django_db

T0 = utc(2026, 3, 2, 10)  # a Monday, 10:00 UTC


def test_visitors_get_the_landing_page(client):
    factories.LessonFactory(title="缩放点积注意力")
    body = client.get("/").content.decode()
    assert "缩放点积注意力" in body
    assert f'href="{reverse("web:signup")}"' in body
    assert f'href="{reverse("web:login")}"' in body
    assert "Dashboard" not in body


@pytest.fixture
def studied(learner, sdpa_lesson, time_machine):
    """Three prompts and a recall card studied (rated Good) at T0: first reviews due at T0 + 2 days."""
    factories.PromptQuestionFactory.create_batch(2, lesson=sdpa_lesson)
    questions = list(sdpa_lesson.questions.filter(kind__in=["prompt", "recall"]))
    assert len(questions) == 4
    time_machine.move_to(T0, tick=False)
    for question in questions:
        card_rate(user=learner, question=question, rating=3)
    return questions


def test_right_after_studying_nothing_is_due_and_the_next_step_is_the_rest_of_the_lesson(
    learner_client, studied, sdpa_lesson, time_machine
):
    time_machine.move_to(T0 + dt.timedelta(hours=1), tick=False)
    body = learner_client.get("/").content.decode()
    assert re.search(r'data-testid="due-count">0<', body)
    # the lesson's two quiz questions were never answered: the primary button continues there
    assert 'data-next-step="lesson"' in body
    lesson_url = reverse("web:lesson_detail", args=["sdpa"])
    assert f'href="{lesson_url}" data-next-step-button>Continue: 缩放点积注意力' in body
    assert re.search(r'data-testid="streak">1<', body)
    # forecast: 4 due on Mar 4, nothing today; one date style ("Wed 4 Mar") in titles, summaries and tables
    assert 'aria-label="4 reviews due in the next 14 days; busiest day Wed 4 Mar with 4."' in body
    assert "<title>Wed 4 Mar: 4 reviews due</title>" in body
    assert "<title>Today (Mon 2 Mar): 0 reviews due</title>" in body
    # heatmap: today's 4 ratings, with a readable title and the table fallback
    assert 'aria-label="4 ratings on 1 of the last 365 days."' in body
    assert "<title>Mon 2 Mar: 4 ratings</title>" in body
    assert "<td>Mon 2 Mar</td><td>4</td>" in body


def test_when_everything_is_studied_the_dashboard_says_when_to_come_back(learner_client, learner, time_machine):
    lesson = factories.LessonFactory()
    time_machine.move_to(T0, tick=False)
    card_rate(user=learner, question=factories.PromptQuestionFactory(lesson=lesson), rating=3)
    time_machine.move_to(T0 + dt.timedelta(hours=1), tick=False)
    body = learner_client.get("/").content.decode()
    assert 'data-next-step="wait"' in body
    assert "data-next-step-button" not in body
    assert "All caught up. Next review: 2 days from now, <time>Wed 4 Mar</time>." in body


def test_two_days_later_the_items_are_due(learner_client, studied, sdpa_lesson, time_machine):
    time_machine.move_to(T0 + dt.timedelta(days=2, hours=1), tick=False)
    body = learner_client.get("/").content.decode()
    assert re.search(r'data-testid="due-count">4<', body)
    assert "items are due for review today." in body
    # reviews come first: the primary button reviews them
    assert f'href="{reverse("web:review_session")}" data-next-step-button>Review 4 items' in body
    assert '<span class="visually-hidden">4 due</span>' in body  # the nav badge
    assert re.search(r'data-testid="streak">0<', body)  # no rating yesterday or today
    assert "<title>Today (Wed 4 Mar): 4 reviews due</title>" in body
    # mastery row for the lesson: 4 of 6 questions studied, 4 due
    row = re.search(r"缩放点积注意力</a></th>(.*?)</tr>", body, re.S).group(1)
    cells = re.findall(r"<td>\s*(.*?)\s*</td>", row, re.S)
    assert cells[0] == "4 / 6"
    assert cells[2] == "4"


def test_empty_dashboard(learner_client):
    body = learner_client.get("/").content.decode()
    assert "Nothing to study yet: no lessons are published." in body
    assert 'aria-label="No reviews due in the next 14 days."' in body


def _make_cards(user, lesson, count):
    for _ in range(count):
        card_rate(user=user, question=factories.PromptQuestionFactory(lesson=lesson), rating=3)


def test_dashboard_queries_do_not_grow_with_cards(learner_client, learner, django_assert_max_num_queries, time_machine):
    time_machine.move_to(T0, tick=False)
    lessons = [factories.LessonFactory() for _ in range(3)]
    _make_cards(learner, lessons[0], 2)
    learner_client.get("/")  # warm the session / content-type caches
    with CaptureQueriesContext(connection) as few:
        learner_client.get("/")
    # nothing due yet: session 2, profile, the card summary with the forecast, a year of logs grouped, the lessons,
    # the best scores, and the next step's look-ups (open attempt, first unseen question, next review, the zone)
    assert len(few) <= 11
    for lesson in lessons:
        _make_cards(learner, lesson, 20)
    time_machine.move_to(T0 + dt.timedelta(days=3), tick=False)
    with django_assert_max_num_queries(7):  # reviews due: the next step needs no look-up (issue 16)
        response = learner_client.get("/")
    assert re.search(r'data-testid="due-count">62<', response.content.decode())
