"""Fitting a learner's FSRS parameters to their own reviews (issue 30): the service the ``fitting`` queue runs.

``learner_parameters_fit`` reads the learner's logs, counts each study day's first rating per card (the rule the
scheduler applies, ``scheduling.counts``), and — with enough history — asks fsrs-rs whether fitting predicts the
learner's later reviews better than the parameters scheduling them now (``optimizer.fit``: time-series folds,
log loss). Every attempt is a ParameterFit row with both figures; only a better fit with valid parameters is
kept, and then it is written to the profile, which schedules the learner's *future* reviews
(``parameters.learner_schedule``). Nothing else changes: no log is rewritten or reordered, no card's due date
moves. A card's stored state names the parameters it was computed with (its key), so the card's next rating
replays its whole log with the new parameters and its next interval comes from that memory state.

**Thresholds.** A fit needs ``MIN_REVIEWS`` counted reviews over ``MIN_CARDS`` cards (Anki's optimiser asked
for 400 reviews before it fitted; with fewer, bench/README.md "Scheduling fitted to each learner" measures
personal parameters winning for too few learners to be worth a change); then a refit waits for
``REFIT_NEW_REVIEWS`` more. Below the thresholds the learner stays on FSRS-6's defaults, which the settings page
says plainly. The daily pass (``learners_to_fit``) picks the learners due by these rules.
"""

from __future__ import annotations

import datetime as dt
import logging
import time
from collections import defaultdict
from dataclasses import dataclass

from django.db import transaction

from quizzes.accounts.models import LearnerProfile
from quizzes.reviews import optimizer, scheduling
from quizzes.reviews.models import ParameterFit, ReviewLog
from quizzes.reviews.parameters import MIN_CARDS, MIN_REVIEWS, profile_parameters

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class History:
    """A learner's counted reviews per card, oldest first, as the scheduler counts them."""

    cards: dict[int, list[tuple[int, dt.datetime]]]
    reviews: int
    newest: dt.datetime | None


def learner_history(*, user_id: int, profile: LearnerProfile) -> History:
    """Read the learner's logs in replay order and keep each card's counted ones (read-only)."""
    zone, rollover = profile.zone, profile.day_rollover_hour
    rows = (
        ReviewLog.objects.filter(user_id=user_id)
        .order_by("card_id", "reviewed_at", "id")
        .values_list("card_id", "rating", "reviewed_at")
    )
    cards: dict[int, list[tuple[int, dt.datetime]]] = defaultdict(list)
    last_day: dict[int, dt.date] = {}
    newest: dt.datetime | None = None
    for card_id, rating, reviewed_at in rows.iterator(chunk_size=5000):
        moment = scheduling.to_utc(reviewed_at)
        day = scheduling.local_day(moment, zone, rollover)
        newest = moment if newest is None or moment > newest else newest
        if scheduling.counts(day, last_day.get(card_id)):
            cards[card_id].append((rating, moment))
            last_day[card_id] = day
    return History(cards=dict(cards), reviews=sum(map(len, cards.values())), newest=newest)


def _enough(history: History) -> str:
    """Why the history is too short to fit ("" when it is long enough)."""
    if history.reviews < MIN_REVIEWS or len(history.cards) < MIN_CARDS:
        return (
            f"{history.reviews} counted reviews over {len(history.cards)} cards; a fit needs {MIN_REVIEWS} "
            f"over {MIN_CARDS}"
        )
    return ""


def learner_parameters_fit(*, user_id: int) -> ParameterFit:
    """Fit one learner and record the attempt; keep the new parameters only when they predict better (see the
    module docstring). Idempotent enough for a redelivered task: a second run records a second attempt on the
    same logs, which cannot beat the parameters the first one kept by their own measure twice over."""
    profile = LearnerProfile.objects.filter(user_id=user_id).first() or LearnerProfile(user_id=user_id)
    current = profile_parameters(profile)
    started = time.process_time()
    history = learner_history(user_id=user_id, profile=profile)
    record = ParameterFit(
        user_id=user_id,
        reviews=history.reviews,
        cards=len(history.cards),
        logs_until=history.newest,
        previous_parameters=list(current) if current else None,
    )
    short = _enough(history)
    if short:
        record.outcome, record.detail = ParameterFit.Outcome.TOO_LITTLE, short
        return _record(record, profile=None, started=started)
    items = optimizer.items_from_histories(history.cards)
    result = optimizer.fit(items, current or scheduling.DEFAULT_PARAMETERS)
    if result.comparison is not None:
        record.log_loss_before = result.comparison.before.log_loss
        record.log_loss_after = result.comparison.after.log_loss
        record.rmse_before = result.comparison.before.rmse_bins
        record.rmse_after = result.comparison.after.rmse_bins
    record.parameters = list(result.parameters) if result.parameters else None
    record.outcome = ParameterFit.Outcome(result.kind)
    record.detail = result.refused
    if result.kind in ("failed", "out_of_range"):
        logger.warning("parameter fit of learner %s kept out (%s): %s", user_id, result.kind, result.refused)
    return _record(record, profile=profile if result.kind == "kept" else None, started=started, expected=current)


@transaction.atomic
def _record(
    record: ParameterFit,
    *,
    profile: LearnerProfile | None,
    started: float,
    expected: scheduling.Parameters | None = None,
) -> ParameterFit:
    """Store the attempt; a kept one also becomes the learner's parameters, unless they changed meanwhile."""
    if profile is not None:
        locked, _created = LearnerProfile.objects.select_for_update().get_or_create(user_id=record.user_id)
        if profile_parameters(locked) != expected:  # another fit was kept while this one ran: it was measured
            record.outcome = ParameterFit.Outcome.FAILED  # against parameters no longer in use
            record.detail = "the learner's parameters changed during the fit"
            logger.warning("parameter fit of learner %s dropped: %s", record.user_id, record.detail)
        else:
            locked.fsrs_parameters = record.parameters
            locked.full_clean()
            locked.save(update_fields=["fsrs_parameters"])
    record.cpu_seconds = round(time.process_time() - started, 4)
    record.full_clean(exclude=["user"])
    record.save()
    return record
