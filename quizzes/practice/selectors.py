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
from django.db import connection
from django.db.models import F, Prefetch, QuerySet
from django.utils import timezone

from quizzes.accounts.models import LearnerProfile
from quizzes.accounts.selectors import profile_for
from quizzes.content.models import LOADED_OPTIONS, Lesson, Option, Question, QuestionVersion
from quizzes.content.selectors import lesson_heads_published_later
from quizzes.content.versions import version_question, version_question_of
from quizzes.core import rows
from quizzes.core.compiled import CompiledRead, Later, together
from quizzes.core.rows import quote
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


@functools.cache
def _item_sql(_vendor: str) -> str:  # the quoting and the JSON functions are the backend's
    items, attempts, questions, versions = (
        quote(model._meta.db_table) for model in (AttemptItem, Attempt, Question, QuestionVersion)
    )
    options = rows.json_rows(
        Option,
        "o",
        source=f"FROM {quote(Option._meta.db_table)} o WHERE o.question_id = q.id",
        order_by=f"o.{quote('order')}, o.{quote('key')}",  # Option's ordering, within one question
    )
    return (
        f"SELECT {rows.select_list(AttemptItem, 'i')}, {rows.select_list(Attempt, 'a')}, "
        f"{rows.select_list(Question, 'q')}, {options}, v.digest FROM {items} i "
        f"JOIN {attempts} a ON a.id = i.attempt_id JOIN {questions} q ON q.id = i.question_id "
        f"LEFT JOIN {versions} v ON v.id = i.version_id "
        f"WHERE i.id = %s AND a.user_id = %s"
    )


def item_for(*, user: User, item_id: int) -> AttemptItem | None:
    """The learner's item with its attempt, and the question version it showed with its options
    (``question.loaded_options()``; an item without a version: the question as it is).

    One plain statement (issue 16: the answer POST): the item joined to its attempt, question and version's digest,
    the options as a JSON array beside them, attached as ``Prefetch(to_attr=...)`` would attach them; the version's
    question is built once per process (quizzes.content.versions). Kept for its measurement (issue 26; bench/README.md,
    "SQL fast paths", ``bench/sql_paths.py --only "item read"``): 1.3 ms of CPU against 7.0 ms for ``item_for_orm``'s
    ``select_related`` + ``prefetch_related`` and its second round trip; tests/quizzes/core/test_fast_paths.py
    compares the two.
    """
    if not rows.pk_in_range(AttemptItem, item_id):
        return None
    if not settings.SQL_FAST_PATHS:
        return item_for_orm(user=user, item_id=item_id)
    with connection.cursor() as cursor:
        cursor.execute(_item_sql(connection.vendor), [item_id, user.pk])
        row = cursor.fetchone()
    if row is None:
        return None
    cut, end = rows.width(AttemptItem), rows.width(AttemptItem) + rows.width(Attempt)
    item = rows.instance_from_row(AttemptItem, row[:cut])
    item.attempt = rows.instance_from_row(Attempt, row[cut:end])
    item.question = question = rows.instance_from_row(Question, row[end:-2])
    # where Prefetch("question__options", to_attr=LOADED_OPTIONS) would put them (Question.loaded_options)
    setattr(question, LOADED_OPTIONS, rows.instances_from_json(Option, row[-2]))
    if item.version_id is not None:  # what the item showed (a dict lookup once the process built the version)
        item.question = version_question_of(version_id=item.version_id, digest=row[-1])
    return item


def item_for_orm(*, user: User, item_id: int) -> AttemptItem | None:
    """``item_for`` by the ORM: the query its statement replaces, scoped by ``AttemptItem.objects.owned_by``
    (tests/quizzes/core/test_fast_paths.py compares the two; ``SQL_FAST_PATHS=false`` runs this one)."""
    options = Prefetch("question__options", queryset=Option.objects.order_by("order", "key"), to_attr=LOADED_OPTIONS)
    found = (
        AttemptItem.objects.owned_by(user)
        .select_related("attempt", "question")
        .prefetch_related(options)
        .annotate(version_digest=F("version__digest"))  # the digest only, as the statement reads it
        .filter(pk=item_id)
        .first()
    )
    if found is not None and found.version_id is not None:
        found.question = version_question_of(version_id=found.version_id, digest=found.version_digest)
    return found


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
