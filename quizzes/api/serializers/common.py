"""The shapes and limits several domains share: the error body every 4xx/5xx carries, the duration limit."""

from __future__ import annotations

from rest_framework import serializers

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
