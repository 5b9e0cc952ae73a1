"""Starting and finishing attempts: numbering, option orders, numeric variant seeds."""

from __future__ import annotations

import datetime as dt
import random
import secrets
from collections import defaultdict
from collections.abc import Sequence

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import IntegrityError, transaction
from django.db.models import Max
from django.utils import timezone
from django.utils.translation import gettext as _

from quizzes import selectors
from quizzes.models import Attempt, AttemptItem, Lesson, Option, Question
from quizzes.validation import VALIDATION_SEEDS

NUMBERING_RETRIES = 8
MAX_VARIANT_SEED = 2**31 - 1


def choose_option_order(options: Sequence[Option], history: Sequence[Sequence[int]], rng: random.Random) -> list[int]:
    """A new option order (option ids) for one question, given this learner's earlier orders.

    * With ≥ 2 options the order always differs from the previous one.
    * The correct option goes to a position it has been shown in least often so far (never
      the previous one), ties broken at random: over any n attempts of an n-option question
      it visits every position, so position can't be memorised instead of content. The
      other options are shuffled uniformly.
    Questions without exactly one correct option (authoring error) get a uniform shuffle that
    still differs from the previous order.
    """
    ids = [option.pk for option in options]
    if len(ids) < 2:
        return ids
    previous = list(history[-1]) if history else None
    correct = [option.pk for option in options if option.is_correct]
    if len(correct) == 1:
        anchor = correct[0]
        counts = dict.fromkeys(range(len(ids)), 0)
        for order in history:
            if anchor in order and order.index(anchor) < len(ids):
                counts[order.index(anchor)] += 1
        last = previous.index(anchor) if previous and anchor in previous else None
        allowed = [pos for pos in counts if pos != last]
        fewest = min(counts[pos] for pos in allowed)
        position = rng.choice([pos for pos in allowed if counts[pos] == fewest])
        others = [pk for pk in ids if pk != anchor]
        rng.shuffle(others)
        order = [*others[:position], anchor, *others[position:]]
    else:
        order = ids[:]
        rng.shuffle(order)
    while order == previous:  # only possible when content changed or no single correct option
        rng.shuffle(order)
    return order


def choose_variant_seed(used: set[int], rng: random.Random) -> int:
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


def _history(user: AbstractBaseUser, questions: Sequence[Question]) -> tuple[dict, dict]:
    """This learner's earlier option orders (oldest first) and variant seeds, per question."""
    orders: dict[int, list[list[int]]] = defaultdict(list)
    seeds: dict[int, set[int]] = defaultdict(set)
    rows = (
        AttemptItem.objects.filter(attempt__user=user, question__in=questions)
        .order_by("attempt__started_at", "attempt_id")
        .values_list("question_id", "option_order", "variant_seed")
    )
    for question_id, option_order, variant_seed in rows:
        if option_order:
            orders[question_id].append(option_order)
        if variant_seed is not None:
            seeds[question_id].add(variant_seed)
    return orders, seeds


def _build_items(
    *, attempt: Attempt, questions: Sequence[Question], user: AbstractBaseUser, rng: random.Random
) -> list[AttemptItem]:
    from attention_engine import generators

    orders, seeds = _history(user, questions)
    items = []
    for position, question in enumerate(questions):
        item = AttemptItem(attempt=attempt, question=question, position=position)
        if question.kind == Question.Kind.CHOICE:
            options = sorted(question.options.all(), key=lambda o: (o.order, o.key))
            item.option_order = choose_option_order(options, orders[question.pk], rng)
        elif question.kind == Question.Kind.NUMERIC:
            if question.fixed_seed is not None:  # a generated standalone question: always its own variant
                item.variant_seed = question.fixed_seed
            else:
                item.variant_seed = choose_variant_seed(seeds[question.pk], rng)
            item.variant = generators.generate(question.template, item.variant_seed, **question.params).to_dict()
        # "question" excluded too: it was just loaded, and checking that it exists is a query per item.
        item.full_clean(exclude=["attempt", "question"], validate_unique=False, validate_constraints=False)
        items.append(item)
    return AttemptItem.objects.bulk_create(items)


def attempt_start(
    *,
    user: AbstractBaseUser,
    lesson: Lesson,
    mode: str = Attempt.Mode.STUDY,
    now: dt.datetime | None = None,
) -> Attempt:
    """Start the learner's next attempt at a lesson's quiz (choice + numeric questions).

    Study mode: every published quiz question, in lesson order. Review mode: only this
    learner's quiz questions of the lesson due today, in a shuffled order. Prompts and recall
    cards are self-rated outside attempts (``card_rate``). Numbering is race-safe: starts by
    one learner are serialised on their user row, and the (user, lesson, number) unique
    constraint rejects a duplicate anyway (then we count again).
    """
    now = now or timezone.now()
    if mode not in Attempt.Mode.values:
        raise ValidationError({"mode": _("Unknown mode %(mode)s.") % {"mode": mode}})
    if not lesson.published:
        raise ValidationError({"lesson": _("This lesson is not published.")})
    seed = secrets.randbits(62)
    rng = random.Random(seed)
    if mode == Attempt.Mode.REVIEW:
        questions = selectors.lesson_due_questions(user=user, lesson=lesson, now=now)
        rng.shuffle(questions)
        if not questions:
            raise ValidationError(_("Nothing in this lesson is due for review."), code="nothing_due")
    else:
        questions = list(selectors.lesson_quiz_questions(lesson=lesson))
        if not questions:
            raise ValidationError(_("This lesson has no quiz questions yet."), code="no_questions")
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


@transaction.atomic
def attempt_finish(*, user: AbstractBaseUser, attempt: Attempt, now: dt.datetime | None = None) -> Attempt:
    """Close an attempt (idempotent). Unanswered items stay unanswered and score 0."""
    if attempt.user_id != user.pk:
        raise PermissionDenied(_("This attempt belongs to another learner."))
    locked = Attempt.objects.select_for_update().get(pk=attempt.pk)
    if locked.finished_at is None:
        locked.finished_at = now or timezone.now()
        locked.full_clean(validate_unique=False, validate_constraints=False)
        locked.save(update_fields=["finished_at"])
    return locked
