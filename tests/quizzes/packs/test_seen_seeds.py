"""One rule for the variant seeds a learner has seen (issue 26): attempts and packs both ask
``quizzes.practice.selectors.seen_variant_seeds``, which counts attempt items and pack items alike."""

from __future__ import annotations

import pytest

from quizzes.models import AttemptItem, PackItem
from quizzes.packs.services import pack_issue
from quizzes.practice import selectors
from quizzes.practice.services import attempt_start
from quizzes.practice.services import attempts as attempt_services

pytestmark = pytest.mark.django_db


def test_the_seeded_item_models_are_attempt_and_pack_items():
    assert set(selectors.seeded_item_models()) == {AttemptItem, PackItem}


def test_a_seed_seen_in_a_pack_is_not_repeated_in_an_attempt(world, monkeypatch):
    learner, lesson, questions = world
    numeric = questions["numeric"]
    monkeypatch.setattr(attempt_services, "VALIDATION_SEEDS", 2)  # two validated seeds: the first attempt saw one
    attempt_seeds = set(AttemptItem.objects.filter(question=numeric).values_list("variant_seed", flat=True))
    pack_issue(user=learner)
    pack_seeds = set(PackItem.objects.filter(question=numeric).values_list("variant_seed", flat=True))
    assert pack_seeds and not pack_seeds & attempt_seeds  # the pack drew a seed the attempt had not shown

    seen = selectors.seen_variant_seeds(user=learner, questions=[numeric])[numeric.pk]
    assert seen == attempt_seeds | pack_seeds
    for _retake in range(3):
        item = attempt_start(user=learner, lesson=lesson).items.get(question=numeric)
        assert item.variant_seed not in seen  # neither the attempt's seeds nor the pack's
        seen.add(item.variant_seed)


def test_a_fixed_seed_question_always_shows_its_own_variant(world):
    learner, lesson, questions = world
    numeric = questions["numeric"]
    type(numeric).objects.filter(pk=numeric.pk).update(fixed_seed=7)
    assert attempt_start(user=learner, lesson=lesson).items.get(question=numeric).variant_seed == 7
    pack_issue(user=learner)
    assert PackItem.objects.get(question=numeric).variant_seed == 7
