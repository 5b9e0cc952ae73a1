"""Attempts: starting one, its items, answering and rating them."""

from __future__ import annotations

from rest_framework import serializers

from quizzes.api.fields import StrictCharField, StrictIntegerField
from quizzes.api.serializers.common import MAX_DURATION_MS, ErrorResponseSerializer
from quizzes.api.serializers.items import (
    CodeCheckSerializer,
    CodePromptSerializer,
    ItemOptionSerializer,
    ItemQuestionSerializer,
    ItemResponseSerializer,
    ItemResultSerializer,
    NumericPromptSerializer,
    SkippedKeySerializer,
)
from quizzes.content.code import MAX_CODE_CHARS
from quizzes.models import Attempt

#: The modes a client may start: missed-items attempts start from an earlier attempt (POST /attempts/{id}/missed/).
START_MODES = [(mode.value, mode.label) for mode in (Attempt.Mode.STUDY, Attempt.Mode.REVIEW)]


class AttemptStartSerializer(serializers.Serializer):
    lesson_id = StrictIntegerField(min_value=1)
    mode = serializers.ChoiceField(choices=START_MODES, default=Attempt.Mode.STUDY)


class AttemptLessonSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    key = serializers.CharField()
    title = serializers.CharField()


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


class AttemptPageSerializer(serializers.Serializer):
    count = serializers.IntegerField()
    page = serializers.IntegerField()
    page_size = serializers.IntegerField()
    results = AttemptSummarySerializer(many=True)


class AnswerSerializer(serializers.Serializer):
    option_id = StrictCharField(max_length=64, required=False, help_text="Choice questions: an option id of this item.")
    choice_index = StrictIntegerField(
        min_value=0, max_value=100, required=False, help_text="Numeric, answer_form=choice."
    )
    value = serializers.JSONField(
        required=False,
        help_text=(
            'Numeric, answer_form=input: a number, list, nested list or text like "0.54, 0.46". '
            'Number questions (kind=number): one number, or text like "512" or "512 MiB" (its unit after it). '
            "One number (a string, a list's string, one value of a text): a point for decimals (0.25, -1.5, 1e-3), "
            'full-width digits and the minus sign "−" read as plain ones; when the answer is a single number, '
            'a space may group thousands ("1 000"). A comma between digits ("1,5", "1,000") or a "%" is '
            "ambiguous: refused (400, the reason in fields.value) and nothing locks. A text of several numbers "
            'separates them by commas ("，", "、") or spaces and rows by ";", newlines or "], [" — so there '
            '"1 000" and "1,5" are two values.'
        ),
    )
    code = StrictCharField(
        max_length=MAX_CODE_CHARS,
        required=False,
        trim_whitespace=False,
        help_text="Code questions: your lines (for a scaffold: one line per TODO, in order).",
    )
    duration_ms = StrictIntegerField(min_value=0, max_value=MAX_DURATION_MS, required=False)


class AnswerResultSerializer(serializers.Serializer):
    replayed = serializers.BooleanField(
        help_text="true: the item was already answered with this answer; nothing stored."
    )
    item = AttemptItemSerializer()


class CodeNotRunnableSerializer(ErrorResponseSerializer):
    check = CodeCheckSerializer(
        required=False,
        help_text="code_not_runnable only: the refusal, every message with its line and column. Nothing was locked.",
    )


class ItemRateSerializer(serializers.Serializer):
    rating = StrictIntegerField(min_value=1, max_value=4, help_text="1 Again, 2 Hard, 3 Good, 4 Easy.")


class ItemRateResultSerializer(serializers.Serializer):
    rating = serializers.IntegerField(help_text="The rating the scheduler now has for this answer.")
    item = AttemptItemSerializer()


class AnswerConflictSerializer(ErrorResponseSerializer):
    item = AttemptItemSerializer(help_text="The item with its locked response and result.")
