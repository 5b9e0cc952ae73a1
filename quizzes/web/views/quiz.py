"""The quiz: start or retake a lesson's attempt, one item per page, the first answer locks it, finish, end screen.

What an item shows — before and after the lock — is the item presenter's (quizzes.practice.presenter),
the same one the API and the admin preview use: before the lock its view is built from a whitelist,
so the page cannot leak what it was never given. Choice answers are sent as the option's displayed
position (never its id); numeric answers are read by quizzes.web.views.numeric.
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST, require_safe

from quizzes.accounts.throttle import QuotaExceeded, learner_quota, ratelimit_headers
from quizzes.content.models import Question
from quizzes.core.errors import DomainError, ErrorCode
from quizzes.practice.grading_budget import GradingBudgetExceeded
from quizzes.practice.models import Attempt, AttemptItem
from quizzes.practice.next_step import next_step_for
from quizzes.practice.presenter import option_at_position, present_item, present_missed
from quizzes.practice.selectors import (
    attempt_first_unanswered,
    attempt_item_at,
    attempt_item_count,
    item_rating,
    user_attempt,
)
from quizzes.practice.selectors import (
    attempt_summary as attempt_summary_of,
)
from quizzes.practice.services import CodeNotRunnable, item_answer, item_rate
from quizzes.practice.services import attempt_finish as finish_attempt
from quizzes.practice.services import attempt_show_skipped as show_skipped
from quizzes.practice.services import attempt_start as start_attempt
from quizzes.practice.services import attempt_start_missed as start_missed
from quizzes.reviews.models import ReviewLog
from quizzes.web.practice_forms import CodeAnswerForm, ItemRatingForm, NumericAnswerForm
from quizzes.web.types import LearnerRequest
from quizzes.web.views.common import describe_due, found, next_step_link, published_lesson_or_404, refused
from quizzes.web.views.numeric import answer_grid, numeric_answer, stacked_matrices


def _own_attempt(request: LearnerRequest, attempt_id: int) -> Attempt:
    return found(user_attempt(user=request.user, attempt_id=attempt_id), _("No such attempt."))


def _get_item(request: LearnerRequest, attempt_id: int, position: int) -> tuple[Attempt, AttemptItem, int]:
    """The learner's own attempt item by its 1-based position in the URL; 404 for anyone else's."""
    attempt = _own_attempt(request, attempt_id)
    item = found(
        attempt_item_at(attempt=attempt, position=position - 1),
        _("This attempt has no item %(position)d.") % {"position": position},
    )
    return attempt, item, attempt_item_count(attempt=attempt)


def _item_url(attempt: Attempt, position: int) -> str:
    return reverse("web:attempt_item", args=[attempt.pk, position])


def _item_context(
    attempt: Attempt,
    item: AttemptItem,
    total: int,
    *,
    form: NumericAnswerForm | None = None,
    error: str = "",
    code_form: CodeAnswerForm | None = None,
    error_messages: list[str] | None = None,
) -> dict[str, Any]:
    """The item region: the presenter's view of the item, plus where the page's buttons go."""
    view = present_item(item=item, reveal=True)
    position = view["number"]
    numeric = view["numeric"] or {}
    if numeric:  # the given matrices one under another where they do not fit side by side
        numeric = {**numeric, "prompt_html": stacked_matrices(numeric["prompt"])}
    code: dict[str, Any] = {}
    if item.question.kind == Question.Kind.CODE:
        reveal = view.get("reveal") or {}
        suggested = (reveal.get("code") or {}).get("suggested_rating")
        current = item_rating(item=item) if view["answered"] else None
        code = {
            "view": view["code"] or {},
            "form": code_form or CodeAnswerForm(),
            "error_messages": error_messages or [],
            "rate_url": reverse("web:attempt_rate", args=[attempt.pk, position]),
            "current_rating": current,
            "ratings": [
                {
                    "rating": rating.value,
                    "label": rating.label,
                    "suggested": rating.value == suggested,
                    "chosen": rating.value == current,
                }
                for rating in ReviewLog.Rating
            ],
        }
    return {
        "code": code,
        "attempt": attempt,
        "item": item,
        "question": item.question,
        "view": view,
        "numeric": numeric,
        "reveal": view.get("reveal") or {},
        "result": view["result"],
        "locked": view["answered"],
        "options": view["options"],
        "choices": numeric.get("choices", []),
        "form": answer_grid(item, form),
        "position": position,
        "total": total,
        "progress_percent": round(100 * position / total) if total else 0,
        "error": error,
        "answer_url": reverse("web:attempt_answer", args=[attempt.pk, position]),
        "next_url": _item_url(attempt, position + 1) if position < total else None,
        "finish_url": reverse("web:attempt_finish", args=[attempt.pk]),
        "is_last": position >= total,
    }


def _render_item(request: LearnerRequest, context: dict[str, Any], status: int = 200) -> HttpResponse:
    """The item page, or for htmx the item region (with the verdict for the page's live region).

    An input error answers htmx with 200 and the region carrying the message: the item is swapped in place like
    any answer. A 400 would not be swapped by htmx's defaults, and under DEBUG django-htmx's debug script
    replaces the whole document with any 400 response (issue 14). Plain form posts keep the honest 400.
    """
    if request.htmx:
        return render(request, "web/practice/_item.html", {**context, "swap": True}, status=200)
    return render(request, "web/practice/attempt_item.html", context, status=status)


@login_required
@require_POST
def attempt_start(request: LearnerRequest, lesson_key: str) -> HttpResponse:
    """Start (or retake) a lesson's quiz: a new attempt with freshly shuffled options and new numbers."""
    lesson = published_lesson_or_404(lesson_key)
    try:
        attempt = start_attempt(user=request.user, lesson=lesson)
    except ValidationError as exc:  # a DomainError (no questions) or a row that did not validate
        return refused(request, exc, "web:lesson_detail", key=lesson.key)
    return redirect(_item_url(attempt, 1))


@login_required
@require_safe
def attempt_resume(request: LearnerRequest, attempt_id: int) -> HttpResponse:
    """Where an attempt continues: its first unanswered item, or the end screen."""
    attempt = _own_attempt(request, attempt_id)
    item = attempt_first_unanswered(attempt=attempt)
    if item is None or attempt.finished_at is not None:
        return redirect("web:attempt_summary", attempt_id=attempt.pk)
    return redirect(_item_url(attempt, item.position + 1))


@login_required
@require_safe
def attempt_item(request: LearnerRequest, attempt_id: int, position: int) -> HttpResponse:
    attempt, item, total = _get_item(request, attempt_id, position)
    return _render_item(request, _item_context(attempt, item, total))


@login_required
@require_POST
def attempt_answer(request: LearnerRequest, attempt_id: int, position: int) -> HttpResponse:
    """The first answer locks the item (service); a repeat shows the locked result unchanged."""
    attempt, item, total = _get_item(request, attempt_id, position)
    if item.is_answered:
        return _after_answer(request, attempt, item, total)
    try:  # the learner's answers quota, shared with the API (quizzes.accounts.throttle.learner_quota)
        learner_quota("answers", user_id=request.user.pk)
    except QuotaExceeded as exc:
        return _answers_throttled(request, _item_context(attempt, item, total), exc)
    form = None
    if item.question.kind == Question.Kind.CODE:
        return _answer_code(request, attempt, item, total)
    if item.question.kind == Question.Kind.CHOICE:
        # The form sends the option's displayed position, never its database id: ids follow authoring
        # order, which would hint at the correct option before the lock.
        option_id = option_at_position(item=item, position=request.POST.get("option", ""))
        if option_id is None:
            context = _item_context(attempt, item, total, error=_("Choose one of the options."))
            return _render_item(request, context, status=400)
        kwargs: dict[str, Any] = {"option_id": option_id}
    else:
        read = numeric_answer(request, item)
        if read.error:
            return _render_item(request, _item_context(attempt, item, total, form=read.form, error=read.error), 400)
        kwargs, form = read.kwargs, read.form
    try:
        outcome = item_answer(user=request.user, item=item, **kwargs)
    except ValidationError as exc:
        if isinstance(exc, DomainError) and exc.error_code is ErrorCode.ATTEMPT_FINISHED:
            messages.error(request, _("This attempt is finished; start a retake to answer again."))
            return redirect("web:attempt_summary", attempt_id=attempt.pk)
        message = " ".join(exc.messages)
        return _render_item(request, _item_context(attempt, item, total, form=form, error=message), status=400)
    return _after_answer(request, attempt, outcome.item, total)


def _answers_throttled(request: LearnerRequest, context: dict[str, Any], exc: QuotaExceeded) -> HttpResponse:
    """429: the item again, nothing locked, with how long to wait (Retry-After and the RateLimit headers too)."""
    context["error"] = _("Too many answers in a short time; wait %(seconds)d s and answer again.") % {
        "seconds": exc.retry_after
    }
    response = _render_item(request, context, status=429)
    for name, value in {"Retry-After": str(exc.retry_after), **ratelimit_headers(exc.quota)}.items():
        response[name] = value
    return response


def _answer_code(request: LearnerRequest, attempt: Attempt, item: AttemptItem, total: int) -> HttpResponse:
    """A code answer: code the checker refuses before running is shown again with the message (line and
    column) and locks nothing; the first runnable submission locks, like any answer."""
    code_form = CodeAnswerForm(request.POST)
    if not code_form.is_valid():
        error = " ".join(str(e) for errors in code_form.errors.values() for e in errors)
        return _render_item(request, _item_context(attempt, item, total, code_form=code_form, error=error), 400)
    try:
        outcome = item_answer(user=request.user, item=item, code=code_form.cleaned_data["code"])
    except CodeNotRunnable as exc:
        from quizzes.practice.code_messages import word_message

        details = [word_message(m) for m in exc.check.get("messages", [])[1:]]
        context = _item_context(
            attempt, item, total, code_form=code_form, error=" ".join(exc.messages), error_messages=details
        )
        return _render_item(request, context, status=400)
    except GradingBudgetExceeded as exc:  # the learner's code grading for this minute is spent: nothing locked
        context = _item_context(attempt, item, total, code_form=code_form, error=" ".join(exc.messages))
        response = _render_item(request, context, status=429)
        response["Retry-After"] = str(exc.retry_after)
        return response
    except ValidationError as exc:
        if isinstance(exc, DomainError) and exc.error_code is ErrorCode.ATTEMPT_FINISHED:
            messages.error(request, _("This attempt is finished; start a retake to answer again."))
            return redirect("web:attempt_summary", attempt_id=attempt.pk)
        context = _item_context(attempt, item, total, code_form=code_form, error=" ".join(exc.messages))
        return _render_item(request, context, status=400)
    return _after_answer(request, attempt, outcome.item, total)


@login_required
@require_POST
def attempt_rate(request: LearnerRequest, attempt_id: int, position: int) -> HttpResponse:
    """Accept or change the rating a code answer suggested; FSRS gets this one (service)."""
    attempt, item, total = _get_item(request, attempt_id, position)
    form = ItemRatingForm(request.POST)
    if not form.is_valid():
        error = " ".join(str(e) for errors in form.errors.values() for e in errors)
        return _render_item(request, _item_context(attempt, item, total, error=error), status=400)
    rating = form.cleaned_data["rating"]
    try:
        card = item_rate(user=request.user, item=item, rating=rating)
    except ValidationError as exc:
        return _render_item(request, _item_context(attempt, item, total, error=" ".join(exc.messages)), status=400)
    due = describe_due(request.user, card.due)
    if due is not None:
        messages.success(
            request,
            _("Rated %(rating)s. Next review: %(relative)s, %(date)s.")
            % {"rating": ReviewLog.Rating(rating).label, "relative": due["relative"], "date": due["date"]},
        )
    return redirect(_item_url(attempt, item.position + 1))


def _after_answer(request: LearnerRequest, attempt: Attempt, item: AttemptItem, total: int) -> HttpResponse:
    if request.htmx:
        return _render_item(request, _item_context(attempt, item, total))
    return redirect(_item_url(attempt, item.position + 1))


@login_required
@require_POST
def attempt_finish(request: LearnerRequest, attempt_id: int) -> HttpResponse:
    attempt = finish_attempt(user=request.user, attempt=_own_attempt(request, attempt_id))
    if attempt.mode == Attempt.Mode.REVIEW:
        summary = attempt_summary_of(user=request.user, attempt=attempt)
        messages.success(
            request,
            _("%(lesson)s: %(correct)d of %(total)d correct in this review.")
            % {"lesson": attempt.lesson.title, "correct": summary.correct, "total": summary.total},
        )
        return redirect("web:review_session")
    return redirect("web:attempt_summary", attempt_id=attempt.pk)


@login_required
@require_safe
def attempt_summary(request: LearnerRequest, attempt_id: int) -> HttpResponse:
    """The end screen: score, what was missed (taught: your answer, the correct one, the misconception, the
    explanation), the button that practises just those, and the next step."""
    attempt = _own_attempt(request, attempt_id)
    if attempt.finished_at is None:
        return redirect("web:attempt_resume", attempt_id=attempt.pk)
    summary = attempt_summary_of(user=request.user, attempt=attempt)
    missed = [{**present_missed(item=item), "url": _item_url(attempt, item.position + 1)} for item in summary.missed]
    for entry in missed:
        entry["prompt_html"] = stacked_matrices(entry["prompt"])
    return render(
        request,
        "web/practice/attempt_summary.html",
        {
            "attempt": attempt,
            "summary": summary,
            "score_percent": None if summary.score is None else round(100 * summary.score),
            "missed": missed,
            "skipped_count": len(summary.skipped),
            "next_review": describe_due(request.user, summary.next_review),
            "next_step": next_step_link(request.user, next_step_for(user=request.user)),
        },
    )


@login_required
@require_POST
def attempt_show_skipped(request: LearnerRequest, attempt_id: int) -> HttpResponse:
    """Show the answers of the items the learner skipped: each is recorded as Again (service); idempotent."""
    attempt = _own_attempt(request, attempt_id)
    try:
        shown = show_skipped(user=request.user, attempt=attempt)
    except ValidationError as exc:  # DomainError: unfinished, nothing skipped
        return refused(request, exc, "web:attempt_summary", attempt_id=attempt.pk)
    return redirect(reverse("web:attempt_summary", args=[shown.pk]) + "#missed-heading")


@login_required
@require_POST
def attempt_missed(request: LearnerRequest, attempt_id: int) -> HttpResponse:
    """ "Practise the missed ones now": a new attempt of just the items this one missed (reshuffled, new numbers)."""
    attempt = _own_attempt(request, attempt_id)
    try:
        practice = start_missed(user=request.user, attempt=attempt)
    except ValidationError as exc:  # DomainError: unfinished, nothing missed, lesson unpublished
        return refused(request, exc, "web:attempt_summary", attempt_id=attempt.pk)
    return redirect(_item_url(practice, 1))
