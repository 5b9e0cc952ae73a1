"""The flow interview prompts and recall cards share: write from memory → reveal the reference → rate yourself.

The learner's draft is kept in the session until they rate. A prompt answered as a step of a mock
interview carries its step (``?mock=N``), and rating it moves the mock interview on
(quizzes.web.views.interview); the mock interview's state (the drawn prompts and their ratings)
lives in the session too. The page and the rating are the views for both kinds: the URL names the kind
(quizzes.web.urls).
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import HttpResponse, HttpResponseBadRequest
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST

from quizzes.content.models import Question
from quizzes.content.selectors import questions_by_ids, rateable_question
from quizzes.core.rendering import render_markdown
from quizzes.reports.selectors import card_for_question
from quizzes.reviews.models import ReviewLog
from quizzes.reviews.selectors.cards import card_due
from quizzes.reviews.services import card_rate
from quizzes.web.practice_forms import RatingForm, SelfAnswerForm
from quizzes.web.types import LearnerRequest
from quizzes.web.views.common import describe_due, found, rating_choices, safe_next

MOCK_SESSION_KEY = "practice:mock"
DRAFT_SESSION_KEY = "practice:draft:{question_id}"
DEFAULT_COUNTDOWN_SECONDS = 120


def draft_key(question: Question) -> str:
    return DRAFT_SESSION_KEY.format(question_id=question.pk)


def mock_state(request: LearnerRequest) -> dict[str, Any] | None:
    state = request.session.get(MOCK_SESSION_KEY)
    if not isinstance(state, dict) or not isinstance(state.get("ids"), list):
        return None
    return state


def mock_position(request: LearnerRequest, question: Question, raw: Any) -> int | None:
    """A 1-based mock interview step, if ``raw`` names the step that holds this very question."""
    try:
        index = int(raw)
    except (TypeError, ValueError):
        return None
    state = mock_state(request)
    if state is None or not 1 <= index <= len(state["ids"]) or state["ids"][index - 1] != question.pk:
        return None
    return index


def mock_step_url(state: dict[str, Any], position: int) -> str:
    question = questions_by_ids(ids=[state["ids"][position - 1]])
    if not question:
        return reverse("web:interview_mock_summary")
    return reverse("web:interview_prompt", args=[question[0].key]) + f"?mock={position}"


def _rateable(question_key: str, kind: str) -> Question:
    question = found(rateable_question(key=question_key, kind=kind), _("No such question."))
    return question


@login_required
@require_http_methods(["GET", "HEAD", "POST"])
def self_rated_page(request: LearnerRequest, question_key: str, kind: str) -> HttpResponse:
    """Write (GET shows the form, POST keeps the draft) → reveal (``?reveal=1``) with the rating buttons."""
    question = _rateable(question_key, kind)
    page_url = reverse(
        "web:interview_prompt" if kind == Question.Kind.PROMPT else "web:recall_card", args=[question.key]
    )
    source = request.POST if request.method == "POST" else request.GET
    next_url = safe_next(request, source.get("next"))
    mock = mock_position(request, question, source.get("mock"))
    status = 200
    form = SelfAnswerForm(initial={"answer": request.session.get(draft_key(question), ""), "next": next_url or ""})
    if request.method == "POST":
        form = SelfAnswerForm(request.POST)
        if form.is_valid():
            request.session[draft_key(question)] = form.cleaned_data["answer"]
            query = "?reveal=1" + (f"&mock={mock}" if mock else "") + (f"&next={next_url}" if next_url else "")
            return redirect(page_url + query)
        status = 400
    revealed = request.method == "GET" and request.GET.get("reveal") == "1"
    draft = request.session.get(draft_key(question), "")
    state = mock_state(request)
    context: dict[str, Any] = {
        "question": question,
        "kind": kind,
        "form": form,
        "revealed": revealed,
        "draft": draft,
        "next_url": next_url or "",
        "mock": mock,
        "mock_total": len(state["ids"]) if state and mock else None,
        "countdown": DEFAULT_COUNTDOWN_SECONDS if kind == Question.Kind.PROMPT else None,
        "page_url": page_url,
        "rate_url": reverse(
            "web:interview_rate" if kind == Question.Kind.PROMPT else "web:recall_rate", args=[question.key]
        ),
    }
    if revealed:
        context.update(_reveal(request, question, draft))
    template = "web/practice/interview.html" if kind == Question.Kind.PROMPT else "web/practice/recall.html"
    return render(request, template, context, status=status)


def _reveal(request: LearnerRequest, question: Question, draft: str) -> dict[str, Any]:
    """The reference, rubric and explanation, the learner's lines beside the expected ones, the rating buttons."""
    expected = [str(line) for line in question.expected_lines]
    yours = draft.splitlines()
    return {
        "ratings": rating_choices(request.user, question),
        # the first rating always brings the question back in two days (the seed's rule): say so on the buttons
        "first_study": card_due(user=request.user, question=question) is None,
        # a problem is reported on the learner's card, so from the second look on (the first rating creates it)
        "report_card": card_for_question(user=request.user, question=question),
        "reference": render_markdown(question.reference_answer),
        "rubric": [render_markdown(point) for point in question.rubric],
        "explanation": render_markdown(question.explanation),
        "line_pairs": [
            {
                "number": i + 1,
                "expected": expected[i] if i < len(expected) else "",
                "yours": yours[i] if i < len(yours) else "",
            }
            for i in range(max(len(expected), len(yours)))
        ],
    }


@login_required
@require_POST
def self_rated_rate(request: LearnerRequest, question_key: str, kind: str) -> HttpResponse:
    """Record the self-rating (service), then go on: the next mock step, ``next``, or the lesson."""
    question = _rateable(question_key, kind)
    form = RatingForm(request.POST)
    if not form.is_valid():
        return HttpResponseBadRequest(" ".join(str(e) for errors in form.errors.values() for e in errors))
    rating = form.cleaned_data["rating"]
    try:
        card = card_rate(user=request.user, question=question, rating=rating)
    except ValidationError as exc:
        return HttpResponseBadRequest(" ".join(exc.messages))
    request.session.pop(draft_key(question), None)
    due = describe_due(request.user, card.due)
    assert due is not None  # a rated card has a due date
    messages.success(
        request,
        _("Rated %(rating)s. Next review: %(relative)s, %(date)s.")
        % {"rating": ReviewLog.Rating(rating).label, "relative": due["relative"], "date": due["date"]},
    )
    position = mock_position(request, question, form.cleaned_data.get("mock_index"))
    if position is not None:
        state = mock_state(request)
        assert state is not None  # mock_position checked it
        state["ratings"][position - 1] = rating
        request.session[MOCK_SESSION_KEY] = state
        request.session.modified = True
        if position < len(state["ids"]):
            return redirect(mock_step_url(state, position + 1))
        return redirect("web:interview_mock_summary")
    next_url = safe_next(request, form.cleaned_data.get("next"))
    if next_url:
        return redirect(next_url)
    return redirect("web:lesson_detail", key=question.lesson.key)
