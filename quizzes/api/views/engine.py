"""The attention engine over HTTP: lesson 1's d_k demo for everyone, variant previews for staff."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.permissions import IsAdminUser
from rest_framework.response import Response
from rest_framework.views import APIView

from attention_engine import misconceptions
from quizzes.api.errors import ApiError
from quizzes.api.fields import StrictCharField, StrictIntegerField
from quizzes.api.schema import errors
from quizzes.api.serializers.items import GivenValueSerializer, MisconceptionSerializer, SolutionStepSerializer
from quizzes.api.types import LearnerApiRequest
from quizzes.api.views.common import query, validated_body
from quizzes.content import attention_demo as demo
from quizzes.core.errors import ErrorCode
from quizzes.core.rendering import render_markdown, value_to_latex

if TYPE_CHECKING:
    from attention_engine.generators.base import Variant

TAG = ["engine"]


def _variant_public(variant: Variant) -> dict[str, Any]:
    """A generated variant as the preview shows it: rendered prompt, given values and answer in LaTeX, every choice
    with the misconception it comes from."""
    d = variant.to_dict()
    return {
        **{k: d[k] for k in ("template", "version", "seed", "params", "prompt", "answer", "answer_shape")},
        "prompt_html": str(render_markdown(d["prompt"])),
        "given": [{"name": n, "value": v, "latex": value_to_latex(v)} for n, v in d["given"].items()],
        "answer_latex": value_to_latex(d["answer"]),
        "answer_format": d.get("answer_format", ""),
        "choices": [
            {
                "index": i,
                "value": c["value"],
                "label_zh": c["label_zh"],
                "label_en": c["label_en"],
                "correct": c["misconception"] is None,
                "misconception": misconceptions.describe(c["misconception"]),
            }
            for i, c in enumerate(d["choices"])
        ],
        "solution": d["solution"],
    }


class PreviewChoiceSerializer(serializers.Serializer):
    index = serializers.IntegerField()
    value = serializers.JSONField()
    label_zh = serializers.CharField()
    label_en = serializers.CharField()
    correct = serializers.BooleanField()
    misconception = MisconceptionSerializer(allow_null=True)


class DemoMatrixView(APIView):
    class InputSerializer(serializers.Serializer):
        d_k = serializers.IntegerField(min_value=demo.MIN_D_K, max_value=demo.MAX_D_K, default=16)
        causal = serializers.BooleanField(default=False)
        scaled = serializers.BooleanField(default=True)

    class OutputSerializer(serializers.Serializer):
        d_k = serializers.IntegerField()
        causal = serializers.BooleanField()
        scaled = serializers.BooleanField()
        tokens = serializers.IntegerField()
        seed = serializers.IntegerField()
        weights = serializers.ListField(child=serializers.ListField(child=serializers.FloatField()))
        row_max = serializers.ListField(child=serializers.FloatField())
        mean_max_weight = serializers.FloatField()
        score_std = serializers.FloatField()

        class Meta:
            ref_name = "DemoMatrix"

    @extend_schema(
        tags=TAG,
        operation_id="engine_demo",
        summary="Lesson 1's demo: attention weights of 6 tokens for a d_k, causal or not, scaled or not",
        parameters=[InputSerializer],
        responses={200: OutputSerializer, **errors(400, 401)},
    )
    def get(self, request: LearnerApiRequest) -> Response:
        return Response(self.OutputSerializer(demo.demo_matrix(**query(self.InputSerializer, request))).data)


class VariantPreviewView(APIView):
    permission_classes = (IsAdminUser,)

    class InputSerializer(serializers.Serializer):
        template = StrictCharField(max_length=64)
        version = StrictIntegerField(
            min_value=1, max_value=32767, required=False, help_text="The template version; default: the newest."
        )
        seed = StrictIntegerField(min_value=0, max_value=2**31 - 1, default=0)
        params = serializers.DictField(required=False, default=dict, help_text="Template parameters.")

        class Meta:
            ref_name = "VariantPreviewRequest"  # component VariantPreviewRequestRequest, as before

    class OutputSerializer(serializers.Serializer):
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
            allow_blank=True,
            help_text='How to type the answer (shown to learners who type it); "" if the prompt says it.',
        )
        choices = PreviewChoiceSerializer(many=True)
        solution = SolutionStepSerializer(many=True)

        class Meta:
            ref_name = "VariantPreview"

    @extend_schema(
        tags=TAG,
        operation_id="engine_variant_preview",
        summary="Staff: a generated variant (any template version) with its answer, distractors and worked solution",
        request=InputSerializer,
        responses={200: OutputSerializer, **errors(400, 401, 403)},
    )
    def post(self, request: LearnerApiRequest) -> Response:
        from attention_engine import generators

        data = validated_body(self.InputSerializer, request)
        if data["template"] not in generators.names():
            raise ApiError(
                status_code=400,
                code=ErrorCode.VALIDATION_ERROR,
                message="Unknown template.",
                fields={"template": [f"Known templates: {', '.join(generators.names())}."]},
            )
        version = data.get("version")
        if version is not None and version not in generators.versions(data["template"]):
            known = ", ".join(str(v) for v in generators.versions(data["template"]))
            raise ApiError(
                status_code=400,
                code=ErrorCode.VALIDATION_ERROR,
                message="Unknown template version.",
                fields={"version": [f"Known versions of {data['template']}: {known}."]},
            )
        try:
            variant = generators.generate(data["template"], data["seed"], version=version, **data["params"])
        except (ValueError, TypeError, ArithmeticError) as exc:
            raise ApiError(
                status_code=400, code=ErrorCode.VALIDATION_ERROR, message=str(exc), fields={"params": [str(exc)]}
            ) from exc
        return Response(self.OutputSerializer(_variant_public(variant)).data)
