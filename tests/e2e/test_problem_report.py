"""A learner reports a problem in a real browser (issue 27 item 6): answer an item, "Report a problem" appears only
after the lock, the form sends the report, and "My reports" shows it — plain text, never HTML."""

from __future__ import annotations

import pytest
from django.urls import reverse
from playwright.sync_api import Page, expect

from quizzes.models import Attempt, ProblemReport
from tests import factories
from tests.e2e.conftest import assert_accessible

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_learner_answers_reports_and_sees_the_report(page: Page, live_server, lessons, debug_mode):
    user = factories.LearnerProfileFactory().user
    page.goto(live_server.url + reverse("web:login"))
    page.fill("input[name=username]", user.username)
    page.fill("input[name=password]", factories.PASSWORD)
    page.locator("main form button[type=submit]").click()
    expect(page).to_have_url(live_server.url + reverse("web:dashboard"))

    page.goto(live_server.url + reverse("web:lesson_detail", args=["sdpa"]))
    page.get_by_role("button", name="Start quiz").click()
    attempt = Attempt.objects.get()
    item = attempt.items.select_related("question").get(position=0)
    page.wait_for_selector("html[data-practice-js=ready]", state="attached")
    page.wait_for_function("() => window.htmx !== undefined")
    expect(page.get_by_role("link", name="Report a problem")).to_have_count(0)  # not before the lock
    page.locator("#item button.option").first.click()
    expect(page.locator("#item .verdict")).to_be_visible()

    page.get_by_role("link", name="Report a problem").click()
    expect(page.get_by_role("heading", name="Report a problem")).to_be_visible()
    assert_accessible(page, "the report form")
    page.get_by_label("Unclear").check()
    page.get_by_label("Tell us more (optional)").fill("<b>Which</b> softmax axis is meant?")
    page.get_by_role("button", name="Send report").click()

    expect(page).to_have_url(live_server.url + reverse("web:my_reports"))
    expect(page.get_by_text("Thank you: your report was sent to the authors.")).to_be_visible()
    report = page.locator("[data-report]")
    expect(report).to_have_count(1)
    expect(report.locator(".report-text")).to_have_text("<b>Which</b> softmax axis is meant?")  # shown as typed
    expect(report.locator("b")).to_have_count(0)  # never rendered as HTML
    expect(report.locator("[data-report-status]")).to_contain_text("Open")
    assert_accessible(page, "my reports")
    saved = ProblemReport.objects.get()
    assert (saved.user, saved.attempt_item, saved.category) == (user, item, "unclear")
