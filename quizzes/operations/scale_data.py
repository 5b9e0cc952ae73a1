"""Data at scale for the benchmarks (PostgreSQL): `manage.py seed_scale --learners N --cards M [--seed S] [--wipe]`.

Fills the database with N learners ("scale-000001" …, password "scale-pass"), each with a learner
profile (time zones from a varied list), M review cards with realistic FSRS states (learning /
review / relearning; stability and difficulty spread like a real collection; ``last_review`` in the
past and ``due`` spread over past and future, so ≈ 13 % of a learner's cards are due today), one
review log per scheduled review (``reps`` logs per card, the first one ``role=first``) and a finished
study attempt of each published lesson (every learner the first lesson, a falling share the later ones), every
quiz kind answered from a Rasch model (``rasch_answers``: planted difficulties and one planted bad distractor per
lesson, for the item statistics; the answers graded by the real grader, quizzes.operations.scale_answers).

Learner k's profile, cards and logs depend only on (seed, k): learner 1 of a 100-learner run is the
same learner as learner 1 of a 10,000-learner run, which is what the scaling benchmark compares.

Rows go in with PostgreSQL ``COPY … FROM STDIN`` (psycopg 3), ids reserved from the sequences up
front. Content is needed first (``load_lessons``); when the published questions are fewer than M,
a published lesson "scale-bench" with generated choice questions (4 options each) fills the pool to
M + 10 questions, so every learner also has a few new questions left.

A second run refuses while scale learners exist; ``--wipe`` deletes the previous run's learners
and everything they own first (content is kept). Prints a timing per step.
"""

from __future__ import annotations

import datetime as dt
import json
import math
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np
from django.contrib.auth.hashers import make_password
from django.db import connection, transaction
from django.utils import timezone

from quizzes.accounts.models import CHECK_SOON
from quizzes.content.models import Lesson, Option, Question
from quizzes.content.selectors import lesson_quiz_questions
from quizzes.content.versions import versions_current
from quizzes.operations.scale_answers import QuestionAnswers, question_answers
from quizzes.reviews import scheduling
from quizzes.reviews.signals import content_rows_written

USERNAME_PREFIX = "scale-"
PASSWORD = "scale-pass"
SCALE_LESSON_KEY = "scale-bench"
EXTRA_NEW_QUESTIONS = 10
#: Every seeded learner's day rollover hour and desired retention (the model's defaults).
ROLLOVER_HOUR, RETENTION = 4, 0.9
TIME_ZONES = (
    "UTC",
    "Asia/Shanghai",
    "Asia/Tokyo",
    "Asia/Kolkata",
    "Europe/Berlin",
    "Europe/London",
    "America/New_York",
    "America/Los_Angeles",
    "America/Sao_Paulo",
    "Australia/Sydney",
    "Pacific/Auckland",
    "Africa/Cairo",
)
DAY = 86400.0
#: The Rasch model of the seeded attempts: planted difficulties (logits) and the planted bad distractor's weight.
RASCH_DIFFICULTIES = (-1.5, 1.5)
BAD_DISTRACTOR_WEIGHT = 0.05
#: The share of learners who took lesson k is LESSON_TAKE_RATE**k (every learner took the first lesson).
LESSON_TAKE_RATE = 0.8


def _reserve_ids(table: str, count: int) -> int:
    """Reserve ``count`` ids of ``table``'s identity sequence; returns the first one."""
    with connection.cursor() as cursor:
        cursor.execute(f"LOCK TABLE {table} IN SHARE ROW EXCLUSIVE MODE")
        cursor.execute("SELECT pg_get_serial_sequence(%s, 'id')", [table])
        (sequence,) = cursor.fetchone()
        cursor.execute(f"SELECT COALESCE(MAX(id), 0) FROM {table}")
        (max_id,) = cursor.fetchone()
        cursor.execute(f"SELECT last_value, is_called FROM {sequence}")
        last, called = cursor.fetchone()
        first = max(max_id, last if called else last - 1) + 1
        cursor.execute("SELECT setval(%s, %s, true)", [sequence, first + count - 1])
    return first


def _copy(table: str, columns: tuple[str, ...], rows: Iterator[tuple]) -> int:
    """COPY rows into table (text format; psycopg adapts dates, None → NULL). Returns the row count."""
    count = 0
    with connection.cursor() as cursor:
        raw = cursor.cursor  # the psycopg 3 cursor under Django's wrapper
        with raw.copy(f"COPY {table} ({', '.join(columns)}) FROM STDIN") as copy:
            for row in rows:
                copy.write_row(row)
                count += 1
    return count


class ScaleSeedError(Exception):
    """The run cannot start (wrong database, bad sizes, a previous run, no content); nothing was written."""


class ScaleSeeder:
    """One seeding run; ``log`` gets a line per step (the command passes its stdout)."""

    def __init__(self, log: Callable[[str], object]) -> None:
        self.log = log

    # --- entry point ------------------------------------------------------------------------

    def run(self, *, learners: int, cards: int, seed: int, wipe: bool, attempts: bool = True) -> None:
        if connection.vendor != "postgresql":
            raise ScaleSeedError("seed_scale needs PostgreSQL (DATABASE_URL=postgres://…): it loads rows with COPY.")
        if learners < 1 or cards < 1:
            raise ScaleSeedError("--learners and --cards must be at least 1.")
        self.t0 = time.perf_counter()
        self.last = self.t0
        existing = self._scale_user_count()
        if existing and not wipe:
            raise ScaleSeedError(
                f"{existing} scale learners ({USERNAME_PREFIX}*) exist from a previous run; "
                "pass --wipe to delete them (and everything they own) first."
            )
        if existing:
            self._wipe()
            self._step(f"wiped the previous run ({existing} learners)")
        if not Lesson.objects.published().exists():
            raise ScaleSeedError("No published lessons: run `manage.py load_lessons` first.")
        now = timezone.now().replace(microsecond=0)
        with transaction.atomic():
            pool = self._question_pool(cards, now)
            self._step(f"question pool: {len(pool)} published questions")
            user_ids = self._users(learners, now)
            self._step(f"{learners:,} learners + profiles")
            n_cards, n_logs = self._cards_and_logs(user_ids, pool, cards, seed, now)
            self._step(f"{n_cards:,} review cards + {n_logs:,} review logs")
            if attempts:  # the reminder benchmark needs none (and at 1M learners they are most of the time)
                n_attempts, n_items = self._attempts(user_ids, seed, now)
                self._step(f"{n_attempts:,} attempts + {n_items:,} answered items")
        # VACUUM as well on PostgreSQL: what autovacuum would do next on a server (and this machine's PostgreSQL
        # runs without it). Straight after COPY no row is marked visible to all, so the first reads of every page
        # would set hint bits and miss index-only scans: benchmarks would measure the seed, not the app. The lessons'
        # tables too: load_lessons filled them and, without autovacuum, nothing gave the planner their sizes (it
        # guessed 40 questions for 110 and probed the learner's cards once per question: the card summary 0.67 ms,
        # 0.41 ms with statistics).
        command = "VACUUM (ANALYZE)" if connection.vendor == "postgresql" else "ANALYZE"
        with connection.cursor() as cursor:
            for table in ("auth_user", "quizzes_learnerprofile", "quizzes_reviewcard", "quizzes_reviewlog",
                          "quizzes_attempt", "quizzes_attemptitem", "quizzes_lesson", "quizzes_question",
                          "quizzes_option"):  # fmt: skip
                cursor.execute(f"{command} {table}")
        self._step(command)
        content_rows_written.send(sender=Question)  # COPY sends none: no cached queue outlives the reseed
        self.log(f"done in {time.perf_counter() - self.t0:.1f} s (password of every learner: {PASSWORD})")

    def _step(self, message: str) -> None:
        now = time.perf_counter()
        self.log(f"{now - self.last:8.1f} s  {message}")
        self.last = now

    # --- previous runs -----------------------------------------------------------------------

    def _scale_user_count(self) -> int:
        with connection.cursor() as cursor:
            cursor.execute("SELECT count(*) FROM auth_user WHERE username LIKE %s", [USERNAME_PREFIX + "%"])
            return cursor.fetchone()[0]

    def _wipe(self) -> None:
        """Delete scale learners and what they own, table by table (a Django cascade would load 1M rows)."""
        users = "SELECT id FROM auth_user WHERE username LIKE %s"
        owned = [
            "quizzes_reviewlog",
            "quizzes_reviewcard",
            "quizzes_idempotencykey",
            "quizzes_reminderdelivery",
            "quizzes_learnerprofile",
            "quizzes_usernameskeleton",
            "quizzes_browsersession",
            "quizzes_device",
            "knox_authtoken",
        ]
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute("SELECT to_regclass('quizzes_devicetoken') IS NOT NULL")
            if cursor.fetchone()[0]:
                owned.append("quizzes_devicetoken")
            for table in owned:
                cursor.execute(f"DELETE FROM {table} WHERE user_id IN ({users})", [USERNAME_PREFIX + "%"])
            cursor.execute(
                f"DELETE FROM quizzes_attemptitem WHERE attempt_id IN "
                f"(SELECT id FROM quizzes_attempt WHERE user_id IN ({users}))",
                [USERNAME_PREFIX + "%"],
            )
            cursor.execute(f"DELETE FROM quizzes_attempt WHERE user_id IN ({users})", [USERNAME_PREFIX + "%"])
            for table in ("auth_user_groups", "auth_user_user_permissions", "django_admin_log"):
                cursor.execute(f"DELETE FROM {table} WHERE user_id IN ({users})", [USERNAME_PREFIX + "%"])
            cursor.execute("DELETE FROM auth_user WHERE username LIKE %s", [USERNAME_PREFIX + "%"])

    # --- content ----------------------------------------------------------------------------

    def _question_pool(self, cards: int, now: dt.datetime) -> list[int]:
        """Published question ids (at least cards + EXTRA_NEW_QUESTIONS), topping up the scale lesson."""
        live = Question.objects.published()
        missing = cards + EXTRA_NEW_QUESTIONS - live.count()
        if missing > 0:
            lesson, _ = Lesson.objects.get_or_create(
                key=SCALE_LESSON_KEY,
                defaults={"title": "Scale benchmark questions", "order": 1000, "summary": "seed_scale filler"},
            )
            start = lesson.questions.count()
            questions = Question.objects.bulk_create(
                [
                    Question(
                        lesson=lesson,
                        key=f"{SCALE_LESSON_KEY}-{start + i:05d}",
                        kind=Question.Kind.CHOICE,
                        prompt=f"Scale question {start + i}: which scaling keeps softmax inputs at unit variance?",
                        explanation="Dividing by $\\sqrt{d_k}$ keeps the variance of $q\\cdot k$ at 1.",
                        order=start + i,
                    )
                    for i in range(missing)
                ],
                batch_size=1000,
            )
            Option.objects.bulk_create(
                [
                    Option(question=q, key=key, text=text, is_correct=key == "a", order=n)
                    for q in questions
                    for n, (key, text) in enumerate(
                        (("a", "$1/\\sqrt{d_k}$"), ("b", "$1/d_k$"), ("c", "$\\sqrt{d_k}$"), ("d", "none"))
                    )
                ],
                batch_size=4000,
            )
            Question.objects.filter(pk__in=[q.pk for q in questions]).update(created_at=now - dt.timedelta(days=400))
        return list(live.order_by("lesson__order", "order", "id").values_list("id", flat=True))

    # --- learners ---------------------------------------------------------------------------

    def _users(self, learners: int, now: dt.datetime) -> list[int]:
        first = _reserve_ids("auth_user", learners)
        ids = list(range(first, first + learners))
        password = make_password(PASSWORD)  # one hash for all: hashing 10,000 passwords would take minutes
        joined = now - dt.timedelta(days=400)
        _copy(
            "auth_user",
            (
                "id",
                "password",
                "is_superuser",
                "username",
                "first_name",
                "last_name",
                "email",
                "is_staff",
                "is_active",
                "date_joined",
            ),
            (
                (
                    uid,
                    password,
                    False,
                    f"{USERNAME_PREFIX}{k:06d}",
                    "",
                    "",
                    f"{USERNAME_PREFIX}{k:06d}@example.com",
                    False,
                    True,
                    joined,
                )
                for k, uid in enumerate(ids, start=1)
            ),
        )
        _copy(
            "quizzes_learnerprofile",
            (
                "user_id",
                "time_zone",
                "day_rollover_hour",
                "desired_retention",
                "new_per_day",
                "reviews_per_day",
                "reminder_opt_in",
                "reminder_channel",
                "reminder_hour",
                "next_reminder_at",
            ),
            (
                # A third opt in to reminders; the first pass works out their moments (CHECK_SOON).
                (
                    uid,
                    TIME_ZONES[k % len(TIME_ZONES)],
                    ROLLOVER_HOUR,
                    RETENTION,
                    20,
                    200,
                    k % 3 == 0,
                    "email",  # the reminder benchmark measures the e-mail pass (bench/reminders.py)
                    18,
                    CHECK_SOON if k % 3 == 0 else None,
                )
                for k, uid in enumerate(ids, start=1)
            ),
        )
        return ids

    # --- cards and logs ---------------------------------------------------------------------

    @staticmethod
    def _learner_cards(k: int, seed: int, pool_size: int, cards: int) -> dict[str, np.ndarray]:
        """Learner k's cards: a pure function of (seed, k)."""
        rng = np.random.default_rng([seed, k])
        m = min(cards, pool_size)
        question_index = np.sort(rng.choice(pool_size, size=m, replace=False))
        state = rng.choice(np.array([1, 2, 3]), size=m, p=[0.1, 0.8, 0.1])
        stability = np.clip(rng.lognormal(np.log(8.0), 1.0, size=m), 0.1, 365.0)
        difficulty = np.clip(rng.normal(5.5, 1.8, size=m), 1.0, 10.0)
        reps = 1 + rng.geometric(0.4, size=m)  # ≥ 2: the first study plus at least one review
        lapses = np.minimum(rng.binomial(reps - 1, 0.12), reps - 1)
        # Interval in days: learning/relearning steps are minutes to a day; review ≈ stability.
        interval = np.where(state == 2, np.maximum(1.0, stability * rng.uniform(0.8, 1.2, size=m)),
                            rng.uniform(0.007, 1.0, size=m))  # fmt: skip
        elapsed = interval * rng.uniform(0.0, 1.15, size=m)  # > interval: overdue (≈ 13 %)
        return {
            "question_index": question_index,
            "state": state,
            "stability": stability,
            "difficulty": difficulty,
            "reps": reps,
            "lapses": lapses,
            "interval": interval,
            "elapsed": elapsed,
            "gaps": rng.uniform(0.5, 6.0, size=(m, int(reps.max()))),  # days between earlier reviews
            "ratings": rng.choice(np.array([1, 2, 3, 4]), size=(m, int(reps.max())), p=[0.12, 0.13, 0.6, 0.15]),
            "durations": rng.integers(2000, 40000, size=(m, int(reps.max()))),
        }

    def _cards_and_logs(
        self, user_ids: list[int], pool: list[int], cards: int, seed: int, now: dt.datetime
    ) -> tuple[int, int]:
        per = [self._learner_cards(k, seed, len(pool), cards) for k in range(1, len(user_ids) + 1)]
        total_cards = sum(len(c["state"]) for c in per)
        total_logs = sum(int(c["reps"].sum()) for c in per)
        first_card = _reserve_ids("quizzes_reviewcard", total_cards)
        first_log = _reserve_ids("quizzes_reviewlog", total_logs)
        now_ts = now.timestamp()
        utc = dt.UTC

        def card_rows() -> Iterator[tuple]:
            card_id = first_card
            for k, (uid, c) in enumerate(zip(user_ids, per, strict=True), start=1):
                # The seeded state stands for a replayed one: stored under the learner's settings (_learners' profiles).
                key = scheduling.settings_key(time_zone=TIME_ZONES[k % len(TIME_ZONES)], rollover_hour=ROLLOVER_HOUR,
                                              desired_retention=RETENTION)  # fmt: skip
                for i in range(len(c["state"])):
                    last = dt.datetime.fromtimestamp(round(now_ts - c["elapsed"][i] * DAY), utc)
                    due = dt.datetime.fromtimestamp(round(now_ts - c["elapsed"][i] * DAY + c["interval"][i] * DAY), utc)
                    state = int(c["state"][i])
                    stab = round(float(c["stability"][i]), 4)
                    diff = round(float(c["difficulty"][i]), 4)
                    fsrs = {"card_id": card_id, "state": state, "step": 0 if state != 2 else None,
                            "stability": stab, "difficulty": diff, "due": due.isoformat(),
                            "last_review": last.isoformat()}  # fmt: skip
                    yield (card_id, uid, pool[c["question_index"][i]], json.dumps(fsrs), state, due, last, stab, diff,
                           int(c["reps"][i]), int(c["lapses"][i]), key, False, False, last, last)  # fmt: skip
                    card_id += 1

        def log_rows() -> Iterator[tuple]:
            card_id, log_id = first_card, first_log
            for uid, c in zip(user_ids, per, strict=True):
                for i in range(len(c["state"])):
                    reps = int(c["reps"][i])
                    moment = now_ts - c["elapsed"][i] * DAY
                    times = [moment]
                    for j in range(reps - 1):
                        moment -= c["gaps"][i, j] * DAY * (j + 1)
                        times.append(moment)
                    for j, when in enumerate(reversed(times)):
                        at = dt.datetime.fromtimestamp(round(when), utc)
                        yield (log_id, uid, card_id, int(c["ratings"][i, j]), at, int(c["durations"][i, j]), "web",
                               "first" if j == 0 else "review", at, False)  # fmt: skip
                        log_id += 1
                    card_id += 1

        n_cards = _copy(
            "quizzes_reviewcard",
            (
                "id",
                "user_id",
                "question_id",
                "fsrs_card",
                "state",
                "due",
                "last_review",
                "stability",
                "difficulty",
                "reps",
                "lapses",
                "schedule_key",
                "suspended",
                "is_leech",
                "created_at",
                "updated_at",
            ),
            card_rows(),
        )
        self._step(f"  COPY {n_cards:,} review cards")
        n_logs = _copy(
            "quizzes_reviewlog",
            (
                "id",
                "user_id",
                "card_id",
                "rating",
                "reviewed_at",
                "duration_ms",
                "source",
                "role",
                "created_at",
                "client_graded",
            ),
            log_rows(),
        )
        return n_cards, n_logs

    # --- attempts ---------------------------------------------------------------------------

    def _attempts(self, user_ids: list[int], seed: int, now: dt.datetime) -> tuple[int, int]:
        """A finished first study attempt of every published lesson, for a share of the learners that falls from
        lesson to lesson (``LESSON_TAKE_RATE``: all of them take the first), every quiz question answered."""
        totals = [0, 0]
        for index, lesson in enumerate(Lesson.objects.published().order_by("order", "key")):
            takers = user_ids[: max(1, math.ceil(len(user_ids) * LESSON_TAKE_RATE**index))]
            for i, count in enumerate(self._lesson_attempts(lesson, index, takers, seed, now)):
                totals[i] += count
        return totals[0], totals[1]

    def _lesson_attempts(
        self, lesson: Lesson, index: int, user_ids: list[int], seed: int, now: dt.datetime
    ) -> tuple[int, int]:
        """One lesson's attempts: its quiz questions as attempt_start shows them, answered from a Rasch model
        over each question's graded outcomes (quizzes.operations.scale_answers)."""
        questions = list(lesson_quiz_questions(lesson=lesson))
        tables = question_answers(questions=questions, seed=lesson_seed(seed, index))
        versions = versions_current(questions=questions)  # each item pins the version it shows, as attempt_start does
        draw = lesson_rasch_answers(tables=tables, learners=len(user_ids), seed=seed, index=index)
        first_attempt = _reserve_ids("quizzes_attempt", len(user_ids))
        first_item = _reserve_ids("quizzes_attemptitem", len(user_ids) * len(questions))
        rng = np.random.default_rng([*lesson_seed(seed, index), 0])
        seeds = rng.integers(0, 2**31 - 1, size=len(user_ids))
        started = [now - dt.timedelta(days=int(d), minutes=30) for d in rng.integers(1, 60, size=len(user_ids))]
        answered = np.cumsum(draw.seconds, axis=1)  # (N, Q) seconds from the start, questions in order
        finished = answered[:, -1] + 5.0 if questions else np.full(len(user_ids), 60.0)  # (N,)
        n_attempts = _copy(
            "quizzes_attempt",
            ("id", "user_id", "lesson_id", "number", "mode", "seed", "started_at", "finished_at"),
            (
                (
                    first_attempt + n,
                    uid,
                    lesson.pk,
                    1,
                    "study",
                    int(seeds[n]),
                    started[n],
                    started[n] + dt.timedelta(seconds=float(finished[n])),
                )
                for n, uid in enumerate(user_ids)
            ),
        )
        shown_draw = rng.integers(0, 2**31 - 1, size=(len(user_ids), len(questions)))  # (N, Q) which variant

        def item_rows() -> Iterator[tuple]:
            item_id = first_item
            for n in range(len(user_ids)):
                order_rng = np.random.default_rng([*lesson_seed(seed, index), n, 1])
                for position, table in enumerate(tables):
                    question = table.question
                    s = int(shown_draw[n, position]) % len(table.shown)
                    shown, outcome = table.shown[s], table.outcome(s, int(draw.chosen[n, position]))
                    order = [table.options[i].pk for i in order_rng.permutation(len(table.options))]
                    yield (item_id, first_attempt + n, question.pk, versions[question.pk].pk, position,
                           json.dumps(order), json.dumps(outcome.response), outcome.chosen_option_id,
                           outcome.correct, float(outcome.result["score"]), json.dumps(outcome.result),
                           started[n] + dt.timedelta(seconds=float(answered[n, position])),
                           None if shown.variant is None else json.dumps(shown.variant), shown.seed,
                           shown.template_version)  # fmt: skip
                    item_id += 1

        n_items = _copy(
            "quizzes_attemptitem",
            (
                "id",
                "attempt_id",
                "question_id",
                "version_id",
                "position",
                "option_order",
                "response",
                "chosen_option_id",
                "is_correct",
                "score",
                "result",
                "answered_at",
                "variant",
                "variant_seed",
                "template_version",
            ),
            item_rows(),
        )
        return n_attempts, n_items


def lesson_seed(seed: int, index: int) -> list[int]:
    """The random stream of the ``index``-th published lesson's attempts (the first lesson's is the run's seed)."""
    return [seed] if index == 0 else [seed, 100 + index]


def lesson_rasch_answers(*, tables: list[QuestionAnswers], learners: int, seed: int, index: int) -> RaschDraw:
    """The Rasch draw of one lesson's attempts (what ``seed_scale`` planted there, for a test to read back)."""
    return rasch_answers(
        seed=lesson_seed(seed, index),
        learners=learners,
        keys=[table.key_index for table in tables],
        option_counts=[table.outcome_count for table in tables],
        plantable=[bool(table.options) for table in tables],
    )


@dataclass(frozen=True)
class RaschDraw:
    """Planted item parameters and the answers drawn from them (see ``rasch_answers``)."""

    difficulty: np.ndarray  # (Q,) b_j in logits
    ability: np.ndarray  # (N,) θ_n in logits
    chosen: np.ndarray  # (N, Q) index of the option picked, in the question's option order
    seconds: np.ndarray  # (N, Q) time to answer each question
    bad_question: int  # the question whose distractor ``bad_option`` is planted to be (almost) never picked
    bad_option: int


def rasch_answers(
    *,
    seed: int | Sequence[int],
    learners: int,
    keys: list[int],
    option_counts: list[int],
    plantable: Sequence[bool] | None = None,
) -> RaschDraw:
    """Answers from a Rasch model, P(correct) = logistic(θ_n − b_j), so item statistics have something to recover.

    Difficulties are spread evenly over RASCH_DIFFICULTIES in an order shuffled by the seed (not the questions'
    order); abilities are N(0, 1). A wrong answer picks a distractor uniformly, except in one planted question
    (the middle difficulty, so it has many wrong answers), where its last distractor gets BAD_DISTRACTOR_WEIGHT:
    almost nobody picks it, which the statistics must flag; ``plantable`` says which questions may be it (the
    choice ones: a numeric item's "distractors" are its named mistakes). Learner k's row depends only on (seed, k).
    """
    stream = [seed] if isinstance(seed, int) else list(seed)
    q = len(keys)
    low, high = RASCH_DIFFICULTIES
    difficulty = np.random.default_rng([*stream, 2]).permutation(np.linspace(low, high, q))  # (Q,)
    ability = np.random.default_rng([*stream, 3]).normal(0.0, 1.0, size=learners)  # (N,)
    p_correct = 1.0 / (1.0 + np.exp(-(ability[:, None] - difficulty[None, :])))  # (N, Q)
    draws = np.random.default_rng([*stream, 4]).random((learners, q, 2))  # (N, Q, 2): correct?, which distractor
    is_correct = draws[:, :, 0] < p_correct  # (N, Q)
    candidates = [j for j in np.argsort(difficulty).tolist() if plantable is None or plantable[j]]  # easiest first
    bad_question = int(candidates[len(candidates) // 2]) if candidates else -1
    chosen = np.empty((learners, q), dtype=np.int64)
    for j, (key, count) in enumerate(zip(keys, option_counts, strict=True)):
        weights = np.ones(count)  # (options,)
        weights[key] = 0.0
        distractors = [i for i in range(count) if i != key]
        if j == bad_question and len(distractors) > 1:
            weights[distractors[-1]] = BAD_DISTRACTOR_WEIGHT
        cumulative = np.cumsum(weights) / weights.sum() if weights.sum() else np.ones(count)  # (options,)
        wrong_pick = np.minimum(np.searchsorted(cumulative, draws[:, j, 1], side="right"), count - 1)  # (N,)
        chosen[:, j] = np.where(is_correct[:, j], key, wrong_pick)
    # Harder questions take longer: a median of 8 s + 4 s per logit of difficulty above the easiest one.
    median = 8.0 + 4.0 * (difficulty - low)  # (Q,)
    seconds = np.random.default_rng([*stream, 5]).lognormal(np.log(median)[None, :], 0.4, size=(learners, q))  # (N, Q)
    bad_option = (
        ([i for i in range(option_counts[bad_question]) if i != keys[bad_question]] or [-1])[-1]
        if bad_question >= 0
        else -1
    )
    return RaschDraw(difficulty, ability, chosen, seconds, bad_question, bad_option)
