"""What a mobile client sees: the API's representations, built from the domain's selectors and presenter.

Why a module of its own: the API's main promise is that no answer data reaches a client before
an item locks, and that promise is easier to check when everything the API shows is assembled in
one place. Attempt items come from the one item presenter (quizzes.practice.presenter: whitelisted
before the lock, opaque option handles, the reveal after it); the rest is here:

* **Lesson content** lists live options (never retired ones) without ids, in an order derived from
  their text, and never the explanation, feedback, reference answer, rubric or expected lines.
* **Teaching sections** are the lesson page's own (quizzes.content.teaching.teaching_sections: the same Markdown,
  MathML and figures); a checkpoint shows the learner's own option handles and nothing about correctness until
  its first answer (``result`` is null), then the marks, feedback and explanation.
* **Cards** show their schedule; ``due_today`` uses the learner's study day.
* **An attempt's score** is quizzes.practice.selectors.score_of: null before any answer.
* **A review pack** is the one exception to "no answer before the lock": the learner downloads the keys of
  their own due items on purpose, for offline review (quizzes.packs.items builds each item with the same
  presenter, from the pack's stored copy).
"""

from __future__ import annotations

import datetime as dt
import hashlib
from typing import Any

from django.contrib.auth.models import User
from django.utils import timezone

from quizzes.accounts.models import LearnerProfile
from quizzes.accounts.selectors import profile_for
from quizzes.content.models import Lesson, Option, Question
from quizzes.content.selectors import live_options
from quizzes.content.teaching import checkpoint_order, checkpoint_owner, teaching_sections
from quizzes.core.rendering import render_markdown
from quizzes.packs.items import pack_item_views
from quizzes.packs.models import ReviewPack
from quizzes.packs.rules import UPLOAD_GRACE, pack_status
from quizzes.packs.selectors import pack_items, packs_for
from quizzes.practice.models import Attempt, AttemptItem
from quizzes.practice.next_step import NextStep
from quizzes.practice.presenter import present_item, present_skipped_key
from quizzes.practice.selectors import checkpoint_answers, score_of
from quizzes.reviews.models import ReviewCard
from quizzes.reviews.selectors.days import end_of_today
from quizzes.reviews.selectors.due import due_queue_reads
from quizzes.reviews.selectors.ratings import rating_preview
from quizzes.reviews.selectors.summary import dashboard_counts

# --- representations ---------------------------------------------------------------------------


def _content_order(options: list[Option]) -> list[Option]:
    """An order that depends only on the option texts, not on authoring order or ids."""
    return sorted(options, key=lambda o: hashlib.sha256(o.text.encode()).hexdigest())


def question_content(question: Question) -> dict[str, Any]:
    options = live_options(question=question) if question.kind == Question.Kind.CHOICE else []
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


def lesson_detail(lesson: Lesson, *, user: User) -> dict[str, Any]:
    """A lesson with its questions and its teaching sections as ``user`` sees them now."""
    return {**lesson_content(lesson), "sections": lesson_sections(lesson, user=user)}


def lesson_sections(lesson: Lesson, *, user: User) -> list[dict[str, Any]]:
    """The lesson page's sections (teaching_sections), with the learner's handles and first answers; the options'
    order is the learner's own and stable (checkpoint_order), so the lesson's ETag holds until something changes."""
    owner = checkpoint_owner(user_id=user.pk)
    answers = checkpoint_answers(user=user, lesson=lesson) if any(s.get("checkpoint") for s in lesson.teaching) else {}
    views = teaching_sections(
        lesson_key=lesson.key,
        sections=lesson.teaching,
        answers=answers,
        owner=owner,
        rng=checkpoint_order(owner=owner, lesson_key=lesson.key),
    )
    return [
        {
            "key": view["key"],
            "title": view["title_text"],
            "body": view["body"],
            "body_html": view["body_html"],
            "figure": figure_public(view["figure"], view["figure_data"], view["figure_svg"]),
            "checkpoint": checkpoint_public(view["checkpoint"]) if view["checkpoint"] else None,
        }
        for view in views
    ]


#: Where a client draws the live d_k demo (``figure: dk_demo``): the engine's demo endpoint.
DEMO_PATH = "/api/v1/engine/demo/"


def figure_public(name: str, data: dict[str, Any] | None, svg: Any) -> dict[str, Any] | None:
    """A section's picture: its name, the data it draws (a heatmap's matrices and labels, the five steps' shapes, a
    plot's series, bars, a block table, shares) and its SVG; the interactive d_k demo names the endpoint that
    computes it instead."""
    if not name:
        return None
    return {
        "name": name,
        "kind": data["kind"] if data else "demo",
        "label": data["label"] if data else None,
        "svg": svg,
        "heatmap": {k: data[k] for k in HEATMAP_FIELDS} if data and data["kind"] == "heatmap" else None,
        "steps": data["steps"] if data and data["kind"] == "shapes" else None,
        "mask": {k: data[k] for k in MASK_FIELDS} if data and data["kind"] == "mask" else None,
        "plot": {k: data[k] for k in PLOT_FIELDS} if data and data["kind"] == "plot" else None,
        "bars": {k: data[k] for k in BARS_FIELDS} if data and data["kind"] == "bars" else None,
        "paged": {k: data[k] for k in PAGED_FIELDS} if data and data["kind"] == "paged" else None,
        "shares": {k: data[k] for k in SHARES_FIELDS} if data and data["kind"] == "shares" else None,
        "demo_path": None if data else DEMO_PATH,
    }


HEATMAP_FIELDS = ("weights", "masked", "row_labels", "col_labels", "highlight_row", "scale", "corner")
MASK_FIELDS = ("row_labels", "col_labels", "samples")
PLOT_FIELDS = (
    *("x_label", "y_label", "x_scale", "y_scale", "x_range", "y_range"),
    *("x_ticks", "y_ticks", "series", "guides", "marks"),
)
BARS_FIELDS = ("axis_label", "scale", "groups")
PAGED_FIELDS = ("block_size", "sequences", "physical")
SHARES_FIELDS = ("parts", "rows")
_OPEN_OPTION = ("number", "text", "text_html", "label")
_LOCKED_OPTION = ("number", "text", "text_html", "correct", "chosen", "feedback", "feedback_html")


def checkpoint_public(view: dict[str, Any]) -> dict[str, Any]:
    """A checkpoint (teaching's view of it) for the API: before the lock the options with the learner's handles
    as ``id`` and ``result`` null; after it no handles, and ``result`` with the marks, feedback and explanation."""
    data: dict[str, Any] = {
        "section": view["section"],
        "prompt": view["prompt"],
        "prompt_html": view["prompt_html"],
        "locked": view["locked"],
        "options": [],
        "result": None,
    }
    if not view["locked"]:
        data["options"] = [{"id": o["handle"], **{k: o[k] for k in _OPEN_OPTION}} for o in view["options"]]
        return data
    result = {
        k: view[k] for k in ("answered_correctly", "feedback", "feedback_html", "explanation", "explanation_html")
    }
    data["result"] = {**result, "options": [{k: o[k] for k in _LOCKED_OPTION} for o in view["options"]]}
    return data


def item_public(item: AttemptItem) -> dict[str, Any]:
    """One attempt item as the client sees it (the presenter's view; serializers pick the documented fields),
    with a skipped item's answer once the learner asked for it (recorded as Again)."""
    return {**present_item(item=item), "skipped_key": present_skipped_key(item=item)}


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
        "skipped_count": len(items) - len(answered) if attempt.finished_at is not None else 0,
        "skipped_shown_at": attempt.skipped_shown_at,
        "score": score_of(scores=[item.score for item in items]),
    }
    if with_items:
        data["items"] = [item_public(item) for item in items]
    return data


def card_public(card: ReviewCard, *, now: dt.datetime | None = None, day_end: dt.datetime | None = None) -> dict:
    question = card.question
    row = {
        "id": card.pk,
        "question_id": question.pk,
        "question__key": question.key,
        "question__kind": question.kind,
        "question__lesson_id": question.lesson_id,
        "question__lesson__key": question.lesson.key,
        "question__prompt": question.prompt,
        **{name: getattr(card, name) for name in _CARD_COLUMNS},
    }
    return card_row_public(row, day_end=day_end)


#: The card's own columns ``card_row_public`` reads.
_CARD_COLUMNS = ("state", "due", "last_review", "stability", "difficulty", "reps", "lapses", "suspended", "is_leech")

#: ``QuerySet.values()`` paths for ``card_row_public``: a read path builds no model instances (issue 16).
CARD_PUBLIC_VALUES = (
    "id",
    "question_id",
    "question__key",
    "question__kind",
    "question__lesson_id",
    "question__lesson__key",
    "question__prompt",
    *_CARD_COLUMNS,
)


def card_row_public(row: dict[str, Any], *, day_end: dt.datetime | None = None) -> dict:
    """A card's public form from its ``CARD_PUBLIC_VALUES`` row (``card_public`` builds the same row from a model)."""
    return {
        "id": row["id"],
        "question": {
            "id": row["question_id"],
            "key": row["question__key"],
            "kind": row["question__kind"],
            "lesson_id": row["question__lesson_id"],
            "lesson_key": row["question__lesson__key"],
            "prompt": row["question__prompt"],
            "prompt_html": str(render_markdown(row["question__prompt"])),
        },
        "state": row["state"],
        "state_label": str(ReviewCard.State(row["state"]).label),
        "due": row["due"],
        "due_today": day_end is not None and row["due"] < day_end and not row["suspended"],
        "last_review": row["last_review"],
        "stability": row["stability"],
        "difficulty": row["difficulty"],
        "reps": row["reps"],
        "lapses": row["lapses"],
        "suspended": row["suspended"],
        "is_leech": row["is_leech"],
    }


def cards_public(
    cards: list[ReviewCard],
    *,
    user: User,
    now: dt.datetime | None = None,
    profile: LearnerProfile | None = None,
) -> list[dict]:
    now = now or timezone.now()
    profile = profile if profile is not None else profile_for(user=user)
    end = end_of_today(profile=profile, now=now)
    return [card_public(card, now=now, day_end=end) for card in cards]


def due_queue_page(*, user: User, page: int, page_size: int, now: dt.datetime) -> tuple[dict, dt.datetime]:
    """The due queue's page with the dashboard counts, and the moment it goes stale by itself (the day's end).

    Any write of the learner's makes it stale sooner: ``quizzes.reviews.learner_cache`` keys it by their stamp.
    """
    profile = profile_for(user=user)  # once per request, passed down
    start = (page - 1) * page_size
    # the logs of the streak's window, the cards' summary and the page: three statements, one round trip
    reads = due_queue_reads(user=user, profile=profile, now=now, start=start, size=page_size, fields=CARD_PUBLIC_VALUES)
    counts = dashboard_counts(user=user, now=now, profile=profile, summary=reads.summary, recent=reads.recent)
    count = counts["due"]
    end = end_of_today(profile=profile, now=now)
    rows = reads.rows
    data = {
        "counts": counts,
        "count": count,
        "page": page,
        "page_size": page_size,
        "results": [card_row_public(row, day_end=end) for row in rows],
    }
    return data, end


def question_reference(*, user: User, question: Question, now: dt.datetime | None = None) -> dict:
    """A self-rated question's reference (shown after the learner answered in their own words) and rating preview."""
    previews = rating_preview(user=user, question=question, now=now)
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


def next_step_public(step: NextStep) -> dict[str, Any]:
    """The next step with the ids a client needs to act on it."""
    return {
        "kind": step.kind.value,
        "due_count": step.due,
        "lesson_id": step.lesson.pk if step.lesson else None,
        "lesson_key": step.lesson.key if step.lesson else None,
        "lesson_title": step.lesson.title if step.lesson else None,
        "attempt_id": step.attempt.pk if step.attempt else None,
        "question_id": step.question.pk if step.question else None,
        "question_key": step.question.key if step.question else None,
        "next_review_at": step.next_review,
    }


# --- offline review packs ------------------------------------------------------------------------


def pack_summary(pack: ReviewPack, *, now: dt.datetime, item_count: int, answered_count: int) -> dict[str, Any]:
    return {
        "id": pack.pk,
        "device": pack.device,
        "horizon_days": pack.horizon_days,
        "issued_at": pack.issued_at,
        "expires_at": pack.expires_at,
        "upload_until": pack.expires_at + UPLOAD_GRACE,
        "revoked_at": pack.revoked_at,
        "status": pack_status(pack=pack, now=now),
        "item_count": item_count,
        "answered_count": answered_count,
    }


def pack_public(pack: ReviewPack, *, now: dt.datetime | None = None) -> dict[str, Any]:
    """A pack with every item and its answer key, re-rendered from the pack's stored copies."""
    items = pack_items(pack=pack)
    now = now or timezone.now()
    data = pack_summary(pack, now=now, item_count=len(items), answered_count=sum(item.is_answered for item in items))
    data["server_time"] = now
    data["items"] = pack_item_views(items)
    return data


def packs_public(*, user: User, now: dt.datetime | None = None) -> dict[str, Any]:
    now = now or timezone.now()
    return {
        "packs": [
            pack_summary(pack, now=now, item_count=pack.item_count, answered_count=pack.answered_count)  # type: ignore[attr-defined]  # annotated by packs_for
            for pack in packs_for(user=user)
        ]
    }
