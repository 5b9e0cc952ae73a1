"""The data export's JSON document (read-only): everything the app keeps about a learner, in a portable form.

One builder for both ways out: ``GET /api/v1/profile/export/`` answers the document inline (small accounts), and
the export job streams the same sections to a file (``write_document``), row by row, so a large history is
never held in memory. Every value is already JSON (times as ISO 8601 UTC strings ending in ``Z``), so the file
and the inline answer are the same data. Documented in openapi.yaml (``ExportDocument``) and README "Your data".

Nothing here shows an answer before its lock: an attempt item that was never answered carries what the learner
saw (the prompt, the options in their order), never the key; answered items carry their revealed result.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import IO, Any

from django.contrib.auth.models import User
from django.db.models import Prefetch
from django.utils import timezone

from quizzes.accounts.selectors import device_tokens, profile_for
from quizzes.accounts.services import PROFILE_FIELDS
from quizzes.notifications.models import ReminderDelivery
from quizzes.packs.models import PackItem, ReviewPack
from quizzes.practice.models import Attempt, AttemptItem
from quizzes.practice.selectors import score_of
from quizzes.privacy.rules import DOCUMENT_FORMAT, DOCUMENT_VERSION
from quizzes.reports.models import ProblemReport
from quizzes.reports.selectors import report_facts
from quizzes.reviews.models import ReviewCard, ReviewLog

#: Rows read from the database at a time while streaming a section.
CHUNK = 500


def iso(value: dt.datetime | dt.date | None) -> str | None:
    """A time as ISO 8601 in UTC with ``Z`` (a date as YYYY-MM-DD); None stays None."""
    if value is None:
        return None
    if isinstance(value, dt.datetime):
        return value.astimezone(dt.UTC).isoformat().replace("+00:00", "Z")
    return value.isoformat()


# --- sizes ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ExportSize:
    cards: int
    review_logs: int
    attempt_items: int
    pack_items: int
    reports: int = 0

    @property
    def rows(self) -> int:
        """What decides inline or a job, and what the job's progress counts."""
        return self.cards + self.review_logs + self.attempt_items + self.pack_items + self.reports


def export_size(*, user: User) -> ExportSize:
    return ExportSize(
        cards=ReviewCard.objects.filter(user=user).count(),
        review_logs=ReviewLog.objects.filter(user=user).count(),
        attempt_items=AttemptItem.objects.owned_by(user).count(),
        pack_items=PackItem.objects.owned_by(user).count(),
        reports=ProblemReport.objects.owned_by(user).count(),
    )


# --- the sections ----------------------------------------------------------------------------------


def profile_section(user: User) -> dict[str, Any]:
    profile = profile_for(user=user)
    return {
        "id": user.pk,
        "username": user.get_username(),
        "email": user.email,
        "date_joined": iso(user.date_joined),
        "last_login": iso(user.last_login),
        "settings": {name: getattr(profile, name) for name in PROFILE_FIELDS},
        "last_reminded_on": iso(profile.last_reminded_on),
        # the FSRS parameters fitted to this learner's own reviews (issue 30), or null for the defaults
        "fsrs_parameters": profile.fsrs_parameters,
    }


def devices_section(user: User) -> list[dict[str, Any]]:
    """The learner's signed-in API devices (names and dates; never a token)."""
    return [
        {"device_name": token.device_name, "created": iso(token.created), "expiry": iso(token.expiry)}
        for token in device_tokens(user=user)
    ]


def reminders_section(user: User) -> list[dict[str, Any]]:
    rows = ReminderDelivery.objects.filter(user=user).order_by("local_date")
    return [{"local_date": iso(r.local_date), "due_count": r.due_count, "sent_at": iso(r.sent_at)} for r in rows]


def _question(question: Any) -> dict[str, Any]:
    return {"key": question.key, "kind": question.kind, "lesson": question.lesson.key, "prompt": question.prompt}


def card_entry(card: ReviewCard) -> dict[str, Any]:
    return {
        "id": card.pk,
        "question": _question(card.question),
        "state": ReviewCard.State(card.state).name.lower(),
        "due": iso(card.due),
        "last_review": iso(card.last_review),
        "stability": card.stability,
        "difficulty": card.difficulty,
        "reps": card.reps,
        "lapses": card.lapses,
        "suspended": card.suspended,
        "is_leech": card.is_leech,
        "created_at": iso(card.created_at),
        "fsrs": card.fsrs_card,
    }


def cards_section(user: User) -> Iterator[dict[str, Any]]:
    cards = ReviewCard.objects.filter(user=user).select_related("question__lesson").order_by("pk")
    for card in cards.iterator(chunk_size=CHUNK):
        yield card_entry(card)


def log_entry(log: ReviewLog) -> dict[str, Any]:
    return {
        "id": log.pk,
        "card_id": log.card_id,
        "question_key": log.card.question.key,
        "rating": log.rating,
        "reviewed_at": iso(log.reviewed_at),
        "duration_ms": log.duration_ms,
        "source": log.source,
        "role": log.role,
        "client_uuid": str(log.client_uuid) if log.client_uuid else None,
        "client_graded": log.client_graded,
        "attempt_item_id": log.attempt_item_id,
    }


def review_logs_section(user: User) -> Iterator[dict[str, Any]]:
    logs = ReviewLog.objects.filter(user=user).select_related("card__question").order_by("reviewed_at", "pk")
    for log in logs.iterator(chunk_size=CHUNK):
        yield log_entry(log)


def _shown_prompt(item: AttemptItem) -> str:
    variant = item.variant or {}
    return str(variant.get("prompt") or item.question.prompt)


def item_entry(item: AttemptItem) -> dict[str, Any]:
    options = {option.pk: option for option in item.question.options.all()}
    shown = [options[pk] for pk in item.option_order or [] if pk in options]
    answered = item.is_answered
    return {
        "id": item.pk,
        "position": item.position,
        "question_key": item.question.key,
        "question_kind": item.question.kind,
        "prompt": _shown_prompt(item),
        "given": (item.variant or {}).get("given"),
        "options": [{"key": option.key, "text": option.text} for option in shown],
        "answered_at": iso(item.answered_at),
        "chosen_option": item.chosen_option.key if answered and item.chosen_option else None,
        "response": item.response if answered else None,
        "is_correct": item.is_correct,
        "score": item.score,
        "result": item.result if answered else None,  # revealed at the lock; never before it
    }


def attempt_entry(attempt: Attempt) -> dict[str, Any]:
    items = list(attempt.items.all())
    return {
        "id": attempt.pk,
        "lesson": attempt.lesson.key,
        "number": attempt.number,
        "mode": attempt.mode,
        "started_at": iso(attempt.started_at),
        "finished_at": iso(attempt.finished_at),
        "score": score_of(scores=[item.score for item in items]),
        "items": [item_entry(item) for item in items],
    }


def attempts_section(user: User) -> Iterator[dict[str, Any]]:
    items = AttemptItem.objects.select_related("question", "chosen_option").prefetch_related("question__options")
    attempts = (
        Attempt.objects.owned_by(user)
        .select_related("lesson")
        .prefetch_related(Prefetch("items", queryset=items.order_by("position")))
        .order_by("pk")
    )
    for attempt in attempts.iterator(chunk_size=CHUNK // 10):
        yield attempt_entry(attempt)


def pack_item_entry(item: PackItem) -> dict[str, Any]:
    answered = item.is_answered
    return {
        "position": item.position,
        "question_key": item.question.key,
        "due": iso(item.due),
        "answered_at": iso(item.answered_at),
        "response": item.response if answered else None,
        "is_correct": item.is_correct,
        "result": item.result if answered else None,
        "client_uuid": str(item.client_uuid) if item.client_uuid else None,
    }


def pack_entry(pack: ReviewPack) -> dict[str, Any]:
    return {
        "id": pack.pk,
        "device": pack.device,
        "horizon_days": pack.horizon_days,
        "issued_at": iso(pack.issued_at),
        "expires_at": iso(pack.expires_at),
        "revoked_at": iso(pack.revoked_at),
        "items": [pack_item_entry(item) for item in pack.items.all()],
    }


def packs_section(user: User) -> Iterator[dict[str, Any]]:
    items = PackItem.objects.select_related("question").order_by("position")
    packs = ReviewPack.objects.owned_by(user).prefetch_related(Prefetch("items", queryset=items)).order_by("pk")
    for pack in packs.iterator(chunk_size=CHUNK // 10):
        yield pack_entry(pack)


def report_entry(report: ProblemReport) -> dict[str, Any]:
    return {
        **report_facts(report),
        "question_key": report.question.key,
        "created_at": iso(report.created_at),
        "resolved_at": iso(report.resolved_at),
    }


def reports_section(user: User) -> Iterator[dict[str, Any]]:
    reports = ProblemReport.objects.owned_by(user).select_related("question").order_by("created_at", "pk")
    for report in reports.iterator(chunk_size=CHUNK):
        yield report_entry(report)


def _rows_of(entry: dict[str, Any], key: str) -> int:
    """How many rows of the export's size one entry stands for (an attempt: its items; a pack: its items)."""
    return len(entry["items"]) if key in ("attempts", "packs") else 1


def document_head(user: User, *, now: dt.datetime | None = None) -> dict[str, Any]:
    """The small parts: format, when, the profile, devices and reminders."""
    return {
        "format": DOCUMENT_FORMAT,
        "version": DOCUMENT_VERSION,
        "exported_at": iso(now or timezone.now()),
        "profile": profile_section(user),
        "devices": devices_section(user),
        "reminders": reminders_section(user),
    }


def document_lists(user: User) -> list[tuple[str, Iterable[dict[str, Any]]]]:
    """The long parts, in the document's order."""
    return [
        ("cards", cards_section(user)),
        ("review_logs", review_logs_section(user)),
        ("attempts", attempts_section(user)),
        ("packs", packs_section(user)),
        ("reports", reports_section(user)),
    ]


def export_document(*, user: User, now: dt.datetime | None = None) -> dict[str, Any]:
    """The whole document in memory (the API's inline answer for a small account)."""
    document = document_head(user, now=now)
    for key, entries in document_lists(user):
        document[key] = list(entries)
    return document


def write_document(
    *, user: User, out: IO[str], progress: Callable[[int], None] | None = None, now: dt.datetime | None = None
) -> None:
    """Stream the same document to ``out``, calling ``progress(rows)`` after each chunk of rows written."""
    head = json.dumps(document_head(user, now=now), ensure_ascii=False)
    out.write(head[:-1])  # the head's closing brace comes after the lists
    written = pending = 0
    for key, entries in document_lists(user):
        out.write(f", {json.dumps(key)}: [")
        for index, entry in enumerate(entries):
            out.write(("" if index == 0 else ", ") + json.dumps(entry, ensure_ascii=False))
            rows = _rows_of(entry, key)
            written, pending = written + rows, pending + rows
            if progress is not None and pending >= CHUNK:
                progress(written)
                pending = 0
        out.write("]")
    out.write("}")
    if progress is not None:
        progress(written)
