"""Scheduling with FSRS, travelling in time: the two-day rule, day boundaries, retakes, undo.

Expected dates are computed independently with py-fsrs's own Scheduler, configured as
quizzes.reviews.scheduling documents (no intra-day steps, no fuzz), never by calling our services.
"""

import datetime as dt
import uuid
import zoneinfo

import fsrs
import pytest
from django.core.exceptions import ValidationError

from quizzes.accounts.selectors import profile_for
from quizzes.accounts.services import learner_profile_update
from quizzes.models import Attempt, ReviewCard, ReviewLog
from quizzes.practice.services import attempt_start, item_answer
from quizzes.reviews.selectors.due import due_cards, new_questions
from quizzes.reviews.selectors.ratings import rating_preview
from quizzes.reviews.services import card_rate, card_undo_last
from tests import factories
from tests.factories import utc

pytestmark = pytest.mark.django_db

SHANGHAI = zoneinfo.ZoneInfo("Asia/Shanghai")
Good, Again, Hard, Easy = fsrs.Rating.Good, fsrs.Rating.Again, fsrs.Rating.Hard, fsrs.Rating.Easy


def shanghai(*args: int) -> dt.datetime:
    return dt.datetime(*args, tzinfo=SHANGHAI)


def reference_scheduler(desired_retention: float = 0.9) -> fsrs.Scheduler:
    return fsrs.Scheduler(
        desired_retention=desired_retention, learning_steps=(), relearning_steps=(), enable_fuzzing=False
    )


def expected_dues(script: list[tuple[dt.datetime, fsrs.Rating]], desired_retention: float = 0.9) -> list[dt.datetime]:
    """Due dates after each counted review: the first pinned to +2 days, the rest pure FSRS."""
    scheduler = reference_scheduler(desired_retention)
    first_at, first_rating = (script[0][0].astimezone(dt.UTC), script[0][1])
    card, _ = scheduler.review_card(fsrs.Card(card_id=1, due=first_at), first_rating, first_at)
    card.due = first_at + dt.timedelta(days=2)
    dues = [card.due]
    for moment, rating in script[1:]:
        card, _ = scheduler.review_card(card, rating, moment.astimezone(dt.UTC))
        dues.append(card.due)
    return dues


def answer(user, lesson, *, correct: bool, mode: str = Attempt.Mode.STUDY):
    attempt = attempt_start(user=user, lesson=lesson, mode=mode)
    item = attempt.items.get()
    option = item.question.options.filter(is_correct=correct).first()
    return item_answer(user=user, item=item, option_id=option.pk)


def due_keys(user) -> list[str]:
    return [card.question.key for card in due_cards(user=user)]


@pytest.fixture
def lesson_with_one_question(lesson):
    factories.ChoiceQuestionFactory(lesson=lesson, key="why-scale")
    return lesson


class TestTwoDayRuleInTheLearnersDay:
    def test_not_due_tomorrow_due_in_two_days_then_exact_fsrs_dates(
        self, shanghai_user, lesson_with_one_question, time_machine
    ):
        user, lesson = shanghai_user, lesson_with_one_question
        studied = shanghai(2025, 3, 10, 22, 0)  # late evening local time (14:00 UTC)
        time_machine.move_to(studied, tick=False)
        answer(user, lesson, correct=True)
        card = ReviewCard.objects.get(user=user)
        assert card.due == studied + dt.timedelta(days=2)

        time_machine.move_to(shanghai(2025, 3, 11, 10, 0), tick=False)  # tomorrow morning
        assert due_keys(user) == []
        time_machine.move_to(shanghai(2025, 3, 12, 3, 30), tick=False)  # after midnight, before the 4 am rollover
        assert due_keys(user) == []
        time_machine.move_to(shanghai(2025, 3, 12, 4, 30), tick=False)  # day two has begun
        assert due_keys(user) == ["why-scale"]

        # A scripted history from here on: each review on the morning of the day it is due.
        script = [(studied, Good)]
        for correct in (True, False, True, True, True):
            moment = shanghai(2025, 3, 12, 8, 0) if len(script) == 1 else _morning_of(card.due)
            time_machine.move_to(moment, tick=False)
            assert "why-scale" in due_keys(user)
            answer(user, lesson, correct=correct, mode=Attempt.Mode.REVIEW)
            script.append((moment, Good if correct else Again))
            card.refresh_from_db()
            assert card.due == expected_dues(script)[-1]
        assert card.reps == len(script)
        assert card.lapses == 1
        reference = expected_dues(script)
        assert [log.role for log in card.logs.all()] == ["first"] + ["review"] * (len(script) - 1)
        assert card.due == reference[-1]
        assert fsrs.Card.from_dict(card.fsrs_card).due == reference[-1]

    def test_rollover_hour_decides_the_study_day(self, time_machine, lesson_with_one_question):
        """Same instant, two learners: at 03:00 local one is still on yesterday, the other is not."""
        night_owl = factories.LearnerProfileFactory(time_zone="Asia/Shanghai", day_rollover_hour=4).user
        early_bird = factories.LearnerProfileFactory(time_zone="Asia/Shanghai", day_rollover_hour=0).user
        for learner in (night_owl, early_bird):
            time_machine.move_to(shanghai(2025, 3, 10, 12, 0), tick=False)
            answer(learner, lesson_with_one_question, correct=True)
        time_machine.move_to(shanghai(2025, 3, 12, 3, 0), tick=False)
        assert due_keys(night_owl) == []
        assert due_keys(early_bird) == ["why-scale"]

    def test_time_zone_decides_the_study_day(self, time_machine, lesson_with_one_question):
        """New York (UTC-4 in May): its day two starts 12 hours after Shanghai's."""
        new_york = factories.LearnerProfileFactory(time_zone="America/New_York", day_rollover_hour=4).user
        shanghai_learner = factories.LearnerProfileFactory(time_zone="Asia/Shanghai", day_rollover_hour=4).user
        time_machine.move_to(utc(2025, 5, 1, 12), tick=False)  # 08:00 New York, 20:00 Shanghai
        for learner in (new_york, shanghai_learner):
            answer(learner, lesson_with_one_question, correct=True)
        time_machine.move_to(utc(2025, 5, 2, 21), tick=False)  # 17:00 NY May 2; 05:00 Shanghai May 3
        assert due_keys(new_york) == []
        assert due_keys(shanghai_learner) == ["why-scale"]


def _morning_of(due: dt.datetime) -> dt.datetime:
    local = due.astimezone(SHANGHAI)
    return dt.datetime.combine(local.date(), dt.time(8, 0), tzinfo=SHANGHAI)


class TestSameDayRetakes:
    def test_retake_the_same_study_day_leaves_the_schedule_unchanged(
        self, shanghai_user, lesson_with_one_question, time_machine
    ):
        user, lesson = shanghai_user, lesson_with_one_question
        time_machine.move_to(shanghai(2025, 3, 10, 22, 0), tick=False)
        answer(user, lesson, correct=True)
        before = ReviewCard.objects.get(user=user)

        time_machine.move_to(shanghai(2025, 3, 11, 3, 30), tick=False)  # after midnight, same study day
        answer(user, lesson, correct=False)
        after = ReviewCard.objects.get(user=user)
        assert (after.fsrs_card, after.due, after.reps, after.lapses) == (
            before.fsrs_card,
            before.due,
            before.reps,
            before.lapses,
        )
        assert list(after.logs.values_list("role", "rating")) == [("first", 3), ("repeat", 1)]

    def test_the_days_first_answer_counts_and_later_ones_do_not(
        self, shanghai_user, lesson_with_one_question, time_machine
    ):
        user, lesson = shanghai_user, lesson_with_one_question
        first = shanghai(2025, 3, 10, 9, 0)
        time_machine.move_to(first, tick=False)
        answer(user, lesson, correct=True)
        day_two = shanghai(2025, 3, 12, 9, 0)
        time_machine.move_to(day_two, tick=False)
        answer(user, lesson, correct=True)
        counted = ReviewCard.objects.get(user=user)
        time_machine.move_to(shanghai(2025, 3, 12, 20, 0), tick=False)
        for correct in (True, True, False):
            answer(user, lesson, correct=correct)
        card = ReviewCard.objects.get(user=user)
        assert card.due == counted.due == expected_dues([(first, Good), (day_two, Good)])[-1]
        assert list(card.logs.values_list("role", flat=True)) == ["first", "review", "repeat", "repeat", "repeat"]


class TestSelfRatings:
    @pytest.fixture
    def prompt(self, lesson):
        return factories.PromptQuestionFactory(lesson=lesson, key="why-sqrt-dk")

    def test_first_self_rating_follows_the_two_day_rule_then_fsrs(self, user, prompt, time_machine):
        start = utc(2025, 1, 6, 10)
        script = [(start, Hard), (start + dt.timedelta(days=2), Easy), (start + dt.timedelta(days=9), Again)]
        for moment, rating in script:
            time_machine.move_to(moment, tick=False)
            card = card_rate(user=user, question=prompt, rating=int(rating), duration_ms=30_000)
        assert card.due == expected_dues(script)[-1]
        assert card.lapses == 1

    def test_preview_shows_each_ratings_interval_and_matches_what_rating_does(self, user, prompt, time_machine):
        time_machine.move_to(utc(2025, 1, 6, 10), tick=False)
        first = rating_preview(user=user, question=prompt)
        assert [p.rating for p in first] == [1, 2, 3, 4]
        assert {p.interval for p in first} == {dt.timedelta(days=2)}
        card_rate(user=user, question=prompt, rating=3)

        same_day = rating_preview(user=user, question=prompt)
        assert not any(p.counts for p in same_day)
        assert {p.due for p in same_day} == {utc(2025, 1, 8, 10)}

        time_machine.move_to(utc(2025, 1, 8, 11), tick=False)
        preview = {p.rating: p for p in rating_preview(user=user, question=prompt)}
        assert preview[1].interval <= preview[2].interval <= preview[3].interval <= preview[4].interval
        assert preview[1].interval < preview[4].interval
        assert preview[3].label == "Good"
        card = card_rate(user=user, question=prompt, rating=3)
        assert card.due == preview[3].due

    def test_quiz_questions_are_not_self_rated(self, user, choice_question):
        with pytest.raises(ValidationError, match="self-rated"):
            card_rate(user=user, question=choice_question, rating=3)

    @pytest.mark.parametrize("rating", [0, 5, "3", True])
    def test_rating_must_be_one_to_four(self, user, prompt, rating):
        with pytest.raises(ValidationError) as caught:
            card_rate(user=user, question=prompt, rating=rating)
        assert "rating" in caught.value.message_dict

    def test_future_review_time_is_refused(self, user, prompt):
        with pytest.raises(ValidationError, match="ahead of the server's clock"):
            card_rate(user=user, question=prompt, rating=3, reviewed_at=dt.datetime.now(dt.UTC) + dt.timedelta(days=1))

    def test_client_uuid_makes_a_rating_idempotent(self, user, prompt):
        token = uuid.uuid4()
        first = card_rate(user=user, question=prompt, rating=3, client_uuid=token, source="offline")
        again = card_rate(user=user, question=prompt, rating=1, client_uuid=token, source="offline")
        assert again.pk == first.pk and again.due == first.due
        assert ReviewLog.objects.filter(user=user).count() == 1

    def test_desired_retention_changes_intervals(self, prompt, time_machine):
        cautious = factories.LearnerProfileFactory(desired_retention=0.95).user
        relaxed = factories.LearnerProfileFactory(desired_retention=0.8).user
        start = utc(2025, 1, 6, 10)
        for learner in (cautious, relaxed):
            for moment in (start, start + dt.timedelta(days=2)):
                time_machine.move_to(moment, tick=False)
                card_rate(user=learner, question=prompt, rating=3)
        cautious_due = ReviewCard.objects.get(user=cautious).due
        relaxed_due = ReviewCard.objects.get(user=relaxed).due
        assert cautious_due < relaxed_due
        script = [(start, Good), (start + dt.timedelta(days=2), Good)]
        assert relaxed_due == expected_dues(script, desired_retention=0.8)[-1]

    def test_a_late_upload_earlier_the_same_day_becomes_the_days_counted_review(self, user, prompt, time_machine):
        """Replaying from the log list makes order of arrival irrelevant (offline uploads later)."""
        start = utc(2025, 1, 6, 10)
        time_machine.move_to(start, tick=False)
        card_rate(user=user, question=prompt, rating=3)
        time_machine.move_to(start + dt.timedelta(days=3, hours=2), tick=False)
        card_rate(user=user, question=prompt, rating=3)
        early = start + dt.timedelta(days=3, hours=-2)
        card = card_rate(user=user, question=prompt, rating=1, reviewed_at=early, source="offline")
        assert list(card.logs.values_list("rating", "role")) == [(3, "first"), (1, "review"), (3, "repeat")]
        assert card.due == expected_dues([(start, Good), (early, Again)])[-1]


class TestUndo:
    def snapshot(self, card: ReviewCard) -> tuple:
        card.refresh_from_db()
        return (
            card.fsrs_card,
            card.state,
            card.due,
            card.last_review,
            card.stability,
            card.difficulty,
            card.reps,
            card.lapses,
            card.is_leech,
            list(card.logs.values_list("pk", "role")),
        )

    def test_undo_restores_the_previous_state(self, user, time_machine):
        prompt = factories.PromptQuestionFactory()
        start = utc(2025, 2, 1, 9)
        for days in (0, 2):
            time_machine.move_to(start + dt.timedelta(days=days), tick=False)
            card = card_rate(user=user, question=prompt, rating=3)
        before = self.snapshot(card)
        time_machine.move_to(start + dt.timedelta(days=12), tick=False)
        card_rate(user=user, question=prompt, rating=1)
        assert self.snapshot(card) != before
        restored = card_undo_last(user=user)
        assert restored.card.pk == card.pk and restored.question_id == prompt.pk
        assert self.snapshot(card) == before

    def test_undoing_the_only_rating_makes_the_question_new_again(self, user):
        prompt = factories.PromptQuestionFactory()
        card = card_rate(user=user, question=prompt, rating=4)
        assert card_undo_last(user=user, card=card).card is None
        assert not ReviewCard.objects.filter(user=user).exists()
        assert new_questions(user=user) == [prompt]

    def test_undo_a_same_day_repeat_changes_nothing_else(self, user, lesson_with_one_question, time_machine):
        time_machine.move_to(utc(2025, 2, 1, 9), tick=False)
        answer(user, lesson_with_one_question, correct=True)
        card = ReviewCard.objects.get(user=user)
        before = self.snapshot(card)
        answer(user, lesson_with_one_question, correct=False)
        card_undo_last(user=user, card=card)
        assert self.snapshot(card) == before

    def test_nothing_to_undo(self, user, other_user):
        with pytest.raises(ValidationError, match="no rating to undo"):
            card_undo_last(user=user)
        card = card_rate(user=other_user, question=factories.PromptQuestionFactory(), rating=3)
        from django.core.exceptions import PermissionDenied

        with pytest.raises(PermissionDenied):
            card_undo_last(user=user, card=card)


class TestLeech:
    def test_flagged_after_eight_lapses_and_unflagged_by_undo(self, user, time_machine):
        recall = factories.RecallQuestionFactory()
        start = utc(2025, 1, 1, 9)
        ratings = [3, 3] + [1] * 8
        days = [0, 2, *range(3, 11)]
        for day, rating in zip(days, ratings, strict=True):
            time_machine.move_to(start + dt.timedelta(days=day), tick=False)
            card = card_rate(user=user, question=recall, rating=rating)
            assert card.is_leech is (card.lapses >= 8)
        assert (card.lapses, card.is_leech, card.suspended) == (8, True, False)
        card = card_undo_last(user=user, card=card).card
        assert (card.lapses, card.is_leech) == (7, False)


def test_profile_time_zone_change_applies_to_the_next_rating(user, time_machine):
    learner_profile_update(user=user, time_zone="Asia/Shanghai", day_rollover_hour=6)
    profile = profile_for(user=user)
    assert (profile.time_zone, profile.day_rollover_hour) == ("Asia/Shanghai", 6)
    with pytest.raises(ValidationError):
        learner_profile_update(user=user, time_zone="Nowhere/Special")
