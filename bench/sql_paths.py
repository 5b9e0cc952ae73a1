"""What each SQL fast path buys: the same call with ``SQL_FAST_PATHS`` on and off, alternating, in one process.

    .venv/bin/python bench/sql_paths.py [--calls 100] [--rounds 5] [--only NAME,...]

Against the load benchmark's database (BENCH_DATABASE_URL, as bench/profile.py; seeded by ``manage.py seed_scale``).
Each call uses another random scale learner. Prints, per fast path, the median over the rounds of the per-call
web-process CPU (``time.thread_time``: what a shared host's waiting for a core leaves out) and wall time, fast and
ORM, and what the fast path saves. Writes run inside a transaction that is rolled back.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench import databases  # noqa: E402 (after the path)

databases.use_in_process(databases.LOAD_BENCH_URL, databases.LOAD_BENCH_REDIS_URL, CONN_MAX_AGE="60")


def _paths(rng: random.Random) -> dict[str, Callable[[], object]]:
    """Each fast path as one call on a random learner (the same kinds of call the hot paths make)."""
    from django.contrib.auth import get_user_model
    from django.db import transaction
    from django.utils import timezone

    from quizzes.accounts.selectors import profile_for, user_by_id
    from quizzes.core.rows import row_insert_and_update
    from quizzes.models import AttemptItem, ReviewCard, ReviewLog
    from quizzes.practice.fast_paths import attempt_unfinished_guard
    from quizzes.practice.selectors import dashboard_reads, item_for
    from quizzes.practice.services.locking import first_answer_lock
    from quizzes.reviews.fast_paths import card_locked
    from quizzes.reviews.selectors.due import due_queue_reads

    users = list(get_user_model().objects.filter(username__startswith="scale-").order_by("?")[:400])
    if not users:
        raise SystemExit("no scale learners: run `manage.py seed_scale --learners 1000 --cards 100` first")
    items = list(AttemptItem.objects.filter(attempt__user__in=users).select_related("attempt__user")[:400])
    cards = list(ReviewCard.objects.filter(user__in=users).select_related("user")[:400])
    fields = ("id", "question_id", "due", "state", "reps", "lapses", "stability", "difficulty", "last_review")

    def item_read() -> object:
        item = rng.choice(items)
        return item_for(user=item.attempt.user, item_id=item.pk)

    def card_lock() -> object:
        card = rng.choice(cards)
        with transaction.atomic():
            return card_locked(user_id=card.user_id, question_id=card.question_id)

    def answer_lock() -> object:
        item = rng.choice(items)
        answer = {"response": "x", "is_correct": True, "score": 1.0, "result": {"correct": True}}
        with transaction.atomic():
            won = first_answer_lock(
                AttemptItem,
                pk=item.pk,
                values={**answer, "answered_at": timezone.now()},
                also=attempt_unfinished_guard(),
            )
            transaction.set_rollback(True)
        return won

    def log_and_card_write() -> object:
        card = rng.choice(cards)
        with transaction.atomic():
            log = ReviewLog(user_id=card.user_id, card_id=card.pk, rating=3, reviewed_at=timezone.now())
            row_insert_and_update(log, ReviewCard, pk=card.pk, values={"reps": card.reps + 1, "due": timezone.now()})
            transaction.set_rollback(True)
        return log

    def due_reads() -> object:
        user = rng.choice(users)
        now = timezone.now()
        return due_queue_reads(user=user, profile=profile_for(user=user), now=now, start=0, size=20, fields=fields)

    def dashboard() -> object:
        user = rng.choice(users)
        return dashboard_reads(user=user, profile=profile_for(user=user), now=timezone.now(), forecast_days=14)

    def profile() -> object:
        return profile_for(user=rng.choice(users))

    def user_read() -> object:
        return user_by_id(user_id=rng.choice(users).pk)

    return {
        "item read (answer)": item_read,
        "card lock (answer)": card_lock,
        "answer lock (answer)": answer_lock,
        "log + card write (answer)": log_and_card_write,
        "due queue's 3 reads": due_reads,
        "dashboard's 4 reads": dashboard,
        "profile": profile,
        "user of a session": user_read,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--calls", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--only", default="", help="comma-separated prefixes of the paths' names")
    args = parser.parse_args()
    import django

    django.setup()
    from django.conf import settings

    paths = _paths(random.Random(0))
    wanted = [p.strip() for p in args.only.split(",") if p.strip()]
    for name, call in paths.items():
        if wanted and not any(name.startswith(p) for p in wanted):
            continue
        cpu: dict[bool, list[float]] = {True: [], False: []}
        wall: dict[bool, list[float]] = {True: [], False: []}
        for mode in (True, False):  # warm both (compilations, plans, prepared statements)
            settings.SQL_FAST_PATHS = mode
            for _ in range(20):
                call()
        for _ in range(args.rounds):
            for mode in (True, False):
                settings.SQL_FAST_PATHS = mode
                c0, t0 = time.thread_time(), time.perf_counter()
                for _ in range(args.calls):
                    call()
                cpu[mode].append((time.thread_time() - c0) * 1000 / args.calls)
                wall[mode].append((time.perf_counter() - t0) * 1000 / args.calls)
        settings.SQL_FAST_PATHS = True
        fast_c, orm_c = statistics.median(cpu[True]), statistics.median(cpu[False])
        fast_w, orm_w = statistics.median(wall[True]), statistics.median(wall[False])
        print(
            f"{name}: CPU fast {fast_c:.3f} ms, ORM {orm_c:.3f} ms (saves {orm_c - fast_c:.3f} ms, "
            f"{(orm_c - fast_c) / orm_c:.0%}); wall fast {fast_w:.3f}, ORM {orm_w:.3f} ms; "
            f"CPU rounds fast {[round(x, 3) for x in cpu[True]]} ORM {[round(x, 3) for x in cpu[False]]}",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
