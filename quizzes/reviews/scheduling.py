"""FSRS glue: local study days, our scheduler configuration, and replaying a card's history.

py-fsrs does the memory model. What we add:

* **Two-day rule.** A card's first log is the first study; FSRS reviews it normally and then
  its due date is pinned to exactly ``FIRST_REVIEW_DELAY`` later. FSRS computes the next
  state from ``last_review`` and elapsed time, never from ``due``, so overriding ``due`` is safe.
* **Day's first answer only.** A later log feeds FSRS only if it is the first counted log of
  the learner's local study day (time zone + rollover hour); same-day repeats are kept in the
  log (role "repeat") but never move the schedule, so retakes can't inflate intervals.
* **No intra-day steps.** ``learning_steps`` and ``relearning_steps`` are empty: since only one
  answer per day counts, minute-long steps would be meaningless. Every counted rating gives a
  whole-day interval (≥ 1 day); Again on a Review card is a lapse.
* **Deterministic.** Fuzz is disabled, so the same history always gives the same dates
  (tests assert exact dates). Everything passed to py-fsrs is converted to UTC here.

``replay`` rebuilds a card from its full log list; it is the only code path that turns logs
into card state (new ratings, undo, and later offline uploads that arrive out of order).

* **Parameters.** A ``Schedule`` carries the scheduler (retention + FSRS-6's 21 weights: the defaults, or the
  learner's fitted ones) and the key a stored state is computed under, which names the weights, so a stored
  state is stepped on only under the weights that computed it. Which weights schedule a learner is decided in
  one place, ``quizzes.reviews.parameters.learner_schedule``.
"""

from __future__ import annotations

import datetime as dt
import functools
import hashlib
import math
import zoneinfo
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import fsrs
from fsrs.scheduler import LOWER_BOUNDS_PARAMETERS, UPPER_BOUNDS_PARAMETERS

FIRST_REVIEW_DELAY = dt.timedelta(days=2)
LEECH_LAPSES = 8

#: Bump when the rules above change: every stored card then replays its whole log at its next rating.
RULES_VERSION = 1

#: FSRS-6's weights: 21 floats, the same layout in py-fsrs (which schedules) and fsrs-rs (which fits).
Parameters = tuple[float, ...]
PARAMETER_COUNT = 21
DEFAULT_PARAMETERS: Parameters = tuple(fsrs.scheduler.DEFAULT_PARAMETERS)
LOWER_BOUNDS: Parameters = tuple(LOWER_BOUNDS_PARAMETERS)
UPPER_BOUNDS: Parameters = tuple(UPPER_BOUNDS_PARAMETERS)

ROLE_FIRST = "first"
ROLE_REVIEW = "review"
ROLE_REPEAT = "repeat"


def to_utc(moment: dt.datetime) -> dt.datetime:
    """py-fsrs insists on tzinfo == datetime.timezone.utc (not ZoneInfo("UTC"))."""
    if moment.tzinfo is None:
        raise ValueError("naive datetime: the scheduler needs aware datetimes")
    return moment.astimezone(dt.UTC)


def local_day(moment: dt.datetime, zone: zoneinfo.ZoneInfo, rollover_hour: int) -> dt.date:
    """The learner's study day containing ``moment``: a day starts at ``rollover_hour`` local time."""
    return (moment.astimezone(zone) - dt.timedelta(hours=rollover_hour)).date()


def day_start(day: dt.date, zone: zoneinfo.ZoneInfo, rollover_hour: int) -> dt.datetime:
    """When study day ``day`` begins, in UTC."""
    return dt.datetime.combine(day, dt.time(rollover_hour), tzinfo=zone).astimezone(dt.UTC)


def day_end(day: dt.date, zone: zoneinfo.ZoneInfo, rollover_hour: int) -> dt.datetime:
    """When study day ``day`` ends (= the next day's start), in UTC."""
    return day_start(day + dt.timedelta(days=1), zone, rollover_hour)


def parameters_identity(parameters: Parameters | None) -> str:
    """A short name for a parameter vector: "" for FSRS-6's defaults, else 12 hex digits of its digest."""
    if parameters is None or tuple(parameters) == DEFAULT_PARAMETERS:
        return ""
    return hashlib.sha256(repr(tuple(float(w) for w in parameters)).encode()).hexdigest()[:12]


def settings_key(
    *, time_zone: str, rollover_hour: int, desired_retention: float, parameters: Parameters | None = None
) -> str:
    """What a card's stored state depends on besides its logs: stepping it on is exact only under the same key.

    The parameters' identity is part of it (``|w=<digest>``); FSRS-6's defaults add nothing, so the keys cards
    were stored under before personal parameters existed still match for learners on the defaults.
    """
    identity = parameters_identity(parameters)
    key = f"v{RULES_VERSION}|{time_zone}|{rollover_hour}|{desired_retention!r}"
    return f"{key}|w={identity}" if identity else key


def reminder_moment(day: dt.date, zone: zoneinfo.ZoneInfo, rollover_hour: int, reminder_hour: int) -> dt.datetime:
    """When study day ``day``'s review reminder becomes due (UTC): the first reminder_hour:00 after the day starts."""
    calendar_day = day if reminder_hour >= rollover_hour else day + dt.timedelta(days=1)
    return dt.datetime.combine(calendar_day, dt.time(reminder_hour), tzinfo=zone).astimezone(dt.UTC)


def valid_parameters(parameters: Sequence[float]) -> str:
    """Why a parameter vector may not schedule anyone ("" when it may): FSRS-6's 21 finite weights, each within
    the range fsrs-rs clips its fits to (= py-fsrs's LOWER/UPPER_BOUNDS_PARAMETERS, checked again when a Scheduler
    is built). With no relearning steps, w17 and w18 may reach 2.0 (the clipper's ceiling for one step or none)."""
    if len(parameters) != PARAMETER_COUNT:
        return f"{len(parameters)} parameters, FSRS-6 has {PARAMETER_COUNT}"
    for index, (w, low, high) in enumerate(zip(parameters, LOWER_BOUNDS, UPPER_BOUNDS, strict=True)):
        if not math.isfinite(w):
            return f"w{index} is not a finite number"
        if not low <= w <= high:
            return f"w{index} = {w!r} is outside [{low}, {high}]"
    return ""


@dataclass(frozen=True)
class Schedule:
    """Everything a card's schedule is computed with, besides its logs: py-fsrs's scheduler (the learner's
    retention and parameters), their study days, and the key a card's stored state is computed under."""

    scheduler: fsrs.Scheduler
    zone: zoneinfo.ZoneInfo
    rollover_hour: int
    key: str
    personal: bool  # the parameters were fitted to this learner (else FSRS-6's defaults)

    @property
    def parameters(self) -> Parameters:
        return tuple(self.scheduler.parameters)


@functools.lru_cache(maxsize=4096)
def schedule(
    *, time_zone: str, rollover_hour: int, desired_retention: float, parameters: Parameters | None = None
) -> Schedule:
    """One Schedule per settings, shared: py-fsrs never changes a Scheduler after building it.

    ``parameters``: FSRS-6's 21 weights (None: the defaults); invalid ones raise ValueError (py-fsrs's check).
    """
    weights = DEFAULT_PARAMETERS if parameters is None else tuple(parameters)
    scheduler = fsrs.Scheduler(
        parameters=weights,
        desired_retention=desired_retention,
        learning_steps=(),
        relearning_steps=(),
        enable_fuzzing=False,
    )
    key = settings_key(
        time_zone=time_zone, rollover_hour=rollover_hour, desired_retention=desired_retention, parameters=weights
    )
    return Schedule(
        scheduler=scheduler,
        zone=zoneinfo.ZoneInfo(time_zone),
        rollover_hour=rollover_hour,
        key=key,
        personal=weights != DEFAULT_PARAMETERS,
    )


def rating_for_result(correct: bool, *, suggested: int | None = None, chosen: int | None = None) -> fsrs.Rating:
    """The rating a server-graded answer gives FSRS: the one place for this rule.

    Choice and numeric answers: wrong → Again, right → Good (response time is not used). A code
    answer comes with the checker's ``suggested`` rating (Good / Hard / Again: every input passes /
    only the plain ones / a plain one fails), recorded when the item locks; the learner may then
    accept it or pick another (``chosen``), which replaces it (``card_rate_answer``).
    """
    if chosen is not None:
        return fsrs.Rating(chosen)
    if suggested is not None:
        return fsrs.Rating(suggested)
    return fsrs.Rating.Good if correct else fsrs.Rating.Again


@dataclass(frozen=True)
class LogEntry:
    rating: int
    reviewed_at: dt.datetime


@dataclass
class Replay:
    card: fsrs.Card | None
    roles: list[str]
    reps: int
    lapses: int
    last_counted_day: dt.date | None

    @property
    def is_leech(self) -> bool:
        return self.lapses >= LEECH_LAPSES


EMPTY = Replay(card=None, roles=[], reps=0, lapses=0, last_counted_day=None)


def replay(entries: Iterable[LogEntry], *, card_id: int, schedule: Schedule) -> Replay:
    """Rebuild FSRS state from a card's logs, oldest first (the caller orders ties)."""
    return resume(EMPTY, entries, card_id=card_id, schedule=schedule)


def stored(fsrs_card: dict, *, reps: int, lapses: int, schedule: Schedule) -> Replay:
    """The state a replay ended in, from what it stored (``Card.to_dict()``, reps, lapses); roles left empty.

    The last counted log is the card's ``last_review`` (every counted rating sets it), so its study day
    is the day the next rating is compared with. Only valid under the settings the state was computed with.
    """
    card = fsrs.Card.from_dict(fsrs_card)  # type: ignore[arg-type]
    assert card.last_review is not None  # a stored card has at least one counted log
    day = local_day(to_utc(card.last_review), schedule.zone, schedule.rollover_hour)
    return Replay(card=card, roles=[], reps=reps, lapses=lapses, last_counted_day=day)


def counts(day: dt.date, last_counted_day: dt.date | None) -> bool:
    """The day's-first rule: a rating feeds FSRS only on a study day with no counted rating yet."""
    return day != last_counted_day


def resume(state: Replay, entries: Iterable[LogEntry], *, card_id: int, schedule: Schedule) -> Replay:
    """Continue a replay from ``state`` with later logs, oldest first: one FSRS step per counted log.

    ``replay`` is this from the empty state, so appending in order and replaying everything agree by
    construction. The returned roles are those of ``entries`` only; ``state`` is not modified.
    """
    scheduler, zone, rollover_hour = schedule.scheduler, schedule.zone, schedule.rollover_hour
    card = state.card
    roles: list[str] = []
    reps, lapses, last_counted_day = state.reps, state.lapses, state.last_counted_day
    for entry in entries:
        moment = to_utc(entry.reviewed_at)
        day = local_day(moment, zone, rollover_hour)
        rating = fsrs.Rating(entry.rating)
        if card is None:
            card, _ = scheduler.review_card(fsrs.Card(card_id=card_id, due=moment), rating, moment)
            card.due = moment + FIRST_REVIEW_DELAY
            roles.append(ROLE_FIRST)
        elif not counts(day, last_counted_day):
            roles.append(ROLE_REPEAT)
            continue
        else:
            if rating == fsrs.Rating.Again and card.state == fsrs.State.Review:
                lapses += 1
            card, _ = scheduler.review_card(card, rating, moment)
            roles.append(ROLE_REVIEW)
        reps += 1
        last_counted_day = day
    return Replay(card=card, roles=roles, reps=reps, lapses=lapses, last_counted_day=last_counted_day)


def preview(state: Replay, *, now: dt.datetime, schedule: Schedule) -> dict[fsrs.Rating, tuple[dt.datetime, bool]]:
    """For each rating: (the due date it would give, whether it would count), without saving."""
    moment = to_utc(now)
    if state.card is None:
        return {rating: (moment + FIRST_REVIEW_DELAY, True) for rating in fsrs.Rating}
    if not counts(local_day(moment, schedule.zone, schedule.rollover_hour), state.last_counted_day):
        return {rating: (state.card.due, False) for rating in fsrs.Rating}
    scheduler = schedule.scheduler
    return {rating: (scheduler.review_card(state.card, rating, moment)[0].due, True) for rating in fsrs.Rating}
