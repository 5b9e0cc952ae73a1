"""The API's shapes for personal scheduling (issue 30): the parameters a learner is scheduled with and the
workload a desired retention implies."""

from __future__ import annotations

from rest_framework import serializers

from quizzes.accounts.models import MAX_RETENTION, MIN_RETENTION

PARAMETER_KINDS = [("personal", "personal"), ("default", "default")]


class ParametersStatusSerializer(serializers.Serializer):
    kind = serializers.ChoiceField(
        choices=PARAMETER_KINDS,
        help_text="personal: FSRS-6 parameters fitted to your reviews schedule you; default: FSRS-6's defaults.",
    )
    fitted_at = serializers.DateTimeField(allow_null=True, help_text="When the parameters in use were fitted.")
    fitted_reviews = serializers.IntegerField(allow_null=True, help_text="Counted reviews that fit was made on.")
    log_loss_before = serializers.FloatField(
        allow_null=True, help_text="Log loss on your later reviews of the parameters used before that fit."
    )
    log_loss_after = serializers.FloatField(
        allow_null=True, help_text="…and of the fitted parameters (lower is better)."
    )
    last_attempt_at = serializers.DateTimeField(allow_null=True)
    last_attempt_outcome = serializers.CharField(allow_null=True)
    reviews = serializers.IntegerField(help_text="Counted reviews so far.")
    cards = serializers.IntegerField()
    min_reviews = serializers.IntegerField(help_text="Counted reviews needed before a first fit.")
    min_cards = serializers.IntegerField(help_text="…over at least this many cards.")


class WorkloadQuerySerializer(serializers.Serializer):
    desired_retention = serializers.FloatField(
        min_value=MIN_RETENTION,
        max_value=MAX_RETENTION,
        required=False,
        help_text="The retention to simulate (default: yours).",
    )


class WorkloadSerializer(serializers.Serializer):
    desired_retention = serializers.FloatField()
    reviews_per_day = serializers.ListField(
        child=serializers.FloatField(), help_text="Simulated reviews on each of the next 30 study days, today first."
    )
    average_reviews_per_day = serializers.FloatField()
    peak_reviews_per_day = serializers.FloatField()
    expected_recall = serializers.FloatField(
        help_text="The share of the cards you have studied that you would recall on an average day of the 30."
    )


class RetentionPreviewSerializer(serializers.Serializer):
    chosen = WorkloadSerializer()
    current = WorkloadSerializer(help_text="The same at your current desired retention.")
    suggested_retention = serializers.FloatField(
        help_text="fsrs-rs's optimal retention: the least study time per card remembered over a year of your deck."
    )
    parameters = ParametersStatusSerializer()
