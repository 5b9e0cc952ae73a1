"""Web views. Thin: read through selectors, write through services."""

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_safe

from quizzes import selectors


@require_safe
def lesson_list(request: HttpRequest) -> HttpResponse:
    """The published lessons with their question counts (the home page until the learner pages land)."""
    return render(request, "quizzes/lesson_list.html", {"lessons": selectors.lesson_list_published()})
