"""Item statistics of one lesson, read from learners' first study attempts (issue 27, item 5).

Which answers count: each learner's first study-mode attempt at the lesson, when it was finished (a later
attempt has seen the answers; a review or missed-items attempt is not a first encounter), and the anonymous
copies of deleted learners' first attempts (``AnonymousAnswer``). A skipped item counts as wrong. Numeric
questions are kept apart per template version (a new version is a new item). Facility is also given per
question version (the version each attempt item pinned; anonymous copies keep none), and a clear change between
the two newest versions learners saw is flagged (``_version_flag``). The database returns columns, one pass over
the attempt items (on PostgreSQL as packed float8 columns, ``_float_table``) read from covering indexes alone
(``attempt_item_statistics``, ``review_card_question``); numpy computes every statistic over them
(quizzes.item_statistics.measures). Its cost at scale (every lesson seeded, 280,000 counted items in the largest):
bench/item_statistics.py, figures in bench/README.md.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, TypedDict

import numpy as np
from django.core.exceptions import EmptyResultSet
from django.db import connection
from django.db.models import Avg, Count, Exists, FloatField, Func, IntegerField, OuterRef, QuerySet, Sum
from django.db.models.functions import Cast
from django.utils.translation import gettext as _

from attention_engine import misconceptions
from quizzes.content.models import Lesson, Option, Question, QuestionVersion
from quizzes.item_statistics import measures
from quizzes.practice.models import AnonymousAnswer, Attempt, AttemptItem
from quizzes.reviews.models import ReviewCard

#: The flags' thresholds (issue 27): too easy, too hard, does not separate, a distractor nobody picks.
FACILITY_HIGH, FACILITY_LOW = 0.9, 0.2
DISCRIMINATION_LOW = 0.2
RARE_DISTRACTOR = 0.05
#: "A change in facility after an edit": the two newest versions learners saw differ by at least this much, each
#: seen in at least VERSION_MIN_ATTEMPTS counted attempts, and the difference is clear of chance (two-proportion
#: z-test at the 5 % level: with 30 attempts each a 0.15 step alone is about one standard error).
VERSION_FACILITY_CHANGE = 0.15
VERSION_MIN_ATTEMPTS = 30
VERSION_Z = 1.96


@dataclass(frozen=True)
class Flag:
    code: str  # easy, hard, low_discrimination, negative_discrimination, rare_distractor, top_third_prefers
    text: str


class OptionMeta(TypedDict):
    key: str
    text: str
    misconception: str
    is_key: bool
    retired: bool


@dataclass(frozen=True)
class OptionStat:
    """One answer the learners could pick: a choice option, or a numeric item's named misconception."""

    key: str
    text: str
    misconception: str  # what picking it says: the option's feedback, or the misconception's title
    is_key: bool
    retired: bool
    picks: int
    rate: float  # share of the item's attempts (skips included)
    top_rate: float | None  # share among the top third of attempts


@dataclass(frozen=True)
class VersionStat:
    """One question version's facility, over the counted attempt items that pinned it."""

    number: int
    attempts: int
    facility: float


@dataclass
class ItemStat:
    question_id: int
    key: str
    kind: str
    template_version: int | None
    attempts: int
    facility: float
    discrimination: float | None  # None: undefined (nobody or everybody right, or no spread in the rest)
    median_seconds: float | None
    options: list[OptionStat]
    cards: int = 0
    lapse_rate: float | None = None
    mean_difficulty: float | None = None
    flags: list[Flag] = field(default_factory=list)
    versions: list[VersionStat] = field(default_factory=list)  # the question's versions seen, oldest first


@dataclass
class LessonStats:
    lesson: Lesson
    attempts: int  # first study attempts counted (deleted learners' included)
    complete_attempts: int  # of those, the ones that answered every item (KR-20's)
    kr20: float | None
    items: list[ItemStat]


def first_study_attempts(*, lesson: Lesson) -> QuerySet[Attempt]:
    """The lesson's finished attempts that are their learner's first study-mode attempt at it.

    "No earlier study attempt" (NOT EXISTS) rather than "number = the smallest": PostgreSQL answers it with one
    anti-join instead of a subquery per attempt.
    """
    earlier = Attempt.objects.filter(
        user=OuterRef("user"), lesson=lesson, mode=Attempt.Mode.STUDY, number__lt=OuterRef("number")
    )
    return (
        Attempt.objects.filter(lesson=lesson, mode=Attempt.Mode.STUDY, finished_at__isnull=False)
        .exclude(Exists(earlier))
        .order_by()
    )


def _as_columns(rows: list[tuple[object, ...]], width: int) -> list[list]:
    """values_list rows → one list per column (empty lists when there are no rows)."""
    return [list(column) for column in zip(*rows, strict=True)] if rows else [[] for _ in range(width)]


def _with_none_as(column: list | np.ndarray, missing: float) -> np.ndarray:
    """A column of numbers (or booleans) with NULLs, as floats with ``missing`` for each NULL."""
    values = np.array(column, dtype=np.float64)  # None → nan
    return np.where(np.isnan(values), missing, values)


class EpochSeconds(Func):
    """A timestamp as seconds since 1970 (a float; NULL stays NULL). PostgreSQL's ``date_part`` is a float8,
    where ``EXTRACT`` computes a numeric: over 180,000 items ≈ 0.14 s more of the database's CPU."""

    output_field = FloatField()
    template = "date_part('epoch', %(expressions)s)"

    def as_sqlite(self, compiler: Any, connection: Any, **extra: Any) -> Any:
        return self.as_sql(compiler, connection, template="((julianday(%(expressions)s) - 2440587.5) * 86400.0)")


def _float_table(rows: QuerySet, width: int) -> np.ndarray:
    """A values_list of ``width`` numeric columns as a (rows, width) float array, NULL → NaN.

    On PostgreSQL each column comes back as one bytea of big-endian float8s (``float8send`` over the rows, in
    one aggregate, so the columns keep one row order), which numpy reads as it is: no Python object per value.
    Over 180,000 items that is ≈ 0.02 s of CPU here against ≈ 0.2 s for float8 arrays and ≈ 0.3 s for tuples,
    and less of PostgreSQL's too (bench/README.md, "Item statistics"). It leans on Django's compiler and psycopg's
    cursor: tests/quizzes/item_statistics/test_float_table.py compares what it returns with the ORM's rows.
    """
    if connection.vendor != "postgresql":
        return np.array(list(rows), dtype=np.float64).reshape(-1, width)
    try:
        sql, params = rows.query.get_compiler(using=rows.db).as_sql()
    except EmptyResultSet:  # a queryset that can match nothing (``none()``, ``__in=[]``) has no SQL
        return np.zeros((0, width))
    names = ", ".join(f"c{i}" for i in range(width))
    columns = ", ".join(f"string_agg(float8send(COALESCE(c{i}::float8, 'NaN')), ''::bytea)" for i in range(width))
    with connection.cursor() as cursor:
        raw = cursor.cursor  # psycopg's own cursor: Django's wrapper cannot ask for binary results
        raw.execute(f"SELECT {columns} FROM ({sql}) AS t({names})", params, binary=True)
        found = raw.fetchone()
    if found is None or found[0] is None:
        return np.zeros((0, width))
    return np.stack([np.frombuffer(column, dtype=">f8") for column in found], axis=1).astype(np.float64)


def _columns(lesson: Lesson) -> dict[str, np.ndarray]:
    """One entry per item of a counted attempt: attempt (0..A-1), question, template version, version, correct,
    option, seconds since the attempt started (NaN unless answered) or, for an anonymous answer, its own duration.

    One pass over the attempt items, numbers only (the misconceptions are read by ``_misconceptions``)."""
    items = AttemptItem.objects.filter(attempt__in=first_study_attempts(lesson=lesson)).order_by()
    table = _float_table(
        items.values_list(
            "pk",
            "attempt_id",
            "question_id",
            "template_version",
            Cast("is_correct", IntegerField()),
            "chosen_option_id",
            "version_id",
            EpochSeconds("answered_at"),
        ),
        8,
    )
    pk, attempt, question, version, correct, option, pinned, answered_at = table.T
    anon = AnonymousAnswer.objects.filter(question__lesson=lesson).values_list(
        "sitting", "question_id", "template_version", "is_correct", "chosen_option_id", "duration_ms"
    )
    sitting, a_question, a_version, a_correct, a_option, a_ms = _as_columns(list(anon), 6)
    ids, attempt_index = measures.dense_codes(attempt.astype(np.int64))
    # Seconds since the attempt started: the start read per attempt, not joined onto every item.
    started = _float_table(first_study_attempts(lesson=lesson).values_list("pk", EpochSeconds("started_at")), 2)
    order = np.argsort(started[:, 0])
    start_of = started[order, 1][np.searchsorted(started[order, 0], ids)] if ids.size else np.zeros(0)  # (A,)
    offsets = answered_at - start_of[attempt_index]  # (rows,) NaN for a skipped item
    sittings, sitting_index = np.unique(np.array([str(s) for s in sitting], dtype=object), return_inverse=True)
    a_correct_values = _with_none_as(a_correct, np.nan)
    return {
        "pk": pk.astype(np.int64),
        "attempt": np.concatenate((attempt_index, sitting_index + ids.size)).astype(np.int64),
        "attempt_id": np.concatenate((ids, -1 - np.arange(sittings.size))).astype(np.int64),
        "question": np.concatenate((question, np.array(a_question, dtype=np.float64))).astype(np.int64),
        "template_version": _with_none_as(np.concatenate((version, _with_none_as(a_version, np.nan))), -1).astype(
            np.int64
        ),
        "version": np.concatenate((_with_none_as(pinned, -1), np.full(len(a_option), -1.0))).astype(np.int64),
        "correct": _with_none_as(np.concatenate((correct, a_correct_values)), 0.0),  # a skip is wrong
        "answered": np.concatenate((~np.isnan(offsets), ~np.isnan(a_correct_values))),
        "option": _with_none_as(np.concatenate((option, _with_none_as(a_option, np.nan))), -1).astype(np.int64),
        "offset": offsets,
        "anon_seconds": _with_none_as(a_ms, np.nan) / 1000.0,
    }


def _misconceptions(lesson: Lesson, c: dict[str, np.ndarray], numeric: list[int]) -> np.ndarray:
    """Per entry of ``c``: the misconception id a wrong numeric answer matched ("" for none).

    Read for the lesson's numeric questions only, from the column the database copies out of each item's result
    (in the covering index, so the item's JSON is never read)."""
    mid = np.full(c["question"].size, "", dtype=object)  # (rows,)
    if not numeric:
        return mid
    named = (
        AttemptItem.objects.filter(
            attempt__in=first_study_attempts(lesson=lesson), question_id__in=numeric, misconception__isnull=False
        )
        .order_by()
        .values_list("pk", "misconception")
    )
    named_pk, named_id = _as_columns(list(named), 2)
    if named_pk:
        pk = c["pk"]
        order = np.argsort(pk)
        mid[order[np.searchsorted(pk, np.array(named_pk), sorter=order)]] = named_id
    return mid


def _answer_seconds(c: dict[str, np.ndarray], n_attempt_rows: int) -> np.ndarray:
    """Time to answer each item: since the attempt's previous answer (or its start). Skips: NaN."""
    off = c["offset"]
    att = c["attempt"][:n_attempt_rows]
    order = measures.group_order(att, off)  # by attempt, then answer time (NaN last)
    sorted_off, sorted_att = off[order], att[order]
    previous = np.concatenate(([0.0], sorted_off[:-1])) if off.size else off
    same = np.concatenate(([False], sorted_att[1:] == sorted_att[:-1])) if off.size else np.zeros(0, dtype=bool)
    gap = sorted_off - np.where(same & ~np.isnan(previous), previous, 0.0)
    seconds = np.empty_like(off)
    seconds[order] = gap
    return np.concatenate((seconds, c["anon_seconds"]))


def lesson_statistics(*, lesson: Lesson) -> LessonStats:
    """Every item's statistics and flags for one lesson, and the lesson's KR-20."""
    c = _columns(lesson)
    n_rows = c["question"].size
    n_attempt_rows = c["offset"].size
    n_attempts = c["attempt_id"].size
    # One integer per (question, template version), numbered densely (no sort; axis=0 on pairs sorts raw bytes).
    span = int(c["template_version"].max()) + 2 if n_rows else 1
    codes, group = measures.dense_codes(c["question"] * span + c["template_version"] + 1)
    groups = np.stack((codes // span, codes % span - 1), axis=1)  # (G, 2) question id, version (-1: none)
    group = group.reshape(-1).astype(np.int64)
    n_groups = len(groups)
    correct, attempt = c["correct"], c["attempt"]

    counts = np.bincount(group, minlength=n_groups)
    facility = np.bincount(group, weights=correct, minlength=n_groups) / np.maximum(counts, 1)
    discrimination = measures.grouped_rest_correlation(group, attempt, correct, n_groups)
    medians = measures.grouped_median(group, _answer_seconds(c, n_attempt_rows), n_groups)
    totals = measures.attempt_totals(attempt, correct, n_attempts)
    top = measures.top_third(totals, c["attempt_id"])[attempt] if n_rows else np.zeros(0, dtype=bool)
    top_counts = np.bincount(group, weights=top.astype(np.float64), minlength=n_groups)
    top_facility = np.bincount(group, weights=correct * top, minlength=n_groups) / np.maximum(top_counts, 1)

    questions = {q.pk: q for q in Question.objects.filter(pk__in=[int(g[0]) for g in groups]).order_by("order", "key")}
    numeric = [qid for qid, q in questions.items() if q.kind != Question.Kind.CHOICE]
    c["misconception"] = _misconceptions(lesson, c, numeric)
    options = _option_picks(c, groups, group, top.astype(np.float64), questions)
    cards = _card_figures(list(questions))
    items = []
    for g, (qid, version) in enumerate(groups.tolist()):
        question = questions[qid]
        n, n_top = int(counts[g]), float(top_counts[g])
        stats = [
            OptionStat(**meta, picks=picks, rate=picks / n, top_rate=(top_picks / n_top) if n_top else None)
            for meta, picks, top_picks in options.get(g, [])
        ]
        item = ItemStat(
            question_id=qid,
            key=question.key,
            kind=question.kind,
            template_version=None if version < 0 else version,
            attempts=n,
            facility=float(facility[g]),
            discrimination=None if np.isnan(discrimination[g]) else float(discrimination[g]),
            median_seconds=None if np.isnan(medians[g]) else float(medians[g]),
            options=stats,
            **cards.get(qid, NO_CARDS),
        )
        item.flags = _flags(item, float(top_facility[g]) if n_top else None, question.kind)
        items.append(item)
    position = {qid: i for i, qid in enumerate(questions)}
    items.sort(key=lambda i: (position[i.question_id], i.template_version or 0))
    last_of_question = {item.question_id: item for item in items}  # a question's newest template version
    for qid, versions in _version_stats(c).items():
        item = last_of_question[qid]
        item.versions = versions
        if flag := _version_flag(versions):
            item.flags.append(flag)
    complete, reliability = _kr20(c, n_attempts)
    return LessonStats(lesson=lesson, attempts=n_attempts, complete_attempts=complete, kr20=reliability, items=items)


def _option_picks(
    c: dict[str, np.ndarray], groups: np.ndarray, group: np.ndarray, top: np.ndarray, questions: dict[int, Question]
) -> dict[int, list[tuple[OptionMeta, int, int]]]:
    """Per group: each option (choice) or named misconception (numeric) with its picks overall and in the top third."""
    out: dict[int, list[tuple[OptionMeta, int, int]]] = {}
    chosen = c["option"] >= 0
    if chosen.any():
        span = int(c["option"].max()) + 1
        found, inverse = measures.dense_codes(group[chosen] * span + c["option"][chosen])
        picks = np.bincount(inverse.reshape(-1), minlength=len(found))
        top_picks = np.bincount(inverse.reshape(-1), weights=top[chosen], minlength=len(found))
        by_group_option = {
            (int(code // span), int(code % span)): (int(p), int(t))
            for code, p, t in zip(found, picks, top_picks, strict=True)
        }
    else:
        by_group_option = {}
    group_question = dict(enumerate(groups[:, 0].tolist()))
    choice_ids = [qid for qid in set(group_question.values()) if questions[qid].kind == Question.Kind.CHOICE]
    all_options: dict[int, list[Option]] = {}
    for option in Option.objects.filter(question_id__in=choice_ids).order_by("order", "key"):
        all_options.setdefault(option.question_id, []).append(option)
    for g, qid in group_question.items():
        for option in all_options.get(qid, []):
            p, t = by_group_option.get((g, option.pk), (0, 0))
            if option.retired and not p:
                continue  # retired before anyone counted here picked it: not part of this item
            meta: OptionMeta = {"key": option.key, "text": option.text, "misconception": option.feedback,
                    "is_key": option.is_correct, "retired": option.retired}  # fmt: skip
            out.setdefault(g, []).append((meta, p, t))
    named = c["misconception"] != ""
    if named.any():
        keys = np.array(
            [f"{g}|{m}" for g, m in zip(group[named], c["misconception"][named], strict=True)], dtype=object
        )
        found_m, inverse_m = np.unique(keys, return_inverse=True)
        picks_m = np.bincount(inverse_m, minlength=len(found_m))
        top_m = np.bincount(inverse_m, weights=top[named], minlength=len(found_m))
        for key, p, t in zip(found_m.tolist(), picks_m.tolist(), top_m.tolist(), strict=True):
            g_text, mid = key.split("|", 1)
            if questions[group_question[int(g_text)]].kind == Question.Kind.CHOICE:
                continue
            title = (misconceptions.describe(mid) or {}).get("title_en", mid)
            meta = {"key": mid, "text": title, "misconception": title, "is_key": False, "retired": False}
            out.setdefault(int(g_text), []).append((meta, int(p), int(t)))
    return out


class CardFigures(TypedDict):
    cards: int
    lapse_rate: float | None
    mean_difficulty: float | None


NO_CARDS: CardFigures = {"cards": 0, "lapse_rate": None, "mean_difficulty": None}


def _card_figures(question_ids: list[int]) -> dict[int, CardFigures]:
    """From reviews, per question: its cards, lapses per review and the cards' mean FSRS difficulty."""
    rows = (
        ReviewCard.objects.filter(question_id__in=question_ids)
        .values("question_id")
        # COUNT(*), not of the id: the sums come from the covering index alone, which holds no id.
        .annotate(n=Count("*"), lapses=Sum("lapses"), reps=Sum("reps"), difficulty=Avg("difficulty"))
        .values_list("question_id", "n", "lapses", "reps", "difficulty")
    )
    return {
        qid: {"cards": n, "lapse_rate": (lapses / reps) if reps else None, "mean_difficulty": difficulty}
        for qid, n, lapses, reps, difficulty in rows
    }


def _version_stats(c: dict[str, np.ndarray]) -> dict[int, list[VersionStat]]:
    """Per question: the facility of each version its counted items pinned, oldest first (statistics are per
    question and per version). Anonymous copies keep no version, nor do items made outside the services."""
    pinned = c["version"] >= 0
    if not pinned.any():
        return {}
    ids, which = measures.dense_codes(c["version"][pinned])
    which = which.reshape(-1)
    counts = np.bincount(which, minlength=ids.size)  # (V,)
    right = np.bincount(which, weights=c["correct"][pinned], minlength=ids.size)  # (V,)
    numbers = {
        pk: (qid, number)
        for pk, qid, number in QuestionVersion.objects.filter(pk__in=ids.tolist()).values_list(
            "pk", "question_id", "number"
        )
    }
    out: dict[int, list[VersionStat]] = {}
    for pk, n, r in zip(ids.tolist(), counts.tolist(), right.tolist(), strict=True):
        qid, number = numbers[pk]
        out.setdefault(qid, []).append(VersionStat(number=number, attempts=n, facility=r / n))
    for versions in out.values():
        versions.sort(key=lambda v: v.number)
    return out


def _version_flag(versions: list[VersionStat]) -> Flag | None:
    """The newest version seen against the one seen before it: flagged when the facility moved by at least
    VERSION_FACILITY_CHANGE, clear of chance, with VERSION_MIN_ATTEMPTS attempts on each side."""
    if len(versions) < 2:
        return None
    before, after = versions[-2], versions[-1]
    if min(before.attempts, after.attempts) < VERSION_MIN_ATTEMPTS:
        return None
    z = measures.two_proportion_z(before.facility, before.attempts, after.facility, after.attempts)
    if abs(after.facility - before.facility) < VERSION_FACILITY_CHANGE or z is None or abs(z) < VERSION_Z:
        return None
    text = _(
        "Facility changed after an edit: %(before).2f in version %(v1)s (%(n1)s attempts), "
        "%(after).2f in version %(v2)s (%(n2)s attempts)."
    ) % {"before": before.facility, "v1": before.number, "n1": before.attempts,
         "after": after.facility, "v2": after.number, "n2": after.attempts}  # fmt: skip
    return Flag("version_facility", text)


def _flags(item: ItemStat, top_facility: float | None, kind: str) -> list[Flag]:
    flags = []
    if item.facility > FACILITY_HIGH:
        flags.append(Flag("easy", _("Facility above %(t)s: almost everyone is right.") % {"t": FACILITY_HIGH}))
    if item.facility < FACILITY_LOW:
        flags.append(Flag("hard", _("Facility below %(t)s: almost everyone is wrong.") % {"t": FACILITY_LOW}))
    if item.discrimination is not None and item.discrimination < 0:
        flags.append(Flag("negative_discrimination", _("Negative discrimination: stronger learners miss it more.")))
    elif item.discrimination is not None and item.discrimination < DISCRIMINATION_LOW:
        flags.append(
            Flag(
                "low_discrimination",
                _("Discrimination below %(t)s: it barely separates learners.") % {"t": DISCRIMINATION_LOW},
            )
        )
    for option in item.options:
        if option.is_key or option.retired:
            continue
        if kind == Question.Kind.CHOICE and option.rate < RARE_DISTRACTOR:
            flags.append(Flag("rare_distractor", _("Distractor %(key)s is picked by under 5%%.") % {"key": option.key}))
        if option.top_rate is not None and top_facility is not None and option.top_rate > top_facility:
            flags.append(
                Flag(
                    "top_third_prefers", _("The top third picks %(key)s more often than the key.") % {"key": option.key}
                )
            )
    return flags


def _kr20(c: dict[str, np.ndarray], n_attempts: int) -> tuple[int, float | None]:
    """KR-20 over the attempts that answered every item, among those showing the lesson's most common question set."""
    if not c["question"].size:
        return 0, None
    attempt = c["attempt"]
    skipped = np.bincount(attempt, weights=~c["answered"], minlength=n_attempts)
    complete = skipped == 0  # (A,)
    qids, column = measures.dense_codes(c["question"])
    matrix = np.full((n_attempts, qids.size), np.nan)
    matrix[attempt, column.reshape(-1)] = c["correct"]
    shown = ~np.isnan(matrix)
    rows = np.flatnonzero(complete)
    if not rows.size:
        return 0, None
    # The question sets as bytes, one per attempt: a 1-D unique of those (axis=0 on the bools is ≈ 10× slower).
    packed = np.ascontiguousarray(np.packbits(shown[rows], axis=1))  # (n, ⌈Q/8⌉) uint8
    keys = packed.view(np.dtype((np.void, packed.shape[1]))).reshape(-1)  # (n,)
    _, first, which, sizes = np.unique(keys, return_index=True, return_inverse=True, return_counts=True)
    best = int(np.argmax(sizes))
    modal = shown[rows[first[best]]]
    chosen = rows[which.reshape(-1) == best]
    return int(chosen.size), measures.kr20(matrix[np.ix_(chosen, np.flatnonzero(modal))])
