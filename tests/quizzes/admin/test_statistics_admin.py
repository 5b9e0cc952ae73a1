"""The lesson's "Item statistics" admin page: staff only, with the figures and flags an author acts on."""

from __future__ import annotations

import datetime as dt

import pytest
from django.contrib.auth.models import Permission
from django.urls import reverse

from quizzes.models import Attempt, AttemptItem
from tests.factories import LessonFactory, OptionFactory, QuestionFactory, UserFactory

START = dt.datetime(2026, 11, 1, 9, 0, tzinfo=dt.UTC)


@pytest.fixture
def studied(db):
    """Ten learners' first attempts at one question: 8 right (a), 2 wrong (b); c and d never picked."""
    lesson = LessonFactory(title="缩放点积注意力")
    question = QuestionFactory(lesson=lesson, key="why-sqrt-dk")
    options = {
        key: OptionFactory(
            question=question,
            key=key,
            text=f"答案 {key}",
            is_correct=key == "a",
            order=i,
            feedback="" if key == "a" else f"误解 {key}",
        )
        for i, key in enumerate("abcd")
    }
    for n in range(10):
        chosen = options["a" if n < 8 else "b"]
        attempt = Attempt.objects.create(user=UserFactory(), lesson=lesson, number=1, seed=n, started_at=START,
                                         finished_at=START + dt.timedelta(minutes=2))  # fmt: skip
        AttemptItem.objects.create(attempt=attempt, question=question, position=0, chosen_option=chosen,
                                   response=chosen.pk, is_correct=chosen.is_correct, score=float(chosen.is_correct),
                                   result={"kind": "choice"}, answered_at=START + dt.timedelta(seconds=12))  # fmt: skip
    return lesson


def _url(lesson_id: object) -> str:
    return reverse("admin:quizzes_lesson_statistics", args=[lesson_id])


def test_staff_see_each_items_figures_and_flags(admin_client, studied):
    response = admin_client.get(_url(studied.pk))
    assert response.status_code == 200
    page = response.content.decode()
    assert "why-sqrt-dk" in page
    assert "A skipped item counts as wrong." in page
    assert "10 attempts counted." in page
    assert "0.80" in page  # facility 8/10
    assert "12.0 s" in page  # median time to answer
    assert "误解 b" in page  # the misconception the distractor names, beside its pick rate
    assert "20 %" in page  # b's pick rate
    assert page.count('data-flag="rare_distractor"') == 2  # c and d: 0 %
    change = admin_client.get(reverse("admin:quizzes_lesson_change", args=[studied.pk])).content.decode()
    assert _url(studied.pk) in change  # linked from the lesson's page


def test_the_page_is_staff_only(client, studied):
    learner = UserFactory()
    client.force_login(learner)
    response = client.get(_url(studied.pk))
    assert response.status_code == 302 and "/login/" in response["Location"]


def test_staff_without_the_view_permission_are_refused(client, studied):
    staff = UserFactory(is_staff=True)
    staff.user_permissions.add(Permission.objects.get(codename="view_lesson"))
    client.force_login(staff)
    assert client.get(_url(studied.pk)).status_code == 403


def test_an_unknown_or_malformed_lesson_is_not_found(admin_client, db):
    assert admin_client.get(_url(999999)).status_code == 404
    assert admin_client.get(_url("not-a-number")).status_code == 404
