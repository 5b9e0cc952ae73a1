"""Starting and finishing attempts: numbering, option orders, numeric variant seeds.

An attempt offers a choice question's live options only (retired ones are never shown again) and
generates a numeric question's variant with the question's own template version.
"""

from __future__ import annotations

import datetime as dt
import random
import secrets
from collections.abc import Sequence

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied
from django.db import IntegrityError, transaction
from django.db.models import Max
from django.utils import timezone
from django.utils.translation import gettext as _

from quizzes.content.models import Lesson, Option, Question
from quizzes.content.selectors import lesson_quiz_questions, live_options
from quizzes.content.validation import MAX_VARIANT_SEED, VALIDATION_SEEDS
from quizzes.content.versions import versions_current
from quizzes.core.errors import DomainError, ErrorCode
from quizzes.practice.models import Attempt, AttemptItem
from quizzes.practice.selectors import seen_variant_seeds
from quizzes.reviews.models import ReviewLog
from quizzes.reviews.selectors.due import lesson_due_questions
from quizzes.reviews.services import card_record_answer

NUMBERING_RETRIES = 8


def choose_option_order(*, options: Sequence[Option], rng: random.Random) -> list[int]:
    """A uniformly random order (option ids) for one question in one attempt.

    Deliberately independent of the learner's earlier orders: any rule tied to them leaks the
    answer. "Never the same as last time" returns the correct option to its last place with
    p = 5/23 instead of 1/4 on four options, 40 % of the time instead of a third on three and
    100 % on two; "the place it has been shown least" lets a learner name the position without
    reading. So a retake may now and then repeat the previous order (p = 1/n!): that is the price
    of an order that says nothing about the answer.
    """
    order = [option.pk for option in options]
    rng.shuffle(order)
    return order


def choose_variant_seed(*, used: set[int], rng: random.Random) -> int:
    """A seed this learner has not seen for the question.

    Seeds 0..VALIDATION_SEEDS-1 come first: those are exactly the variants the admin
    validated when the question was saved. Beyond them, random unused seeds.
    """
    fresh = [seed for seed in range(VALIDATION_SEEDS) if seed not in used]
    if fresh:
        return rng.choice(fresh)
    while True:
        seed = rng.randint(VALIDATION_SEEDS, MAX_VARIANT_SEED)
        if seed not in used:
            return seed


def variant_seed_for(*, question: Question, used: set[int], rng: random.Random) -> int:
    """THE seed of a numeric question's variant for a new attempt item or pack item: a generated standalone
    question's own fixed seed, always; otherwise one this learner has not seen (``choose_variant_seed``)."""
    if question.fixed_seed is not None:
        return question.fixed_seed
    return choose_variant_seed(used=used, rng=rng)


def _build_items(
    *, attempt: Attempt, questions: Sequence[Question], user: User, rng: random.Random
) -> list[AttemptItem]:
    from attention_engine import generators

    seeds = seen_variant_seeds(user=user, questions=questions)
    versions = versions_current(questions=questions)  # pinned now, never on the answer: what the item shows
    items = []
    for position, question in enumerate(questions):
        item = AttemptItem(attempt=attempt, question=question, position=position, version=versions[question.pk])
        if question.kind == Question.Kind.CHOICE:
            # live options only: never a retired one
            item.option_order = choose_option_order(options=live_options(question=question), rng=rng)
        elif question.kind == Question.Kind.NUMERIC:
            item.variant_seed = variant_seed_for(question=question, used=seeds[question.pk], rng=rng)
            # The question's own template version, never "the newest": a newer version may draw other numbers.
            item.template_version = question.template_version
            item.variant = generators.generate(
                question.template, item.variant_seed, version=question.template_version, **question.params
            ).to_dict()
        # "question" and "version" excluded too: both were just loaded, and checking them is a query per item.
        item.full_clean(exclude=["attempt", "question", "version"], validate_unique=False, validate_constraints=False)
        items.append(item)
    return AttemptItem.objects.bulk_create(items)


def _create_attempt(
    *, user: User, lesson: Lesson, mode: str, questions: Sequence[Question], now: dt.datetime
) -> Attempt:
    """Number and save a new attempt with its items: every option order and numeric seed drawn afresh.

    Numbering is race-safe: starts by one learner are serialised on their user row, and the (user, lesson,
    number) unique constraint rejects a duplicate anyway (then we count again).
    """
    seed = secrets.randbits(62)
    for _try in range(NUMBERING_RETRIES):
        try:
            with transaction.atomic():
                # Serialise this learner's starts (a no-op on SQLite, which serialises writers anyway);
                # the unique constraint stays the guarantee, the retry its fallback.
                # get_user_model(), not type(user): a request's user is a SimpleLazyObject.
                get_user_model().objects.select_for_update().filter(pk=user.pk).first()
                last = Attempt.objects.filter(user=user, lesson=lesson).aggregate(n=Max("number"))["n"] or 0
                attempt = Attempt(user=user, lesson=lesson, number=last + 1, mode=mode, seed=seed, started_at=now)
                attempt.full_clean(validate_unique=False, validate_constraints=False)
                attempt.save()
                _build_items(attempt=attempt, questions=questions, user=user, rng=random.Random(seed))
                return attempt
        except IntegrityError:
            continue  # a concurrent start took this number; count again
    raise RuntimeError("could not number the attempt after several retries")


def attempt_start(
    *,
    user: User,
    lesson: Lesson,
    mode: str = Attempt.Mode.STUDY,
    now: dt.datetime | None = None,
) -> Attempt:
    """Start the learner's next attempt at a lesson's quiz (choice + numeric questions).

    Study mode: every published quiz question, in lesson order. Review mode: only this
    learner's quiz questions of the lesson due today, in a shuffled order, code questions last. Prompts and recall
    cards are self-rated outside attempts (``card_rate``). Missed-items attempts start from an
    earlier attempt (``attempt_start_missed``).
    """
    now = now or timezone.now()
    if mode not in (Attempt.Mode.STUDY, Attempt.Mode.REVIEW):
        raise DomainError(ErrorCode.UNKNOWN_MODE, _("Unknown mode %(mode)s.") % {"mode": mode}, field="mode")
    if not lesson.published:
        raise DomainError(ErrorCode.LESSON_UNPUBLISHED, _("This lesson is not published."), field="lesson")
    if mode == Attempt.Mode.REVIEW:
        questions = lesson_due_questions(user=user, lesson=lesson, now=now)
        random.Random(secrets.randbits(62)).shuffle(questions)
        # The seed's review: "redo the quiz, then write the 3 lines from memory": code cards come last.
        questions.sort(key=lambda q: q.kind == Question.Kind.CODE)
        if not questions:
            raise DomainError(ErrorCode.NOTHING_DUE, _("Nothing in this lesson is due for review."))
    else:
        questions = list(lesson_quiz_questions(lesson=lesson))
        if not questions:
            raise DomainError(ErrorCode.NO_QUESTIONS, _("This lesson has no quiz questions yet."))
    return _create_attempt(user=user, lesson=lesson, mode=mode, questions=questions, now=now)


def attempt_start_missed(*, user: User, attempt: Attempt, now: dt.datetime | None = None) -> Attempt:
    """Practise what a finished attempt missed (wrong or unanswered), now: a new attempt of just those questions.

    Options are reshuffled and numeric questions get new numbers, as in any attempt. Answers feed the
    scheduler like any other, and that is what keeps this from inflating it: only the study day's first
    answer to a question moves its card (quizzes.reviews.scheduling), so practising right after the quiz
    is logged as a same-day repeat, while a question missed days ago and practised today counts once.
    Questions unpublished since are left out. Refusals: ATTEMPT_UNFINISHED, NOTHING_MISSED, LESSON_UNPUBLISHED.
    """
    now = now or timezone.now()
    if attempt.user_id != user.pk:
        raise PermissionDenied(_("This attempt belongs to another learner."))
    if attempt.finished_at is None:
        raise DomainError(ErrorCode.ATTEMPT_UNFINISHED, _("Finish this attempt first; then practise what it missed."))
    lesson = attempt.lesson
    if not lesson.published:
        raise DomainError(ErrorCode.LESSON_UNPUBLISHED, _("This lesson is not published."), field="lesson")
    missed_ids = list(attempt.items.exclude(is_correct=True).order_by("position").values_list("question_id", flat=True))
    live = {question.pk: question for question in lesson_quiz_questions(lesson=lesson) if question.pk in missed_ids}
    questions = [live[pk] for pk in missed_ids if pk in live]
    if not questions:
        raise DomainError(ErrorCode.NOTHING_MISSED, _("This attempt missed nothing that can be practised."))
    return _create_attempt(user=user, lesson=lesson, mode=Attempt.Mode.MISSED, questions=questions, now=now)


@transaction.atomic
def attempt_finish(*, user: User, attempt: Attempt, now: dt.datetime | None = None) -> Attempt:
    """Close an attempt (idempotent). Unanswered items stay unanswered and score 0."""
    if attempt.user_id != user.pk:
        raise PermissionDenied(_("This attempt belongs to another learner."))
    locked = Attempt.objects.select_for_update().get(pk=attempt.pk)
    if locked.finished_at is None:
        locked.finished_at = now or timezone.now()
        locked.full_clean(validate_unique=False, validate_constraints=False)
        locked.save(update_fields=["finished_at"])
    return locked


def attempt_show_skipped(
    *, user: User, attempt: Attempt, source: str = ReviewLog.Source.WEB, now: dt.datetime | None = None
) -> Attempt:
    """Show the answers of the items a finished attempt left unanswered: seeing a key is a failed retrieval.

    Each skipped item is recorded as a wrong answer (Again) now, through the answers' own service
    (``card_record_answer``), so the rule "only the study day's first answer moves a card"
    (quizzes.reviews.scheduling) keeps the next attempt's answers today from counting. Idempotent: the
    conditional ``UPDATE … WHERE skipped_shown_at IS NULL`` lets exactly one request record them; a repeat (or
    a concurrent one) finds them shown and records nothing. Refusals: ATTEMPT_UNFINISHED (an item can still be
    answered), NOTHING_SKIPPED.
    """
    now = now or timezone.now()
    if attempt.user_id != user.pk:
        raise PermissionDenied(_("This attempt belongs to another learner."))
    with transaction.atomic():
        won = Attempt.objects.filter(
            pk=attempt.pk, user=user, finished_at__isnull=False, skipped_shown_at__isnull=True
        ).update(skipped_shown_at=now)
        locked = Attempt.objects.select_related("lesson").get(pk=attempt.pk)
        if locked.finished_at is None:
            raise DomainError(
                ErrorCode.ATTEMPT_UNFINISHED, _("Finish this attempt first; then its skipped answers can be shown.")
            )
        skipped = list(locked.items.unanswered().select_related("question").order_by("position"))
        if not skipped:
            raise DomainError(ErrorCode.NOTHING_SKIPPED, _("This attempt has no skipped items."))
        if won:
            for item in skipped:
                item.attempt = locked
                card_record_answer(user=user, item=item, correct=False, reviewed_at=now, source=source)
    return locked


def attempts_expire_abandoned(*, now: dt.datetime | None = None, older_than: dt.timedelta | None = None) -> int:
    """Finish attempts left open too long (housekeeping); returns how many. One UPDATE: idempotent, race-free.

    The same as the learner pressing "finish": answered items keep their locked responses, grades and
    review logs; unanswered items stay unanswered.
    """
    now = now or timezone.now()
    older_than = older_than or dt.timedelta(hours=settings.ATTEMPT_ABANDON_AFTER_HOURS)
    with transaction.atomic():
        return Attempt.objects.unfinished().filter(started_at__lt=now - older_than).update(finished_at=now)
