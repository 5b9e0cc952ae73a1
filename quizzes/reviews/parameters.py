"""Which FSRS parameters schedule a learner: decided here, once (issue 30).

Every path that turns a learner's logs into a schedule — the answer POST, the API's rating, the offline merge
(replay), undo, review packs' uploads, the rating buttons' previews and the workload simulation — gets its
``scheduling.Schedule`` from ``learner_schedule``, so the same history gives the same cards whichever way it
arrived. The weights are the profile's ``fsrs_parameters`` (written only by a kept fit, quizzes.reviews.fitting)
or FSRS-6's defaults; they are read with the profile the path already reads, so no path makes a query for them.
"""

from __future__ import annotations

import datetime as dt
import logging
from dataclasses import dataclass

from django.contrib.auth.models import User
from django.db.models import Count, F, OuterRef, Q, Subquery, Sum

from quizzes.accounts.models import LearnerProfile
from quizzes.content.models import Question
from quizzes.reviews import learner_cache, scheduling, workload
from quizzes.reviews.models import ParameterFit, ReviewCard

logger = logging.getLogger(__name__)

#: Counted reviews (each study day's first rating of a card) a learner needs before their first fit
#: (quizzes.reviews.fitting says why these numbers).
MIN_REVIEWS = 400
#: …spread over at least this many cards: 400 reviews of five cards say little about the next fifty.
MIN_CARDS = 40
#: A refit once this many counted reviews were added since the last attempt (kept or not).
REFIT_NEW_REVIEWS = 200


def profile_parameters(profile: LearnerProfile) -> scheduling.Parameters | None:
    """The learner's own weights as stored (rounded floats), or None: FSRS-6's defaults schedule them."""
    stored = profile.fsrs_parameters
    if not stored:
        return None
    return tuple(float(w) for w in stored)


def learner_schedule(profile: LearnerProfile) -> scheduling.Schedule:
    """The one answer to "with what is this learner scheduled": their study days, retention and parameters.

    Stored weights that py-fsrs refuses (which no fit stores: they are checked before they are kept) fall back
    to the defaults, logged, rather than leaving the learner unable to review.
    """
    parameters = profile_parameters(profile)
    try:
        return scheduling.schedule(
            time_zone=profile.time_zone,
            rollover_hour=profile.day_rollover_hour,
            desired_retention=profile.desired_retention,
            parameters=parameters,
        )
    except ValueError:
        logger.error("learner %s: stored FSRS parameters refused, scheduling with the defaults", profile.user_id)
        return scheduling.schedule(
            time_zone=profile.time_zone,
            rollover_hour=profile.day_rollover_hour,
            desired_retention=profile.desired_retention,
        )


# --- reads about fits (the settings page, the API, the daily pass) ------------------------------------------


@dataclass(frozen=True)
class ParametersStatus:
    """What the learner is told about their parameters: personal or default, and the fits behind them."""

    personal: bool
    kept: ParameterFit | None  # the fit whose parameters schedule them now (None: the defaults)
    latest: ParameterFit | None  # the newest attempt, kept or not
    reviews: int  # counted reviews so far (the cards' reps), against the thresholds
    min_reviews: int
    min_cards: int
    cards: int


def parameters_status(*, user_id: int, profile: LearnerProfile) -> ParametersStatus:
    """Two small queries: the newest attempt and the newest kept fit, and the counted reviews so far."""
    fits = ParameterFit.objects.filter(user_id=user_id)
    latest = fits.order_by("-created_at", "-id").first()
    kept = latest if latest and latest.outcome == ParameterFit.Outcome.KEPT else None
    if kept is None and profile.fsrs_parameters:
        kept = fits.filter(outcome=ParameterFit.Outcome.KEPT).order_by("-created_at", "-id").first()
    totals = ReviewCard.objects.filter(user_id=user_id).aggregate(reviews=Sum("reps"), cards=Count("id"))
    return ParametersStatus(
        personal=profile_parameters(profile) is not None,
        kept=kept,
        latest=latest,
        reviews=totals["reviews"] or 0,
        cards=totals["cards"] or 0,
        min_reviews=MIN_REVIEWS,
        min_cards=MIN_CARDS,
    )


def learners_to_fit(*, limit: int = 10_000) -> list[int]:
    """The learners the daily pass fits: enough counted reviews over enough cards (their cards' ``reps``), and
    never fitted or ``REFIT_NEW_REVIEWS`` more since their last attempt. One grouped query over the cards table
    (a row per learner and question, smaller than the logs)."""
    last = ParameterFit.objects.filter(user_id=OuterRef("user_id")).order_by("-created_at", "-id").values("reviews")
    rows = (
        ReviewCard.objects.order_by()
        .values("user_id")
        .annotate(reviews=Sum("reps"), cards=Count("id"), last=Subquery(last[:1]))
        .filter(reviews__gte=MIN_REVIEWS, cards__gte=MIN_CARDS)
        .filter(Q(last__isnull=True) | Q(reviews__gte=F("last") + REFIT_NEW_REVIEWS))
        .order_by("user_id")
        .values_list("user_id", flat=True)
    )
    return list(rows[:limit])


# --- what a desired retention would cost (the settings page, the API) -----------------------------------------


@dataclass(frozen=True)
class RetentionPreview:
    """The simulated next 30 days at a desired retention, beside the learner's current one, and fsrs-rs's
    suggestion; all with the learner's own cards and parameters."""

    chosen: workload.Workload
    current: workload.Workload
    suggested: float
    personal: bool


def _card_states(*, user_id: int, profile: LearnerProfile, today: dt.date) -> list[workload.CardState]:
    zone, rollover = profile.zone, profile.day_rollover_hour
    states = []
    rows = ReviewCard.objects.live_for(user_id).values_list("stability", "difficulty", "last_review", "due")
    for stability, difficulty, last_review, due in rows:
        if stability is None or difficulty is None or last_review is None:
            continue
        elapsed = (today - scheduling.local_day(last_review, zone, rollover)).days
        due_in = (scheduling.local_day(due, zone, rollover) - today).days
        states.append(workload.CardState(stability, difficulty, max(0, elapsed), due_in))
    return states


def retention_preview(
    *, user: User, profile: LearnerProfile, desired_retention: float, now: dt.datetime
) -> RetentionPreview:
    """Two queries (the live cards, the unseen questions) and two simulations; cached per learner and retention
    until their next write or the end of their study day (quizzes.reviews.learner_cache)."""

    def build() -> tuple[RetentionPreview, dt.datetime]:
        today = scheduling.local_day(now, profile.zone, profile.day_rollover_hour)
        cards = _card_states(user_id=user.pk, profile=profile, today=today)
        unseen = Question.objects.published().unseen_by(user).count()
        schedule = learner_schedule(profile)
        common = {
            "parameters": schedule.parameters,
            "cards": cards,
            "unseen": unseen,
            "new_per_day": profile.new_per_day,
            "reviews_per_day": profile.reviews_per_day,
        }
        chosen = workload.simulate(desired_retention=desired_retention, **common)  # type: ignore[arg-type]
        current = (
            chosen
            if desired_retention == profile.desired_retention
            else workload.simulate(desired_retention=profile.desired_retention, **common)  # type: ignore[arg-type]
        )
        suggested = workload.suggested_retention(
            parameters=schedule.parameters,
            deck_size=workload.deck_bucket(len(cards) + unseen),
            new_per_day=profile.new_per_day,
            reviews_per_day=profile.reviews_per_day,
        )
        preview = RetentionPreview(chosen=chosen, current=current, suggested=suggested, personal=schedule.personal)
        return preview, scheduling.day_end(today, profile.zone, profile.day_rollover_hour)

    return learner_cache.learner_read(
        user_id=user.pk, name="retention-preview", params=[repr(desired_retention)], now=now, build=build
    )
