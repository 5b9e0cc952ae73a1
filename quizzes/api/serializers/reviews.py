"""Reviews: cards, the due queue, ratings and their undo, a question's reference, forecast and heatmap."""

from __future__ import annotations

from rest_framework import serializers

from quizzes.api.fields import StrictDateTimeField, StrictIntegerField, StrictUUIDField
from quizzes.api.serializers.common import MAX_DURATION_MS
from quizzes.models import Question, ReviewCard


class CardQuestionSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    key = serializers.CharField()
    kind = serializers.ChoiceField(choices=Question.Kind.choices)
    lesson_id = serializers.IntegerField()
    lesson_key = serializers.CharField()
    prompt = serializers.CharField()
    prompt_html = serializers.CharField()


class ReviewCardSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    question = CardQuestionSerializer()
    state = serializers.ChoiceField(choices=ReviewCard.State.choices)
    state_label = serializers.CharField()
    due = serializers.DateTimeField()
    due_today = serializers.BooleanField()
    last_review = serializers.DateTimeField(allow_null=True)
    stability = serializers.FloatField(allow_null=True)
    difficulty = serializers.FloatField(allow_null=True)
    reps = serializers.IntegerField()
    lapses = serializers.IntegerField()
    suspended = serializers.BooleanField()
    is_leech = serializers.BooleanField()


class DashboardCountsSerializer(serializers.Serializer):
    due = serializers.IntegerField(help_text="Cards due today (capped by reviews per day).")
    new = serializers.IntegerField(help_text="New questions available today (capped by new per day).")
    reviewed_today = serializers.IntegerField()
    streak = serializers.IntegerField(help_text="Consecutive study days with a rating.")
    next_due_after_today = serializers.DateTimeField(allow_null=True)
    study_day = serializers.DateField()


class DueQueueSerializer(serializers.Serializer):
    counts = DashboardCountsSerializer()
    count = serializers.IntegerField(help_text="Cards in the queue (all pages).")
    page = serializers.IntegerField()
    page_size = serializers.IntegerField()
    results = ReviewCardSerializer(many=True, help_text="Most overdue first.")


class CardPageSerializer(serializers.Serializer):
    count = serializers.IntegerField()
    page = serializers.IntegerField()
    page_size = serializers.IntegerField()
    results = ReviewCardSerializer(many=True)


class RateSerializer(serializers.Serializer):
    question_id = StrictIntegerField(min_value=1)
    rating = StrictIntegerField(min_value=1, max_value=4, help_text="1 Again, 2 Hard, 3 Good, 4 Easy.")
    reviewed_at = StrictDateTimeField(required=False, help_text="Default: now.")
    duration_ms = StrictIntegerField(min_value=0, max_value=MAX_DURATION_MS, required=False)
    client_uuid = StrictUUIDField(required=False, help_text="Makes a retried rating harmless.")


class UndoSerializer(serializers.Serializer):
    card_id = StrictIntegerField(min_value=1, required=False, help_text="Default: the newest rating of any card.")


class UndoResultSerializer(serializers.Serializer):
    question_id = serializers.IntegerField()
    card = ReviewCardSerializer(allow_null=True, help_text="null: that was the card's only rating (new again).")


class RatingPreviewSerializer(serializers.Serializer):
    rating = serializers.IntegerField()
    label = serializers.CharField()  # type: ignore[assignment]  # a field, not Field.label
    due = serializers.DateTimeField()
    interval_seconds = serializers.IntegerField()
    counts = serializers.BooleanField(help_text="false: a same-day repeat, logged without moving the schedule.")


class QuestionReferenceSerializer(serializers.Serializer):
    question_id = serializers.IntegerField()
    kind = serializers.ChoiceField(choices=Question.Kind.choices)
    reference_answer = serializers.CharField(allow_blank=True)
    reference_answer_html = serializers.CharField(allow_blank=True)
    rubric = serializers.ListField(child=serializers.CharField())
    expected_lines = serializers.ListField(child=serializers.CharField())
    explanation = serializers.CharField(allow_blank=True)
    explanation_html = serializers.CharField(allow_blank=True)
    rating_previews = RatingPreviewSerializer(many=True)


class DayCountSerializer(serializers.Serializer):
    day = serializers.DateField()
    count = serializers.IntegerField()


class ForecastSerializer(serializers.Serializer):
    days = DayCountSerializer(many=True, help_text="Due cards per study day from today; today includes the overdue.")


class HeatmapSerializer(serializers.Serializer):
    days = DayCountSerializer(many=True, help_text="Ratings per study day, oldest first, ending today.")
