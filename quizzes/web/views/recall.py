"""Recall cards: write the lines from memory, compare them with the expected ones, rate yourself
(the shared flow: quizzes.web.views.self_rated)."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.views.decorators.http import require_http_methods, require_POST

from quizzes.content.models import Question
from quizzes.web.types import LearnerRequest
from quizzes.web.views.self_rated import self_rated_page, self_rated_rate


@login_required
@require_http_methods(["GET", "HEAD", "POST"])
def recall_card(request: LearnerRequest, question_key: str) -> HttpResponse:
    return self_rated_page(request, question_key, Question.Kind.RECALL)


@login_required
@require_POST
def recall_rate(request: LearnerRequest, question_key: str) -> HttpResponse:
    return self_rated_rate(request, question_key, Question.Kind.RECALL)
