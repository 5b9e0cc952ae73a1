"""A simulated learner for the fitting tests: a true memory (FSRS-6 with their own parameters) answering the
reviews our scheduler (``scheduling.resume``, the default schedule) asks for, stored as real cards and logs."""

from __future__ import annotations

import datetime as dt
import math
import random

import fsrs
from django.utils import timezone

from quizzes.models import ReviewCard, ReviewLog
from quizzes.reviews import scheduling
from quizzes.reviews.services import card_replay
from tests import factories

#: A learner whose memory is far from the average user's: a first memory a quarter as stable, and growing more
#: slowly on success (w8 lower). (A memory that only starts *more* stable is hard to tell from the defaults on
#: our schedule: bench/README.md.)
_D = scheduling.DEFAULT_PARAMETERS
FORGETFUL = (*(w / 4 for w in _D[:4]), *_D[4:8], _D[8] - 0.7, *_D[9:])


def perturbed(seed: int, spread: float = 0.3) -> tuple[float, ...]:
    rng = random.Random(seed)
    return tuple(
        round(min(max(w * math.exp(rng.gauss(0, spread)), lo), hi), 6)
        for w, lo, hi in zip(
            scheduling.DEFAULT_PARAMETERS, scheduling.LOWER_BOUNDS, scheduling.UPPER_BOUNDS, strict=True
        )
    )


def simulated_history(
    *, cards: int, reviews: int, true_parameters, seed: int = 0, start: dt.datetime
) -> dict[int, list[tuple[int, dt.datetime]]]:
    """Up to ``reviews`` counted reviews over ``cards`` cards (four new a day), each due date from our scheduler
    (defaults), each outcome drawn from the true memory's retrievability at that moment."""
    rng = random.Random(seed)
    truth = fsrs.Scheduler(parameters=true_parameters, learning_steps=(), relearning_steps=(), enable_fuzzing=False)
    ours = scheduling.schedule(time_zone="UTC", rollover_hour=4, desired_retention=0.9)
    pending: list[tuple[dt.datetime, int]] = [
        (start + dt.timedelta(days=i // 4, hours=9 + rng.random() * 6), i) for i in range(cards)
    ]
    states = {i: scheduling.EMPTY for i in range(cards)}
    memories: dict[int, fsrs.Card] = {}
    history: dict[int, list[tuple[int, dt.datetime]]] = {i: [] for i in range(cards)}
    now = timezone.now()
    done = 0
    while pending and done < reviews:
        pending.sort()
        moment, card = pending.pop(0)
        if moment >= now:
            break
        memory = memories.get(card)
        recall = 0.75 if memory is None else truth.get_card_retrievability(memory, moment)
        rating = (
            fsrs.Rating.Again if rng.random() >= recall else rng.choice([fsrs.Rating.Good] * 4 + [fsrs.Rating.Hard])
        )
        memories[card] = truth.review_card(memory or fsrs.Card(card_id=card, due=moment), rating, moment)[0]
        states[card] = scheduling.resume(
            states[card], [scheduling.LogEntry(int(rating), moment)], card_id=card, schedule=ours
        )
        history[card].append((int(rating), moment))
        done += 1
        due = states[card].card.due
        pending.append((due + dt.timedelta(hours=rng.random() * 8), card))
    return history


def store_history(user, history, *, lesson=None) -> list[ReviewCard]:
    """The history as the learner's cards and logs (one prompt question per card), each card replayed."""
    lesson = lesson or factories.LessonFactory()
    stored = []
    for index, reviews in history.items():
        if not reviews:
            continue
        question = factories.PromptQuestionFactory(lesson=lesson, key=f"{lesson.key}-q{index}")
        card = ReviewCard.objects.create(user=user, question=question, due=reviews[0][1])
        ReviewLog.objects.bulk_create(
            ReviewLog(user=user, card=card, rating=rating, reviewed_at=moment) for rating, moment in reviews
        )
        stored.append(card_replay(card=card))
    return stored
