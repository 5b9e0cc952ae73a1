"""The learner shell: the landing page or dashboard, the lessons, lesson 1's d_k demo."""

from __future__ import annotations

from django.http import HttpResponse
from django.shortcuts import render
from django.utils import timezone
from django.views.decorators.http import require_safe

from quizzes.accounts.selectors import profile_for
from quizzes.content.attention_demo import demo_matrix
from quizzes.content.selectors import lesson_list_published, lesson_practice_questions, lesson_quiz_count
from quizzes.practice.next_step import next_step_for
from quizzes.practice.selectors import lesson_attempts, lesson_progress
from quizzes.reviews import selectors as review_selectors
from quizzes.web import charts
from quizzes.web.forms import DemoForm
from quizzes.web.types import PageRequest, signed_in
from quizzes.web.views.common import next_step_link, published_lesson_or_404

#: The lesson whose page carries the d_k demo (lesson 1, scaled dot-product attention).
DEMO_LESSON_KEY = "sdpa"


# --- dashboard / landing -------------------------------------------------------------------------


@require_safe
def dashboard(request: PageRequest) -> HttpResponse:
    """ "/": the learner's dashboard, or a short landing page with the lessons for visitors."""
    user = signed_in(request)
    if user is None:
        return render(request, "web/core/landing.html", {"lessons": lesson_list_published()})
    now = timezone.now()
    profile = profile_for(user=user)  # once per request, passed down
    today = review_selectors.today_logs(user=user, profile=profile, now=now)
    due = review_selectors.due_count(user=user, now=now, profile=profile, today=today)
    request._quizzes_due_now = due  # type: ignore[attr-defined]  # the nav badge (due_now tag) reuses it
    forecast = review_selectors.due_forecast(user=user, days=14, now=now, profile=profile)
    heatmap = review_selectors.review_heatmap(user=user, days=365, now=now, profile=profile)
    context = {
        "profile": profile,
        "due": due,
        "next_step": next_step_link(user, next_step_for(user=user, now=now, due=due)),
        "streak": review_selectors.review_streak(user=user, now=now, profile=profile, recent=heatmap),
        "progress": lesson_progress(user=user, now=now, profile=profile),
        "forecast": forecast,
        "forecast_svg": charts.forecast_svg(forecast),
        "forecast_svg_compact": charts.forecast_svg(forecast, per_row=7),  # phones: two rows of a week
        "forecast_summary": charts.forecast_summary(forecast),
        "heatmap_svg": charts.heatmap_svg(heatmap),
        "heatmap_summary": charts.heatmap_summary(heatmap),
        "heatmap_active_days": [d for d in reversed(heatmap) if d.count],
        "new_available": review_selectors.new_count(user=user, now=now, profile=profile, today=today),
    }
    return render(request, "web/core/dashboard.html", context)


# --- lessons -------------------------------------------------------------------------------------


@require_safe
def lesson_list(request: PageRequest) -> HttpResponse:
    """Every published lesson; signed-in learners also see their progress per lesson."""
    context: dict = {"lessons": lesson_list_published()}
    learner = signed_in(request)
    if learner is not None:
        context["progress"] = {p.lesson.pk: p for p in lesson_progress(user=learner)}
    return render(request, "web/core/lesson_list.html", context)


def _demo_context(request: PageRequest) -> tuple[dict, int]:
    """The demo form and its matrix; status 400 (with the form's message) for a bad d_k."""
    form = DemoForm.from_query(request.GET)
    if not form.is_valid():
        return {"demo_form": form, "demo": None}, 400
    try:
        matrix = demo_matrix(**form.cleaned_data)
    except ValueError as exc:  # the form already checks the range; this keeps the pure function's word final
        form.add_error("d_k", str(exc))
        return {"demo_form": form, "demo": None}, 400
    rows = [
        {
            "index": i + 1,
            "max": matrix["row_max"][i],
            "cells": [
                {
                    "weight": w,
                    "masked": matrix["causal"] and j > i,
                    "is_max": w == matrix["row_max"][i],
                    "dark": w >= 0.5,
                    "heat": round(w * 20),  # CSS class heat-0…heat-20 (site.css): no inline style, for the CSP
                }
                for j, w in enumerate(row)
            ],
        }
        for i, row in enumerate(matrix["weights"])
    ]
    return {"demo_form": form, "demo": matrix, "demo_rows": rows, "demo_columns": range(1, matrix["tokens"] + 1)}, 200


@require_safe
def lesson_detail(request: PageRequest, key: str) -> HttpResponse:
    lesson = published_lesson_or_404(key)
    context: dict = {
        "lesson": lesson,
        "quiz_count": lesson_quiz_count(lesson=lesson),
        **lesson_practice_questions(lesson=lesson),
        "attempts": [],
        "has_demo": lesson.key == DEMO_LESSON_KEY,
    }
    status = 200
    learner = signed_in(request)
    if learner is not None:
        context["attempts"] = lesson_attempts(user=learner, lesson=lesson)
        context["learner_time_zone"] = profile_for(user=learner).time_zone
    if context["has_demo"]:
        demo_context, status = _demo_context(request)
        context.update(demo_context)
    return render(request, "web/core/lesson_detail.html", context, status=status)


@require_safe
def attention_demo(request: PageRequest) -> HttpResponse:
    """The d_k demo alone: the matrix fragment for htmx, a full page for a plain request."""
    context, status = _demo_context(request)
    template = "web/core/_demo_matrix.html" if request.htmx else "web/core/demo.html"
    return render(request, template, context, status=status)
