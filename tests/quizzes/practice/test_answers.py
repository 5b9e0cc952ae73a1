"""Answering items: server grading, the first-response lock, the reveal, the first review."""

import datetime as dt

import pytest
from django.core.exceptions import PermissionDenied, ValidationError

from quizzes.models import AttemptItem, Question, ReviewCard, ReviewLog
from quizzes.practice.services import attempt_finish, attempt_start, item_answer
from tests import factories
from tests.factories import utc

pytestmark = pytest.mark.django_db


@pytest.fixture
def choice_item(user, choice_question):
    return attempt_start(user=user, lesson=choice_question.lesson).items.get()


def correct_option(question: Question):
    return question.options.get(is_correct=True)


def wrong_option(question: Question):
    return question.options.filter(is_correct=False).first()


class TestChoice:
    def test_right_answer_reveals_correct_option_explanation_and_feedback(self, user, choice_item):
        option = correct_option(choice_item.question)
        outcome = item_answer(user=user, item=choice_item, option_id=option.pk)
        assert outcome.correct and not outcome.replayed and not outcome.conflicting
        assert outcome.result == {
            "kind": "choice",
            "correct": True,
            "score": 1.0,
            "chosen_option_id": option.pk,
            "correct_option_id": option.pk,
            "feedback": option.feedback,
            "explanation": choice_item.question.explanation,
        }
        stored = AttemptItem.objects.get(pk=choice_item.pk)
        assert (stored.is_correct, stored.score, stored.chosen_option, stored.response) == (
            True,
            1.0,
            option,
            option.pk,
        )

    def test_wrong_answer_shows_the_chosen_options_feedback(self, user, choice_item):
        option = wrong_option(choice_item.question)
        outcome = item_answer(user=user, item=choice_item, option_id=option.pk)
        assert outcome.result["correct"] is False
        assert outcome.result["feedback"] == option.feedback
        assert outcome.result["correct_option_id"] == correct_option(choice_item.question).pk

    def test_option_of_another_question_is_a_clear_error(self, user, choice_item):
        stranger = factories.ChoiceQuestionFactory(key="another-question").options.first()
        with pytest.raises(ValidationError) as caught:
            item_answer(user=user, item=choice_item, option_id=stranger.pk)
        message = caught.value.message_dict["option_id"][0]
        assert f"Option {stranger.pk} is not one of the options of question {choice_item.question.key}" in message
        assert AttemptItem.objects.get(pk=choice_item.pk).answered_at is None

    @pytest.mark.parametrize("bad", [None, "abc", True])
    def test_missing_or_malformed_option_id(self, user, choice_item, bad):
        with pytest.raises(ValidationError) as caught:
            item_answer(user=user, item=choice_item, option_id=bad)
        assert "option_id" in caught.value.message_dict

    def test_first_click_locks_and_a_second_submit_replays(self, user, choice_item):
        wrong = wrong_option(choice_item.question)
        first = item_answer(user=user, item=choice_item, option_id=wrong.pk)
        again_same = item_answer(user=user, item=choice_item, option_id=wrong.pk)
        again_other = item_answer(user=user, item=choice_item, option_id=correct_option(choice_item.question).pk)
        assert again_same.result == again_other.result == first.result
        assert again_same.replayed and not again_same.conflicting
        assert again_other.replayed and again_other.conflicting
        assert AttemptItem.objects.get(pk=choice_item.pk).is_correct is False
        assert ReviewLog.objects.filter(attempt_item=choice_item).count() == 1

    def test_only_the_owner_can_answer(self, other_user, choice_item):
        with pytest.raises(PermissionDenied):
            item_answer(user=other_user, item=choice_item, option_id=correct_option(choice_item.question).pk)

    def test_finished_attempt_takes_no_new_answers_but_replays_locked_ones(self, user, lesson):
        factories.ChoiceQuestionFactory(lesson=lesson)
        factories.ChoiceQuestionFactory(lesson=lesson)
        attempt = attempt_start(user=user, lesson=lesson)
        answered, unanswered = attempt.items.order_by("position")
        item_answer(user=user, item=answered, option_id=answered.option_order[0])
        attempt_finish(user=user, attempt=attempt)
        assert item_answer(user=user, item=answered, option_id=answered.option_order[0]).replayed
        with pytest.raises(ValidationError, match="finished"):
            item_answer(user=user, item=unanswered, option_id=unanswered.option_order[0])


class TestFirstAnswerSchedulesTheFirstReview:
    @pytest.mark.parametrize(("pick", "rating"), [(correct_option, 3), (wrong_option, 1)])
    def test_due_exactly_two_days_later(self, user, choice_item, pick, rating, time_machine):
        answered_at = utc(2025, 6, 1, 9, 15, 30)
        time_machine.move_to(answered_at, tick=False)
        item_answer(user=user, item=choice_item, option_id=pick(choice_item.question).pk, duration_ms=4200)
        card = ReviewCard.objects.get(user=user, question=choice_item.question)
        assert card.due == answered_at + dt.timedelta(days=2)
        assert card.last_review == answered_at
        assert card.reps == 1
        log = card.logs.get()
        assert (log.rating, log.role, log.duration_ms, log.source) == (rating, "first", 4200, "web")
        assert log.attempt_item_id == choice_item.pk


class TestNumeric:
    @pytest.fixture
    def numeric_item(self, user, lesson):
        factories.NumericQuestionFactory(lesson=lesson, explanation="按步骤计算。")
        return attempt_start(user=user, lesson=lesson).items.get()

    def test_typed_right_answer(self, user, numeric_item):
        answer = numeric_item.variant["answer"]
        outcome = item_answer(user=user, item=numeric_item, value=answer)
        assert outcome.correct
        assert outcome.result["score"] == 1.0
        assert outcome.result["correct_value"] == answer
        assert outcome.result["explanation"] == "按步骤计算。"
        steps = outcome.result["solution"]
        assert steps and all({"name", "formula", "value", "shape"} <= set(step) for step in steps)
        assert all(isinstance(step["shape"], list) for step in steps)

    def test_typed_text_answer_is_parsed_by_the_engine(self, user, numeric_item):
        answer = numeric_item.variant["answer"]
        flat = answer if isinstance(answer, list) else [answer]
        if flat and isinstance(flat[0], list):
            text = "; ".join(", ".join(repr(float(x)) for x in row) for row in flat)
        else:
            text = ", ".join(repr(float(x)) for x in flat)
        assert item_answer(user=user, item=numeric_item, value=text).correct

    def test_wrong_shape_is_graded_wrong_with_the_engines_message(self, user, numeric_item):
        outcome = item_answer(user=user, item=numeric_item, value="1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11")
        assert outcome.result["correct"] is False
        assert outcome.result["score"] == 0.0
        assert outcome.result["message"]
        assert outcome.result["correct_value"] == numeric_item.variant["answer"]

    def test_typed_distractor_reveals_its_misconception(self, user, numeric_item):
        from attention_engine import generators

        variant = generators.Variant.from_dict(numeric_item.variant)
        distractor = next(c for c in variant.choices if c.misconception)
        value = distractor.value.tolist() if hasattr(distractor.value, "tolist") else distractor.value
        outcome = item_answer(user=user, item=numeric_item, value=value)
        assert outcome.result["correct"] is False
        assert outcome.result["misconception"]["id"] == distractor.misconception
        assert outcome.result["misconception"]["title_zh"]

    def test_per_element_correctness(self, user, numeric_item):
        answer = numeric_item.variant["answer"]
        assert isinstance(answer, list) and not isinstance(answer[0], list), "the factory's template answers a vector"
        wrong_first = [answer[0] + 1.0, *answer[1:]]
        outcome = item_answer(user=user, item=numeric_item, value=wrong_first)
        assert outcome.result["elements"][0] is False
        assert all(outcome.result["elements"][1:])

    def test_empty_value_is_refused(self, user, numeric_item):
        with pytest.raises(ValidationError) as caught:
            item_answer(user=user, item=numeric_item, value="  ")
        assert "value" in caught.value.message_dict

    def test_answer_by_choosing_among_distractors(self, user, lesson):
        factories.NumericQuestionFactory(lesson=lesson, answer_form="choice")
        item = attempt_start(user=user, lesson=lesson).items.get()
        variant = item.variant
        from attention_engine import generators

        restored = generators.Variant.from_dict(variant)
        wrong_index = next(i for i, c in enumerate(restored.choices) if c.misconception)
        outcome = item_answer(user=user, item=item, choice_index=wrong_index)
        assert outcome.result["correct"] is False
        assert outcome.result["chosen_choice_index"] == wrong_index
        assert outcome.result["correct_choice_index"] == restored.correct_choice_index
        assert outcome.result["misconception"]["id"] == restored.choices[wrong_index].misconception
        assert outcome.result["solution"]

    def test_choice_index_out_of_range(self, user, lesson):
        factories.NumericQuestionFactory(lesson=lesson, answer_form="choice")
        item = attempt_start(user=user, lesson=lesson).items.get()
        with pytest.raises(ValidationError) as caught:
            item_answer(user=user, item=item, choice_index=99)
        assert "choice_index" in caught.value.message_dict
