"""Review writes: recording ratings, replaying, undo, suspend (offline uploads: quizzes.reviews.offline).

Every card's schedule is what replaying its whole log list through FSRS gives (``card_replay``,
quizzes.reviews.scheduling.replay): undo and ratings that arrive out of order replay. A rating after every
stored one (the usual case: an answer now) takes one FSRS step from the stored state instead
(``card_advance``), which gives the same card because the replay is that same stepping from nothing.
Callers that touch the same card serialise on the card row (SELECT … FOR UPDATE).
A rating's checks are quizzes.reviews.rules, shared with the offline upload.
"""

from __future__ import annotations

import datetime as dt
import uuid
from dataclasses import dataclass
from typing import TYPE_CHECKING

from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from quizzes.accounts.models import LearnerProfile
from quizzes.accounts.selectors import profile_for
from quizzes.content.models import Question
from quizzes.core import rows
from quizzes.core.errors import DomainError, ErrorCode
from quizzes.core.rows import row_insert_and_update
from quizzes.reviews import fast_paths, scheduling
from quizzes.reviews.models import ReviewCard, ReviewLog
from quizzes.reviews.parameters import learner_schedule
from quizzes.reviews.reminder_clock import reminder_clock_card_due
from quizzes.reviews.rules import rating_refusal, review_time_refusal, stored_client_uuids
from quizzes.reviews.selectors.ratings import card_state
from quizzes.reviews.signals import learner_rows_written

if TYPE_CHECKING:  # reviews sit below practice: the attempt item is only a type here
    from quizzes.practice.models import AttemptItem

#: The source whose ``reviewed_at`` a client's clock reported: the API's rate endpoint. Such a time may not
#: precede the question or the account, as for an offline upload (whose entries offline_reviews_merge checks).
CLIENT_CLOCK_SOURCES = (ReviewLog.Source.API,)


def _check_owner(card: ReviewCard, user: User) -> None:
    if card.user_id != user.pk:
        raise PermissionDenied(_("This review card belongs to another learner."))


@dataclass(frozen=True)
class _Locked:
    card: ReviewCard
    profile: LearnerProfile
    last_log_at: dt.datetime | None


def _lock_card_for_rating(*, user: User, question: Question, at: dt.datetime) -> _Locked:
    """The learner's card for ``question`` under its row lock (created if missing), with their profile and the
    card's newest log time (issue 16: the answer path)."""
    found = fast_paths.card_locked(user_id=user.pk, question_id=question.pk)
    if found is None:
        card = ReviewCard(user=user, question=question, due=at)
        if rows.row_insert_unless_taken(card):  # ours, locked as a new row is (a concurrent first rating waits)
            return _Locked(card=card, profile=profile_for(user=user), last_log_at=None)
        found = fast_paths.card_locked(user_id=user.pk, question_id=question.pk)  # theirs, committed: wait for its lock
        if found is None:
            raise IntegrityError(f"review card of user {user.pk} for question {question.pk}: taken, yet not found")
    card, last_log_at = found.card, found.last_log_at
    if not found.fresh:  # the lock waited for a writer of this card: read its logs again
        last_log_at = ReviewLog.objects.newest_per_card(cards=[card]).get(card.pk)
    profile = found.profile or LearnerProfile(user=user)  # never saved: the defaults, as profile_for gives them
    return _Locked(card=card, profile=profile, last_log_at=last_log_at)


def _store_state(card: ReviewCard, state: scheduling.Replay, key: str) -> None:
    """Copy a replay's end state onto the card's columns (not saved)."""
    fsrs_card = state.card
    assert fsrs_card is not None  # there is at least one log
    card.fsrs_card = fsrs_card.to_dict()
    card.state = int(fsrs_card.state)
    card.due = fsrs_card.due
    card.last_review = fsrs_card.last_review
    card.stability = fsrs_card.stability
    card.difficulty = fsrs_card.difficulty
    card.reps = state.reps
    card.lapses = state.lapses
    card.is_leech = state.is_leech  # flag only; suspending is the learner's call (see card_suspend)
    card.schedule_key = key


#: The columns ``card_advance`` changes, for a ``bulk_update`` of advanced cards.
ADVANCED_FIELDS = (
    "fsrs_card",
    "state",
    "due",
    "last_review",
    "stability",
    "difficulty",
    "reps",
    "lapses",
    "is_leech",
    "schedule_key",
    "updated_at",
)


def card_advance(
    *, card: ReviewCard, profile: LearnerProfile, logs: list[ReviewLog], last_log_at: dt.datetime | None
) -> bool:
    """Step a card's stored state with new logs (oldest first, not saved yet): one FSRS step per log.

    Exact — the same card and roles as ``card_replay`` after saving the logs — when every new log sorts
    after the card's stored logs (``last_log_at``, None for none) and the state was stored under the
    learner's current settings and parameters (the key names both, ``learner_schedule``):
    ``scheduling.replay`` is ``scheduling.resume`` from the empty state.
    Sets the new logs' roles and the card's columns (the caller saves both, under the card's row lock)
    and returns True; returns False, changing nothing, when the card must be replayed instead.
    """
    schedule = learner_schedule(profile)
    if last_log_at is None:
        start = scheduling.EMPTY
    elif card.schedule_key == schedule.key and all(log.reviewed_at >= last_log_at for log in logs):
        start = scheduling.stored(card.fsrs_card, reps=card.reps, lapses=card.lapses, schedule=schedule)
    else:
        return False
    state = scheduling.resume(
        start,
        [scheduling.LogEntry(rating=log.rating, reviewed_at=log.reviewed_at) for log in logs],
        card_id=card.pk,
        schedule=schedule,
    )
    for log, role in zip(logs, state.roles, strict=True):
        log.role = role
    _store_state(card, state, schedule.key)
    card.updated_at = timezone.now()  # bulk_update skips auto_now
    return True


def card_replay(*, card: ReviewCard, profile: LearnerProfile | None = None) -> ReviewCard | None:
    """Rebuild a card's FSRS state and denormalised columns from all its logs.

    Call inside a transaction holding the card's row lock. The first log gets the two-day
    rule, later logs count only as their study day's first; each log's ``role`` is rewritten
    to match. A card left without logs is deleted (the question is new again) → None.
    """
    if profile is None:
        profile = profile_for(user=card.user)
    logs = list(card.logs.oldest_first())
    if not logs:
        card.delete()
        return None
    schedule = learner_schedule(profile)
    state = card_state(card=card, profile=profile, logs=logs, schedule=schedule)
    changed = []
    for log, role in zip(logs, state.roles, strict=True):
        if log.role != role:
            log.role = role
            changed.append(log)
    ReviewLog.objects.bulk_update(changed, ["role"])
    _store_state(card, state, schedule.key)
    card.full_clean(exclude=["user", "question"], validate_constraints=False)  # FKs: the database checks them
    card.save()
    return card


def _add_log(
    *,
    user: User,
    question: Question,
    rating: int,
    reviewed_at: dt.datetime,
    duration_ms: int | None,
    source: str,
    client_uuid: uuid.UUID | None = None,
    attempt_item: AttemptItem | None = None,
) -> ReviewLog:
    locked = _lock_card_for_rating(user=user, question=question, at=reviewed_at)
    card, profile = locked.card, locked.profile
    log = ReviewLog(
        user=user,
        card=card,
        rating=rating,
        reviewed_at=reviewed_at,
        duration_ms=duration_ms,
        source=source,
        client_uuid=client_uuid,
        attempt_item=attempt_item,
    )
    # Uniqueness (see card_rate) and the foreign keys are the database's job: one query fewer each.
    log.full_clean(exclude=["user", "card", "attempt_item"], validate_constraints=False)
    if card_advance(card=card, profile=profile, logs=[log], last_log_at=locked.last_log_at):  # the usual: one step
        # Written without model signals, so the learner's cached reads are made stale once, not once per row.
        row_insert_and_update(
            log, ReviewCard, pk=card.pk, values={field: getattr(card, field) for field in ADVANCED_FIELDS}
        )
        learner_rows_written.send(sender=ReviewCard, user_id=user.pk)
    else:  # reviewed before a stored rating, or under other settings: replay the card's whole log
        log.save()
        card_replay(card=card, profile=profile)  # the card is the user's: no card.user query
        log.refresh_from_db(fields=["role"])
    reminder_clock_card_due(profile=profile, due=card.due)
    return log


def card_record_answer(
    *,
    user: User,
    item: AttemptItem,
    correct: bool,
    reviewed_at: dt.datetime,
    duration_ms: int | None = None,
    source: str = ReviewLog.Source.WEB,
    suggested_rating: int | None = None,
) -> ReviewLog:
    """Log a server-graded answer and reschedule (the rating: ``scheduling.rating_for_result``, from the
    result or a code check's suggested rating). Called by item_answer.

    No savepoint: a failure here must undo the caller's lock of the item too, so nothing is gained by one.
    """
    with transaction.atomic(savepoint=False):
        return _add_log(
            user=user,
            question=item.question,
            rating=int(scheduling.rating_for_result(correct, suggested=suggested_rating)),
            reviewed_at=reviewed_at,
            duration_ms=duration_ms,
            source=source,
            attempt_item=item,
        )


def card_rate(
    *,
    user: User,
    question: Question,
    rating: int,
    reviewed_at: dt.datetime | None = None,
    duration_ms: int | None = None,
    source: str = ReviewLog.Source.WEB,
    client_uuid: uuid.UUID | None = None,
) -> ReviewCard:
    """A self-rating (Again/Hard/Good/Easy) of an interview prompt or recall card.

    Idempotent per ``client_uuid``: re-sending a rating that was already stored returns the
    card unchanged — checked first, so a retry succeeds even if the question was unpublished
    meanwhile (the unique constraint on (user, client_uuid) settles races). Then the rules of
    quizzes.reviews.rules: a published self-rated question, a rating 1–4, a review time with a
    time zone and not in the future; a time a client reported (``source`` API) may not precede the
    question or the account. A refusal raises DomainError naming the field.
    """
    now = timezone.now()
    if client_uuid is not None and stored_client_uuids(user=user, uuids=[client_uuid]):
        return ReviewLog.objects.select_related("card").get(user=user, client_uuid=client_uuid).card
    if question.kind not in Question.SELF_RATED_KINDS:
        raise DomainError(
            ErrorCode.NOT_SELF_RATED,
            _("Only interview prompts and recall cards are self-rated; quiz items are graded."),
            field="question",
        )
    if not Question.objects.rateable().filter(pk=question.pk).exists():
        raise DomainError(ErrorCode.QUESTION_UNPUBLISHED, _("This question is not published."), field="question")
    refused = rating_refusal(rating=rating)
    if refused:
        raise DomainError(refused.code, refused.message, field="rating")
    client_clock = reviewed_at is not None and source in CLIENT_CLOCK_SOURCES
    reviewed_at = reviewed_at or now
    refused = review_time_refusal(
        reviewed_at=reviewed_at,
        now=now,
        question=question if client_clock else None,
        user=user if client_clock else None,
    )
    if refused:
        raise DomainError(refused.code, refused.message, field="reviewed_at")
    try:
        with transaction.atomic():
            log = _add_log(
                user=user,
                question=question,
                rating=rating,
                reviewed_at=reviewed_at,
                duration_ms=duration_ms,
                source=source,
                client_uuid=client_uuid,
            )
    except IntegrityError:
        if client_uuid is None:
            raise
        return ReviewLog.objects.select_related("card").get(user=user, client_uuid=client_uuid).card
    return ReviewCard.objects.get(pk=log.card_id)


def card_rate_answer(*, user: User, item: AttemptItem, rating: int) -> ReviewCard:
    """The learner's own rating of a graded answer whose rating is theirs to confirm (a code item: the
    checker suggests Good / Hard / Again, the learner accepts or changes it): it replaces the rating the
    item recorded when it locked, and the card is replayed. Rating the same value again changes nothing.
    """
    if item.attempt.user_id != user.pk:
        raise PermissionDenied(_("This attempt belongs to another learner."))
    if item.question.kind != Question.Kind.CODE or item.answered_at is None:
        raise DomainError(
            ErrorCode.NOT_SELF_RATED, _("Only an answered code item takes your own rating."), field="rating"
        )
    refused = rating_refusal(rating=rating)
    if refused:
        raise DomainError(refused.code, refused.message, field="rating")
    with transaction.atomic():
        log = ReviewLog.objects.select_for_update().filter(user=user, attempt_item=item).first()
        if log is None:  # the rating was undone meanwhile: nothing left to change
            raise DomainError(ErrorCode.NOTHING_TO_UNDO, _("This answer no longer has a rating."), field="rating")
        card = ReviewCard.objects.select_for_update().get(pk=log.card_id)
        if log.rating != rating:
            log.rating = int(scheduling.rating_for_result(True, chosen=rating))
            log.save(update_fields=["rating"])
            profile = profile_for(user=user)
            replayed = card_replay(card=card, profile=profile)
            assert replayed is not None  # the card keeps this log
            card = replayed
            reminder_clock_card_due(profile=profile, due=card.due)  # a lower rating may bring the card forward
    return card


def cards_carry_over(*, replacements: dict[str, str] | None = None) -> int:
    """Copy learners' review cards from retired questions to the questions that replace them.

    ``replacements`` maps a new question's key to the old one's (default: every question's
    ``replaces_key``). A learner with a card on the old question and none on the new one gets a copy:
    the FSRS state and every rating (as logs of the new card, without their attempt items or client
    UUIDs), so their interval carries on. Idempotent: a learner who already has the new card (a copy,
    or their own answer) is left alone. Returns how many cards were copied.
    """
    if replacements is None:
        replacements = dict(Question.objects.exclude(replaces_key="").values_list("key", "replaces_key"))
    copied = 0
    for new_key, old_key in replacements.items():
        new = Question.objects.filter(key=new_key).first()
        old = Question.objects.filter(key=old_key).first()
        if new is None or old is None or new.pk == old.pk:
            continue
        with transaction.atomic():
            have = set(ReviewCard.objects.filter(question=new).values_list("user_id", flat=True))
            for card in ReviewCard.objects.filter(question=old).exclude(user_id__in=have).select_for_update():
                logs = list(card.logs.oldest_first())
                fields = {
                    f.attname: getattr(card, f.attname)
                    for f in ReviewCard._meta.concrete_fields
                    if f.attname not in ("id", "question_id", "created_at", "updated_at")
                }
                copy = ReviewCard.objects.create(**{**fields, "question_id": new.pk})
                ReviewLog.objects.bulk_create(
                    ReviewLog(
                        user_id=log.user_id,
                        card=copy,
                        rating=log.rating,
                        reviewed_at=log.reviewed_at,
                        duration_ms=log.duration_ms,
                        source=log.source,
                        role=log.role,
                        client_graded=log.client_graded,  # a client's grade stays one (packs: no key)
                    )
                    for log in logs
                )
                copied += 1
    return copied


@dataclass(frozen=True)
class UndoOutcome:
    """What ``card_undo_last`` removed: the rating's question, and its card as it is now (None: new again)."""

    question_id: int
    card: ReviewCard | None


@transaction.atomic
def card_undo_last(*, user: User, card: ReviewCard | None = None) -> UndoOutcome:
    """Remove the newest rating (of ``card``, or the learner's newest overall) and replay.

    The newest rating is found inside this transaction, under the card's row lock, so what is
    reported is what was removed. The outcome's card is as it was before that rating, or None when
    it was the card's only rating (the question is new again). An attempt item stays locked: only
    its effect on the schedule is undone.
    """
    logs = ReviewLog.objects.filter(user=user)
    if card is not None:
        _check_owner(card, user)
        logs = logs.filter(card=card)
    last = logs.newest_first().first()
    if last is None:
        raise DomainError(ErrorCode.NOTHING_TO_UNDO, _("There is no rating to undo."))
    locked = ReviewCard.objects.select_for_update().get(pk=last.card_id)
    last.delete()
    profile = profile_for(user=user)
    replayed = card_replay(card=locked, profile=profile)
    if replayed is not None:  # undo moves a due date earlier: the reminder may come sooner
        reminder_clock_card_due(profile=profile, due=replayed.due)
    return UndoOutcome(question_id=locked.question_id, card=replayed)


def _set_suspended(*, user: User, card: ReviewCard, suspended: bool) -> ReviewCard:
    _check_owner(card, user)
    with transaction.atomic():
        locked = ReviewCard.objects.select_for_update().get(pk=card.pk)
        locked.suspended = suspended
        locked.full_clean(validate_constraints=False)
        locked.save(update_fields=["suspended", "updated_at"])
        if not suspended:  # a card back in the queue may be due before the others
            reminder_clock_card_due(profile=profile_for(user=user), due=locked.due)
    return locked


def card_suspend(*, user: User, card: ReviewCard) -> ReviewCard:
    """Take a card out of the review queue (its history and schedule are kept)."""
    return _set_suspended(user=user, card=card, suspended=True)


def card_unsuspend(*, user: User, card: ReviewCard) -> ReviewCard:
    """Put a suspended card back; if its due date has passed it is due now."""
    return _set_suspended(user=user, card=card, suspended=False)
