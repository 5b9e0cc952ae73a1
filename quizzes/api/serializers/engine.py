"""The numeric engine's public endpoints: the attention demo matrix and a template variant's preview."""

from __future__ import annotations

from rest_framework import serializers

from quizzes.api.fields import StrictCharField, StrictIntegerField
from quizzes.api.serializers.items import GivenValueSerializer, MisconceptionSerializer, SolutionStepSerializer


class DemoMatrixSerializer(serializers.Serializer):
    d_k = serializers.IntegerField()
    causal = serializers.BooleanField()
    scaled = serializers.BooleanField()
    tokens = serializers.IntegerField()
    seed = serializers.IntegerField()
    weights = serializers.ListField(child=serializers.ListField(child=serializers.FloatField()))
    row_max = serializers.ListField(child=serializers.FloatField())
    mean_max_weight = serializers.FloatField()
    score_std = serializers.FloatField()


class VariantPreviewRequestSerializer(serializers.Serializer):
    template = StrictCharField(max_length=64)
    version = StrictIntegerField(
        min_value=1, max_value=32767, required=False, help_text="The template version; default: the newest."
    )
    seed = StrictIntegerField(min_value=0, max_value=2**31 - 1, default=0)
    params = serializers.DictField(required=False, default=dict, help_text="Template parameters.")


class PreviewChoiceSerializer(serializers.Serializer):
    index = serializers.IntegerField()
    value = serializers.JSONField()
    label_zh = serializers.CharField()
    label_en = serializers.CharField()
    correct = serializers.BooleanField()
    misconception = MisconceptionSerializer(allow_null=True)


class VariantPreviewSerializer(serializers.Serializer):
    template = serializers.CharField()
    version = serializers.IntegerField()
    seed = serializers.IntegerField()
    params = serializers.DictField()
    prompt = serializers.CharField()
    prompt_html = serializers.CharField()
    given = GivenValueSerializer(many=True)
    answer = serializers.JSONField()
    answer_latex = serializers.CharField()
    answer_shape = serializers.ListField(child=serializers.IntegerField())
    answer_format = serializers.CharField(
        allow_blank=True, help_text='How to type the answer (shown to learners who type it); "" if the prompt says it.'
    )
    choices = PreviewChoiceSerializer(many=True)
    solution = SolutionStepSerializer(many=True)
