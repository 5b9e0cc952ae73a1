"""Lesson 1's code card in a real browser (issue 15): write the 3 lines with a typo (shown, nothing locked),
then with one deliberate bug (named at its line), rate; retake, fix it, see the suggested rating, rate."""

from __future__ import annotations

import pytest
from django.urls import reverse
from playwright.sync_api import Page, expect

from attention_engine import codecheck, misconceptions
from quizzes.models import Attempt, ReviewLog

pytestmark = pytest.mark.django_db(transaction=True)
PASSWORD = "a-long-enough-pass-42"
SPEC = codecheck.get("sdpa_three_lines")
BUG = next(m for m in SPEC.misconceptions if m.id == "mask_hides_diagonal")


def _url(live_server, name: str, *args) -> str:
    return live_server.url + reverse(name, args=args)


def _open_code_item(page: Page, live_server, attempt: Attempt) -> None:
    item = attempt.items.get(question__key="l1-code-three-lines")
    page.goto(_url(live_server, "web:attempt_item", attempt.pk, item.position + 1))
    page.wait_for_selector("html[data-code-editor=ready]", state="attached")


def test_write_the_three_lines_see_the_bug_named_fix_it_on_the_retake(page: Page, live_server, lessons, shoot):
    page.goto(_url(live_server, "web:signup"))
    page.fill("input[name=username]", "coder")
    page.fill("input[name=password1]", PASSWORD)
    page.fill("input[name=password2]", PASSWORD)
    page.locator("main form button[type=submit]").click()
    page.goto(_url(live_server, "web:lesson_detail", "sdpa"))
    page.get_by_role("button", name="Start quiz").click()
    first = Attempt.objects.get(user__username="coder")
    _open_code_item(page, live_server, first)

    # the given code is read-only with line numbers; the editor takes Tab as spaces
    expect(page.locator(".code-block--given")).to_contain_text("TODO: mask")
    expect(page.locator(".code-given .code-gutter")).to_be_visible()
    editor = page.locator("textarea[name=code]")
    editor.click()
    editor.press("Tab")
    expect(editor).to_have_value("    ")

    # a typo: the message names the line and column, nothing locks, the text stays to be fixed
    editor.fill("scores = Q @ K.swapaxes(-2, -1) / np.sqrt(d_k\n" + BUG.code.split("\n", 1)[1])
    page.locator("#item button[data-submit]").click()
    # the first grading of a process starts the sandbox worker (a fresh interpreter warming numpy): allow for it
    expect(page.locator("#item .form-error")).to_contain_text("line 1, column", timeout=60_000)
    assert not first.items.get(question__key="l1-code-three-lines").is_answered
    shoot(page, "code-syntax-error", scroll_to="#item .form-error")

    # one deliberate bug (the mask hides the diagonal): named, at its line, with the worked example
    page.locator("textarea[name=code]").fill(BUG.code)
    page.locator("#item button[data-submit]").click()
    title = misconceptions.get(BUG.id).title_en
    expect(page.locator("#item [data-misconception]")).to_contain_text(title)
    expect(page.locator("#item [data-verdict-message]")).to_contain_text("line 2 (mask)")
    expect(page.locator("#item .code-line--incorrect")).to_contain_text("mask = np.triu")
    expect(page.locator("#item .code-example")).to_be_visible()
    suggested = page.locator("#item button.rating--suggested")
    expect(suggested).to_have_count(1)
    expect(suggested).to_contain_text("Again")
    shoot(page, "code-bug-named", scroll_to="#item .verdict")
    suggested.click()  # accept the suggestion
    expect(page.locator(".messages")).to_contain_text("Rated Again")
    assert ReviewLog.objects.get(user__username="coder").rating == ReviewLog.Rating.AGAIN

    # the next retake: fix the mask, all inputs pass, Good is suggested; the learner picks Hard instead
    page.get_by_role("button", name="End quiz").click()
    page.locator("button[data-retake]").click()
    second = Attempt.objects.filter(user__username="coder").order_by("-number").first()
    assert second.number == 2
    _open_code_item(page, live_server, second)
    page.locator("textarea[name=code]").fill(SPEC.reference)
    page.locator("#item button[data-submit]").click()
    expect(page.locator("#item .verdict--correct")).to_be_visible()
    expect(page.locator("#item .code-line--correct")).to_have_count(3)
    expect(page.locator("#item button.rating--suggested")).to_contain_text("Good")
    shoot(page, "code-correct", scroll_to="#item .verdict")
    page.locator("#item button.rating--2").click()
    expect(page.locator(".messages")).to_contain_text("Rated Hard")
    logs = ReviewLog.objects.filter(user__username="coder").order_by("reviewed_at")
    ratings = list(logs.values_list("rating", flat=True))
    assert ratings == [ReviewLog.Rating.AGAIN, ReviewLog.Rating.HARD]
