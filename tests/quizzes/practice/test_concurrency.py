"""Concurrency on PostgreSQL: the lock and the numbering hold with real parallel transactions."""

import threading
import uuid
from collections.abc import Callable

import pytest
from django.db import connection, connections, transaction

from quizzes.content.teaching import checkpoint_handle, checkpoint_owner, parse_teaching
from quizzes.models import Attempt, AttemptItem, CheckpointAnswer, ReviewCard, ReviewLog
from quizzes.practice.services import (
    attempt_finish,
    attempt_show_skipped,
    attempt_start,
    checkpoint_answer_record,
    item_answer,
)
from quizzes.reviews.services import card_rate
from tests import factories

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def run_together(count: int, work: Callable[[int], object]) -> list:
    """Start ``count`` threads at once (barrier), each with its own DB connection; collect results."""
    barrier = threading.Barrier(count)
    results: list = [None] * count
    errors: list[BaseException] = []

    def worker(index: int) -> None:
        try:
            barrier.wait(timeout=30)
            results[index] = work(index)
        except BaseException as exc:  # re-raised below in the main thread
            errors.append(exc)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not errors, errors
    return results


def test_twenty_concurrent_submits_store_exactly_one_response():
    assert connection.vendor == "postgresql"
    user = factories.UserFactory()
    question = factories.ChoiceQuestionFactory(options=4)
    item = attempt_start(user=user, lesson=question.lesson).items.get()
    option_ids = item.option_order

    def submit(index: int):
        fresh = AttemptItem.objects.select_related("attempt", "question").get(pk=item.pk)
        return item_answer(user=user, item=fresh, option_id=option_ids[index % len(option_ids)])

    outcomes = run_together(20, submit)

    stored = AttemptItem.objects.get(pk=item.pk)
    assert stored.answered_at is not None
    assert sum(not o.replayed for o in outcomes) == 1
    assert all(o.result == stored.result for o in outcomes)
    winner = next(o for o in outcomes if not o.replayed)
    assert stored.response == winner.item.response
    assert ReviewLog.objects.filter(attempt_item=item).count() == 1
    assert ReviewCard.objects.filter(user=user).count() == 1
    conflicting = [o for o in outcomes if o.conflicting]
    assert all(o.replayed for o in conflicting)
    assert len(conflicting) == sum(1 for i in range(20) if option_ids[i % 4] != stored.response)


def test_concurrent_starts_get_distinct_consecutive_numbers():
    user = factories.UserFactory()
    lesson = factories.ChoiceQuestionFactory().lesson
    attempts = run_together(10, lambda _i: attempt_start(user=user, lesson=lesson))
    assert sorted(a.number for a in attempts) == list(range(1, 11))
    assert Attempt.objects.filter(user=user, lesson=lesson).count() == 10


def test_concurrent_uploads_of_one_rating_store_it_once():
    user = factories.UserFactory()
    prompt = factories.PromptQuestionFactory()
    token = uuid.uuid4()
    cards = run_together(8, lambda _i: card_rate(user=user, question=prompt, rating=3, client_uuid=token))
    assert len({card.pk for card in cards}) == 1
    assert ReviewLog.objects.filter(user=user).count() == 1


def test_concurrent_first_answers_to_one_question_in_different_attempts_share_one_card():
    user = factories.UserFactory()
    question = factories.ChoiceQuestionFactory()
    items = [attempt_start(user=user, lesson=question.lesson).items.get() for _ in range(6)]

    def submit(index: int):
        fresh = AttemptItem.objects.select_related("attempt", "question").get(pk=items[index].pk)
        return item_answer(user=user, item=fresh, option_id=fresh.option_order[0])

    run_together(6, submit)
    card = ReviewCard.objects.get(user=user, question=question)
    assert card.logs.count() == 6
    assert sorted(card.logs.values_list("role", flat=True)) == ["first"] + ["repeat"] * 5


def test_concurrent_code_submits_lock_once_and_record_one_rating():
    """Eight learners' tabs submit different code at once: all are graded in the one sandbox worker (one at
    a time), exactly one locks, one review log is written with that submission's suggested rating."""
    from attention_engine import codecheck

    user = factories.UserFactory()
    question = factories.CodeQuestionFactory(code_spec="stable_softmax")
    item = attempt_start(user=user, lesson=question.lesson).items.get()
    spec = codecheck.get("stable_softmax")
    codes = [spec.reference, *(m.code for m in spec.misconceptions)]

    def submit(index: int):
        fresh = AttemptItem.objects.select_related("attempt", "question").get(pk=item.pk)
        return item_answer(user=user, item=fresh, code=codes[index % len(codes)])

    outcomes = run_together(8, submit)
    stored = AttemptItem.objects.get(pk=item.pk)
    winners = [o for o in outcomes if not o.replayed]
    assert len(winners) == 1 and stored.response == winners[0].item.response
    assert all(o.result == stored.result for o in outcomes)
    log = ReviewLog.objects.get(attempt_item=item)
    assert log.rating == stored.result["suggested_rating"]


def test_an_answer_that_waited_for_another_rating_of_its_card_sees_that_rating():
    """Two tabs answer the same question in two attempts; the one whose clock read earlier gets the card's row
    lock last. Its step must see the rating committed while it waited (a stale "newest log" would take the fast
    path and give the wrong roles): the card and the roles end as a full replay of the logs gives them."""
    import datetime as dt

    from quizzes.reviews.services import card_replay

    user = factories.UserFactory()
    question = factories.ChoiceQuestionFactory()
    day = dt.datetime(2026, 6, 10, 12, 0, tzinfo=dt.UTC)
    first, later, earlier = (attempt_start(user=user, lesson=question.lesson).items.get() for _ in range(3))

    def answer(item: AttemptItem, at: dt.datetime):
        fresh = AttemptItem.objects.select_related("attempt", "question").get(pk=item.pk)
        return item_answer(user=user, item=fresh, option_id=fresh.option_order[0], now=at)

    answer(first, day - dt.timedelta(days=3))
    a_answered, b_waits = threading.Event(), threading.Event()
    errors: list[BaseException] = []

    def tab_a() -> None:  # answers at 12:00 and holds the card's lock until B waits for it
        try:
            with transaction.atomic():
                answer(later, day)
                a_answered.set()
                assert b_waits.wait(timeout=30)
        except BaseException as exc:
            errors.append(exc)
        finally:
            a_answered.set()
            connections.close_all()

    def tab_b() -> None:  # read its clock at 11:59, reaches the card after A
        try:
            answer(earlier, day - dt.timedelta(minutes=1))
        except BaseException as exc:
            errors.append(exc)
        finally:
            connections.close_all()

    a, b = threading.Thread(target=tab_a), threading.Thread(target=tab_b)
    a.start()
    assert a_answered.wait(timeout=30)
    b.start()
    with connection.cursor() as cursor:
        for _ in range(3000):  # until B's session waits for a row lock (A still holds it)
            cursor.execute("SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'")
            if cursor.fetchone()[0]:
                break
            b.join(timeout=0.01)
    b_waits.set()
    a.join(timeout=60)
    b.join(timeout=60)
    assert not errors, errors

    card = ReviewCard.objects.get(user=user, question=question)
    roles = dict(card.logs.values_list("attempt_item_id", "role"))
    assert roles == {first.pk: "first", earlier.pk: "review", later.pk: "repeat"}
    stored = {f: getattr(card, f) for f in ("fsrs_card", "due", "last_review", "stability", "reps", "lapses")}
    replayed = card_replay(card=ReviewCard.objects.get(pk=card.pk))
    assert {f: getattr(replayed, f) for f in stored} == stored


def test_concurrent_requests_to_show_the_skipped_answers_record_them_once():
    """Two taps on "show the answers" (two tabs): one records Again on each skipped card, the other nothing."""
    user = factories.UserFactory()
    lesson = factories.LessonFactory()
    for order in range(3):
        factories.ChoiceQuestionFactory(lesson=lesson, order=order, options=4)
    attempt = attempt_finish(user=user, attempt=attempt_start(user=user, lesson=lesson))

    def show(_index: int):
        return attempt_show_skipped(user=user, attempt=Attempt.objects.get(pk=attempt.pk)).skipped_shown_at

    shown = run_together(8, show)
    assert len(set(shown)) == 1 and shown[0] is not None
    assert ReviewLog.objects.filter(user=user).count() == 3
    assert sorted(ReviewLog.objects.values_list("rating", flat=True)) == [1, 1, 1]


def test_concurrent_first_clicks_on_a_checkpoint_store_one_answer():
    sections, problems = parse_teaching(
        [
            {
                "key": "mask",
                "title": "因果掩码",
                "body": "未来位置填 $-\\infty$。",
                "checkpoint": {
                    "prompt": "$T=3$ 时有几个格子被挡住？",
                    "explanation": "三个。",
                    "options": [{"key": "a", "text": "3", "correct": True}, {"key": "b", "text": "6"}],
                },
            }
        ]
    )
    assert not problems
    lesson = factories.LessonFactory(teaching=sections)
    user = factories.UserFactory()
    owner = checkpoint_owner(user_id=user.pk)
    handles = [checkpoint_handle(owner=owner, lesson_key=lesson.key, section_key="mask", option_key=k) for k in "ab"]

    def click(index: int):
        return checkpoint_answer_record(user=user, lesson=lesson, section_key="mask", handle=handles[index % 2])

    kept = run_together(10, click)
    (stored,) = CheckpointAnswer.objects.filter(user=user)
    assert set(kept) == {stored.option_key}
