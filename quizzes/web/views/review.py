"""The review session: today's due items lesson by lesson — the quiz (a review attempt), then prompts, recall last."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST, require_safe

from quizzes.practice.next_step import next_step_for
from quizzes.practice.selectors import review_attempt_open
from quizzes.practice.services import review_attempt_get_or_start
from quizzes.reviews.selectors import due as due_selectors
from quizzes.reviews.selectors.cards import next_review_after_today
from quizzes.web.types import LearnerRequest
from quizzes.web.views.common import describe_due, next_step_link, published_lesson_or_404, refused


@login_required
@require_safe
def review_session(request: LearnerRequest) -> HttpResponse:
    """Today's due items lesson by lesson: the quiz (a review attempt), then prompts, the recall card last."""
    groups = due_selectors.review_session(user=request.user)
    progress = due_selectors.review_progress(user=request.user)
    here = reverse("web:review_session")
    plan: list[dict[str, Any]] = []
    for group in groups:
        steps: list[dict[str, Any]] = []
        if group.quiz_cards:
            steps.append({"kind": "quiz", "count": len(group.quiz_cards), "lesson": group.lesson})
        for card in group.prompt_cards:
            url = reverse("web:interview_prompt", args=[card.question.key])
            steps.append({"kind": "prompt", "question": card.question, "url": f"{url}?next={here}"})
        for card in group.recall_cards:
            url = reverse("web:recall_card", args=[card.question.key])
            steps.append({"kind": "recall", "question": card.question, "url": f"{url}?next={here}"})
        plan.append({"lesson": group.lesson, "steps": steps})
    current = plan[0]["steps"][0] if plan else None
    if current and current["kind"] == "quiz":
        current["open_attempt"] = review_attempt_open(user=request.user, lesson=current["lesson"])
    next_review = None if plan else next_review_after_today(user=request.user)
    return render(
        request,
        "web/practice/review_session.html",
        {
            "plan": plan,
            "current": current,
            "progress": progress,
            "progress_percent": round(100 * progress.done / progress.total) if progress.total else 100,
            "next_review": describe_due(request.user, next_review),
            "next_step": None if plan else next_step_link(request.user, next_step_for(user=request.user, due=0)),
        },
    )


@login_required
@require_POST
def review_quiz(request: LearnerRequest, lesson_key: str) -> HttpResponse:
    """Answer a lesson's due quiz items: resume today's review attempt or start one (service)."""
    lesson = published_lesson_or_404(lesson_key)
    try:
        attempt = review_attempt_get_or_start(user=request.user, lesson=lesson)
    except ValidationError as exc:  # DomainError NOTHING_DUE: nothing in this lesson is due any more
        return refused(request, exc, "web:review_session", messages.INFO)
    return redirect("web:attempt_resume", attempt_id=attempt.pk)
