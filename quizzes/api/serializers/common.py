"""The shapes and limits several domains share: the error body every 4xx/5xx carries, the duration limit, the
fields that name a question or a lesson."""

from __future__ import annotations

from rest_framework import serializers

from quizzes.models import Question

MAX_DURATION_MS = 24 * 60 * 60 * 1000


class ErrorDetailSerializer(serializers.Serializer):
    code = serializers.CharField(help_text="Machine-readable, e.g. validation_error, not_found, answer_locked.")
    message = serializers.CharField(help_text="Human-readable, in the request's language.")
    fields = serializers.DictField(  # type: ignore[assignment]  # the error shape's key, not Serializer.fields
        child=serializers.ListField(child=serializers.CharField()),
        help_text='Field path → messages, e.g. {"entries.3.reviewed_at": ["…"]}; {} when not about a field.',
    )


class ErrorResponseSerializer(serializers.Serializer):
    error = ErrorDetailSerializer()


def lesson_fields() -> tuple[serializers.Field, ...]:
    """id, key, title: which lesson it is, first in every shape that shows one (a lesson's summary, an attempt's
    lesson). Fresh fields, unpacked in place, like those of ``question_fields``."""
    return (serializers.IntegerField(), serializers.CharField(), serializers.CharField())


def page_fields() -> tuple[serializers.Field, ...]:
    """count, page, page_size: where a page of a paged list stands (the page asked for, PageQuerySerializer's),
    before its ``results``. Fresh fields, unpacked in place, like those of ``question_fields``."""
    return (serializers.IntegerField(), serializers.IntegerField(), serializers.IntegerField())


def question_fields() -> tuple[serializers.Field, ...]:
    """id, key, kind: which question it is, first in every shape that shows one (an item's, a card's, a lesson's).
    Fresh fields, unpacked in place (DRF orders fields by when each was made: see quizzes.api.serializers.reviews)."""
    return (
        serializers.IntegerField(),
        serializers.CharField(),
        serializers.ChoiceField(choices=Question.Kind.choices),
    )
