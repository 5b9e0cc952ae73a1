"""The Content-Security-Policy is enforced and every page satisfies it (conftest's listener fails on a violation).

Walks the learner pages (with the d_k demo, a quiz item, the review session, interview prompts, the
settings and account pages, an error page), the admin (including the numeric preview) and both API
doc pages (Swagger UI with a nonce, Redoc with its route-specific policy).
"""

from __future__ import annotations

import pytest
from django.urls import reverse
from playwright.sync_api import Page, expect

from quizzes.models import Question
from tests import factories
from tests.e2e.conftest import csp_violations

pytestmark = pytest.mark.django_db(transaction=True)


def _visit(page: Page, url: str) -> None:
    response = page.goto(url)
    assert response is not None and response.status < 500, (url, response and response.status)
    assert "Content-Security-Policy" in {k.title(): v for k, v in response.headers.items()}, url
    page.wait_for_load_state("load")
    assert csp_violations(page) == [], url


def test_learner_pages_satisfy_the_policy(page: Page, live_server, lessons, debug_mode):
    user = factories.LearnerProfileFactory().user
    page.goto(live_server.url + reverse("web:login"))
    page.fill("input[name=username]", user.username)
    page.fill("input[name=password]", factories.PASSWORD)
    page.locator("main form button[type=submit]").click()
    expect(page).to_have_url(live_server.url + reverse("web:dashboard"))
    base = live_server.url
    for name, args in [
        ("web:dashboard", []),
        ("web:lesson_list", []),
        ("web:lesson_detail", ["sdpa"]),
        ("web:review_session", []),
        ("web:interview_index", []),
        ("web:settings", []),
        ("web:account_delete", []),
        ("web:password_change", []),
    ]:
        _visit(page, base + reverse(name, args=args))
    prompt = Question.objects.filter(kind=Question.Kind.PROMPT, published=True).first()
    _visit(page, base + reverse("web:interview_prompt", args=[prompt.key]))
    if not debug_mode:  # under DEBUG an unknown URL gets Django's technical 404 page, a development tool
        _visit(page, base + "/no/such/page/")

    # the demo: htmx swaps the matrix in, the slider's number follows (demo.js, not an inline handler)
    page.goto(base + reverse("web:lesson_detail", args=["sdpa"]))
    page.wait_for_function("() => window.htmx !== undefined")
    page.locator("#id_d_k").fill("48")
    expect(page.locator("#d_k-value")).to_have_text("48")
    expect(page.get_by_test_id("demo-summary")).to_contain_text("d_k = 48:")
    # a quiz item with its progress bar, answered through htmx
    page.get_by_role("button", name="Start quiz").click()
    page.locator("#item button.option").first.click()
    expect(page.locator("#item .verdict")).to_be_visible()
    assert csp_violations(page) == []


def test_signed_out_pages_satisfy_the_policy(page: Page, live_server, lessons):
    for name in ("web:dashboard", "web:login", "web:signup", "web:password_reset"):
        _visit(page, live_server.url + reverse(name))


def test_admin_and_api_docs_work_under_the_policy(page: Page, live_server, lessons):
    admin = factories.UserFactory(username="boss", is_staff=True, is_superuser=True)
    page.goto(live_server.url + "/admin/login/")
    page.fill("input[name=username]", admin.username)
    page.fill("input[name=password]", factories.PASSWORD)
    page.locator("input[type=submit]").click()
    expect(page.locator("#site-name")).to_be_visible()
    numeric = Question.objects.filter(kind=Question.Kind.NUMERIC).first()
    for url in (
        "/admin/",
        "/admin/quizzes/question/",
        f"/admin/quizzes/question/{numeric.pk}/change/",
        f"/admin/quizzes/question/{numeric.pk}/preview/",
        "/admin/auth/user/",
        "/admin/auth/user/throttles/",
    ):
        _visit(page, live_server.url + url)
    # the admin's own scripts still run: the action bar's "select all" toggles the checkboxes
    page.goto(live_server.url + "/admin/quizzes/question/")
    page.locator("#action-toggle").check()
    expect(page.locator("input.action-select").first).to_be_checked()

    page.goto(live_server.url + "/api/docs/")
    expect(page.locator(".swagger-ui .info .title")).to_contain_text("quizsite API")
    page.goto(live_server.url + "/api/redoc/")
    expect(page.locator("redoc h1, .api-info h1").first).to_contain_text("quizsite API", timeout=20_000)
    # Redoc's bundle hard-codes the Redocly logo from its CDN in the sidebar footer (no option turns it off);
    # the policy rightly blocks it (the docs work offline, the image hides itself on error). Nothing else may be.
    violations = csp_violations(page)
    assert all("cdn.redoc.ly" in v for v in violations), violations
    page.evaluate("() => { window.__cspViolations = []; }")
    page._csp_console.clear()
