"""A learner's first days in a real browser: sign up, study lesson 1, retake, numeric grid, interview, review."""

from __future__ import annotations

import datetime as dt
import re

import pytest
import time_machine
from django.urls import reverse
from playwright.sync_api import Page, expect

from quizzes.models import Attempt, AttemptItem, Question

pytestmark = pytest.mark.django_db(transaction=True)
PASSWORD = "a-long-enough-pass-42"


def _url(live_server, name: str, *args) -> str:
    return live_server.url + reverse(name, args=args)


def _sign_up(page: Page, live_server, username: str) -> None:
    page.goto(_url(live_server, "web:signup"))
    page.fill("input[name=username]", username)
    page.fill("input[name=password1]", PASSWORD)
    page.fill("input[name=password2]", PASSWORD)
    page.locator("main form button[type=submit]").click()
    expect(page).to_have_url(_url(live_server, "web:dashboard"))


def _option_texts(page: Page) -> list[str]:
    return [text.strip() for text in page.locator("#item .option__text").all_inner_texts()]


def _fill_grid(page: Page, item: AttemptItem) -> None:
    answer = item.variant["answer"]
    rows = answer if isinstance(answer[0], list) else [answer]
    for r, row in enumerate(rows):
        for c, value in enumerate(row):
            name = f"cell_{r}_{c}" if isinstance(answer[0], list) else f"cell_{c}"
            page.fill(f"#item input[name={name}]", f"{value:.2f}")


def _answer_current_item(page: Page, attempt: Attempt, position: int) -> None:
    item = attempt.items.select_related("question").get(position=position - 1)
    if item.question.kind == Question.Kind.CHOICE or item.question.answer_form == Question.AnswerForm.CHOICE:
        page.locator("#item button.option").first.click()
    else:
        _fill_grid(page, item)
        page.locator("#item button[data-submit]").click()
    expect(page.locator("#item .verdict")).to_be_visible()


def _wait_for_scripts(page: Page) -> None:
    """The deferred scripts (htmx, the shortcuts) have run: key presses before that would do nothing."""
    page.wait_for_selector("html[data-practice-js=ready]", state="attached")
    page.wait_for_function("() => window.htmx !== undefined")


def test_sign_up_study_retake_interview_and_review_two_days_later(page: Page, live_server, lessons, shoot):
    start = dt.datetime.now(dt.UTC)
    with time_machine.travel(start, tick=True):
        _sign_up(page, live_server, "newcomer")

        # the lesson page with the d_k demo, then the quiz
        page.goto(_url(live_server, "web:lesson_detail", "sdpa"))
        shoot(page, "lesson", full_page=True)
        page.get_by_role("button", name="Start quiz").click()
        first = Attempt.objects.get(user__username="newcomer")
        total = first.items.count()
        expect(page.locator(".item-progress__text")).to_have_text(f"1 / {total}")
        order_before = _option_texts(page)

        # one click locks: the chosen option is marked, the others are disabled, the feedback shows
        _wait_for_scripts(page)
        page.keyboard.press("2")  # keyboard shortcut: the second option
        expect(page.locator("#item .verdict")).to_be_visible()
        buttons = page.locator("#item button.option")
        expect(buttons).to_have_count(4)
        for index in range(4):
            expect(buttons.nth(index)).to_be_disabled()
        expect(page.locator("#item .option--chosen")).to_have_count(1)
        expect(page.locator("#item .explanation")).to_be_visible()
        expect(page.locator("#item .feedback")).to_be_visible()
        shoot(page, "quiz-locked-choice")

        # reload: still locked, same choice
        page.reload()
        expect(page.locator("#item .option--chosen")).to_have_count(1)
        expect(page.locator("#item button.option").first).to_be_disabled()
        # (the phone screenshots come from a touch-screen context: test_next_button_walk.py)

        # Enter goes to the next item; then end the quiz → the end screen
        _wait_for_scripts(page)
        page.keyboard.press("Enter")
        expect(page.locator(".item-progress__text")).to_have_text(f"2 / {total}")
        _answer_current_item(page, first, 2)
        page.get_by_role("button", name="End quiz").click()
        expect(page.locator("h1")).to_have_text("Quiz finished")
        expect(page.locator(".next-review")).to_contain_text("2 days from now")
        shoot(page, "end-screen")

        # retake: the same options in an order drawn afresh (tests/quizzes/practice/test_option_order.py)
        page.locator("button[data-retake]").click()
        expect(page.locator(".item-progress__text")).to_have_text(f"1 / {total}")
        second = Attempt.objects.filter(user__username="newcomer").order_by("-number").first()
        assert second.number == 2
        assert sorted(_option_texts(page)) == sorted(order_before)

        # a numeric question answered in the grid (one input per element), with the worked solution after
        numeric = second.items.select_related("question").get(question__key="l1-num-causal-weights")
        page.goto(_url(live_server, "web:attempt_item", second.pk, numeric.position + 1))
        rows, cols = numeric.variant["answer_shape"]
        expect(page.locator("#item input.cell")).to_have_count(rows * cols)
        _fill_grid(page, numeric)
        page.locator("#item button[data-submit]").click()
        expect(page.locator("#item .verdict--correct")).to_be_visible()
        expect(page.locator("#item td.cell--correct")).to_have_count(rows * cols)
        expect(page.locator("#item .solution__step")).to_have_count(len(numeric.variant["solution"]))
        shoot(page, "quiz-locked-numeric", scroll_to="#item .verdict")

        # an interview prompt: answer, reveal side by side, rate Good
        page.goto(_url(live_server, "web:interview_prompt", "l1-interview-formula"))
        expect(page.locator("[data-countdown]")).to_be_visible()
        page.fill("textarea[name=answer]", "softmax(QK^T/sqrt(d_k))V；点积方差是 d_k，所以要缩放。")
        page.locator("button[data-reveal]").click()
        expect(page.locator(".learner-answer")).to_contain_text("点积方差是 d_k")
        expect(page.locator(".reference")).to_be_visible()
        expect(page.locator("button.rating")).to_have_count(4)
        shoot(page, "interview-reveal", full_page=True)
        page.locator("button.rating--3").click()
        expect(page.locator(".messages")).to_contain_text("Rated Good")

    # two days later the studied items are due and a review session runs to its end
    with time_machine.travel(start + dt.timedelta(days=2, hours=1), tick=True):
        page.goto(_url(live_server, "web:dashboard"))
        expect(page.get_by_test_id("due-count")).to_have_text("4")
        shoot(page, "dashboard")
        page.get_by_role("link", name="Review 4 items").click()
        expect(page).to_have_url(_url(live_server, "web:review_session"))
        shoot(page, "review-session")
        for _step in range(10):
            if page.locator("[data-empty-state]").count():
                break
            page.locator("[data-start-review]").click()
            if "/attempts/" in page.url:
                attempt = Attempt.objects.filter(user__username="newcomer", mode="review").order_by("-pk").first()
                total = attempt.items.count()
                for position in range(1, total + 1):
                    expect(page.locator(".item-progress__text")).to_have_text(f"{position} / {total}")
                    _answer_current_item(page, attempt, position)
                    page.locator("#item [data-next]").click()
            else:
                page.locator("button[data-reveal]").click()
                page.locator("button.rating--3").click()
        expect(page.locator("[data-empty-state]")).to_contain_text("Review finished: 4 items reviewed today.")
        expect(page.locator("[data-empty-state]")).to_contain_text("Next review")


def test_a_question_without_javascript(browser, live_server, lessons):
    """Plain form POSTs: the option buttons submit, the server locks and redirects to the locked page."""
    context = browser.new_context(java_script_enabled=False, viewport={"width": 1280, "height": 900})
    page = context.new_page()
    try:
        _sign_up(page, live_server, "nojs")
        page.goto(_url(live_server, "web:lesson_detail", "sdpa"))
        page.get_by_role("button", name="Start quiz").click()
        item_url = page.url
        page.locator("#item button.option").nth(0).click()
        expect(page).to_have_url(item_url)  # POST → redirect → GET
        expect(page.locator("#item .verdict")).to_be_visible()
        expect(page.locator("#item button.option").nth(1)).to_be_disabled()
        expect(page.locator("#item [data-countdown]")).to_have_count(0)
        assert AttemptItem.objects.filter(attempt__user__username="nojs", answered_at__isnull=False).count() == 1
        page.get_by_role("link", name=re.compile("Next")).click()
        total = AttemptItem.objects.filter(attempt__user__username="nojs").count()
        expect(page.locator(".item-progress__text")).to_have_text(f"2 / {total}")
    finally:
        context.close()
