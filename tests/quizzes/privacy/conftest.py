"""A learner with every kind of data the app keeps: cards, logs, attempts, a pack, a report, tokens, sessions,
reminders."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.utils import timezone

from quizzes.accounts.services import api_token_create, learner_profile_update
from quizzes.models import Attempt, IdempotencyKey, Lesson, ReminderDelivery
from quizzes.packs.services import pack_issue
from quizzes.practice.services import attempt_finish, attempt_start, item_answer
from quizzes.reports.selectors import item_target
from quizzes.reports.services import problem_report_create
from quizzes.reviews.services import card_rate
from tests import factories


@dataclass
class Learner:
    user: User
    lesson: Lesson
    first_attempt: Attempt
    token: str
    browser: Client


def build_learner(*, lesson: Lesson, username: str | None = None, password: str = factories.PASSWORD) -> Learner:
    """Two finished study attempts (the first has one item skipped), a self-rated card, a pack, a problem report,
    a token, a session."""
    user = factories.UserFactory(**({"username": username} if username else {}))
    learner_profile_update(user=user, time_zone="Asia/Shanghai", reminder_opt_in=True)
    start = timezone.now() - dt.timedelta(days=3)
    prompt = lesson.questions.filter(kind="prompt").first()
    if prompt is not None:
        card_rate(user=user, question=prompt, rating=3, reviewed_at=start, duration_ms=4200)
    attempts = []
    for number in range(2):
        attempt = attempt_start(user=user, lesson=lesson, now=start + dt.timedelta(minutes=number))
        items = list(attempt.items.select_related("question").order_by("position"))
        for item in items[: len(items) - 1 if number == 0 else len(items)]:
            answer = {"option_id": item.option_order[1]} if item.option_order else {"value": "0"}
            item_answer(user=user, item=item, duration_ms=1500 + item.position, **answer)
        attempt_finish(user=user, attempt=attempt)
        attempts.append(attempt)
    pack_issue(user=user, device="phone", days=14)
    reported = item_target(user=user, item_id=attempts[0].items.get(position=0).pk)
    assert reported is not None
    problem_report_create(user=user, target=reported, category="typo", text="A typo in the second line.")
    ReminderDelivery.objects.create(user=user, local_date=dt.date(2025, 3, 1), due_count=2, sent_at=timezone.now())
    IdempotencyKey.objects.create(user=user, key="k1", method="POST", path="/api/v1/packs/", request_hash="0" * 64)
    issued = api_token_create(user=user, device_name="Pixel")
    browser = Client()
    assert browser.login(username=user.username, password=password)
    return Learner(user=user, lesson=lesson, first_attempt=attempts[0], token=issued.token, browser=browser)


def fill_study_lesson(lesson: Lesson) -> Lesson:
    """Two choice questions, a numeric one, a prompt and a recall card."""
    factories.ChoiceQuestionFactory(lesson=lesson, order=1, options=4)
    factories.ChoiceQuestionFactory(lesson=lesson, order=2, options=3)
    factories.NumericQuestionFactory(lesson=lesson, order=3)
    factories.PromptQuestionFactory(lesson=lesson, order=4)
    factories.RecallQuestionFactory(lesson=lesson, order=5)
    return lesson


@pytest.fixture
def study_lesson(lesson):
    return fill_study_lesson(lesson)


@pytest.fixture
def learner(study_lesson) -> Learner:
    return build_learner(lesson=study_lesson)
