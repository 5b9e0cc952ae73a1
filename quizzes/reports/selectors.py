"""Reads about problem reports: what a learner may report (their own item, pack item or card) and their reports."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import User
from django.db.models import QuerySet

from quizzes.content.models import Question
from quizzes.content.versions import version_question
from quizzes.packs.items import as_attempt_item
from quizzes.packs.models import PackItem
from quizzes.practice.models import AttemptItem
from quizzes.practice.presenter import key_shown
from quizzes.reports.models import ProblemReport
from quizzes.reviews.models import ReviewCard


@dataclass(frozen=True)
class ReportTarget:
    """What the learner saw and wants to report: the question, its text as shown, and where it was shown."""

    origin: str  # ProblemReport.Origin
    question: Question
    prompt: str
    template_version: int | None
    variant_seed: int | None
    revealed: bool  # the answer was shown (after the lock, or a card's reveal): only then may it be reported
    attempt_item: AttemptItem | None = None
    pack_item: PackItem | None = None
    card: ReviewCard | None = None


def shown_prompt(*, question_prompt: str, variant: dict | None) -> str:
    """The question's text as the learner saw it: its prompt, and a numeric variant's own prompt under it."""
    variant_prompt = str((variant or {}).get("prompt") or "")
    return f"{question_prompt}\n\n{variant_prompt}" if variant_prompt else question_prompt


def item_target(*, user: User, item_id: int) -> ReportTarget | None:
    """The learner's own attempt item (None for anyone else's or an unknown id)."""
    items = AttemptItem.objects.owned_by(user).select_related("question", "attempt", "version")
    item = items.filter(pk=item_id).first()
    if item is None:
        return None
    version = item.version  # the text the item showed (quizzes.content.versions), not the question's now
    shown = version_question(digest=version.digest, snapshot=version.snapshot) if version else item.question
    return ReportTarget(
        origin=ProblemReport.Origin.ITEM,
        question=item.question,
        prompt=shown_prompt(question_prompt=shown.prompt, variant=item.variant),
        template_version=item.template_version,
        variant_seed=item.variant_seed,
        revealed=key_shown(item=item),
        attempt_item=item,
    )


def pack_item_target(*, user: User, pack_item_id: int) -> ReportTarget | None:
    """The learner's own pack item, its text from the pack's copy (the version it showed)."""
    item = (
        PackItem.objects.owned_by(user)
        .select_related("question", "packed", "packed_variant")
        .filter(pk=pack_item_id)
        .first()
    )
    if item is None:
        return None
    shown = as_attempt_item(item)
    return ReportTarget(
        origin=ProblemReport.Origin.PACK_ITEM,
        question=item.question,
        prompt=shown_prompt(question_prompt=shown.question.prompt, variant=shown.variant),
        template_version=item.template_version,
        variant_seed=item.variant_seed,
        revealed=item.is_answered,
        pack_item=item,
    )


def card_target(*, user: User, card_id: int) -> ReportTarget | None:
    """The learner's own card. A card exists only once its question was answered or its reference revealed and
    rated, so it is always past the reveal."""
    card = ReviewCard.objects.filter(user=user, pk=card_id).select_related("question").first()
    if card is None:
        return None
    return ReportTarget(
        origin=ProblemReport.Origin.CARD,
        question=card.question,
        prompt=card.question.prompt,
        template_version=None,
        variant_seed=None,
        revealed=True,
        card=card,
    )


def card_for_question(*, user: User, question: Question) -> ReviewCard | None:
    """The learner's card of a question, if they have one (the interview and recall pages' report link)."""
    return ReviewCard.objects.filter(user=user, question=question).first()


def reports_of(*, user: User) -> QuerySet[ProblemReport]:
    """The learner's reports, newest first."""
    return ProblemReport.objects.owned_by(user).select_related("question", "question__lesson")


def report_facts(report: ProblemReport) -> dict[str, Any]:
    """What a report says and where the learner saw it: the fields the API and the data export both carry."""
    return {
        "id": report.pk,
        "origin": report.origin,
        "attempt_item_id": report.attempt_item_id,
        "pack_item_id": report.pack_item_id,
        "card_id": report.card_id,
        "prompt": report.prompt,
        "template_version": report.template_version,
        "variant_seed": report.variant_seed,
        "category": report.category,
        "text": report.text,
    }
