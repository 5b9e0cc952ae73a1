"""An offline review pack as the views that issue, read and list packs return it: its items and answer keys."""

from __future__ import annotations

from rest_framework import serializers

from quizzes.api.serializers.items import (
    CodePromptSerializer,
    ItemOptionSerializer,
    ItemQuestionSerializer,
    MisconceptionSerializer,
    NumericPromptSerializer,
    answer_key_fields,
)
from quizzes.api.serializers.reviews import reference_fields


class PackOptionKeySerializer(serializers.Serializer):
    id = serializers.CharField(help_text="The option id the item shows.")
    correct = serializers.BooleanField()
    feedback = serializers.CharField(allow_blank=True)
    feedback_html = serializers.CharField(allow_blank=True)


class PackChoiceKeySerializer(serializers.Serializer):
    index = serializers.IntegerField()
    correct = serializers.BooleanField()
    misconception = MisconceptionSerializer(allow_null=True, help_text="The mistake this value comes from.")


class PackToleranceSerializer(serializers.Serializer):
    atol = serializers.FloatField()
    rtol = serializers.FloatField()
    rule = serializers.CharField(help_text="How the server grades a typed value, element by element.")


class PackTestVectorSerializer(serializers.Serializer):
    value = serializers.JSONField(help_text="A typed answer…")
    correct = serializers.BooleanField(help_text="…and the server's grade of it: check your grader against these.")
    score = serializers.FloatField()
    elements = serializers.JSONField(allow_null=True)


class PackKeySerializer(serializers.Serializer):
    """The answer key of a quiz item, for immediate feedback offline. The server grades the upload itself."""

    (correct_option_id, correct_choice_index, correct_value, correct_value_latex, answer_shape, solution) = (
        answer_key_fields(option_help="Choice items.")
    )
    explanation = serializers.CharField(allow_blank=True)
    explanation_html = serializers.CharField(allow_blank=True)
    option_feedback = PackOptionKeySerializer(many=True, help_text="Choice items: every option's feedback.")
    choice_feedback = PackChoiceKeySerializer(many=True, help_text="Numeric items, answer_form=choice.")
    tolerance = PackToleranceSerializer(allow_null=True, help_text="Numeric items: the grading rule.")
    test_vectors = PackTestVectorSerializer(many=True, help_text="Numeric items, answer_form=input.")
    graded_at_upload = serializers.BooleanField(
        help_text=(
            "Code items: true — a phone cannot run the checker; show the reference solution and "
            '"graded when you are back online", and upload the code.'
        )
    )
    reference_solution = serializers.CharField(
        allow_null=True, help_text="Code items: the reference solution, to show after the learner's answer."
    )


class PackSelfRatedSerializer(serializers.Serializer):
    reference_answer, reference_answer_html, rubric, expected_lines, explanation, explanation_html = reference_fields()


class PackItemSerializer(serializers.Serializer):
    id = serializers.IntegerField(help_text="Upload the answer with this pack_item_id.")
    position = serializers.IntegerField()
    due = serializers.DateTimeField(help_text="When the card was due as the pack was issued.")
    question = ItemQuestionSerializer()
    options = ItemOptionSerializer(many=True, help_text="Choice questions: the options in this item's order.")
    numeric = NumericPromptSerializer(allow_null=True)
    code = CodePromptSerializer(allow_null=True, help_text="Code questions: the given code and the names to define.")
    variant_seed = serializers.IntegerField(allow_null=True, help_text="Numeric: the engine's seed of these numbers.")
    template_version = serializers.IntegerField(allow_null=True)
    key = PackKeySerializer(allow_null=True, help_text="Quiz items: the answer key (on purpose, see the operation).")
    self_rated = PackSelfRatedSerializer(allow_null=True, help_text="Prompts and recall cards: the reference.")
    answered = serializers.BooleanField(help_text="An answer to this item was uploaded (the first one counts).")


def pack_issue_fields(moment: type[serializers.Field]) -> tuple[serializers.Field, ...]:
    """id, device, horizon_days, issued_at, expires_at: which pack, for which device, issued when for how long; the
    times as ``moment`` (DateTimeField here, CharField in the export document, whose times are ISO text). Fresh
    fields, unpacked in place (DRF orders fields by when each was made: see quizzes.api.serializers.reviews)."""
    return (
        serializers.IntegerField(),
        serializers.CharField(allow_blank=True),
        serializers.IntegerField(),
        moment(),
        moment(),
    )


class PackSummarySerializer(serializers.Serializer):
    id, device, horizon_days, issued_at, expires_at = pack_issue_fields(serializers.DateTimeField)
    upload_until = serializers.DateTimeField(
        help_text="Answers reviewed up to this moment (the expiry plus a grace period) are accepted."
    )
    revoked_at = serializers.DateTimeField(allow_null=True)
    status = serializers.CharField(help_text="active, revoked or expired (revoked and expired packs are not served).")
    item_count = serializers.IntegerField()
    answered_count = serializers.IntegerField()


class PackSerializer(PackSummarySerializer):
    server_time = serializers.DateTimeField(
        help_text=(
            "The server's clock when it sent this pack (also the response's Date header): the app's clock minus "
            "this, taken when the pack arrives, is how far off the phone's clock is. Not covered by the ETag."
        )
    )
    items = PackItemSerializer(many=True)
