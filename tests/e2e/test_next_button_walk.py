"""A new learner's first days by always pressing the obvious next button, on a desktop and on a phone:
sign up → lesson 1 → its quiz → practise the missed ones → an interview prompt → the review two days later.

On every page: no sideways scrolling, every matrix visible or scrollable with a cue (conftest.assert_fits);
on every kind of page once: no serious or critical axe-core violation (conftest.assert_accessible).
"""

from __future__ import annotations

import datetime as dt

import numpy as np
import pytest
import time_machine
from django.urls import reverse
from playwright.sync_api import Page, expect

from attention_engine.generators import Variant
from quizzes.content.code import spec_from_field
from quizzes.models import Attempt, AttemptItem, Question
from tests.e2e.conftest import DESKTOP, PHONES, assert_accessible, assert_fits, new_page

pytestmark = pytest.mark.django_db(transaction=True)
PASSWORD = "a-long-enough-pass-42"
NEXT = "[data-next-step-button]"
WRONG_ON_PURPOSE = (0, 1)  # the first two quiz items are answered wrong: they come back in the missed practice


class Walk:
    """Checks each page a learner reaches; axe runs once per kind of page (it is the slow part)."""

    def __init__(self, page: Page, name: str, shoot) -> None:
        self.page, self.name, self.shoot, self.checked = page, name, shoot, set()
        self.matrices = 0

    def check(self, kind: str, *, screenshot: str | None = None, full_page: bool = False, at: str | None = None):
        self.matrices += assert_fits(self.page, f"{self.name}/{kind}")
        if kind not in self.checked:
            self.checked.add(kind)
            assert_accessible(self.page, f"{self.name}/{kind}")
        if screenshot:
            prefix = "" if self.name == "desktop" or screenshot.endswith("-mobile") else "phone-"
            self.shoot(self.page, prefix + screenshot, full_page=full_page, scroll_to=at)


def _press_next(page: Page) -> None:
    button = page.locator(NEXT)
    expect(button).to_be_visible()
    button.click()


def _answer(page: Page, item: AttemptItem, *, right: bool) -> None:
    """Answer the item on screen as a learner would: tap an option or a value, or type the grid."""
    question = item.question
    if question.kind == Question.Kind.CHOICE:
        correct = question.options.get(is_correct=True).pk
        target = correct if right else next(pk for pk in item.option_order if pk != correct)
        page.locator("#item button.option").nth(item.option_order.index(target)).click()
    elif question.kind == Question.Kind.CODE:  # the reference, or the spec's first misconception written as code
        spec = spec_from_field(question.code_spec)
        page.wait_for_selector("html[data-code-editor=ready]", state="attached")
        page.locator("textarea[name=code]").fill(spec.reference if right else spec.misconceptions[0].code)
        page.locator("#item button[data-submit]").click()
    elif question.answer_form == Question.AnswerForm.CHOICE:
        index = Variant.from_dict(item.variant).correct_choice_index
        index = index if right else (index + 1) % len(item.variant["choices"])
        page.locator(f'#item button.option[value="{index}"]').click()
    else:
        answer = item.variant["answer"]
        values = list(np.ravel(answer))  # a scalar, a vector or a matrix, in reading order
        cells = page.locator("#item input.cell")
        expect(cells).to_have_count(len(values))  # the grid is laid out like the answer, read in reading order
        for cell, value in zip(cells.all(), values, strict=True):
            cell.fill(f"{value if right else value + 9:.6f}")
        page.locator("#item button[data-submit]").click()
    expect(page.locator("#item .verdict")).to_be_visible()


def _run_attempt(walk: Walk, attempt: Attempt, *, wrong: tuple[int, ...], phone: bool) -> None:
    """Answer every item of an attempt in order and finish it, checking the pages on the way."""
    page = walk.page
    items = list(attempt.items.select_related("question").order_by("position"))
    for item in items:
        expect(page.locator(".item-progress__text")).to_have_text(f"{item.position + 1} / {len(items)}")
        if item.position == 0:
            walk.check("item")
        if phone:
            expect(page.locator(".kbd-hint").first).to_be_hidden()  # no keyboard hints on a touch screen
        _answer(page, item, right=item.position not in wrong)
        locked = "item-locked-numeric" if item.question.kind == Question.Kind.NUMERIC else "item-locked"
        first_lock = phone and locked not in walk.checked and attempt.mode == Attempt.Mode.STUDY
        walk.check(locked, screenshot="quiz-locked-choice-mobile" if first_lock and locked == "item-locked" else None)
        next_button = page.locator("#item [data-next]")
        if phone:  # the sticky bar: "Next" is on screen right after the lock, no scrolling
            box = next_button.bounding_box()
            assert box is not None and box["y"] + box["height"] <= page.viewport_size["height"] + 1, (
                f"{item.question.key}: Next at {box} on a {page.viewport_size} screen"
            )
        next_button.click()


@pytest.mark.parametrize("size", ["desktop", "phone-390"])
def test_always_pressing_the_obvious_next_button(browser, live_server, lessons, shoot, size):
    phone = size != "desktop"
    page = new_page(browser, PHONES[size] if phone else DESKTOP, phone=phone)
    walk = Walk(page, size, shoot)
    start = dt.datetime.now(dt.UTC)
    try:
        with time_machine.travel(start, tick=True):
            page.goto(live_server.url + reverse("web:signup"))
            walk.check("signup")
            page.fill("input[name=username]", "walker")
            page.fill("input[name=password1]", PASSWORD)
            page.fill("input[name=password2]", PASSWORD)
            page.locator("main form button[type=submit]").click()
            expect(page).to_have_url(live_server.url + reverse("web:dashboard"))

            # a new learner: the primary button continues at lesson 1
            expect(page.locator(NEXT)).to_contain_text("Continue: 缩放点积注意力")
            walk.check("dashboard")
            if phone:  # the compact header: brand and one menu button; the menu opens on a tap
                header = page.locator(".site-header").bounding_box()
                assert header is not None and header["height"] < 80
                expect(page.locator(".site-nav")).to_be_hidden()
                page.locator("[data-menu-toggle]").click()
                expect(page.get_by_role("link", name="Lessons")).to_be_visible()
                walk.check("menu-open")
                page.locator("[data-menu-toggle]").click()
            _press_next(page)
            expect(page).to_have_url(live_server.url + reverse("web:lesson_detail", args=["sdpa"]))
            walk.check("lesson")

            # the quiz: two answers wrong on purpose, the rest right
            page.get_by_role("button", name="Start quiz").click()
            quiz = Attempt.objects.get(user__username="walker")
            _run_attempt(walk, quiz, wrong=WRONG_ON_PURPOSE, phone=phone)

            # the end screen teaches what was missed, and its obvious button practises just those
            expect(page.locator("h1")).to_have_text("Quiz finished")
            expect(page.locator("[data-missed-item]")).to_have_count(len(WRONG_ON_PURPOSE))
            expect(page.locator("[data-missed-item] .compare__yours").first).to_be_visible()
            walk.check("end-screen", screenshot="missed-screen", full_page=not phone)
            page.locator("button[data-practise-missed]").click()
            practice = Attempt.objects.filter(user__username="walker").order_by("-pk").first()
            assert practice.mode == Attempt.Mode.MISSED and practice.items.count() == len(WRONG_ON_PURPOSE)
            _run_attempt(walk, practice, wrong=(), phone=phone)
            expect(page.locator("h1")).to_have_text("Practice finished")
            expect(page.locator("[data-missed-item]")).to_have_count(0)
            walk.check("practice-end")

            # next: lesson 1's first interview prompt; rating it comes back to the dashboard
            _press_next(page)
            expect(page.locator("h1")).to_have_text("Interview prompt")
            walk.check("interview")
            page.fill("textarea[name=answer]", "softmax(QK^T/√d_k)V：点积的方差随 d_k 增长，缩放让 softmax 不饱和。")
            page.locator("button[data-reveal]").click()
            expect(page.locator("[data-first-study]")).to_be_visible()  # why every button says "2 days"
            walk.check("interview-reveal", screenshot="interview-reveal" if phone else None, at=".ratings-form")
            page.locator("button.rating--3").click()
            expect(page).to_have_url(live_server.url + reverse("web:dashboard"))
            expect(page.locator(".messages")).to_contain_text("Rated Good")
            expect(page.locator(NEXT)).to_contain_text("Continue: 缩放点积注意力")  # the next prompt waits

        # two days later: the primary button reviews what is due; the review quiz runs to its end
        with time_machine.travel(start + dt.timedelta(days=2, hours=1), tick=True):
            page.goto(live_server.url + reverse("web:dashboard"))
            expect(page.locator(NEXT)).to_contain_text("Review")
            walk.check("dashboard-due", screenshot="dashboard")
            _press_next(page)
            expect(page).to_have_url(live_server.url + reverse("web:review_session"))
            walk.check("review-session")
            page.locator("[data-start-review]").click()
            review = Attempt.objects.filter(user__username="walker", mode="review").get()
            _run_attempt(walk, review, wrong=(), phone=phone)
            expect(page).to_have_url(live_server.url + reverse("web:review_session"))
            expect(page.locator(".messages")).to_contain_text("correct in this review")
            walk.check("review-after-quiz")
        assert walk.matrices > 0  # the numeric items' matrices were there to check
    finally:
        page.context.close()
