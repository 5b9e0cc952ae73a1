"""Seeing a key counts (issue 25), in a real Chromium with DEBUG off and on: a finished attempt's skipped items keep
their answers hidden until the learner asks, the page says what asking costs, and asking records Again; a
checkpoint's option handles differ between two browser contexts, so one context's first click is not the other's.
Looked at on a desktop and a 390×844 phone: no sideways scrolling, nothing serious for axe."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse
from playwright.sync_api import Page, expect

from quizzes.models import Attempt, CheckpointAnswer, Lesson, ReviewLog
from quizzes.practice.services import attempt_finish, attempt_start
from tests import factories
from tests.e2e.conftest import DESKTOP, PHONES, assert_accessible, assert_fits, new_page

pytestmark = pytest.mark.django_db(transaction=True)
SIZES = {"desktop": DESKTOP, "phone-390": PHONES["phone-390"]}
CHECKPOINT = "#cp-five-steps"
RIGHT = re.compile(r"\(\s*8\s*,\s*16\s*\)")  # the checkpoint's right option, (8, 16)


def _log_in(page: Page, live_server, user) -> None:
    page.goto(live_server.url + reverse("web:login"))
    page.fill("input[name=username]", user.username)
    page.fill("input[name=password]", factories.PASSWORD)
    page.locator("main form button[type=submit]").click()
    expect(page).to_have_url(live_server.url + reverse("web:dashboard"))


def _check(page: Page, where: str) -> None:
    assert_fits(page, where)
    assert_accessible(page, where)


@pytest.mark.parametrize("size", list(SIZES))
def test_skipped_answers_stay_hidden_until_asked_for_and_then_count_as_not_known(
    browser, live_server, lessons, shoot, size
):
    page = new_page(browser, SIZES[size], phone=size != "desktop")
    try:
        user = factories.LearnerProfileFactory().user
        _log_in(page, live_server, user)
        page.goto(live_server.url + reverse("web:lesson_detail", args=["sdpa"]))
        page.get_by_role("button", name="Start quiz").click()
        attempt = Attempt.objects.get(user=user)
        page.locator("#item button.option").first.click()  # the first item answered (right or wrong)
        expect(page.locator("#item .verdict")).to_be_visible()
        page.get_by_role("button", name="End quiz").click()
        expect(page.locator("h1")).to_have_text("Quiz finished")

        skipped = list(attempt.items.filter(answered_at__isnull=True).select_related("question"))
        count = len(skipped)
        assert count > 1
        button = page.locator("button[data-show-skipped-button]")
        expect(button).to_have_text(f"Show the answers to the {count} items you skipped — they will count as not known")
        expect(page.locator(".show-skipped p")).to_contain_text(f"You skipped {count} items.")
        expect(page.locator("[data-answer-hidden]")).to_have_count(count)
        # nothing of a skipped item's answer is on the page: no correct-answer box beyond the answered item's
        answered_boxes = 0 if attempt.items.get(position=0).is_correct else 1
        expect(page.locator(".compare__correct")).to_have_count(answered_boxes)
        html = page.content()
        for item in skipped:
            if item.question.explanation:
                assert item.question.explanation[:40] not in html
        assert not ReviewLog.objects.filter(attempt_item__in=skipped).exists()
        _check(page, f"{size} end screen, skipped answers hidden")
        shoot(page, f"end-screen-top-{size}")
        shoot(page, f"skipped-hidden-{size}", scroll_to=".show-skipped")

        button.click()
        expect(page.locator("[data-skipped-shown]")).to_have_text(
            f"You chose to see the answers to the {count} items you skipped: they count as not known."
        )
        expect(page.locator("[data-answer-hidden]")).to_have_count(0)
        expect(page.locator("button[data-show-skipped-button]")).to_have_count(0)
        expect(page.locator(".compare__correct")).to_have_count(count + answered_boxes)
        logs = ReviewLog.objects.filter(user=user, attempt_item__in=skipped)
        assert sorted(logs.values_list("rating", flat=True)) == [ReviewLog.Rating.AGAIN] * count
        _check(page, f"{size} end screen, skipped answers shown")
        shoot(page, f"skipped-shown-{size}", scroll_to="[data-skipped-shown]")

        page.reload()  # nothing more is recorded however often the page is seen
        expect(page.locator("[data-skipped-shown]")).to_be_visible()
        assert logs.count() == count
    finally:
        page.context.close()


def _handles(page: Page) -> list[str]:
    return sorted(page.locator(f"{CHECKPOINT} button.cp-button").evaluate_all("els => els.map(e => e.value)"))


def test_checkpoint_handles_differ_between_two_browser_contexts(browser, live_server, lessons, shoot):
    url = live_server.url + reverse("web:lesson_detail", args=["sdpa"])
    scout, visitor = new_page(browser, DESKTOP, phone=False), new_page(browser, PHONES["phone-390"], phone=True)
    try:
        for page in (scout, visitor):
            page.goto(url)
        theirs, mine = _handles(scout), _handles(visitor)
        assert len(theirs) == len(mine) >= 3 and not set(theirs) & set(mine)
        scout.reload()
        assert _handles(scout) == theirs  # stable within a context, in a fresh order

        # the scout answers first and sees the key; the handle of the right option means nothing elsewhere
        right = scout.locator(f"{CHECKPOINT} button.cp-button").filter(has_text=RIGHT)
        right_handle = right.get_attribute("value")
        right.click()
        expect(scout.locator(f"{CHECKPOINT} .cp-verdict")).to_contain_text("Correct")
        first = visitor.locator(f"{CHECKPOINT} button.cp-button").first
        first.evaluate("(button, handle) => { button.value = handle; }", right_handle)  # a forged click
        first.click()
        expect(visitor.locator(f"{CHECKPOINT} .form-error")).to_contain_text("reload the page")
        expect(visitor.locator(f"{CHECKPOINT} button.cp-button")).to_have_count(len(mine))  # still open
        assert_fits(visitor, "phone checkpoint refusing another session's handle")
        shoot(visitor, "checkpoint-foreign-handle-phone-390", scroll_to=CHECKPOINT)
        # the visitor's own first click locks as before
        visitor.locator(f"{CHECKPOINT} button.cp-button").filter(has_text=RIGHT).click()
        expect(visitor.locator(f"{CHECKPOINT} .cp-verdict")).to_contain_text("Correct")
        expect(visitor.locator(f"{CHECKPOINT} button.cp-button")).to_have_count(0)
    finally:
        scout.context.close()
        visitor.context.close()


def test_a_learners_checkpoint_lock_follows_them_to_another_browser(browser, live_server, lessons):
    learner = factories.LearnerProfileFactory().user
    url = live_server.url + reverse("web:lesson_detail", args=["sdpa"])
    laptop, phone = new_page(browser, DESKTOP, phone=False), new_page(browser, PHONES["phone-390"], phone=True)
    try:
        for page in (laptop, phone):
            _log_in(page, live_server, learner)
            page.goto(url)
        assert _handles(laptop) == _handles(phone)  # the learner's own handles, wherever they are signed in
        laptop.locator(f"{CHECKPOINT} button.cp-button").filter(has_not_text=RIGHT).first.click()
        expect(laptop.locator(f"{CHECKPOINT} .cp-verdict")).to_contain_text("Not quite")
        assert CheckpointAnswer.objects.filter(user=learner).count() == 1
        phone.reload()
        expect(phone.locator(f"{CHECKPOINT} .cp-verdict")).to_contain_text("Not quite")  # one first click
        expect(phone.locator(f"{CHECKPOINT} button.cp-button")).to_have_count(0)
        assert not ReviewLog.objects.filter(user=learner).exists()  # checkpoints stay outside the schedule
    finally:
        laptop.context.close()
        phone.context.close()


def test_an_attempt_finished_with_nothing_answered_hides_every_answer(browser, live_server, lessons):
    """The issue's case: the learner ends the quiz at once; the end screen shows no answer until asked."""
    user = factories.LearnerProfileFactory().user
    lesson_attempt = attempt_start(user=user, lesson=Lesson.objects.get(key="sdpa"))
    attempt_finish(user=user, attempt=lesson_attempt)
    page = new_page(browser, PHONES["phone-390"], phone=True)
    try:
        _log_in(page, live_server, user)
        page.goto(live_server.url + reverse("web:attempt_summary", args=[lesson_attempt.pk]))
        total = lesson_attempt.items.count()
        expect(page.locator(".score__text")).to_contain_text("No answers, no score.")
        expect(page.locator("[data-answer-hidden]")).to_have_count(total)
        expect(page.locator(".compare__correct")).to_have_count(0)
        expect(page.locator("button[data-show-skipped-button]")).to_contain_text(f"the {total} items you skipped")
        assert_fits(page, "phone end screen, nothing answered")
    finally:
        page.context.close()
