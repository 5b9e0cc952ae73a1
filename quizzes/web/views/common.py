"""Presentation helpers shared by the pages: not found, due dates in the learner's words, intervals, safe ``next``,
next steps."""

from __future__ import annotations

import datetime as dt
from typing import Any, TypeVar

from django.contrib import messages
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.utils import timezone
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from quizzes.accounts.selectors import profile_for
from quizzes.content.models import Lesson, Question
from quizzes.content.selectors import lesson_published_get
from quizzes.core.dates import format_day
from quizzes.practice.next_step import NextStep, NextStepKind
from quizzes.reviews.models import ReviewLog
from quizzes.reviews.selectors.days import local_day_of, today_for
from quizzes.reviews.selectors.ratings import rating_preview

T = TypeVar("T")


def found(value: T | None, message: str) -> T:
    """The pages' not-found rule: what a selector did not find for this learner is a 404 with a reason — an
    unknown object and another learner's alike."""
    if value is None:
        raise Http404(message)
    return value


def published_lesson_or_404(key: str) -> Lesson:
    try:
        return lesson_published_get(key=key)
    except Lesson.DoesNotExist:
        raise Http404(_("No published lesson with this key.")) from None


def refused(
    request: HttpRequest, exc: ValidationError, to: str, level: int = messages.ERROR, **kwargs: Any
) -> HttpResponse:
    """A service's refusal (a DomainError, or a row that did not validate) as a message on the page the learner
    is sent back to (``to``, a URL name with its ``kwargs``)."""
    messages.add_message(request, level, " ".join(exc.messages))
    return redirect(to, **kwargs)


def describe_due(user: User, due: dt.datetime | None) -> dict[str, Any] | None:
    """A due moment in the learner's words: local date (locale format) and days from their today."""
    if due is None:
        return None
    profile = profile_for(user=user)
    local = timezone.localtime(due, profile.zone)
    days = (local_day_of(profile=profile, moment=due) - today_for(profile=profile)).days
    if days <= 0:
        relative = _("today")
    elif days == 1:
        relative = _("tomorrow")
    else:
        relative = ngettext("%(count)d day from now", "%(count)d days from now", days) % {"count": days}
    return {
        "moment": due,
        "days": days,
        "relative": relative,
        "date": format_day(local, zone=profile.zone),
        "iso": local.date().isoformat(),
    }


def interval_label(interval: dt.timedelta) -> str:
    days = max(0, round(interval.total_seconds() / 86400))
    if days < 1:
        return _("< 1 day")
    if days < 31:
        return ngettext("%(count)d day", "%(count)d days", days) % {"count": days}
    if days < 365:
        months = round(days / 30)
        return ngettext("%(count)d month", "%(count)d months", months) % {"count": months}
    return _("%(count).1f years") % {"count": days / 365}


def safe_next(request: HttpRequest, candidate: str | None) -> str | None:
    if candidate and url_has_allowed_host_and_scheme(
        candidate, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return candidate
    return None


def rating_choices(user: User, question: Question) -> list[dict[str, Any]]:
    """The four rating buttons, each with the interval and date it would give (rating preview)."""
    return [
        {
            "rating": preview.rating,
            "label": ReviewLog.Rating(preview.rating).label,
            "interval": interval_label(preview.interval) if preview.counts else _("no change"),
            "due": describe_due(user, preview.due),
            "counts": preview.counts,
        }
        for preview in rating_preview(user=user, question=question)
    ]


def next_step_link(user: User, step: NextStep) -> dict[str, Any]:
    """The next step (quizzes.practice.next_step) as a page shows it: the button's label and link, a line under it.

    ``url`` is None for "wait" (nothing to press: ``due`` says when to come back). Prompts and recall cards
    come back to the dashboard after the rating, where the next step is waiting.
    """
    back = f"?next={reverse('web:dashboard')}"
    title = step.lesson.title if step.lesson else ""
    if step.kind is NextStepKind.REVIEW:
        label = ngettext("Review %(count)d item", "Review %(count)d items", step.due) % {"count": step.due}
        return {"kind": step.kind, "label": label, "url": reverse("web:review_session"), "detail": ""}

    def continuing(url: str, detail: str) -> dict[str, Any]:  # every step inside a lesson: "Continue: <lesson>"
        return {"kind": step.kind, "label": _("Continue: %(lesson)s") % {"lesson": title}, "url": url, "detail": detail}

    if step.kind is NextStepKind.ATTEMPT:
        assert step.attempt is not None
        url = reverse("web:attempt_resume", args=[step.attempt.pk])
        return continuing(url, _("Your quiz is waiting where you left it."))
    if step.kind is NextStepKind.LESSON:
        assert step.lesson is not None
        url = reverse("web:lesson_detail", args=[step.lesson.key])
        return continuing(url, _("Read the lesson, then answer its quiz from memory."))
    if step.kind is NextStepKind.PROMPT:
        assert step.question is not None
        url = reverse("web:interview_prompt", args=[step.question.key]) + back
        return continuing(url, _("Next: an interview prompt, answered in your own words."))
    if step.kind is NextStepKind.RECALL:
        assert step.question is not None
        url = reverse("web:recall_card", args=[step.question.key]) + back
        return continuing(url, _("Next: write the key lines from memory."))
    return {"kind": step.kind, "label": "", "url": None, "detail": "", "due": describe_due(user, step.next_review)}
