"""Model invariants: per-kind validation (Question.clean) and constraints enforced by the database."""

import uuid

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction

from quizzes.content import validation
from quizzes.models import AttemptItem, LearnerProfile, Question, ReviewCard, ReviewLog
from quizzes.practice.services import attempt_start
from tests import factories
from tests.factories import utc

pytestmark = pytest.mark.django_db


def errors_of(obj) -> dict:
    with pytest.raises(ValidationError) as caught:
        obj.full_clean()
    return caught.value.message_dict


class TestQuestionClean:
    def test_valid_questions_of_every_kind_pass(self, lesson):
        for factory in (
            factories.ChoiceQuestionFactory,
            factories.PromptQuestionFactory,
            factories.RecallQuestionFactory,
            factories.NumericQuestionFactory,
        ):
            factory(lesson=lesson).full_clean()

    def test_prompt_needs_reference_answer_and_rubric(self, lesson):
        question = factories.PromptQuestionFactory.build(lesson=lesson, reference_answer=" ", rubric=[])
        errors = errors_of(question)
        assert "reference_answer" in errors
        assert "rubric" in errors

    def test_recall_needs_expected_lines(self, lesson):
        question = factories.RecallQuestionFactory.build(lesson=lesson, expected_lines=["ok", 3])
        assert "expected_lines" in errors_of(question)

    def test_generator_fields_only_on_numeric(self, lesson):
        question = factories.QuestionFactory.build(lesson=lesson, template="attention_output", answer_form="input")
        errors = errors_of(question)
        assert "template" in errors
        assert "answer_form" in errors

    def test_numeric_unknown_template_is_named(self, lesson):
        question = factories.NumericQuestionFactory.build(lesson=lesson, template="no_such_template")
        assert "Unknown template no_such_template" in errors_of(question)["template"][0]

    def test_numeric_params_out_of_range_reports_the_template_message(self, lesson):
        from attention_engine import generators

        template = generators.get(factories.DEFAULT_NUMERIC_TEMPLATE)
        name, spec = next(
            (n, s) for n, s in template.params.items() if s.kind in ("int", "float") and s.max is not None
        )
        bad = {name: spec.max * 10 + 1}
        with pytest.raises(ValueError) as expected:
            template.resolve_params(bad)
        question = factories.NumericQuestionFactory.build(lesson=lesson, params=bad)
        assert errors_of(question)["params"] == [str(expected.value)]

    def test_numeric_needs_an_answer_form(self, lesson):
        question = factories.NumericQuestionFactory.build(lesson=lesson, answer_form="")
        assert "answer_form" in errors_of(question)

    def test_numeric_bad_seed_is_named(self, lesson, monkeypatch):
        """The 50-variant check names the first seed whose answer is not finite."""
        from attention_engine import generators

        real_generate = generators.generate

        def generate_with_a_bad_seed(name, seed, **params):
            variant = real_generate(name, seed, **params)
            if seed >= 17:
                import dataclasses

                return dataclasses.replace(variant, answer=float("nan"))
            return variant

        monkeypatch.setattr(generators, "generate", generate_with_a_bad_seed)
        question = factories.NumericQuestionFactory.build(lesson=lesson)
        assert errors_of(question)["params"] == ["Seed 17: the answer is not finite."]

    def test_numeric_indistinct_distractors_are_reported(self, monkeypatch):
        from attention_engine import generators

        variant = generators.generate(factories.DEFAULT_NUMERIC_TEMPLATE, 0)
        import dataclasses

        twin = dataclasses.replace(variant, choices=[variant.choices[0], variant.choices[0], *variant.choices[2:]])
        assert "not distinct" in validation.check_numeric_variant(twin)


class TestChoiceOptions:
    def test_needs_two_options(self):
        with pytest.raises(ValidationError, match="at least two"):
            validation.validate_choice_options([{"is_correct": True}])

    @pytest.mark.parametrize("flags", [(False, False), (True, True, False)])
    def test_needs_exactly_one_correct(self, flags):
        with pytest.raises(ValidationError, match="exactly one correct"):
            validation.validate_choice_options([{"is_correct": flag} for flag in flags])

    def test_accepts_option_objects(self, choice_question):
        validation.validate_choice_options(choice_question.options.all())


class TestDatabaseConstraints:
    def test_one_item_per_question_per_attempt(self, user, quiz_lesson):
        attempt = attempt_start(user=user, lesson=quiz_lesson)
        item = attempt.items.first()
        with pytest.raises(IntegrityError), transaction.atomic():
            AttemptItem.objects.create(attempt=attempt, question=item.question, position=99)

    def test_answered_item_is_all_or_nothing(self, user, quiz_lesson):
        item = attempt_start(user=user, lesson=quiz_lesson).items.first()
        with pytest.raises(IntegrityError), transaction.atomic():
            AttemptItem.objects.filter(pk=item.pk).update(answered_at=utc(2025, 1, 1))

    def test_one_card_per_user_and_question(self, user, choice_question):
        ReviewCard.objects.create(user=user, question=choice_question, due=utc(2025, 1, 1))
        with pytest.raises(IntegrityError), transaction.atomic():
            ReviewCard.objects.create(user=user, question=choice_question, due=utc(2025, 1, 2))

    def test_review_log_rating_range_and_client_uuid(self, user, other_user, choice_question):
        card = ReviewCard.objects.create(user=user, question=choice_question, due=utc(2025, 1, 1))
        with pytest.raises(IntegrityError), transaction.atomic():
            ReviewLog.objects.create(user=user, card=card, rating=5, reviewed_at=utc(2025, 1, 1))
        token = uuid.uuid4()
        ReviewLog.objects.create(user=user, card=card, rating=3, reviewed_at=utc(2025, 1, 1), client_uuid=token)
        ReviewLog.objects.create(user=user, card=card, rating=3, reviewed_at=utc(2025, 1, 2))  # no uuid: fine
        ReviewLog.objects.create(user=user, card=card, rating=3, reviewed_at=utc(2025, 1, 3))
        other_card = ReviewCard.objects.create(user=other_user, question=choice_question, due=utc(2025, 1, 1))
        ReviewLog.objects.create(
            user=other_user, card=other_card, rating=3, reviewed_at=utc(2025, 1, 1), client_uuid=token
        )
        with pytest.raises(IntegrityError), transaction.atomic():
            ReviewLog.objects.create(user=user, card=card, rating=3, reviewed_at=utc(2025, 1, 4), client_uuid=token)

    def test_profile_ranges_in_python_and_in_the_database(self, user):
        profile = LearnerProfile(user=user, time_zone="Mars/Olympus", day_rollover_hour=24, desired_retention=0.5)
        errors = errors_of(profile)
        assert set(errors) >= {"time_zone", "day_rollover_hour", "desired_retention"}
        with pytest.raises(IntegrityError), transaction.atomic():
            LearnerProfile.objects.create(user=user, desired_retention=0.98)

    @pytest.mark.parametrize("parameters", [[0.5] * 20, [0.5] * 22, []])
    def test_profile_parameters_are_21_or_none_in_the_database(self, user, parameters):
        with pytest.raises(IntegrityError), transaction.atomic():
            LearnerProfile.objects.create(user=user, fsrs_parameters=parameters)
        LearnerProfile.objects.create(user=user, fsrs_parameters=None)

    def test_profile_defaults(self, user):
        profile = LearnerProfile.objects.create(user=user)
        profile.full_clean()
        assert (profile.time_zone, profile.day_rollover_hour, profile.desired_retention) == ("UTC", 4, 0.9)
        assert profile.new_per_day == 20

    def test_numeric_columns_constraint(self, lesson):
        with pytest.raises(IntegrityError), transaction.atomic():
            Question.objects.create(lesson=lesson, key="broken", kind="numeric", prompt="?", answer_form="input")
