"""When the reminder pass next looks at a learner: ``LearnerProfile.next_reminder_at``, kept a lower bound.

Why: the reminder pass (quizzes.notifications.services) must cost O(learners due now), not O(opted-in
learners). So each learner carries the earliest moment their next reminder could be due, and the pass reads
only ``next_reminder_at <= now`` through an index. The value may be early (one needless check, after which
the check sets the exact moment) but never late (a lost reminder), so:

* a card write that can bring the reminder forward (a new card or an earlier due date: an answer, a rating,
  an offline upload, undo, unsuspend) lowers it — with no query when it is already early enough
  (``reminder_clock_card_due``);
* a change of the reminder settings (opt-in, hour, time zone, rollover) sets ``CHECK_SOON`` (accounts);
* after looking at a learner, the pass sets the exact moment (``reminder_clock_after_check``): the reminder
  moment of the first study day — today, or tomorrow once today's moment has passed — on which a live card
  is due; none without live cards.

A new day needs no write: the column holds a moment, and a later day's moment is already in it.
Not followed: publishing or unpublishing a lesson (a learner's reminder then waits for their next write or
check), and a card write committed while the pass is computing that learner's moment from the cards it read
just before (the pass holds the profile's row lock, but a write that found the clock early enough skips the
update); both are rare and at worst delay one reminder, never send two.
"""

from __future__ import annotations

import datetime as dt

from django.db import transaction
from django.db.models import Min
from django.db.models.functions import Coalesce, Least
from django.utils import timezone

from quizzes.accounts.models import LearnerProfile
from quizzes.reviews import scheduling
from quizzes.reviews.models import ReviewCard


def _moment(profile: LearnerProfile, day: dt.date) -> dt.datetime:
    return scheduling.reminder_moment(day, profile.zone, profile.day_rollover_hour, profile.reminder_hour)


def _day(profile: LearnerProfile, moment: dt.datetime) -> dt.date:
    return scheduling.local_day(moment, profile.zone, profile.day_rollover_hour)


def next_reminder(*, profile: LearnerProfile, earliest_due: dt.datetime | None, now: dt.datetime) -> dt.datetime | None:
    """The first reminder moment after ``now`` on a study day with a card due (due before the day ends)."""
    if earliest_due is None or not profile.reminder_opt_in:
        return None
    today = _day(profile, now)
    first_due_day = _day(profile, earliest_due)  # the first study day whose end comes after earliest_due
    moment = _moment(profile, max(today, first_due_day))
    if moment <= now:  # today's moment has passed: the learner was just looked at, or reminded
        moment = _moment(profile, max(today + dt.timedelta(days=1), first_due_day))
    return moment


def reminder_clock_card_due(*, profile: LearnerProfile, due: dt.datetime, now: dt.datetime | None = None) -> None:
    """A card of this learner is now due at ``due``: bring the clock forward if that could be earlier.

    ``profile`` is the learner's as read in this request; when its clock is already no later than the
    candidate, nothing is written (the usual case: an answer moves a card later).
    """
    if not profile.reminder_opt_in or profile.pk is None:
        return
    now = now or timezone.now()
    today = _day(profile, now)
    if profile.last_reminded_on == today:  # today's reminder went out: the next one is tomorrow's at the earliest
        today += dt.timedelta(days=1)
    candidate = _moment(profile, max(today, _day(profile, due)))
    if profile.next_reminder_at is not None and profile.next_reminder_at <= candidate:
        return
    LearnerProfile.objects.filter(pk=profile.pk, reminder_opt_in=True).update(
        next_reminder_at=Least(Coalesce("next_reminder_at", candidate), candidate)
    )
    profile.next_reminder_at = (
        candidate if profile.next_reminder_at is None else min(profile.next_reminder_at, candidate)
    )


def reminder_clock_after_check(*, profile: LearnerProfile, now: dt.datetime, retry: bool = False) -> None:
    """The reminder pass looked at this learner at ``now``: set the exact next moment (``retry``: the next pass).

    Under the profile's row lock, so a card write racing with it waits and then lowers the result.
    """
    with transaction.atomic():
        locked = list(LearnerProfile.objects.select_for_update().filter(pk=profile.pk).values_list("pk", flat=True))
        if not locked:
            return
        if retry:
            moment: dt.datetime | None = now
        else:
            earliest = ReviewCard.objects.live_for(profile.user).aggregate(earliest=Min("due"))["earliest"]
            moment = next_reminder(profile=profile, earliest_due=earliest, now=now)
        LearnerProfile.objects.filter(pk=profile.pk, reminder_opt_in=True).update(next_reminder_at=moment)
        profile.next_reminder_at = moment
