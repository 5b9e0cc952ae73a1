"""Lesson 1 teaches, then tests, in a real Chromium (issue 14): the teaching text comes before the quiz, its
pictures are there, and a checkpoint answers in place (htmx) and stays locked after a reload."""

from __future__ import annotations

import re

from django.urls import reverse
from playwright.sync_api import Page, expect


def test_reading_lesson_one_and_answering_a_checkpoint(page: Page, live_server, lessons, shoot):
    page.goto(live_server.url + reverse("web:lesson_detail", args=["sdpa"]))
    five_steps = page.locator("#s-five-steps")
    expect(five_steps.get_by_role("heading", name="五步走，每一步盯住形状")).to_be_visible()
    quiz = page.locator("#quiz-heading")
    assert five_steps.bounding_box()["y"] < quiz.bounding_box()["y"]  # teaching first, then the quiz

    # the shapes of the five steps, drawn; the d_k demo where the √d_k point is made
    expect(page.locator('[data-figure="five_steps"] svg[role="img"]')).to_be_visible()
    expect(page.locator("#s-why-scale #demo .attention-matrix")).to_be_visible()
    shoot(page, "lesson-teaching-five-steps", scroll_to='[data-figure="five_steps"]')

    # the causal mask with a masked heatmap: the 6 cells above the diagonal are greyed out, row 1 is [1, 0, 0, 0]
    heatmap = page.locator('#s-causal-mask [data-figure="causal_heatmap"] svg[role="img"]')
    heatmap.scroll_into_view_if_needed()
    expect(heatmap).to_be_visible()
    expect(heatmap.locator("g.heat-cell--masked")).to_have_count(6)
    expect(heatmap.locator("g.heat-cell").first).to_contain_text("1.00")
    shoot(page, "lesson-teaching-heatmap", scroll_to='[data-figure="causal_heatmap"]')

    # a checkpoint: nothing revealed before the click, the explanation after it, no navigation
    checkpoint = page.locator("#cp-five-steps")
    expect(checkpoint.locator(".cp-explanation")).to_have_count(0)
    url = page.url
    checkpoint.get_by_role("button").filter(has_text=re.compile(r"\(\s*8\s*,\s*16\s*\)")).click()
    checkpoint = page.locator("#cp-five-steps")
    expect(checkpoint.locator(".cp-verdict")).to_contain_text("Correct")
    expect(checkpoint.locator(".cp-explanation")).to_contain_text("投影矩阵的形状与序列长度")
    expect(checkpoint.get_by_role("button")).to_have_count(0)  # locked
    assert page.url == url
    shoot(page, "lesson-teaching-checkpoint", scroll_to="#cp-five-steps")

    page.reload()
    expect(page.locator("#cp-five-steps .cp-verdict")).to_contain_text("Correct")  # the first answer stays
