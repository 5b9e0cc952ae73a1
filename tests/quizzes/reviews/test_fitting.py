"""Personal FSRS parameters (issue 30): fsrs-rs fits, py-fsrs schedules, and the two agree on what the 21 numbers
mean; a fit is kept only when it predicts the learner's later reviews better, and changes nothing but the future."""

from __future__ import annotations

import datetime as dt
import logging
import random
import uuid

import fsrs_rs_python as rs
import pytest
import time_machine
from django.utils import timezone

from quizzes.accounts.models import FSRS_PARAMETER_COUNT
from quizzes.models import LearnerProfile, ParameterFit, ReviewCard, ReviewLog
from quizzes.reviews import fitting, optimizer, parameters, scheduling
from quizzes.reviews.offline import OfflineEntry, offline_reviews_merge
from quizzes.reviews.parameters import learner_schedule, learners_to_fit
from quizzes.reviews.selectors.ratings import rating_preview
from quizzes.reviews.services import card_rate, card_replay, card_undo_last
from tests import factories
from tests.quizzes.merge_snapshot import cards_snapshot
from tests.quizzes.reviews.fitting_helpers import FORGETFUL, perturbed, simulated_history, store_history

DAY = dt.timedelta(days=1)


def test_fsrs6_has_21_parameters_in_both_libraries():
    assert len(scheduling.DEFAULT_PARAMETERS) == len(rs.DEFAULT_PARAMETERS) == FSRS_PARAMETER_COUNT
    assert pytest.approx(rs.DEFAULT_PARAMETERS, rel=1e-6) == scheduling.DEFAULT_PARAMETERS


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_py_fsrs_and_fsrs_rs_schedule_the_same_history_alike(seed):
    """The same reviews stepped by py-fsrs (our scheduler) and fsrs-rs (the optimiser's model), with the same
    non-default parameters, give the same memory state after every review and the same next interval: the
    vector layout is the same in both."""
    weights = perturbed(seed)
    ours = scheduling.schedule(time_zone="UTC", rollover_hour=4, desired_retention=0.85, parameters=weights)
    model = rs.FSRS(list(weights))
    start = dt.datetime(2025, 1, 1, 9, tzinfo=dt.UTC)
    history = simulated_history(cards=6, reviews=60, true_parameters=weights, seed=seed, start=start)
    for reviews in history.values():
        state = scheduling.EMPTY
        steps = []
        for number, (rating, moment) in enumerate(reviews):
            state = scheduling.resume(state, [scheduling.LogEntry(rating, moment)], card_id=1, schedule=ours)
            previous = reviews[number - 1][1] if number else moment
            steps.append(rs.FSRSReview(rating, (moment - previous).days))
            memory = model.memory_state(rs.FSRSItem(steps))
            assert state.card.stability == pytest.approx(memory.stability, rel=2e-4)
            assert state.card.difficulty == pytest.approx(memory.difficulty, rel=2e-4)
            if number:  # the first study's due is our two-day rule, not FSRS
                interval = (state.card.due - moment) / DAY
                expected = max(1, round(model.next_interval(memory.stability, 0.85, 3)))
                assert abs(interval - expected) <= 1  # f32 rounding may tip a .5 day either way


def test_our_score_is_the_benchmark_s_time_series_split_score():
    """optimizer.score reproduces fsrs-rs's evaluate_with_time_series_splits (log loss and RMSE(bins)), so the
    parameters in use are scored on exactly the predictions the library scores the fit on."""
    start = timezone.now() - 400 * DAY
    history = simulated_history(cards=60, reviews=700, true_parameters=FORGETFUL, seed=5, start=start)
    items = optimizer.items_from_histories(history)
    comparison = optimizer.compare(items, scheduling.DEFAULT_PARAMETERS)
    library = rs.evaluate_with_time_series_splits([item.fsrs_item for item in items])
    assert comparison.after.log_loss == pytest.approx(library.log_loss, rel=1e-4)
    assert comparison.after.rmse_bins == pytest.approx(library.rmse_bins, rel=1e-3)


def test_time_series_splits_are_fsrs_rs_s():
    assert optimizer.time_series_splits(5) == []
    assert optimizer.time_series_splits(13) == [(2, 4), (4, 6), (6, 8), (8, 10), (10, 13)]


@pytest.mark.parametrize(
    ("weights", "why"),
    [
        ((0.5,) * 20, "20 parameters"),
        ((*scheduling.DEFAULT_PARAMETERS[:20], float("nan")), "w20 is not a finite number"),
        ((*scheduling.DEFAULT_PARAMETERS[:20], 0.9), "w20 = 0.9 is outside [0.1, 0.8]"),
    ],
)
def test_invalid_parameters_are_named(weights, why):
    assert why in scheduling.valid_parameters(weights)
    assert scheduling.valid_parameters(scheduling.DEFAULT_PARAMETERS) == ""


def test_the_card_key_names_personal_parameters_and_the_defaults_keep_the_old_key():
    default = scheduling.schedule(time_zone="UTC", rollover_hour=4, desired_retention=0.9)
    mine = scheduling.schedule(time_zone="UTC", rollover_hour=4, desired_retention=0.9, parameters=FORGETFUL)
    assert default.key == "v1|UTC|4|0.9" and not default.personal
    assert mine.key.startswith("v1|UTC|4|0.9|w=") and mine.personal and mine.parameters == FORGETFUL


# --- the service, on the database ---------------------------------------------------------------------------


@pytest.fixture
def learner(db):
    return factories.LearnerProfileFactory(time_zone="UTC", day_rollover_hour=4)


def _cards(user) -> list[tuple]:
    return sorted(ReviewCard.objects.filter(user=user).values_list("id", "due", "stability", "schedule_key"))


def _logs(user) -> list[tuple]:
    return list(ReviewLog.objects.filter(user=user).oldest_first().values_list("id", "rating", "reviewed_at", "role"))


def test_too_little_history_keeps_the_defaults_and_says_so(learner):
    history = simulated_history(cards=10, reviews=80, true_parameters=FORGETFUL, start=timezone.now() - 200 * DAY)
    store_history(learner.user, history)
    fit = fitting.learner_parameters_fit(user_id=learner.user_id)
    assert fit.outcome == ParameterFit.Outcome.TOO_LITTLE
    assert "a fit needs 400 over 40" in fit.detail
    learner.refresh_from_db()
    assert learner.fsrs_parameters is None and not learner_schedule(learner).personal


@pytest.fixture
def long_history(learner):
    history = simulated_history(
        cards=80, reviews=1000, true_parameters=FORGETFUL, seed=1, start=timezone.now() - 500 * DAY
    )
    store_history(learner.user, history)
    return learner


def test_a_better_fit_is_kept_for_future_reviews_only(long_history):
    user = long_history.user
    cards, logs = _cards(user), _logs(user)
    fit = fitting.learner_parameters_fit(user_id=user.pk)
    assert fit.outcome == ParameterFit.Outcome.KEPT, fit.detail
    assert fit.reviews >= 400 and fit.cards >= 40
    assert fit.log_loss_after < fit.log_loss_before and fit.rmse_after is not None
    assert fit.previous_parameters is None and len(fit.parameters) == 21
    assert fit.cpu_seconds < 2
    profile = LearnerProfile.objects.get(user=user)
    assert profile.fsrs_parameters == fit.parameters
    schedule = learner_schedule(profile)
    assert schedule.personal and schedule.parameters == tuple(fit.parameters)
    # Nothing already stored or shown changed: the logs (order, ratings, roles) and every card's due date.
    assert _logs(user) == logs and _cards(user) == cards

    # The next rating of a card replays it under the new parameters: its key names them, and it is what a
    # full replay gives.
    card = ReviewCard.objects.filter(user=user).select_related("question").order_by("due").first()
    rated = card_rate(user=user, question=card.question, rating=3)
    assert rated.schedule_key == schedule.key
    replayed = card_replay(card=ReviewCard.objects.get(pk=rated.pk))
    assert (replayed.due, replayed.stability, replayed.difficulty) == (rated.due, rated.stability, rated.difficulty)
    others = [row for row in _cards(user) if row[0] != card.pk]
    assert others == [row for row in cards if row[0] != card.pk]


def test_a_refit_that_predicts_no_better_keeps_the_parameters_in_use(long_history):
    user = long_history.user
    first = fitting.learner_parameters_fit(user_id=user.pk)
    second = fitting.learner_parameters_fit(user_id=user.pk)  # the same logs: the fit is measured against itself
    assert first.outcome == "kept"
    assert second.previous_parameters == first.parameters
    assert second.log_loss_before is not None and second.log_loss_after is not None
    if second.outcome != "kept":
        assert second.outcome == "not_better"
        assert LearnerProfile.objects.get(user=user).fsrs_parameters == first.parameters


def test_a_failed_fit_is_kept_out_and_logged(long_history, monkeypatch, caplog):
    def broken(items):
        raise ValueError("optimiser blew up")

    monkeypatch.setattr(optimizer, "compute_parameters", broken)
    with caplog.at_level(logging.WARNING, logger="quizzes.reviews.fitting"):
        fit = fitting.learner_parameters_fit(user_id=long_history.user_id)
    assert fit.outcome == "failed" and "optimiser blew up" in fit.detail
    assert "kept out (failed)" in caplog.text
    assert LearnerProfile.objects.get(pk=long_history.pk).fsrs_parameters is None


def test_parameters_outside_the_valid_ranges_are_kept_out(long_history, monkeypatch, caplog):
    real = optimizer.compute_parameters
    calls = []

    def final_out_of_range(items):
        calls.append(len(items))
        fitted = real(items)
        return (*fitted[:20], 0.95) if len(calls) > optimizer.N_SPLITS else fitted  # the last fit, on every item

    monkeypatch.setattr(optimizer, "compute_parameters", final_out_of_range)
    with caplog.at_level(logging.WARNING, logger="quizzes.reviews.fitting"):
        fit = fitting.learner_parameters_fit(user_id=long_history.user_id)
    assert fit.outcome == "out_of_range" and "w20 = 0.95" in fit.detail
    assert "kept out (out_of_range)" in caplog.text
    assert LearnerProfile.objects.get(pk=long_history.pk).fsrs_parameters is None


def test_stored_parameters_py_fsrs_refuses_fall_back_to_the_defaults(learner, caplog):
    learner.fsrs_parameters = [*scheduling.DEFAULT_PARAMETERS[:20], 0.95]  # only a hand edit could do this
    with caplog.at_level(logging.ERROR, logger="quizzes.reviews.parameters"):
        schedule = learner_schedule(learner)
    assert not schedule.personal and "refused" in caplog.text


def test_the_daily_pass_picks_learners_with_enough_new_history(long_history, learner_factory=None):
    short = factories.LearnerProfileFactory()
    store_history(
        short.user, simulated_history(cards=5, reviews=30, true_parameters=FORGETFUL, start=timezone.now() - 60 * DAY)
    )
    assert learners_to_fit() == [long_history.user_id]
    fitting.learner_parameters_fit(user_id=long_history.user_id)
    assert learners_to_fit() == []  # no new reviews since
    ReviewCard.objects.filter(user=long_history.user).update(reps=10_000)  # as if many reviews came since
    assert learners_to_fit() == [long_history.user_id]


def test_the_status_tells_personal_or_default(long_history):
    status = parameters.parameters_status(user_id=long_history.user_id, profile=long_history)
    assert not status.personal and status.kept is None and status.latest is None and status.reviews >= 400
    fit = fitting.learner_parameters_fit(user_id=long_history.user_id)
    profile = LearnerProfile.objects.get(pk=long_history.pk)
    status = parameters.parameters_status(user_id=long_history.user_id, profile=profile)
    assert status.personal and status.kept == fit and status.latest == fit


# --- one function for every path: online, offline (split, reordered), undo --------------------------------


def _personal_learner(seed: int):
    profile = factories.LearnerProfileFactory(time_zone="Asia/Shanghai", fsrs_parameters=list(perturbed(seed)))
    return profile.user


def test_online_offline_split_reordered_and_undo_agree_with_personal_parameters(lesson):
    now = timezone.now().replace(microsecond=0)
    start = now - 120 * DAY
    with time_machine.travel(start - DAY, tick=False):
        prompts = [factories.PromptQuestionFactory(lesson=lesson) for _ in range(3)]
        learners = [_personal_learner(21) for _ in range(4)]
    rng = random.Random(3)
    script = sorted(
        (start + dt.timedelta(hours=rng.randrange(0, 110 * 24)), rng.randrange(3), rng.choice([1, 2, 3, 3, 4]))
        for _ in range(30)
    )
    online, whole, split, undone = learners
    for moment, index, rating in script:  # online, one rating at a time as it happened
        with time_machine.travel(moment, tick=False):
            card_rate(user=online, question=prompts[index], rating=rating)
    entries = [
        OfflineEntry(client_uuid=uuid.uuid4(), reviewed_at=moment, question_id=prompts[i].pk, rating=r)
        for moment, i, r in script
    ]
    offline_reviews_merge(user=whole, entries=rng.sample(entries, len(entries)), now=now)
    shuffled = rng.sample(entries, len(entries))
    for part in (shuffled[:9], shuffled[9:20], shuffled[20:]):
        offline_reviews_merge(user=split, entries=[*part], now=now)
    extra = OfflineEntry(client_uuid=uuid.uuid4(), reviewed_at=now - DAY, question_id=prompts[0].pk, rating=1)
    offline_reviews_merge(user=undone, entries=[*entries, extra], now=now)
    card_undo_last(user=undone)

    expected = cards_snapshot(online)
    assert all("|w=" in card[9] for card in expected)  # scheduled with the personal parameters
    assert cards_snapshot(whole) == cards_snapshot(split) == cards_snapshot(undone) == expected


def test_the_rating_buttons_intervals_follow_the_learner_s_parameters(lesson):
    now = timezone.now()
    with time_machine.travel(now - 30 * DAY, tick=False):
        prompt = factories.PromptQuestionFactory(lesson=lesson)
        mine = _personal_learner(2)
        theirs = factories.LearnerProfileFactory(time_zone="Asia/Shanghai").user
    for user in (mine, theirs):
        for days_ago in (20, 17, 9):
            card_rate(user=user, question=prompt, rating=3, reviewed_at=now - days_ago * DAY)
    personal = {p.rating: p.due for p in rating_preview(user=mine, question=prompt, now=now)}
    default = {p.rating: p.due for p in rating_preview(user=theirs, question=prompt, now=now)}
    assert personal != default
    card = ReviewCard.objects.get(user=mine)
    schedule = learner_schedule(LearnerProfile.objects.get(user=mine))
    state = scheduling.stored(card.fsrs_card, reps=card.reps, lapses=card.lapses, schedule=schedule)
    assert personal == {
        int(r): due for r, (due, _counts) in scheduling.preview(state, now=now, schedule=schedule).items()
    }
