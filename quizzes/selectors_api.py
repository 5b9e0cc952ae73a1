"""Read helpers for the REST API: what a mobile client may see, built from the shared selectors.

Why a module of its own: the API's main promise is that no answer data reaches a client before
an item locks, and that promise is easier to check when everything the API shows about a question
is assembled in one place. Rules for that:

* **Option ids are opaque per attempt item.** The content files author the correct option first,
  so raw database ids (and authoring order) would give the answer away. A client sees
  ``HMAC(item, option)`` handles in the item's shuffled order and answers with one of them.
* **Numeric items** show the prompt, the given numbers and the expected answer shape; for
  ``answer_form=choice`` only the choice labels (no misconception ids, which mark the distractors).
* **Lesson content** lists live options (never retired ones) without ids, in an order derived from
  their text, and never the explanation, feedback, reference answer, rubric or expected lines.
* A numeric item's ``answer_format`` (how to type the answer) is given only when the learner types it.
* After the lock, an item carries the result stored when it locked (``AttemptItem.result``), plus the
  grading message worded in the request's language (``message_display``, quizzes.grade_messages).
"""

from __future__ import annotations

import datetime as dt
import hashlib
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import Prefetch, QuerySet
from django.utils import timezone
from django.utils.crypto import salted_hmac

from quizzes import selectors
from quizzes.grade_messages import grade_message
from quizzes.models import Attempt, AttemptItem, LearnerProfile, Lesson, Option, Question, ReviewCard
from quizzes.rendering import render_markdown, value_to_latex

OPTION_HANDLE_SALT = "quizzes.api.option-handle"


# --- option handles ----------------------------------------------------------------------------


def option_handle(item_id: int, option_id: int) -> str:
    """The id a client sees for an option of one attempt item (stable, unguessable, 16 hex digits)."""
    return salted_hmac(OPTION_HANDLE_SALT, f"{item_id}:{option_id}", algorithm="sha256").hexdigest()[:16]


def option_from_handle(item: AttemptItem, handle: str) -> int | None:
    """The option id behind a handle of this item, or None if it is not one of the item's options."""
    for option_id in item.option_order or []:
        if option_handle(item.pk, option_id) == handle:
            return option_id
    return None


# --- queries -----------------------------------------------------------------------------------


def attempts_for(user: AbstractBaseUser) -> QuerySet[Attempt]:
    """The learner's attempts, newest first, with everything an attempt's representation needs."""
    items = AttemptItem.objects.select_related("question").prefetch_related("question__options").order_by("position")
    return (
        Attempt.objects.filter(user=user)
        .select_related("lesson")
        .prefetch_related(Prefetch("items", queryset=items))
        .order_by("-started_at", "-id")
    )


def item_for(user: AbstractBaseUser, item_id: int) -> AttemptItem | None:
    return (
        AttemptItem.objects.filter(pk=item_id, attempt__user=user)
        .select_related("attempt", "question")
        .prefetch_related("question__options")
        .order_by()  # one row by pk: the inherited ordering would only add joins (attempt → lesson) and a sort
        .first()
    )


def cards_for(user: AbstractBaseUser) -> QuerySet[ReviewCard]:
    return ReviewCard.objects.filter(user=user).select_related("question", "question__lesson").order_by("due", "id")


def lessons_with_content() -> QuerySet[Lesson]:
    questions = Question.objects.filter(published=True).prefetch_related("options").order_by("order", "key")
    return selectors.lesson_list_published().prefetch_related(Prefetch("questions", queryset=questions))


# --- representations ---------------------------------------------------------------------------


def _content_order(options: list[Option]) -> list[Option]:
    """An order that depends only on the option texts, not on authoring order or ids."""
    return sorted(options, key=lambda o: hashlib.sha256(o.text.encode()).hexdigest())


def question_content(question: Question) -> dict[str, Any]:
    options = selectors.live_options(question) if question.kind == Question.Kind.CHOICE else []
    return {
        "id": question.pk,
        "key": question.key,
        "kind": question.kind,
        "order": question.order,
        "prompt": question.prompt,
        "prompt_html": str(render_markdown(question.prompt)),
        "answer_form": question.answer_form or None,
        "template": question.template or None,
        "options": [{"text": o.text, "text_html": str(render_markdown(o.text))} for o in _content_order(options)],
        "line_count": len(question.expected_lines or []) if question.kind == Question.Kind.RECALL else None,
    }


def lesson_summary(lesson: Lesson) -> dict[str, Any]:
    return {
        "id": lesson.pk,
        "key": lesson.key,
        "title": lesson.title,
        "summary": lesson.summary,
        "order": lesson.order,
        "question_count": getattr(lesson, "question_count", None) or 0,
    }


def lesson_content(lesson: Lesson) -> dict[str, Any]:
    return {**lesson_summary(lesson), "questions": [question_content(q) for q in lesson.questions.all()]}


def _numeric_prompt(item: AttemptItem) -> dict[str, Any] | None:
    variant = item.variant
    if not variant:
        return None
    choices = []
    if item.question.answer_form == Question.AnswerForm.CHOICE:
        choices = [
            {"index": index, "label": choice["label_zh"], "label_en": choice["label_en"]}
            for index, choice in enumerate(variant.get("choices", []))
        ]
    return {
        "template": variant["template"],
        "prompt": variant["prompt"],
        "prompt_html": str(render_markdown(variant["prompt"])),
        "given": [
            {"name": name, "value": value, "latex": value_to_latex(value)} for name, value in variant["given"].items()
        ],
        "expected_shape": list(variant["answer_shape"]),
        "answer_format": selectors.item_answer_format(item),
        "choices": choices,
    }


def _public_response(item: AttemptItem) -> dict[str, Any] | None:
    if not item.is_answered:
        return None
    if item.question.kind == Question.Kind.CHOICE:
        return {"option_id": option_handle(item.pk, item.chosen_option_id) if item.chosen_option_id else None}
    if item.question.answer_form == Question.AnswerForm.CHOICE:
        return {"choice_index": item.response}
    return {"value": item.response}


def _public_result(item: AttemptItem) -> dict[str, Any] | None:
    """The reveal stored at the lock, with option ids turned into this item's handles and text rendered."""
    if not item.is_answered or item.result is None:
        return None
    result = dict(item.result)
    for key in ("chosen_option_id", "correct_option_id"):
        if result.get(key) is not None:
            result[key] = option_handle(item.pk, result[key])
    result["explanation_html"] = str(render_markdown(result.get("explanation") or ""))
    result["feedback_html"] = str(render_markdown(result.get("feedback") or ""))
    if "correct_value" in result:
        result["correct_value_latex"] = value_to_latex(result["correct_value"])
    if "message" in result:
        result["message_display"] = grade_message(item.result)
    return result


def item_public(item: AttemptItem) -> dict[str, Any]:
    """One attempt item as the client sees it: answer data only once it is locked."""
    question = item.question
    options = {o.pk: o for o in question.options.all()} if question.kind == Question.Kind.CHOICE else {}
    return {
        "id": item.pk,
        "attempt_id": item.attempt_id,
        "position": item.position,
        "question": {
            "id": question.pk,
            "key": question.key,
            "kind": question.kind,
            "prompt": question.prompt,
            "prompt_html": str(render_markdown(question.prompt)),
            "answer_form": question.answer_form or None,
        },
        "options": [
            {
                "id": option_handle(item.pk, option_id),
                "text": options[option_id].text,
                "text_html": str(render_markdown(options[option_id].text)),
            }
            for option_id in (item.option_order or [])
            if option_id in options
        ],
        "numeric": _numeric_prompt(item),
        "answered": item.is_answered,
        "answered_at": item.answered_at,
        "response": _public_response(item),
        "result": _public_result(item),
    }


def attempt_public(attempt: Attempt, *, with_items: bool = True) -> dict[str, Any]:
    items = list(attempt.items.all())
    answered = [i for i in items if i.is_answered]
    data = {
        "id": attempt.pk,
        "lesson": {"id": attempt.lesson_id, "key": attempt.lesson.key, "title": attempt.lesson.title},
        "number": attempt.number,
        "mode": attempt.mode,
        "started_at": attempt.started_at,
        "finished_at": attempt.finished_at,
        "item_count": len(items),
        "answered_count": len(answered),
        "score": (sum(i.score or 0.0 for i in items) / len(items)) if items and answered else None,
    }
    if with_items:
        data["items"] = [item_public(item) for item in items]
    return data


def card_public(card: ReviewCard, *, now: dt.datetime | None = None, day_end: dt.datetime | None = None) -> dict:
    question = card.question
    return {
        "id": card.pk,
        "question": {
            "id": question.pk,
            "key": question.key,
            "kind": question.kind,
            "lesson_id": question.lesson_id,
            "lesson_key": question.lesson.key,
            "prompt": question.prompt,
            "prompt_html": str(render_markdown(question.prompt)),
        },
        "state": card.state,
        "state_label": str(ReviewCard.State(card.state).label),
        "due": card.due,
        "due_today": day_end is not None and card.due < day_end and not card.suspended,
        "last_review": card.last_review,
        "stability": card.stability,
        "difficulty": card.difficulty,
        "reps": card.reps,
        "lapses": card.lapses,
        "suspended": card.suspended,
        "is_leech": card.is_leech,
    }


#: The columns ``card_public`` reads (for ``selectors.due_cards(only=...)``): the card, its question, the lesson key.
CARD_PUBLIC_FIELDS = (
    "id",
    "question",
    "state",
    "due",
    "last_review",
    "stability",
    "difficulty",
    "reps",
    "lapses",
    "suspended",
    "is_leech",
    "question__key",
    "question__kind",
    "question__lesson",
    "question__prompt",
    "question__lesson__key",
)


def cards_public(
    cards: list[ReviewCard],
    *,
    user: AbstractBaseUser,
    now: dt.datetime | None = None,
    profile: LearnerProfile | None = None,
) -> list[dict]:
    now = now or timezone.now()
    profile = profile if profile is not None else selectors.profile_for(user)
    end = selectors.end_of_today(profile, now)
    return [card_public(card, now=now, day_end=end) for card in cards]


def dashboard_counts(
    *,
    user: AbstractBaseUser,
    now: dt.datetime | None = None,
    due: int | None = None,
    profile: LearnerProfile | None = None,
    today: selectors.TodayLogs | None = None,
) -> dict[str, Any]:
    """The numbers the dashboard shows: due today, new available, rated today, streak, next due.

    ``due``: today's due count when the caller already has it (the due queue), saving the same query twice;
    ``profile``, ``today``: the learner's profile and ``selectors.today_logs`` when the caller already has them.
    """
    now = now or timezone.now()
    profile = profile if profile is not None else selectors.profile_for(user)
    today = today if today is not None else selectors.today_logs(user=user, profile=profile, now=now)
    end = selectors.end_of_today(profile, now)
    next_card = (
        ReviewCard.objects.filter(user=user, suspended=False, due__gte=end, question__published=True)
        .order_by("due")
        .values_list("due", flat=True)
        .first()
    )
    return {
        "due": selectors.due_count(user=user, now=now, profile=profile, today=today) if due is None else due,
        "new": selectors.new_count(user=user, now=now, profile=profile, today=today),
        "reviewed_today": today.total,
        "streak": selectors.review_streak(user=user, now=now, profile=profile),
        "next_due_after_today": next_card,
        "study_day": selectors.today_for(profile, now),
    }


def due_queue_page(*, user: AbstractBaseUser, page: int, page_size: int, now: dt.datetime) -> tuple[dict, dt.datetime]:
    """The due queue's page with the dashboard counts, and the moment it goes stale by itself (the day's end).

    Any write of the learner's makes it stale sooner: ``quizzes.learner_cache`` keys it by their stamp.
    """
    profile = selectors.profile_for(user)  # once per request, passed down
    today = selectors.today_logs(user=user, profile=profile, now=now)
    queue = selectors.due_queue(user=user, now=now, profile=profile, today=today, only=CARD_PUBLIC_FIELDS)
    count = queue.count()
    start = (page - 1) * page_size
    rows = list(queue[start : start + page_size]) if start < count else []
    data = {
        "counts": dashboard_counts(user=user, now=now, due=count, profile=profile, today=today),
        "count": count,
        "page": page,
        "page_size": page_size,
        "results": cards_public(rows, user=user, now=now, profile=profile),
    }
    return data, selectors.end_of_today(profile, now)


def question_reference(*, user: AbstractBaseUser, question: Question, now: dt.datetime | None = None) -> dict:
    """A self-rated question's reference (shown after the learner answered in their own words) and rating preview."""
    previews = selectors.rating_preview(user=user, question=question, now=now)
    return {
        "question_id": question.pk,
        "kind": question.kind,
        "reference_answer": question.reference_answer,
        "reference_answer_html": str(render_markdown(question.reference_answer)),
        "rubric": list(question.rubric or []),
        "expected_lines": list(question.expected_lines or []),
        "explanation": question.explanation,
        "explanation_html": str(render_markdown(question.explanation)),
        "rating_previews": [
            {
                "rating": p.rating,
                "label": p.label,
                "due": p.due,
                "interval_seconds": int(p.interval.total_seconds()),
                "counts": p.counts,
            }
            for p in previews
        ],
    }
