"""Practice pages: quiz attempts, numeric answers, interview prompts, mock interviews, recall cards, reviews.

Thin: reads go through ``quizzes.selectors`` / ``quizzes.selectors_practice``, writes through
``quizzes.services``. What a view adds is presentation: which template, which language, where
to go next. Before an item locks, nothing about correctness is put in the template context
(see ``_item_context``): the page cannot leak what it was never given.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBadRequest
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import formats, timezone, translation
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from quizzes import rendering, scheduling, selectors, selectors_practice, services
from quizzes.grade_messages import grade_message
from quizzes.models import Attempt, AttemptItem, Lesson, Question, ReviewLog
from quizzes.services.practice import review_attempt_get_or_start
from quizzes.web.practice_forms import MockSizeForm, NumericAnswerForm, RatingForm, SelfAnswerForm

MOCK_SESSION_KEY = "practice:mock"
DRAFT_SESSION_KEY = "practice:draft:{question_id}"
DEFAULT_COUNTDOWN_SECONDS = 120


# --------------------------------------------------------------------------- small helpers


def _chinese() -> bool:
    return (translation.get_language() or "").lower().startswith("zh")


def _describe_due(user: Any, due: dt.datetime | None) -> dict[str, Any] | None:
    """A due moment in the learner's words: local date (locale format) and days from their today."""
    if due is None:
        return None
    profile = selectors.profile_for(user)
    local = timezone.localtime(due, profile.zone)
    days = (scheduling.local_day(due, profile.zone, profile.day_rollover_hour) - selectors.today_for(profile)).days
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
        "date": formats.date_format(local, "MONTH_DAY_FORMAT"),
        "iso": local.date().isoformat(),
    }


def _interval_label(interval: dt.timedelta) -> str:
    days = max(0, round(interval.total_seconds() / 86400))
    if days < 1:
        return _("< 1 day")
    if days < 31:
        return ngettext("%(count)d day", "%(count)d days", days) % {"count": days}
    if days < 365:
        months = round(days / 30)
        return ngettext("%(count)d month", "%(count)d months", months) % {"count": months}
    return _("%(count).1f years") % {"count": days / 365}


def _safe_next(request: HttpRequest, candidate: str | None) -> str | None:
    if candidate and url_has_allowed_host_and_scheme(
        candidate, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return candidate
    return None


def _rating_choices(user: Any, question: Question) -> list[dict[str, Any]]:
    """The four rating buttons, each with the interval and date it would give (rating preview)."""
    return [
        {
            "rating": preview.rating,
            "label": ReviewLog.Rating(preview.rating).label,
            "interval": _interval_label(preview.interval) if preview.counts else _("no change"),
            "due": _describe_due(user, preview.due),
            "counts": preview.counts,
        }
        for preview in selectors.rating_preview(user=user, question=question)
    ]


def _get_item(request: HttpRequest, attempt_id: int, position: int) -> tuple[Attempt, AttemptItem, int]:
    """The learner's own attempt item by its 1-based position in the URL; 404 for anyone else's."""
    attempt = selectors_practice.user_attempt(user=request.user, attempt_id=attempt_id)
    if attempt is None:
        raise Http404(_("No such attempt."))
    item = (
        attempt.items.select_related("question", "chosen_option")
        .prefetch_related("question__options")
        .filter(position=position - 1)
        .first()
    )
    if item is None:
        raise Http404(_("This attempt has no item %(position)d.") % {"position": position})
    return attempt, item, attempt.items.count()


def _item_url(attempt: Attempt, position: int) -> str:
    return reverse("web:attempt_item", args=[attempt.pk, position])


# --------------------------------------------------------------------------- attempt pages


def _misconception_text(found: dict[str, str] | None) -> dict[str, str] | None:
    if not found or "title_en" not in found:
        return None
    suffix = "zh" if _chinese() else "en"
    return {"title": found[f"title_{suffix}"], "explanation": found[f"explanation_{suffix}"]}


def _shape_text(shape: list[int]) -> str:
    if not shape:
        return _("scalar")
    if len(shape) == 1:
        return f"({shape[0]},)"
    return "(" + ", ".join(str(n) for n in shape) + ")"


def _solution_steps(solution: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        {
            "name": step["name"],
            "formula": rendering.math_to_mathml(step["formula"]),
            "value": rendering.render_value(step["value"]) if step["value"] is not None else None,
            "shape": _shape_text(step["shape"]),
        }
        for step in solution
    ]


def _response_cells(response: Any, elements: Any, shape: list[int]) -> list[list[dict[str, Any]]] | None:
    """The learner's typed answer laid out as rows of cells, each marked right or wrong."""
    if response is None:
        return None
    if len(shape) == 0:
        rows, marks = [[response]], [[elements]]
    elif len(shape) == 1:
        rows, marks = [response], [elements if isinstance(elements, list) else [None] * len(response)]
    else:
        rows = response
        marks = elements if isinstance(elements, list) else [[None] * len(row) for row in response]
    try:
        return [
            [{"value": value, "correct": mark} for value, mark in zip(row, mark_row, strict=True)]
            for row, mark_row in zip(rows, marks, strict=True)
        ]
    except (TypeError, ValueError):
        return [
            [{"value": value, "correct": None} for value in (row if isinstance(row, list) else [row])] for row in rows
        ]


def _item_context(
    attempt: Attempt, item: AttemptItem, total: int, *, form: NumericAnswerForm | None = None, error: str = ""
) -> dict[str, Any]:
    """Everything the item region shows. Correctness data is added only once the item is locked."""
    question = item.question
    position = item.position + 1
    context: dict[str, Any] = {
        "attempt": attempt,
        "item": item,
        "question": question,
        "position": position,
        "total": total,
        "progress_percent": round(100 * position / total) if total else 0,
        "locked": item.is_answered,
        "error": error,
        "answer_url": reverse("web:attempt_answer", args=[attempt.pk, position]),
        "next_url": _item_url(attempt, position + 1) if position < total else None,
        "finish_url": reverse("web:attempt_finish", args=[attempt.pk]),
        "is_last": position >= total,
    }
    result = item.result if item.is_answered else None
    context["result"] = result
    if question.kind == Question.Kind.CHOICE:
        options = {option.pk: option for option in question.options.all()}
        shown = []
        for index, option_id in enumerate(item.option_order, start=1):
            option = options.get(option_id)
            if option is None:
                continue
            entry = {"number": index, "text": rendering.render_markdown(option.text)}
            if result:
                entry["chosen"] = option.pk == result["chosen_option_id"]
                entry["correct"] = option.pk == result["correct_option_id"]
            shown.append(entry)
        context["options"] = shown
        if result:
            context["feedback"] = rendering.render_markdown(result.get("feedback"))
            context["explanation"] = rendering.render_markdown(result.get("explanation"))
        return context
    # numeric: the variant's own prompt carries the numbers
    variant = item.variant or {}
    shape = list(variant.get("answer_shape", []))
    context["variant_prompt"] = rendering.render_markdown(variant.get("prompt", ""))
    context["answer_format"] = rendering.render_markdown(selectors.item_answer_format(item))
    context["answer_form"] = question.answer_form
    context["shape_text"] = _shape_text(shape)
    if question.answer_form == Question.AnswerForm.CHOICE:
        label = "label_zh" if _chinese() else "label_en"
        choices = []
        for index, choice in enumerate(variant.get("choices", [])):
            entry = {"index": index, "number": index + 1, "label": choice[label]}
            if result:
                entry["chosen"] = index == result.get("chosen_choice_index")
                entry["correct"] = index == result.get("correct_choice_index")
            choices.append(entry)
        context["choices"] = choices
    elif not result:
        context["form"] = form or NumericAnswerForm(shape=shape)
    if result:
        context["cells"] = (
            _response_cells(item.response, result.get("elements"), shape)
            if question.answer_form == Question.AnswerForm.INPUT
            else None
        )
        context["correct_value"] = rendering.render_value(result.get("correct_value"))
        context["misconception"] = _misconception_text(result.get("misconception"))
        context["steps"] = _solution_steps(result.get("solution", []))
        context["explanation"] = rendering.render_markdown(result.get("explanation"))
        context["grade_message"] = grade_message(result)  # worded in the request's language
    return context


def _render_item(request: HttpRequest, context: dict[str, Any], status: int = 200) -> HttpResponse:
    template = "web/practice/_item.html" if request.htmx else "web/practice/attempt_item.html"
    return render(request, template, context, status=status)


@login_required
@require_POST
def attempt_start(request: HttpRequest, lesson_key: str) -> HttpResponse:
    """Start (or retake) a lesson's quiz: a new attempt with freshly shuffled options and new numbers."""
    lesson = get_object_or_404(Lesson, key=lesson_key, published=True)
    try:
        attempt = services.attempt_start(user=request.user, lesson=lesson)
    except ValidationError as exc:
        messages.error(request, " ".join(exc.messages))
        return redirect("web:lesson_detail", key=lesson.key)
    return redirect(_item_url(attempt, 1))


@login_required
@require_safe
def attempt_resume(request: HttpRequest, attempt_id: int) -> HttpResponse:
    """Where an attempt continues: its first unanswered item, or the end screen."""
    attempt = selectors_practice.user_attempt(user=request.user, attempt_id=attempt_id)
    if attempt is None:
        raise Http404(_("No such attempt."))
    item = selectors_practice.attempt_first_unanswered(attempt=attempt)
    if item is None or attempt.finished_at is not None:
        return redirect("web:attempt_summary", attempt_id=attempt.pk)
    return redirect(_item_url(attempt, item.position + 1))


@login_required
@require_safe
def attempt_item(request: HttpRequest, attempt_id: int, position: int) -> HttpResponse:
    attempt, item, total = _get_item(request, attempt_id, position)
    return _render_item(request, _item_context(attempt, item, total))


@login_required
@require_POST
def attempt_answer(request: HttpRequest, attempt_id: int, position: int) -> HttpResponse:
    """The first answer locks the item (service); a repeat shows the locked result unchanged."""
    attempt, item, total = _get_item(request, attempt_id, position)
    if item.is_answered:
        return _after_answer(request, attempt, item, total)
    question = item.question
    form = None
    kwargs: dict[str, Any] = {}
    if question.kind == Question.Kind.CHOICE:
        # The form sends the option's displayed position, never its database id: ids follow authoring
        # order, which would hint at the correct option before the lock.
        kwargs["option_id"] = _option_id_at(item, request.POST.get("option", ""))
        if kwargs["option_id"] is None:
            context = _item_context(attempt, item, total, error=_("Choose one of the options."))
            return _render_item(request, context, status=400)
    elif question.answer_form == Question.AnswerForm.CHOICE:
        raw = request.POST.get("choice_index", "")
        try:
            kwargs["choice_index"] = int(raw)
        except ValueError:
            context = _item_context(attempt, item, total, error=_("Choose one of the values."))
            return _render_item(request, context, status=400)
    else:
        form = NumericAnswerForm(request.POST, shape=(item.variant or {}).get("answer_shape", []))
        if not form.is_valid():
            error = " ".join(form.non_field_errors())
            return _render_item(request, _item_context(attempt, item, total, form=form, error=error), status=400)
        kwargs["value"] = form.cleaned_data["value"]
    try:
        outcome = services.item_answer(user=request.user, item=item, **kwargs)
    except ValidationError as exc:
        if getattr(exc, "code", None) == "attempt_finished":
            messages.error(request, _("This attempt is finished; start a retake to answer again."))
            return redirect("web:attempt_summary", attempt_id=attempt.pk)
        message = " ".join(exc.messages)
        return _render_item(request, _item_context(attempt, item, total, form=form, error=message), status=400)
    return _after_answer(request, attempt, outcome.item, total)


def _option_id_at(item: AttemptItem, position: str) -> int | None:
    """The option shown at 1-based ``position`` in this item's shuffled order, or None if there is none."""
    if not position.isdigit() or not 1 <= int(position) <= len(item.option_order):
        return None
    return item.option_order[int(position) - 1]


def _after_answer(request: HttpRequest, attempt: Attempt, item: AttemptItem, total: int) -> HttpResponse:
    if request.htmx:
        return _render_item(request, _item_context(attempt, item, total))
    return redirect(_item_url(attempt, item.position + 1))


@login_required
@require_POST
def attempt_finish(request: HttpRequest, attempt_id: int) -> HttpResponse:
    attempt = selectors_practice.user_attempt(user=request.user, attempt_id=attempt_id)
    if attempt is None:
        raise Http404(_("No such attempt."))
    attempt = services.attempt_finish(user=request.user, attempt=attempt)
    if attempt.mode == Attempt.Mode.REVIEW:
        summary = selectors_practice.attempt_summary(user=request.user, attempt=attempt)
        messages.success(
            request,
            _("%(lesson)s: %(correct)d of %(total)d correct in this review.")
            % {"lesson": attempt.lesson.title, "correct": summary.correct, "total": summary.total},
        )
        return redirect("web:review_session")
    return redirect("web:attempt_summary", attempt_id=attempt.pk)


@login_required
@require_safe
def attempt_summary(request: HttpRequest, attempt_id: int) -> HttpResponse:
    """The end screen: score, what was missed (with links back) and the next review date."""
    attempt = selectors_practice.user_attempt(user=request.user, attempt_id=attempt_id)
    if attempt is None:
        raise Http404(_("No such attempt."))
    if attempt.finished_at is None:
        return redirect("web:attempt_resume", attempt_id=attempt.pk)
    summary = selectors_practice.attempt_summary(user=request.user, attempt=attempt)
    missed = [
        {
            "position": item.position + 1,
            "url": _item_url(attempt, item.position + 1),
            "prompt": rendering.render_markdown(item.question.prompt),
            "answered": item.is_answered,
            "message": grade_message(item.result) if item.is_answered else "",
        }
        for item in summary.missed
    ]
    return render(
        request,
        "web/practice/attempt_summary.html",
        {
            "attempt": attempt,
            "summary": summary,
            "score_percent": round(100 * summary.score),
            "missed": missed,
            "next_review": _describe_due(request.user, summary.next_review),
        },
    )


# --------------------------------------------------------------------------- review session


@login_required
@require_safe
def review_session(request: HttpRequest) -> HttpResponse:
    """Today's due items lesson by lesson: the quiz (a review attempt), then prompts, the recall card last."""
    groups = selectors.review_session(user=request.user)
    progress = selectors_practice.review_progress(user=request.user)
    here = reverse("web:review_session")
    plan = []
    for group in groups:
        steps = []
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
        current["open_attempt"] = selectors_practice.review_attempt_open(user=request.user, lesson=current["lesson"])
    next_review = None if plan else selectors_practice.next_review_after_today(user=request.user)
    return render(
        request,
        "web/practice/review_session.html",
        {
            "plan": plan,
            "current": current,
            "progress": progress,
            "progress_percent": round(100 * progress.done / progress.total) if progress.total else 100,
            "next_review": _describe_due(request.user, next_review),
        },
    )


@login_required
@require_POST
def review_quiz(request: HttpRequest, lesson_key: str) -> HttpResponse:
    """Answer a lesson's due quiz items: resume today's review attempt or start one (service)."""
    lesson = get_object_or_404(Lesson, key=lesson_key, published=True)
    try:
        attempt = review_attempt_get_or_start(user=request.user, lesson=lesson)
    except ValidationError as exc:
        messages.info(request, " ".join(exc.messages))
        return redirect("web:review_session")
    return redirect("web:attempt_resume", attempt_id=attempt.pk)


# --------------------------------------------------------------------------- self-rated: interview and recall


def _draft_key(question: Question) -> str:
    return DRAFT_SESSION_KEY.format(question_id=question.pk)


def _mock_state(request: HttpRequest) -> dict[str, Any] | None:
    state = request.session.get(MOCK_SESSION_KEY)
    if not isinstance(state, dict) or not isinstance(state.get("ids"), list):
        return None
    return state


def _mock_position(request: HttpRequest, question: Question, raw: Any) -> int | None:
    """A 1-based mock interview step, if ``raw`` names the step that holds this very question."""
    try:
        index = int(raw)
    except (TypeError, ValueError):
        return None
    state = _mock_state(request)
    if state is None or not 1 <= index <= len(state["ids"]) or state["ids"][index - 1] != question.pk:
        return None
    return index


def _self_rated(request: HttpRequest, question_key: str, kind: str) -> HttpResponse:
    """The shared flow of interview prompts and recall cards: write → reveal → rate."""
    question = selectors_practice.self_rated_question(key=question_key, kind=kind)
    if question is None:
        raise Http404(_("No such question."))
    page_url = reverse(
        "web:interview_prompt" if kind == Question.Kind.PROMPT else "web:recall_card", args=[question.key]
    )
    source = request.POST if request.method == "POST" else request.GET
    next_url = _safe_next(request, source.get("next"))
    mock = _mock_position(request, question, source.get("mock"))
    status = 200
    form = SelfAnswerForm(initial={"answer": request.session.get(_draft_key(question), ""), "next": next_url or ""})
    if request.method == "POST":
        form = SelfAnswerForm(request.POST)
        if form.is_valid():
            request.session[_draft_key(question)] = form.cleaned_data["answer"]
            query = "?reveal=1" + (f"&mock={mock}" if mock else "") + (f"&next={next_url}" if next_url else "")
            return redirect(page_url + query)
        status = 400
    revealed = request.method == "GET" and request.GET.get("reveal") == "1"
    draft = request.session.get(_draft_key(question), "")
    state = _mock_state(request)
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
        context["ratings"] = _rating_choices(request.user, question)
        context["reference"] = rendering.render_markdown(question.reference_answer)
        context["rubric"] = [rendering.render_markdown(point) for point in question.rubric]
        context["explanation"] = rendering.render_markdown(question.explanation)
        expected = [str(line) for line in question.expected_lines]
        yours = draft.splitlines()
        rows = max(len(expected), len(yours))
        context["line_pairs"] = [
            {
                "number": i + 1,
                "expected": expected[i] if i < len(expected) else "",
                "yours": yours[i] if i < len(yours) else "",
            }
            for i in range(rows)
        ]
    template = "web/practice/interview.html" if kind == Question.Kind.PROMPT else "web/practice/recall.html"
    return render(request, template, context, status=status)


def _rate(request: HttpRequest, question_key: str, kind: str) -> HttpResponse:
    question = selectors_practice.self_rated_question(key=question_key, kind=kind)
    if question is None:
        raise Http404(_("No such question."))
    form = RatingForm(request.POST)
    if not form.is_valid():
        return HttpResponseBadRequest(" ".join(str(e) for errors in form.errors.values() for e in errors))
    rating = form.cleaned_data["rating"]
    try:
        card = services.card_rate(user=request.user, question=question, rating=rating)
    except ValidationError as exc:
        return HttpResponseBadRequest(" ".join(exc.messages))
    request.session.pop(_draft_key(question), None)
    due = _describe_due(request.user, card.due)
    messages.success(
        request,
        _("Rated %(rating)s. Next review: %(relative)s, %(date)s.")
        % {"rating": ReviewLog.Rating(rating).label, "relative": due["relative"], "date": due["date"]},
    )
    mock = form.cleaned_data.get("mock_index")
    position = _mock_position(request, question, mock)
    if position is not None:
        state = _mock_state(request)
        assert state is not None  # _mock_position checked it
        state["ratings"][position - 1] = rating
        request.session[MOCK_SESSION_KEY] = state
        request.session.modified = True
        if position < len(state["ids"]):
            return redirect(_mock_step_url(state, position + 1))
        return redirect("web:interview_mock_summary")
    next_url = _safe_next(request, form.cleaned_data.get("next"))
    if next_url:
        return redirect(next_url)
    return redirect("web:lesson_detail", key=question.lesson.key)


@login_required
@require_http_methods(["GET", "HEAD", "POST"])
def interview_prompt(request: HttpRequest, question_key: str) -> HttpResponse:
    return _self_rated(request, question_key, Question.Kind.PROMPT)


@login_required
@require_POST
def interview_rate(request: HttpRequest, question_key: str) -> HttpResponse:
    return _rate(request, question_key, Question.Kind.PROMPT)


@login_required
@require_http_methods(["GET", "HEAD", "POST"])
def recall_card(request: HttpRequest, question_key: str) -> HttpResponse:
    return _self_rated(request, question_key, Question.Kind.RECALL)


@login_required
@require_POST
def recall_rate(request: HttpRequest, question_key: str) -> HttpResponse:
    return _rate(request, question_key, Question.Kind.RECALL)


# --------------------------------------------------------------------------- interview home and mock interview


def _mock_step_url(state: dict[str, Any], position: int) -> str:
    question = selectors_practice.questions_by_ids(ids=[state["ids"][position - 1]])
    if not question:
        return reverse("web:interview_mock_summary")
    return reverse("web:interview_prompt", args=[question[0].key]) + f"?mock={position}"


@login_required
@require_safe
def interview_index(request: HttpRequest) -> HttpResponse:
    """Every interview prompt, lesson by lesson, and the mock interview's start."""
    prompts = selectors_practice.interview_prompts()
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
def interview_mock(request: HttpRequest) -> HttpResponse:
    """GET: the mock interview's intro (``?n=1..10``, default 5). POST: draw the prompts and begin."""
    data = request.POST if request.method == "POST" else request.GET
    form = MockSizeForm({"n": data.get("n", "5")})
    available = len(selectors_practice.interview_prompts())
    if not form.is_valid():
        return render(
            request,
            "web/practice/interview_mock.html",
            {"form": form, "available": available, "state": None},
            status=400,
        )
    n = form.cleaned_data["n"]
    if request.method == "POST":
        questions = selectors_practice.mock_interview_questions(n=n)
        if not questions:
            messages.error(request, _("There are no interview prompts yet."))
            return redirect("web:interview_index")
        state = {"ids": [q.pk for q in questions], "ratings": [None] * len(questions)}
        request.session[MOCK_SESSION_KEY] = state
        for question in questions:
            request.session.pop(_draft_key(question), None)
        return redirect(_mock_step_url(state, 1))
    state = _mock_state(request)
    resume = None
    if state and None in state["ratings"]:
        resume = {
            "url": _mock_step_url(state, state["ratings"].index(None) + 1),
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
def interview_mock_summary(request: HttpRequest) -> HttpResponse:
    state = _mock_state(request)
    if state is None:
        return redirect("web:interview_mock")
    questions = {q.pk: q for q in selectors_practice.questions_by_ids(ids=state["ids"])}
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
                "url": _mock_step_url(state, position),
                "due": _describe_due(request.user, selectors_practice.card_due(user=request.user, question=question)),
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
        },
    )
