"""Which FSRS parameters schedule a learner: decided here, once (issue 30).

Every path that turns a learner's logs into a schedule — the answer POST, the API's rating, the offline merge
(replay), undo, review packs' uploads, the rating buttons' previews and the workload simulation — gets its
``scheduling.Schedule`` from ``learner_schedule``, so the same history gives the same cards whichever way it
arrived. The weights are the profile's ``fsrs_parameters`` (written only by a kept fit, quizzes.reviews.fitting)
or FSRS-6's defaults; they are read with the profile the path already reads, so no path makes a query for them.
"""

from __future__ import annotations

import logging

from quizzes.accounts.models import LearnerProfile
from quizzes.reviews import scheduling

logger = logging.getLogger(__name__)


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
