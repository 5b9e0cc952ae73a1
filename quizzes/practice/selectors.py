"""Reads about practice: attempts and their items, scores, the end screen, lesson progress.

Read-only, keyword-only, scoped to the learner (another learner's attempt is simply not found).

**An attempt's score** has one meaning everywhere (pages, API, progress; :func:`score_of`): before
any item is answered an attempt has *no* score (None: the API's ``null``, the pages' "–"); once one
is answered, the score is the mean over all its items, unanswered items counting 0.
"""

from __future__ import annotations

import datetime as dt
import functools
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.apps import apps
from django.conf import settings
from django.contrib.auth.models import User
from django.db.models import Prefetch, QuerySet
from django.utils import timezone

from quizzes.accounts.models import LearnerProfile
from quizzes.accounts.selectors import profile_for
from quizzes.content.models import Lesson, Question
from quizzes.content.selectors import lesson_heads_published_later
from quizzes.content.versions import version_question
from quizzes.core import rows
from quizzes.core.compiled import CompiledRead, Later, together
from quizzes.practice import fast_paths
from quizzes.practice.models import Attempt, AttemptItem, LockedAnswer
from quizzes.reviews.selectors.cards import next_review_of
from quizzes.reviews.selectors.days import start_of_today
from quizzes.reviews.selectors.history import RECENT_LOG_DAYS, RecentLogs, recent_logs_later
from quizzes.reviews.selectors.summary import CardSummary, card_summary_later, lesson_card_counts


def score_of(*, scores: Iterable[float | None]) -> float | None:
    """An attempt's score from its items' scores (None = unanswered): None before any answer, else the mean
    over all items with unanswered ones counting 0."""
    scores = list(scores)
    if not any(score is not None for score in scores):
        return None
    return sum(score or 0.0 for score in scores) / len(scores)


def attempt_score(*, attempt: Attempt) -> float | None:
    """The attempt's score (:func:`score_of`); reads prefetched items when the caller prefetched them."""
    return score_of(scores=[item.score for item in attempt.items.all()])


# --- attempts and items --------------------------------------------------------------------------


def as_shown(items: Iterable[AttemptItem]) -> list[AttemptItem]:
    """The items with each ``question`` the version it pinned (read-only, shared): what the learner saw and was
    graded on, however the question was edited since. Items without a version (made outside the services) keep
    the question as it is. Needs ``version`` selected with the items."""
    shown = list(items)
    for item in shown:
        version = item.version
        if version is not None:
            item.question = version_question(digest=version.digest, snapshot=version.snapshot)
    return shown


def attempts_for(*, user: User) -> QuerySet[Attempt]:
    """The learner's attempts, newest first, with everything an attempt's representation needs (its items'
    questions as they are now: :func:`as_shown` gives them as each item showed them)."""
    items = (
        AttemptItem.objects.select_related("question", "version")
        .prefetch_related("question__options")
        .order_by("position")
    )
    return (
        Attempt.objects.owned_by(user)
        .select_related("lesson")
        .prefetch_related(Prefetch("items", queryset=items))
        .order_by("-started_at", "-id")
    )


def attempt_for(*, user: User, attempt_id: int) -> Attempt | None:
    """One of the learner's attempts with its items as they showed them (the API's representation)."""
    attempt = attempts_for(user=user).filter(pk=attempt_id).first()
    if attempt is not None:
        as_shown(attempt.items.all())
    return attempt


def item_for(*, user: User, item_id: int) -> AttemptItem | None:
    """The learner's item with its attempt, and the question version it showed with its options
    (``question.loaded_options()``; an item without a version: the question as it is). None when it is not
    theirs or not there. Read by one hand-written statement (quizzes.practice.fast_paths.item_read, kept for the
    answer POST's measurement), or by the ORM's query when ``SQL_FAST_PATHS`` is off."""
    if not rows.pk_in_range(AttemptItem, item_id):
        return None
    read = fast_paths.item_read if settings.SQL_FAST_PATHS else fast_paths.item_read_orm
    return read(user=user, item_id=item_id)


def user_attempt(*, user: User, attempt_id: int) -> Attempt | None:
    """The learner's own attempt (another learner's id is simply not found)."""
    return Attempt.objects.owned_by(user).filter(pk=attempt_id).select_related("lesson").first()


def attempt_items(*, attempt: Attempt) -> list[AttemptItem]:
    """The attempt's items in order, each with the question version it showed (:func:`as_shown`)."""
    items = attempt.items.select_related("question", "version", "chosen_option").prefetch_related("question__options")
    return as_shown(items.order_by("position"))


def attempt_item_at(*, attempt: Attempt, position: int) -> AttemptItem | None:
    """The item at 0-based ``position``, with what the item page shows: the question version it showed with its
    options (:func:`as_shown`), and the chosen option."""
    items = attempt.items.select_related("question", "version", "chosen_option").prefetch_related("question__options")
    shown = as_shown(items.filter(position=position))
    return shown[0] if shown else None


def item_rating(*, item: AttemptItem) -> int | None:
    """The rating an answered item gave the scheduler (a code item: the suggested one, or the learner's
    own choice since), None when it has none (unanswered, or the rating was undone)."""
    from quizzes.reviews.models import ReviewLog

    return (
        ReviewLog.objects.filter(user_id=item.attempt.user_id, attempt_item=item)
        .values_list("rating", flat=True)
        .first()
    )


def attempt_item_count(*, attempt: Attempt) -> int:
    return attempt.items.count()


def attempt_first_unanswered(*, attempt: Attempt) -> AttemptItem | None:
    return attempt.items.unanswered().order_by("position").first()


def study_attempt_open(*, user: User) -> Attempt | None:
    """The learner's newest unfinished study or missed-items attempt with an item left to answer (to continue)."""
    return (
        Attempt.objects.owned_by(user)
        .unfinished()
        .exclude(mode=Attempt.Mode.REVIEW)
        .filter(lesson__in=Lesson.objects.published(), items__answered_at__isnull=True)
        .select_related("lesson")
        .order_by("-started_at", "-pk")
        .distinct()
        .first()
    )


def review_attempt_open(*, user: User, lesson: Lesson, now: dt.datetime | None = None) -> Attempt | None:
    """An unfinished review attempt of this lesson started today with an item left to answer."""
    now = now or timezone.now()
    start = start_of_today(profile=profile_for(user=user), now=now)
    return (
        Attempt.objects.owned_by(user)
        .unfinished()
        .filter(lesson=lesson, mode=Attempt.Mode.REVIEW, started_at__gte=start, items__answered_at__isnull=True)
        .order_by("-started_at", "-pk")
        .distinct()
        .first()
    )


def checkpoint_answers(*, user: User, lesson: Lesson) -> dict[str, str]:
    """The learner's first answers to the lesson's teaching checkpoints: ``answer_key`` → option key."""
    from quizzes.content.teaching import answer_key
    from quizzes.practice.models import CheckpointAnswer

    rows = CheckpointAnswer.objects.filter(user=user, lesson=lesson).values_list("section_key", "option_key")
    return {answer_key(lesson_key=lesson.key, section_key=section): option for section, option in rows}


# --- the end screen and the lesson page -----------------------------------------------------------


@dataclass(frozen=True)
class AttemptSummary:
    """The end screen of an attempt: score, what was missed, when its questions come back."""

    attempt: Attempt
    items: list[AttemptItem]
    correct: int
    answered: int
    score: float | None  # score_of: None when nothing was answered
    missed: list[AttemptItem]  # wrong or unanswered, in position order
    next_review: dt.datetime | None  # the earliest due date among this attempt's questions

    @property
    def total(self) -> int:
        return len(self.items)

    @property
    def skipped(self) -> list[AttemptItem]:
        """The items left unanswered: their answers are shown only on request (``attempt_show_skipped``)."""
        return [item for item in self.items if not item.is_answered]

    @property
    def skipped_shown(self) -> bool:
        """The learner asked to see the skipped items' answers (each was recorded as Again then)."""
        return self.attempt.skipped_shown_at is not None


def attempt_summary(*, user: User, attempt: Attempt) -> AttemptSummary:
    """Score, what was missed and when the attempt's questions come back for review."""
    items = attempt_items(attempt=attempt)
    return AttemptSummary(
        attempt=attempt,
        items=items,
        correct=sum(1 for item in items if item.is_correct),
        answered=sum(1 for item in items if item.is_answered),
        score=score_of(scores=[item.score for item in items]),
        missed=[item for item in items if not item.is_correct],
        next_review=next_review_of(user=user, question_ids=[item.question_id for item in items]),
    )


@dataclass(frozen=True)
class AttemptLine:
    """One row of a lesson page's "your attempts" table."""

    attempt: Attempt
    answered: int
    total: int
    correct: int
    score: float | None  # score_of

    @property
    def finished(self) -> bool:
        return self.attempt.finished_at is not None


_SCORE_FIELDS = ("id", "attempt_id", "score", "is_correct", "answered_at")


def lesson_attempts(*, user: User, lesson: Lesson) -> list[AttemptLine]:
    """The learner's attempts at one lesson, newest first, with their scores (two queries)."""
    attempts = (
        Attempt.objects.owned_by(user)
        .filter(lesson=lesson)
        .prefetch_related(Prefetch("items", queryset=AttemptItem.objects.only(*_SCORE_FIELDS)))
        .order_by("-number")
    )
    lines = []
    for attempt in attempts:
        items = list(attempt.items.all())
        lines.append(
            AttemptLine(
                attempt=attempt,
                answered=sum(1 for i in items if i.answered_at is not None),
                total=len(items),
                correct=sum(1 for i in items if i.is_correct),
                score=score_of(scores=[i.score for i in items]),
            )
        )
    return lines


# --- progress per lesson (the dashboard and the lesson list) ----------------------------------------


@dataclass(frozen=True)
class LessonProgress:
    lesson: Lesson
    total: int  # published questions
    studied: int  # with a review card
    due: int  # due today (not suspended)
    mastered: int  # stability ≥ MASTERY_STABILITY_DAYS
    best_score: float | None  # best attempt score (finished or not), 0..1; None before any answer

    @property
    def mastery(self) -> float:
        return self.mastered / self.total if self.total else 0.0

    @property
    def studied_fraction(self) -> float:
        return self.studied / self.total if self.total else 0.0


def _item_scores_query(_key: object, *, user_id: int) -> QuerySet[Any]:
    # a missed-items attempt holds only what an earlier one got wrong: its score says nothing about the lesson
    return (
        AttemptItem.objects.owned_by(user_id)
        .exclude(attempt__mode=Attempt.Mode.MISSED)
        .values_list("attempt_id", "attempt__lesson_id", "score")
    )


#: every dashboard reads it: compiled once per process (issue 16)
_ITEM_SCORES = CompiledRead(_item_scores_query, {"user_id": int})


def best_scores(*, user: User) -> dict[int, float]:
    """Per lesson id, the learner's best attempt score (attempts without an answer have none)."""
    return together(best_scores_later(user=user))[0]


def best_scores_later(*, user: User) -> Later[dict[int, float]]:
    """``best_scores``, to run ``together`` with a page's other reads."""

    def finish(rows: list[tuple[Any, ...]]) -> dict[int, float]:
        # from the item scores alone (narrow rows, one query, no JSON columns)
        item_scores: dict[int, list[float | None]] = defaultdict(list)
        attempt_lesson: dict[int, int] = {}
        for attempt_id, lesson_id, score in rows:
            item_scores[attempt_id].append(score)
            attempt_lesson[attempt_id] = lesson_id
        best: dict[int, float] = {}
        for attempt_id, scores in item_scores.items():
            score = score_of(scores=scores)
            if score is not None:
                lesson_id = attempt_lesson[attempt_id]
                best[lesson_id] = max(best.get(lesson_id, 0.0), score)
        return best

    return _ITEM_SCORES.later(None, finish, user_id=user.pk)


def lesson_progress(
    *,
    user: User,
    now: dt.datetime | None = None,
    profile: LearnerProfile | None = None,
    counts: dict[int, Counter] | None = None,
) -> list[LessonProgress]:
    """``counts``: ``lesson_card_counts`` (or ``card_summary(...).per_lesson``) when the caller has it."""
    if counts is None:
        now = now or timezone.now()
        profile = profile if profile is not None else profile_for(user=user)
        counts = lesson_card_counts(user=user, now=now, profile=profile)
    lessons, best = together(lesson_heads_published_later(), best_scores_later(user=user))
    return _progress(lessons, best, counts)


def _progress(lessons: list[Lesson], best: dict[int, float], counts: dict[int, Counter]) -> list[LessonProgress]:
    return [
        LessonProgress(
            lesson=lesson,
            total=lesson.question_count,  # type: ignore[attr-defined]  # annotated by with_question_count()
            studied=counts[lesson.pk]["studied"],
            due=counts[lesson.pk]["due"],
            mastered=counts[lesson.pk]["mastered"],
            best_score=best.get(lesson.pk),
        )
        for lesson in lessons
    ]


@dataclass(frozen=True)
class DashboardReads:
    """What the dashboard reads: the card summary with a forecast, the recent logs, the progress per lesson."""

    summary: CardSummary
    recent: RecentLogs
    progress: list[LessonProgress]


def dashboard_reads(*, user: User, profile: LearnerProfile, now: dt.datetime, forecast_days: int) -> DashboardReads:
    """``card_summary(forecast_days=...)``, ``recent_logs`` (the heatmap's year) and ``lesson_progress``: four
    statements in one round trip (``together``), each compiled once per process."""
    summary, recent, lessons, best = together(
        card_summary_later(user=user, profile=profile, now=now, forecast_days=forecast_days),
        recent_logs_later(user=user, profile=profile, now=now, days=RECENT_LOG_DAYS),
        lesson_heads_published_later(),
        best_scores_later(user=user),
    )
    return DashboardReads(summary=summary, recent=recent, progress=_progress(lessons, best, summary.per_lesson))


@functools.cache
def seeded_item_models() -> tuple[type[LockedAnswer], ...]:
    """Every kind of item that shows a learner a numeric variant by its seed: practice's attempt items and the
    items of domains above practice (the offline packs' PackItem), found through Django's app registry — each a
    LockedAnswer with a ``variant_seed`` whose queryset has ``owned_by(user)`` — so practice imports none of them."""
    return tuple(
        model
        for model in apps.get_models()
        if issubclass(model, LockedAnswer) and any(f.name == "variant_seed" for f in model._meta.get_fields())
    )


def seen_variant_seeds(*, user: User, questions: Iterable[Question]) -> dict[int, set[int]]:
    """THE numeric variant seeds this learner has been shown, per question: in attempts and in review packs
    alike, so neither an attempt nor a pack repeats a seed the other showed. One query per item model."""
    ids = [q.pk for q in questions if q.kind == Question.Kind.NUMERIC]
    seeds: dict[int, set[int]] = defaultdict(set)
    if not ids:
        return seeds
    for model in seeded_item_models():
        rows = model.objects.owned_by(user).filter(question_id__in=ids, variant_seed__isnull=False)  # type: ignore[attr-defined]
        for question_id, seed in rows.values_list("question_id", "variant_seed"):
            if seed is not None:  # excluded by the filter; the column is nullable
                seeds[question_id].add(seed)
    return seeds
