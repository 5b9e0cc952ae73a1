"""Item-page defects of issue 14, in a real browser with DEBUG on and off (conftest's debug_mode):
an input error re-renders inside the page (under DEBUG django-htmx's script used to replace the whole document
with the bare 400 response), and a locked option keeps its colours under the mouse and keyboard focus."""

from __future__ import annotations

import pytest
from django.urls import reverse
from playwright.sync_api import Page, expect

from quizzes.models import Attempt, Question
from tests import factories
from tests.e2e.conftest import assert_accessible

pytestmark = pytest.mark.django_db(transaction=True)


def _log_in(page: Page, live_server) -> None:
    user = factories.LearnerProfileFactory().user
    page.goto(live_server.url + reverse("web:login"))
    page.fill("input[name=username]", user.username)
    page.fill("input[name=password]", factories.PASSWORD)
    page.locator("main form button[type=submit]").click()
    expect(page).to_have_url(live_server.url + reverse("web:dashboard"))


def _ready(page: Page) -> None:
    page.wait_for_selector("html[data-practice-js=ready]", state="attached")
    page.wait_for_function("() => window.htmx !== undefined")


def test_an_empty_cell_is_reported_inside_the_page(page: Page, live_server, lessons, debug_mode):
    _log_in(page, live_server)
    page.goto(live_server.url + reverse("web:lesson_detail", args=["sdpa"]))
    page.get_by_role("button", name="Start quiz").click()
    attempt = Attempt.objects.get()
    item = attempt.items.select_related("question").get(question__key="l1-num-causal-weights")
    url = live_server.url + reverse("web:attempt_item", args=[attempt.pk, item.position + 1])
    page.goto(url)
    _ready(page)
    page.locator("#item input.cell").first.fill("0.5")  # the other cells stay empty
    page.locator("#item button[data-submit]").click()
    expect(page.locator("#item .form-error")).to_contain_text("Fill in every cell")
    # still the whole styled page: header, progress, the grid with what was typed; the item is not answered
    expect(page.locator(".site-header")).to_be_visible()
    expect(page.locator("#item .item-progress__text")).to_be_visible()
    expect(page.locator("#item input.cell").first).to_have_value("0.5")
    expect(page.locator("#item-live")).to_contain_text("Fill in every cell")
    assert page.url == url
    item.refresh_from_db()
    assert not item.is_answered
    assert_accessible(page, "item with an input error")


def test_a_locked_option_keeps_its_state_under_hover_and_focus(page: Page, live_server, lessons, debug_mode):
    _log_in(page, live_server)
    page.goto(live_server.url + reverse("web:lesson_detail", args=["sdpa"]))
    page.get_by_role("button", name="Start quiz").click()
    attempt = Attempt.objects.get()
    item = attempt.items.select_related("question").get(position=0)
    assert item.question.kind == Question.Kind.CHOICE
    correct = item.option_order.index(item.question.options.get(is_correct=True).pk)
    wrong = (correct + 1) % len(item.option_order)
    _ready(page)
    options = page.locator("#item button.option")
    options.nth(wrong).click()
    expect(page.locator("#item .verdict")).to_be_visible()
    # focus moved to the verdict, a heading that names the result region
    assert page.evaluate("() => document.activeElement.id") == "item-verdict"
    expect(page.locator("#item-live")).to_have_text("Not quite")
    background = "el => getComputedStyle(el).backgroundColor"
    chosen, right = options.nth(wrong), options.nth(correct)
    at_rest = (chosen.evaluate(background), right.evaluate(background))
    assert at_rest[0] != at_rest[1]  # red and green
    for button in (chosen, right):
        button.hover()
        assert (chosen.evaluate(background), right.evaluate(background)) == at_rest
        button.evaluate("el => el.focus()")
        assert (chosen.evaluate(background), right.evaluate(background)) == at_rest
    expect(chosen.locator(".option__mark--wrong")).to_be_visible()
    expect(right.locator(".option__mark--correct")).to_be_visible()
