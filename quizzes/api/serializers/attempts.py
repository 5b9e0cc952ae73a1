"""The shapes of an attempt and its items that several views return (attempts, items, the answer and its rate)."""

from __future__ import annotations

from rest_framework import serializers

from quizzes.api.serializers.common import lesson_fields
from quizzes.api.serializers.items import (
    CodePromptSerializer,
    ItemOptionSerializer,
    ItemQuestionSerializer,
    ItemResponseSerializer,
    ItemResultSerializer,
    NumericPromptSerializer,
    SkippedKeySerializer,
)
from quizzes.models import Attempt


class AttemptLessonSerializer(serializers.Serializer):
    id, key, title = lesson_fields()


class AttemptItemSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    attempt_id = serializers.IntegerField()
    position = serializers.IntegerField()
    question = ItemQuestionSerializer()
    options = ItemOptionSerializer(many=True, help_text="Choice questions: the options in this attempt's order.")
    numeric = NumericPromptSerializer(allow_null=True)
    code = CodePromptSerializer(allow_null=True, help_text="Code questions: the given code and names.")
    answered = serializers.BooleanField()
    answered_at = serializers.DateTimeField(allow_null=True)
    response = ItemResponseSerializer(allow_null=True)
    result = ItemResultSerializer(allow_null=True, help_text="null until the item is answered (locked).")
    skipped_key = SkippedKeySerializer(
        allow_null=True,
        help_text=(
            "null, except for an item left unanswered in a finished attempt whose skipped answers you asked to see "
            "(POST /attempts/{id}/show-skipped/, which records each of them as Again): its answer."
        ),
    )


class AttemptSummarySerializer(serializers.Serializer):
    id = serializers.IntegerField()
    lesson = AttemptLessonSerializer()
    number = serializers.IntegerField()
    mode = serializers.ChoiceField(choices=Attempt.Mode.choices)
    started_at = serializers.DateTimeField()
    finished_at = serializers.DateTimeField(allow_null=True)
    item_count = serializers.IntegerField()
    answered_count = serializers.IntegerField()
    skipped_count = serializers.IntegerField(
        help_text="A finished attempt's unanswered items (0 while open): their answers stay hidden until asked for."
    )
    skipped_shown_at = serializers.DateTimeField(
        allow_null=True,
        help_text="When you asked to see the skipped items' answers (POST /attempts/{id}/show-skipped/); null: never.",
    )
    score = serializers.FloatField(
        allow_null=True, help_text="Mean over items (unanswered = 0); null before any answer."
    )


class AttemptSerializer(AttemptSummarySerializer):
    items = AttemptItemSerializer(many=True)
