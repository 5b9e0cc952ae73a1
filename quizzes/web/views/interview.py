"""Interview prompts: the list, one prompt (write → reveal → rate, quizzes.web.views.self_rated), the mock interview."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_safe

from quizzes.content.selectors import interview_prompts, mock_interview_questions, questions_by_ids
from quizzes.practice.next_step import next_step_for
from quizzes.reviews.models import ReviewLog
from quizzes.reviews.selectors.cards import card_due
from quizzes.web.practice_forms import MockSizeForm
from quizzes.web.types import LearnerRequest
from quizzes.web.views.common import describe_due, next_step_link
from quizzes.web.views.self_rated import (
    MOCK_SESSION_KEY,
    draft_key,
    mock_state,
    mock_step_url,
)


@login_required
@require_safe
def interview_index(request: LearnerRequest) -> HttpResponse:
    """Every interview prompt, lesson by lesson, and the mock interview's start."""
    prompts = interview_prompts()
    by_lesson: dict[int, dict[str, Any]] = {}
    for question in prompts:
        entry = by_lesson.setdefault(question.lesson_id, {"lesson": question.lesson, "questions": []})
        entry["questions"].append(question)
    return render(
        request,
        "web/practice/interview_index.html",
        {"lessons": list(by_lesson.values()), "mock_form": MockSizeForm(initial={"n": 5}), "count": len(prompts)},
    )


@login_required
@require_http_methods(["GET", "HEAD", "POST"])
def interview_mock(request: LearnerRequest) -> HttpResponse:
    """GET: the mock interview's intro (``?n=1..10``, default 5). POST: draw the prompts and begin."""
    data = request.POST if request.method == "POST" else request.GET
    form = MockSizeForm({"n": data.get("n", "5")})
    available = len(interview_prompts())
    if not form.is_valid():
        return render(
            request,
            "web/practice/interview_mock.html",
            {"form": form, "available": available, "state": None},
            status=400,
        )
    n = form.cleaned_data["n"]
    if request.method == "POST":
        questions = mock_interview_questions(n=n)
        if not questions:
            messages.error(request, _("There are no interview prompts yet."))
            return redirect("web:interview_index")
        drawn: dict[str, Any] = {"ids": [q.pk for q in questions], "ratings": [None] * len(questions)}
        request.session[MOCK_SESSION_KEY] = drawn
        for question in questions:
            request.session.pop(draft_key(question), None)
        return redirect(mock_step_url(drawn, 1))
    state = mock_state(request)
    resume = None
    if state and None in state["ratings"]:
        resume = {
            "url": mock_step_url(state, state["ratings"].index(None) + 1),
            "done": sum(1 for r in state["ratings"] if r is not None),
            "total": len(state["ids"]),
        }
    return render(
        request,
        "web/practice/interview_mock.html",
        {"form": form, "n": n, "available": available, "draws": min(n, available), "resume": resume},
    )


@login_required
@require_safe
def interview_mock_summary(request: LearnerRequest) -> HttpResponse:
    state = mock_state(request)
    if state is None:
        return redirect("web:interview_mock")
    questions = {q.pk: q for q in questions_by_ids(ids=state["ids"])}
    rows = []
    for position, (question_id, rating) in enumerate(zip(state["ids"], state["ratings"], strict=True), start=1):
        question = questions.get(question_id)
        if question is None:
            continue
        rows.append(
            {
                "position": position,
                "question": question,
                "rating": ReviewLog.Rating(rating).label if rating else None,
                "rating_value": rating,
                "url": mock_step_url(state, position),
                "due": describe_due(request.user, card_due(user=request.user, question=question)),
            }
        )
    rated = [row["rating_value"] for row in rows if row["rating_value"]]
    return render(
        request,
        "web/practice/interview_mock_summary.html",
        {
            "rows": rows,
            "rated": len(rated),
            "strong": sum(1 for r in rated if r >= ReviewLog.Rating.GOOD),
            "weak": sum(1 for r in rated if r <= ReviewLog.Rating.HARD),
            "next_step": next_step_link(request.user, next_step_for(user=request.user)),
        },
    )
