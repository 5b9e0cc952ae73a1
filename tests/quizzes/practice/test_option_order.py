"""Option order carries no information: a learner who guesses from their own earlier orders stays at chance.

The simulation plays thousands of learners retaking 2-, 3- and 4-option questions. Before each
retake, every strategy names a position using only what that learner saw before (which position
the correct option had, revealed after each lock), then we check where the correct option really
is. Any rule tied to the history (e.g. "never where it was last time", "where it was shown least")
lets some strategy beat 1/n; a fair shuffle keeps every strategy within one percentage point.
"""

import random
from collections import Counter
from dataclasses import dataclass

import pytest

from quizzes.practice.services.attempts import choose_option_order

LEARNERS = 5_000
RETAKES = 9  # per learner: 8 guesses each (the first attempt has no history)
TOLERANCE = 0.01  # one percentage point; the standard error at p = 1/2 is 0.0018 here


@dataclass(frozen=True)
class FakeOption:
    pk: int
    is_correct: bool


def _least_shown(counts: Counter, last: int, n: int, rng: random.Random) -> int:
    fewest = min(counts[p] for p in range(n))
    return rng.choice([p for p in range(n) if counts[p] == fewest])


def _most_shown(counts: Counter, last: int, n: int, rng: random.Random) -> int:
    most = max(counts[p] for p in range(n))
    return rng.choice([p for p in range(n) if counts[p] == most])


def _not_last(counts: Counter, last: int, n: int, rng: random.Random) -> int:
    return rng.choice([p for p in range(n) if p != last])


def _last(counts: Counter, last: int, n: int, rng: random.Random) -> int:
    return last


STRATEGIES = {"least shown": _least_shown, "most shown": _most_shown, "not last": _not_last, "last": _last}


def hit_rates(n: int, seed: int) -> dict[str, float]:
    options = [FakeOption(pk=10 + i, is_correct=i == 0) for i in range(n)]
    shuffler, guesser = random.Random(seed), random.Random(seed + 1)
    hits, guesses = Counter(), 0
    for _learner in range(LEARNERS):
        counts: Counter = Counter()
        last = None
        for _retake in range(RETAKES):
            position = choose_option_order(options=options, rng=shuffler).index(10)
            if last is not None:
                guesses += 1
                for name, strategy in STRATEGIES.items():
                    hits[name] += strategy(counts, last, n, guesser) == position
            counts[position] += 1
            last = position
    return {name: hits[name] / guesses for name in STRATEGIES}


@pytest.mark.parametrize("n", [2, 3, 4])
def test_guessing_from_earlier_orders_stays_at_chance(n):
    rates = hit_rates(n, seed=20261130 + n)
    off = {name: round(rate, 4) for name, rate in rates.items() if abs(rate - 1 / n) > TOLERANCE}
    assert not off, f"{n} options: these strategies beat or miss chance (1/{n} = {1 / n:.3f}): {off}"


def test_every_order_is_a_permutation_and_all_orders_occur():
    options = [FakeOption(pk=pk, is_correct=pk == 1) for pk in (1, 2, 3)]
    rng = random.Random(5)
    orders = Counter(tuple(choose_option_order(options=options, rng=rng)) for _ in range(3_000))
    assert all(sorted(order) == [1, 2, 3] for order in orders)
    assert len(orders) == 6 and min(orders.values()) > 400  # each of the 3! orders about 500 times
