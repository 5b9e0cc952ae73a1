"""Starting attempts: numbering, reshuffled options, fresh numeric variants, review mode."""

import random
from collections import defaultdict

import pytest
from django.core.exceptions import PermissionDenied, ValidationError

from quizzes.models import Attempt, Question
from quizzes.practice.services import attempt_finish, attempt_start, item_answer
from quizzes.practice.services.attempts import choose_variant_seed
from tests import factories
from tests.factories import utc

pytestmark = pytest.mark.django_db


def orders_by_question(attempt: Attempt) -> dict[int, list[int]]:
    return {item.question_id: item.option_order for item in attempt.items.all()}


def test_attempts_are_numbered_per_user_and_lesson(user, other_user, quiz_lesson):
    numbers = [attempt_start(user=user, lesson=quiz_lesson).number for _ in range(3)]
    assert numbers == [1, 2, 3]
    assert attempt_start(user=other_user, lesson=quiz_lesson).number == 1
    assert attempt_start(user=user, lesson=factories.ChoiceQuestionFactory().lesson).number == 1


def test_study_attempt_holds_the_quiz_questions_in_lesson_order(user, quiz_lesson):
    factories.ChoiceQuestionFactory(lesson=quiz_lesson, order=0, published=False)
    attempt = attempt_start(user=user, lesson=quiz_lesson)
    kinds = [item.question.kind for item in attempt.items.order_by("position")]
    assert kinds == ["choice", "choice", "choice", "numeric"]
    assert attempt.mode == Attempt.Mode.STUDY
    assert 0 <= attempt.seed < 2**62


def test_each_choice_item_stores_a_permutation_of_its_options(user, quiz_lesson):
    attempt = attempt_start(user=user, lesson=quiz_lesson)
    for item in attempt.items.filter(question__kind="choice"):
        assert sorted(item.option_order) == sorted(item.question.options.values_list("pk", flat=True))


def test_retakes_reshuffle_the_options(user, quiz_lesson):
    """Each attempt draws its own order: six retakes of a 4-option question never all match."""
    seen: dict[int, set[tuple[int, ...]]] = defaultdict(set)
    for _ in range(6):
        for question_id, order in orders_by_question(attempt_start(user=user, lesson=quiz_lesson)).items():
            if len(order) == 4:
                seen[question_id].add(tuple(order))
    assert seen and all(len(orders) >= 2 for orders in seen.values())  # all six alike: p = 24**-5


def test_single_option_question_keeps_its_only_order(user, lesson):
    factories.ChoiceQuestionFactory(lesson=lesson, options=1)
    first = attempt_start(user=user, lesson=lesson).items.get()
    second = attempt_start(user=user, lesson=lesson).items.get()
    assert first.option_order == second.option_order


def test_variant_seed_rule_prefers_validated_seeds_then_random_fresh_ones():
    rng = random.Random(7)
    used: set[int] = set()
    for _ in range(60):
        seed = choose_variant_seed(used=used, rng=rng)
        assert seed not in used
        used.add(seed)
    assert set(range(50)) <= used


class TestNumericVariants:
    def test_variant_is_stored_whole_with_params_and_answer(self, user, lesson):
        from attention_engine import generators

        question = factories.NumericQuestionFactory(lesson=lesson)
        item = attempt_start(user=user, lesson=lesson).items.get()
        expected = generators.generate(question.template, item.variant_seed, **question.params)
        assert item.variant == expected.to_dict()
        assert item.variant["seed"] == item.variant_seed
        assert "params" in item.variant
        assert "answer" in item.variant
        restored = generators.Variant.from_dict(item.variant)
        assert restored.answer == expected.answer or restored.to_dict() == expected.to_dict()

    def test_stored_variant_survives_a_template_change(self, user, lesson, monkeypatch):
        """What a learner saw is read back from the item, never regenerated."""
        from attention_engine import generators

        factories.NumericQuestionFactory(lesson=lesson)
        item = attempt_start(user=user, lesson=lesson).items.get()
        saw = item.variant
        monkeypatch.setattr(generators, "generate", lambda *a, **k: pytest.fail("must not regenerate"))
        outcome = item_answer(user=user, item=item, value="0")
        assert outcome.item.variant == saw
        assert outcome.result["correct_value"] == saw["answer"]

    def test_each_retake_gets_a_seed_this_user_has_not_seen(self, user, other_user, lesson):
        factories.NumericQuestionFactory(lesson=lesson)
        seeds = [attempt_start(user=user, lesson=lesson).items.get().variant_seed for _ in range(12)]
        assert len(set(seeds)) == 12
        assert all(0 <= seed < 50 for seed in seeds)
        assert attempt_start(user=other_user, lesson=lesson).items.get().variant_seed is not None

    def test_numeric_params_reach_the_generator(self, user, lesson):
        from attention_engine import generators

        template = generators.get(factories.DEFAULT_NUMERIC_TEMPLATE)
        resolved = template.resolve_params({})
        question = factories.NumericQuestionFactory(lesson=lesson, params={})
        item = attempt_start(user=user, lesson=lesson).items.get()
        assert item.variant["params"] == generators.generate(question.template, item.variant_seed).to_dict()["params"]
        assert item.variant["params"] == resolved or set(item.variant["params"]) == set(resolved)


class TestReviewMode:
    def test_only_due_quiz_questions(self, user, quiz_lesson, time_machine):
        time_machine.move_to(utc(2025, 5, 1, 12), tick=False)
        study = attempt_start(user=user, lesson=quiz_lesson)
        first_item = study.items.order_by("position").first()
        item_answer(user=user, item=first_item, option_id=first_item.option_order[0])

        with pytest.raises(ValidationError, match="due for review"):
            attempt_start(user=user, lesson=quiz_lesson, mode=Attempt.Mode.REVIEW)

        time_machine.move_to(utc(2025, 5, 3, 12, 30), tick=False)
        review = attempt_start(user=user, lesson=quiz_lesson, mode=Attempt.Mode.REVIEW)
        item = review.items.get()
        assert item.question == first_item.question
        assert sorted(item.option_order) == sorted(first_item.option_order)  # the same options, drawn afresh
        assert review.number == 2

    def test_prompts_and_recall_are_not_attempt_items(self, user, lesson):
        factories.PromptQuestionFactory(lesson=lesson)
        factories.RecallQuestionFactory(lesson=lesson)
        with pytest.raises(ValidationError, match="no quiz questions"):
            attempt_start(user=user, lesson=lesson)


def test_unpublished_lesson_and_unknown_mode_are_refused(user, lesson):
    factories.ChoiceQuestionFactory(lesson=lesson)
    with pytest.raises(ValidationError, match="mode"):
        attempt_start(user=user, lesson=lesson, mode="exam")
    lesson.published = False
    lesson.save()
    with pytest.raises(ValidationError, match="not published"):
        attempt_start(user=user, lesson=lesson)


def test_finish_is_idempotent_and_owner_only(user, other_user, choice_question, time_machine):
    time_machine.move_to(utc(2025, 5, 1, 12), tick=False)
    attempt = attempt_start(user=user, lesson=choice_question.lesson)
    finished = attempt_finish(user=user, attempt=attempt)
    assert finished.finished_at == utc(2025, 5, 1, 12)
    time_machine.move_to(utc(2025, 5, 1, 13), tick=False)
    assert attempt_finish(user=user, attempt=attempt).finished_at == utc(2025, 5, 1, 12)
    with pytest.raises(PermissionDenied):
        attempt_finish(user=other_user, attempt=attempt)


def test_question_kinds_in_items(user, quiz_lesson):
    attempt = attempt_start(user=user, lesson=quiz_lesson)
    for item in attempt.items.all():
        if item.question.kind == Question.Kind.NUMERIC:
            assert item.option_order == [] and item.variant
        else:
            assert item.variant is None and item.variant_seed is None
