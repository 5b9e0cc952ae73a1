"""The learner shell: the landing page or dashboard, the lessons, lesson 1's d_k demo."""

from __future__ import annotations

import secrets

from django.contrib import messages
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_POST, require_safe

from quizzes.accounts.selectors import profile_for
from quizzes.content.attention_demo import demo_matrix
from quizzes.content.models import Lesson
from quizzes.content.selectors import lesson_list_published, lesson_practice_questions, lesson_quiz_count
from quizzes.content.teaching import (
    answer_key,
    checkpoint_lock,
    checkpoint_owner,
    checkpoint_section,
    has_checkpoints,
    teaching_sections,
)
from quizzes.core.errors import DomainError, ErrorCode
from quizzes.practice.next_step import next_step_for
from quizzes.practice.selectors import checkpoint_answers, dashboard_reads, lesson_attempts, lesson_progress
from quizzes.practice.services import checkpoint_answer_record
from quizzes.reviews.selectors.days import DayCount
from quizzes.reviews.selectors.history import review_streak
from quizzes.web import charts
from quizzes.web.forms import DemoForm
from quizzes.web.types import PageRequest, signed_in
from quizzes.web.views.common import next_step_link, published_lesson_or_404

#: The lesson whose page carries the d_k demo (lesson 1, scaled dot-product attention).
DEMO_LESSON_KEY = "sdpa"
#: Where the browser session keeps a signed-out visitor's first answer to each checkpoint ("lesson:section" →
#: option key); a signed-in learner's are stored per learner (CheckpointAnswer).
CHECKPOINTS_SESSION_KEY = "quizzes.checkpoints"
#: The random token a signed-out visitor's checkpoint handles are made from (their session's own).
VISITOR_SESSION_KEY = "quizzes.checkpoint-visitor"


def _checkpoint_context(request: PageRequest, lesson: Lesson) -> tuple[str, dict[str, str]]:
    """Whose handles the page shows (checkpoint_owner) and the first answers it shows locked.

    A signed-in learner: their stored answers, over any this browser session kept from before they were stored
    per learner. A visitor: their session's answers, and a random token of the session's (made on first use).
    """
    session: dict[str, str] = request.session.get(CHECKPOINTS_SESSION_KEY, {})
    learner = signed_in(request)
    if learner is not None:
        return checkpoint_owner(user_id=learner.pk), {**session, **checkpoint_answers(user=learner, lesson=lesson)}
    visitor = request.session.get(VISITOR_SESSION_KEY)
    if not visitor:
        visitor = request.session[VISITOR_SESSION_KEY] = secrets.token_hex(16)
    return checkpoint_owner(visitor=visitor), session


# --- dashboard / landing -------------------------------------------------------------------------


@require_safe
def dashboard(request: PageRequest) -> HttpResponse:
    """ "/": the learner's dashboard, or a short landing page with the lessons for visitors."""
    user = signed_in(request)
    if user is None:
        return render(request, "web/core/landing.html", {"lessons": lesson_list_published()})
    now = timezone.now()
    profile = profile_for(user=user)  # once per request, passed down
    # the counts, the per-lesson progress, the forecast, the heatmap and the streak: four statements, one round trip
    reads = dashboard_reads(user=user, profile=profile, now=now, forecast_days=14)
    summary, recent = reads.summary, reads.recent
    heatmap_days, active = (recent.last - recent.first).days + 1, recent.active_days
    due = summary.capped_due(profile=profile, today=recent.today)
    request._quizzes_due_now = due  # type: ignore[attr-defined]  # the nav badge (due_now tag) reuses it
    forecast = summary.forecast
    context = {
        "profile": profile,
        "due": due,
        "next_step": next_step_link(user, next_step_for(user=user, now=now, due=due)),
        "streak": review_streak(user=user, now=now, profile=profile, recent=recent),
        "progress": reads.progress,
        "forecast_rows": charts.day_count_rows(forecast),
        "forecast_svg": charts.forecast_svg(forecast),
        "forecast_svg_compact": charts.forecast_svg(forecast, per_row=7),  # phones: two rows of a week
        "forecast_summary": charts.forecast_summary(forecast),
        "heatmap_svg": charts.heatmap_svg_of(recent.first, heatmap_days, active),
        "heatmap_summary": charts.heatmap_summary_of(heatmap_days, active),
        "heatmap_active_rows": charts.day_count_rows([DayCount(day, active[day]) for day in reversed(active)]),
        "new_available": summary.capped_new(profile=profile, today=recent.today),
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
    owner, answers = _checkpoint_context(request, lesson) if has_checkpoints(lesson.teaching) else (None, {})
    teaching = teaching_sections(lesson_key=lesson.key, sections=lesson.teaching, answers=answers, owner=owner)
    context: dict = {
        "lesson": lesson,
        "teaching": teaching,
        "demo_inline": any(section["figure"] == "dk_demo" for section in teaching),
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


@require_POST
def lesson_checkpoint(request: PageRequest, key: str, section: str) -> HttpResponse:
    """Answer a teaching checkpoint: the first answer locks (per learner, or in a visitor's session), then the
    explanation shows. Checkpoints never feed the review schedule.

    htmx gets the checkpoint's fragment; an option that is not the checkpoint's (a page from before the author
    changed it) gets the open checkpoint back with a message, as a 200: htmx does not swap a 4xx, and in DEBUG
    django-htmx's script would replace the whole page with it. A plain form post goes back to the checkpoint on
    the lesson page (with the message above the content).
    """
    lesson = published_lesson_or_404(key)
    owner, answers = _checkpoint_context(request, lesson)
    answers = dict(answers)
    slot = answer_key(lesson_key=lesson.key, section_key=section)
    handle = request.POST.get("option", "")
    learner = signed_in(request)
    error = ""
    try:
        if learner is not None:  # the learner's lock, whichever browser they answer in
            answers[slot] = checkpoint_answer_record(
                user=learner, lesson=lesson, section_key=section, handle=handle, carried=answers.get(slot)
            )
        else:
            answers[slot] = checkpoint_lock(
                owner=owner,
                lesson_key=lesson.key,
                sections=lesson.teaching,
                section_key=section,
                handle=handle,
                previous=answers.get(slot),
            )
            request.session[CHECKPOINTS_SESSION_KEY] = answers
    except DomainError as exc:
        if exc.error_code == ErrorCode.NOT_FOUND:
            raise Http404(exc.messages[0]) from None
        error = exc.messages[0]
    if not request.htmx:
        if error:
            messages.error(request, error)
        return redirect(reverse("web:lesson_detail", args=[lesson.key]) + f"#cp-{section}")
    view = checkpoint_section(
        owner=owner, lesson_key=lesson.key, sections=lesson.teaching, section_key=section, chosen=answers.get(slot)
    )
    context = {"checkpoint": view, "lesson": lesson, "error": error, "just_answered": not error}
    return render(request, "web/core/_checkpoint.html", context)


@require_safe
def attention_demo(request: PageRequest) -> HttpResponse:
    """The d_k demo alone: the matrix fragment for htmx, a full page for a plain request."""
    context, status = _demo_context(request)
    template = "web/core/_demo_matrix.html" if request.htmx else "web/core/demo.html"
    return render(request, template, context, status=status)
