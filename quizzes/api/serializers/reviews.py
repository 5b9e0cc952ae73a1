"""A review card as every view that shows one returns it (cards, ratings, undo, the due queue, the offline upload),
and the field lists the card and a prompt's reference share with the export document and review packs."""

from __future__ import annotations

from rest_framework import serializers

from quizzes.api.serializers.common import question_fields
from quizzes.models import ReviewCard

# DRF orders a serializer's fields by when each was made, so a shared list is a function that makes fresh fields,
# unpacked in place where it belongs (``stability, difficulty, ... = card_memory_fields()``): one definition, and
# every shape keeps its order in openapi.yaml.


def card_memory_fields() -> tuple[serializers.Field, ...]:
    """stability, difficulty, reps, lapses, suspended, is_leech: a card's FSRS memory and history (API and export)."""
    return (
        serializers.FloatField(allow_null=True),
        serializers.FloatField(allow_null=True),
        serializers.IntegerField(),
        serializers.IntegerField(),
        serializers.BooleanField(),
        serializers.BooleanField(),
    )


def reference_fields() -> tuple[serializers.Field, ...]:
    """reference_answer, reference_answer_html, rubric, expected_lines, explanation, explanation_html: a prompt's or
    recall card's reference, shown after the learner's own answer (the reference read and a pack's self-rated item)."""
    return (
        serializers.CharField(allow_blank=True),
        serializers.CharField(allow_blank=True),
        serializers.ListField(child=serializers.CharField()),
        serializers.ListField(child=serializers.CharField()),
        serializers.CharField(allow_blank=True),
        serializers.CharField(allow_blank=True),
    )


class CardQuestionSerializer(serializers.Serializer):
    id, key, kind = question_fields()
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
    stability, difficulty, reps, lapses, suspended, is_leech = card_memory_fields()
