"""The attention engine over HTTP: lesson 1's d_k demo for everyone, variant previews for staff."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.permissions import IsAdminUser
from rest_framework.response import Response
from rest_framework.views import APIView

from attention_engine import misconceptions
from quizzes.api.errors import ApiError
from quizzes.api.schema import errors
from quizzes.api.serializers import engine as s
from quizzes.api.types import LearnerApiRequest
from quizzes.api.views.common import query
from quizzes.content import attention_demo as demo
from quizzes.core.errors import ErrorCode
from quizzes.core.rendering import render_markdown, value_to_latex

TAG = ["engine"]


class DemoQuerySerializer(serializers.Serializer):
    d_k = serializers.IntegerField(min_value=demo.MIN_D_K, max_value=demo.MAX_D_K, default=16)
    causal = serializers.BooleanField(default=False)
    scaled = serializers.BooleanField(default=True)


class DemoMatrixView(APIView):
    @extend_schema(
        tags=TAG,
        operation_id="engine_demo",
        summary="Lesson 1's demo: attention weights of 6 tokens for a d_k, causal or not, scaled or not",
        parameters=[DemoQuerySerializer],
        responses={200: s.DemoMatrixSerializer, **errors(400, 401)},
    )
    def get(self, request: LearnerApiRequest) -> Response:
        return Response(s.DemoMatrixSerializer(demo.demo_matrix(**query(DemoQuerySerializer, request))).data)


class VariantPreviewView(APIView):
    permission_classes = (IsAdminUser,)

    @extend_schema(
        tags=TAG,
        operation_id="engine_variant_preview",
        summary="Staff: a generated variant (any template version) with its answer, distractors and worked solution",
        request=s.VariantPreviewRequestSerializer,
        responses={200: s.VariantPreviewSerializer, **errors(400, 401, 403)},
    )
    def post(self, request: LearnerApiRequest) -> Response:
        from attention_engine import generators

        serializer = s.VariantPreviewRequestSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
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
        d = variant.to_dict()
        result = {
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
        return Response(s.VariantPreviewSerializer(result).data)
