"""The d_k demo in a real Chromium: htmx swaps the matrix in place as the slider moves.

pytest-playwright drives the system Chromium (tests/e2e/conftest.py: skips without it, fails with CI=true).
"""

from __future__ import annotations

from django.urls import reverse
from playwright.sync_api import Page, expect

from quizzes.content import attention_demo as demo
from tests import factories


def test_slider_and_toggles_update_the_matrix_in_place(page: Page, live_server, transactional_db):
    factories.LessonFactory(key="sdpa", title="缩放点积注意力")
    page.goto(live_server.url + reverse("web:lesson_detail", args=["sdpa"]))
    summary = page.get_by_test_id("demo-summary")
    expect(summary).to_contain_text("d_k = 16:")
    url = page.url

    page.locator("#id_d_k").fill("64")  # a range input: fill() sets the value and fires "input"
    unscaled = demo.demo_matrix(d_k=64, causal=False, scaled=False)["mean_max_weight"]
    expect(summary).to_contain_text(f"d_k = 64: mean of the largest weight per row = {unscaled:.2f}")
    assert page.url == url  # swapped in place, no navigation

    page.get_by_label("Divide by √d_k (scaled)").check()
    scaled = demo.demo_matrix(d_k=64, causal=False, scaled=True)["mean_max_weight"]
    expect(summary).to_contain_text(f"= {scaled:.2f}")
    expect(summary).to_contain_text("Scaled by 1/√d_k.")

    page.get_by_label("Causal mask").check()
    expect(page.locator(".attention-matrix td.masked")).to_have_count(15)
    assert page.url == url
