"""Every learner page on a 360×740 and a 390×844 phone and on a desktop: no sideways scrolling of the page, every
matrix of a numeric prompt, answer or worked solution fully visible or in a box that scrolls with a visible cue,
and no serious or critical axe-core violation."""

from __future__ import annotations

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from quizzes.models import Attempt, Lesson, Question
from quizzes.practice.services import attempt_finish, attempt_start
from tests import factories
from tests.e2e.conftest import DESKTOP, PHONES, assert_accessible, assert_fits, new_page

pytestmark = pytest.mark.django_db(transaction=True)
SIZES = {**PHONES, "desktop": DESKTOP}


def _check(page, where: str, *, axe: bool = True) -> int:
    matrices = assert_fits(page, where)
    if axe:
        assert_accessible(page, where)
    return matrices


def _check_not_found(page, base: str, size: str, *, debug: bool) -> None:
    """Our 404 page; with DEBUG on a 404 is Django's technical page for developers (no viewport tag), not ours."""
    if not debug:
        page.goto(base + "/no/such/page/")
        _check(page, f"{size} 404")


@pytest.mark.parametrize("size", list(SIZES))
def test_every_learner_page_fits_and_passes_axe(browser, live_server, lessons, size, debug_mode):
    phone = size != "desktop"
    base = live_server.url
    page = new_page(browser, SIZES[size], phone=phone)
    try:
        # signed out
        for name in ("web:dashboard", "web:lesson_list", "web:login", "web:signup", "web:password_reset"):
            page.goto(base + reverse(name))
            _check(page, f"{size} {name}")

        user = factories.LearnerProfileFactory().user
        page.goto(base + reverse("web:login"))
        page.fill("input[name=username]", user.username)
        page.fill("input[name=password]", factories.PASSWORD)
        page.locator("main form button[type=submit]").click()
        expect(page).to_have_url(base + reverse("web:dashboard"))

        pages = [
            ("web:dashboard", []),
            ("web:lesson_list", []),
            ("web:attention_demo", []),
            ("web:review_session", []),
            ("web:interview_index", []),
            ("web:interview_mock", []),
            ("web:settings", []),
            ("web:account_delete", []),
            ("web:password_change", []),
        ]
        lesson_keys = list(Lesson.objects.filter(published=True).order_by("order").values_list("key", flat=True))
        assert len(lesson_keys) == 7
        pages += [("web:lesson_detail", [key]) for key in lesson_keys]
        for name, args in pages:
            page.goto(base + reverse(name, args=args))
            _check(page, f"{size} {name} {args}")

        # interview prompt and recall card: write, then the reveal with the rating buttons
        for kind, name in ((Question.Kind.PROMPT, "web:interview_prompt"), (Question.Kind.RECALL, "web:recall_card")):
            question = Question.objects.filter(kind=kind, published=True).order_by("lesson__order", "order").first()
            page.goto(base + reverse(name, args=[question.key]))
            _check(page, f"{size} {name}")
            page.fill("textarea[name=answer]", "scores = q @ k.transpose(-2, -1) / math.sqrt(k.size(-1))  " * 3)
            page.locator("button[data-reveal]").click()
            expect(page.locator("button.rating")).to_have_count(4)
            _check(page, f"{size} {name} reveal")

        # every numeric question of every lesson: before the answer, and after a wrong one (solution, misconception)
        matrices = 0
        for lesson in {q.lesson for q in Question.objects.filter(kind=Question.Kind.NUMERIC, published=True)}:
            attempt = attempt_start(user=user, lesson=lesson)
            numeric = attempt.items.select_related("question").filter(question__kind=Question.Kind.NUMERIC)
            for index, item in enumerate(numeric):
                axe = index == 0  # axe once per lesson (it is the slow part); the layout of every item
                page.goto(base + reverse("web:attempt_item", args=[attempt.pk, item.position + 1]))
                matrices += _check(page, f"{size} {item.question.key}", axe=axe)
                if item.question.answer_form == Question.AnswerForm.CHOICE:
                    page.locator("#item button.option").first.click()
                else:
                    page.locator("#item input.cell").first.fill("12345.678")
                    for cell in page.locator("#item input.cell").all()[1:]:
                        cell.fill("-0.5")
                    page.locator("#item button[data-submit]").click()
                expect(page.locator("#item .verdict")).to_be_visible()
                matrices += _check(page, f"{size} {item.question.key} locked", axe=axe)
            attempt_finish(user=user, attempt=Attempt.objects.get(pk=attempt.pk))
            page.goto(base + reverse("web:attempt_summary", args=[attempt.pk]))
            matrices += _check(page, f"{size} summary {lesson.key}")
        assert matrices > 0

        # the dashboard and the review session with history
        for name in ("web:dashboard", "web:review_session"):
            page.goto(base + reverse(name))
            _check(page, f"{size} {name} with history")
        # the forecast and the mastery table fit the screen whole: no box of theirs scrolls sideways
        page.goto(base + reverse("web:dashboard"))
        boxes = page.evaluate(
            """() => Array.from(document.querySelectorAll(".chart-scroll, .mastery")).map(el => {
                 const box = el.closest(".table-wrap") || el;
                 return [box.className, box.scrollWidth, box.clientWidth, el.getBoundingClientRect().right];
               })"""
        )
        assert len(boxes) == 2
        for name, scroll_width, client_width, right in boxes:
            assert scroll_width <= client_width + 1 and right <= SIZES[size]["width"], (size, name, scroll_width)
        _check_not_found(page, base, size, debug=debug_mode)
    finally:
        page.context.close()
