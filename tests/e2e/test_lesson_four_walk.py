"""Lesson 4 (positional information) from its first section to its interview prompt, on a desktop and on a phone:
the teaching text before the quiz, a checkpoint answered in place, every quiz item (choice, seeded numeric and
the apply_rope code card) answered and locked, the end screen, and one interview prompt rated.

On every page: no sideways scrolling, every matrix visible or scrollable with a cue; axe once per kind of page.
"""

from __future__ import annotations

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from quizzes.models import Attempt, Question
from tests import factories
from tests.e2e.conftest import DESKTOP, PHONES, new_page
from tests.e2e.test_next_button_walk import Walk, _run_attempt

pytestmark = pytest.mark.django_db(transaction=True)
LESSON = "positional"


@pytest.mark.parametrize("size", ["desktop", "phone-390"])
def test_lesson_four_end_to_end(browser, live_server, lessons, shoot, size):
    phone = size != "desktop"
    page = new_page(browser, PHONES[size] if phone else DESKTOP, phone=phone)
    walk = Walk(page, size, shoot)
    user = factories.LearnerProfileFactory().user
    try:
        page.goto(live_server.url + reverse("web:login"))
        page.fill("input[name=username]", user.username)
        page.fill("input[name=password]", factories.PASSWORD)
        page.locator("main form button[type=submit]").click()
        expect(page).to_have_url(live_server.url + reverse("web:dashboard"))

        # the lesson list offers lesson 4 among the seven
        page.goto(live_server.url + reverse("web:lesson_list"))
        walk.check("lesson-list")
        page.get_by_role("link", name="位置信息：正弦编码、RoPE、ALiBi、NoPE 与长度外推").first.click()
        expect(page).to_have_url(live_server.url + reverse("web:lesson_detail", args=[LESSON]))
        walk.check("lesson")

        # teaching first: the RoPE section comes before the quiz, with its formula rendered as MathML
        rope = page.locator("#s-rope")
        expect(rope.get_by_role("heading", name="RoPE：把 q 和 k 按位置旋转")).to_be_visible()
        expect(rope.locator("math").first).to_be_attached()
        assert rope.bounding_box()["y"] < page.locator("#quiz-heading").bounding_box()["y"]

        # the RoPE checkpoint: a rotation keeps the length; the explanation appears in place, then it stays locked
        checkpoint = page.locator("#cp-rope")
        checkpoint.scroll_into_view_if_needed()
        expect(checkpoint.locator(".cp-explanation")).to_have_count(0)
        checkpoint.get_by_role("button").filter(has_text="相同").click()
        checkpoint = page.locator("#cp-rope")
        expect(checkpoint.locator(".cp-verdict")).to_contain_text("Correct")
        expect(checkpoint.locator(".cp-explanation")).to_contain_text("正交矩阵")
        expect(checkpoint.get_by_role("button")).to_have_count(0)
        walk.check("checkpoint-locked")

        # the quiz: every item, the first answered wrong on purpose; the code card gets the reference solution
        page.get_by_role("button", name="Start quiz").click()
        quiz = Attempt.objects.get(user=user, lesson__key=LESSON)
        kinds = set(quiz.items.values_list("question__kind", flat=True))
        assert {Question.Kind.CHOICE, Question.Kind.NUMERIC, Question.Kind.CODE} <= kinds
        _run_attempt(walk, quiz, wrong=(0,), phone=phone)
        expect(page.locator("h1")).to_have_text("Quiz finished")
        expect(page.locator("[data-missed-item]")).to_have_count(1)
        walk.check("end-screen")
        quiz.refresh_from_db()
        assert quiz.finished_at is not None
        assert quiz.items.filter(answered_at__isnull=False).count() == quiz.items.count()

        # one of lesson 4's interview prompts: write, reveal the reference answer, rate it
        prompt = Question.objects.filter(lesson__key=LESSON, kind=Question.Kind.PROMPT).order_by("order").first()
        page.goto(live_server.url + reverse("web:interview_prompt", args=[prompt.key]))
        walk.check("interview")
        page.fill("textarea[name=answer]", "RoPE 把 q、k 按位置旋转，点积只依赖相对位置 m − n。")
        page.locator("button[data-reveal]").click()
        expect(page.locator("button.rating")).to_have_count(4)
        walk.check("interview-reveal")
        page.locator("button.rating--3").click()
        expect(page.locator(".messages")).to_contain_text("Rated Good")
    finally:
        page.context.close()
