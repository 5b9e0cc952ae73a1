"""The workload simulator (issue 30): its memory steps are py-fsrs's, its loop is fsrs-rs's simulate."""

from __future__ import annotations

import datetime as dt

import fsrs
import fsrs_rs_python as rs
import numpy as np
import pytest

from quizzes.reviews import scheduling, workload
from tests.quizzes.reviews.fitting_helpers import perturbed


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_each_vectorised_step_is_py_fsrs_s(seed):
    weights = perturbed(seed)
    w = np.array(weights)
    ours = scheduling.schedule(time_zone="UTC", rollover_hour=4, desired_retention=0.85, parameters=weights)
    rng = np.random.default_rng(seed)
    start = dt.datetime(2025, 1, 1, tzinfo=dt.UTC)
    for _ in range(50):
        stability, difficulty = float(rng.uniform(0.5, 80)), float(rng.uniform(1, 10))
        elapsed, rating = int(rng.integers(1, 60)), int(rng.integers(1, 5))
        card = fsrs.Card(card_id=1, state=fsrs.State.Review, stability=stability, difficulty=difficulty, due=start)
        card.last_review = start
        moment = start + dt.timedelta(days=elapsed)
        stepped, _log = ours.scheduler.review_card(card, fsrs.Rating(rating), moment)
        r = workload.retrievability(w, np.array([elapsed]), np.array([stability]))
        assert r[0] == pytest.approx(ours.scheduler.get_card_retrievability(card, moment), rel=1e-12)
        s = workload.next_stability(w, np.array([difficulty]), np.array([stability]), r, np.array([rating]))
        assert s[0] == pytest.approx(stepped.stability, rel=1e-9)
        d = workload.next_difficulty(w, np.array([difficulty]), np.array([rating]))
        assert d[0] == pytest.approx(stepped.difficulty, rel=1e-9)
        interval = workload.next_interval(w, s, 0.85)[0]
        assert interval == (stepped.due - moment).days


@pytest.mark.parametrize(("deck", "learn"), [(200, 10), (300, 20)])
def test_the_loop_gives_fsrs_rs_s_review_counts(deck, learn):
    """New cards only (all fsrs-rs's binding can simulate), FSRS's first interval: the totals agree within 3 %."""
    config = rs.default_simulator_config()
    same = rs.SimulatorConfig(
        deck_size=deck, learn_span=30, max_cost_perday=1e9, max_ivl=36500,
        first_rating_prob=config.first_rating_prob, review_rating_prob=config.review_rating_prob,
        learn_limit=learn, review_limit=10**9, new_cards_ignore_review_limit=True,
        learning_step_transitions=config.learning_step_transitions,
        relearning_step_transitions=config.relearning_step_transitions, state_rating_costs=config.state_rating_costs,
        learning_step_count=0, relearning_step_count=0,
    )  # fmt: skip
    theirs = np.mean(
        [sum(rs.simulate(rs.DEFAULT_PARAMETERS, 0.9, same, seed).review_cnt_per_day) for seed in range(40)]
    )
    ours = workload.simulate(
        parameters=rs.DEFAULT_PARAMETERS, desired_retention=0.9, cards=[], unseen=deck, new_per_day=learn,
        reviews_per_day=10**9, runs=40, first_delay=None,
    )  # fmt: skip
    assert sum(ours.reviews) == pytest.approx(theirs, rel=0.03)


def test_the_daily_review_limit_holds_and_a_higher_retention_costs_more():
    cards = [workload.CardState(stability=5.0, difficulty=5.0, elapsed=5, due_in=0) for _ in range(300)]
    common = {"cards": cards, "unseen": 0, "new_per_day": 0, "reviews_per_day": 50}
    capped = workload.simulate(parameters=scheduling.DEFAULT_PARAMETERS, desired_retention=0.9, **common)
    assert max(capped.reviews) <= 50 and capped.reviews[0] == 50
    low = workload.simulate(
        parameters=scheduling.DEFAULT_PARAMETERS, desired_retention=0.75, **{**common, "reviews_per_day": 10**6}
    )
    high = workload.simulate(
        parameters=scheduling.DEFAULT_PARAMETERS, desired_retention=0.95, **{**common, "reviews_per_day": 10**6}
    )
    assert high.reviews_per_day > low.reviews_per_day and high.expected_recall > low.expected_recall
