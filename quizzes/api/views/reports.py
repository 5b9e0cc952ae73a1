"""Learners' problem reports (issue 27): report what was wrong with a question you saw; see whether it was resolved.

A report names exactly one thing the learner saw — an attempt item, a pack item or a review card — so it carries
the exact question (and a numeric item's template version and seed). Another learner's item is not found (404),
like an unknown one; an item before its lock is refused (400 ``not_revealed``). Filing is throttled per learner
(the ``reports`` quota: RateLimit-Policy / RateLimit, 429 + Retry-After past it).
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from quizzes.api.errors import ApiError
from quizzes.api.fields import StrictIntegerField, optional_text
from quizzes.api.schema import errors
from quizzes.api.throttling import QUOTA_EXCEEDED, RATELIMIT_HEADERS, learner_limited
from quizzes.api.types import LearnerApiRequest
from quizzes.api.views.common import found, validated_body
from quizzes.core.errors import ErrorCode
from quizzes.reports.models import TEXT_MAX_LENGTH, ProblemReport
from quizzes.reports.selectors import (
    ReportTarget,
    card_target,
    item_target,
    pack_item_target,
    report_facts,
    reports_of,
)
from quizzes.reports.services import problem_report_create

TAG = ["reports"]
ORIGINS = ("attempt_item_id", "pack_item_id", "card_id")


class ReportQuestionSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    key = serializers.CharField()
    lesson = serializers.CharField(help_text="The lesson's key.")


class ReportOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    question = ReportQuestionSerializer()
    origin = serializers.ChoiceField(choices=ProblemReport.Origin.choices, help_text="What the report was filed on.")
    attempt_item_id = serializers.IntegerField(allow_null=True)
    pack_item_id = serializers.IntegerField(allow_null=True)
    card_id = serializers.IntegerField(allow_null=True)
    prompt = serializers.CharField(help_text="The question's text as you saw it (a numeric variant's under it).")
    template_version = serializers.IntegerField(allow_null=True, help_text="Numeric items: the template version.")
    variant_seed = serializers.IntegerField(allow_null=True, help_text="Numeric items: the variant's seed.")
    category = serializers.ChoiceField(choices=ProblemReport.Category.choices)
    text = serializers.CharField(allow_blank=True)
    created_at = serializers.DateTimeField()
    status = serializers.ChoiceField(choices=["open", "resolved"])
    resolved_at = serializers.DateTimeField(allow_null=True)


def report_data(report: ProblemReport) -> dict[str, Any]:
    return {
        **report_facts(report),
        "question": {"id": report.question.pk, "key": report.question.key, "lesson": report.question.lesson.key},
        "created_at": report.created_at,
        "status": "resolved" if report.is_resolved else "open",
        "resolved_at": report.resolved_at,
    }


def _target(request: LearnerApiRequest, data: dict[str, Any]) -> ReportTarget:
    named = [name for name in ORIGINS if name in data]
    if len(named) != 1:
        raise ApiError(
            status_code=status.HTTP_400_BAD_REQUEST,
            code=ErrorCode.ONE_ORIGIN,
            message="Name exactly one of attempt_item_id, pack_item_id and card_id.",
        )
    name = named[0]
    if name == "attempt_item_id":
        target = item_target(user=request.user, item_id=data[name])
    elif name == "pack_item_id":
        target = pack_item_target(user=request.user, pack_item_id=data[name])
    else:
        target = card_target(user=request.user, card_id=data[name])
    return found(target)


class ReportListView(APIView):
    class ListOutputSerializer(serializers.Serializer):
        reports = ReportOutputSerializer(many=True)

        class Meta:
            ref_name = "ReportList"

    class CreateInputSerializer(serializers.Serializer):
        attempt_item_id = StrictIntegerField(required=False, min_value=1, help_text="An item of one of your attempts.")
        pack_item_id = StrictIntegerField(required=False, min_value=1, help_text="An item of one of your review packs.")
        card_id = StrictIntegerField(required=False, min_value=1, help_text="One of your review cards.")
        category = serializers.ChoiceField(choices=ProblemReport.Category.choices)
        text = optional_text(
            max_length=TEXT_MAX_LENGTH,
            help_text=f"What is wrong, in your words: plain text (never rendered as HTML), at most {TEXT_MAX_LENGTH} "
            "characters.",
        )

        class Meta:
            ref_name = "ReportInput"

    CreateOutputSerializer = ReportOutputSerializer

    @extend_schema(
        tags=TAG,
        operation_id="reports_list",
        summary="Your problem reports, newest first, and whether each was resolved",
        responses={200: ListOutputSerializer, **errors(401)},
    )
    def get(self, request: LearnerApiRequest) -> Response:
        reports = [report_data(report) for report in reports_of(user=request.user)]
        return Response(self.ListOutputSerializer({"reports": reports}).data)

    @extend_schema(
        tags=TAG,
        operation_id="reports_create",
        summary="Report a problem with a question you answered (after its lock) or a card you reviewed",
        description=(
            "Name exactly one of `attempt_item_id`, `pack_item_id` (a pack item's `id`) and `card_id`; otherwise 400 "
            "`one_origin`. Another learner's item, pack item or card is not found (404). An item whose answer "
            "was not shown yet (before its lock; a skipped item until you asked for the skipped answers) is "
            "refused: 400 `not_revealed`. An unknown `category` or a `text` over "
            f"{TEXT_MAX_LENGTH} characters: 400 naming the field. Authors read reports in the admin; "
            "`GET /api/v1/reports/` shows when yours was resolved. Throttled per learner (the `reports` quota)."
        ),
        parameters=RATELIMIT_HEADERS,
        request=CreateInputSerializer,
        responses={201: CreateOutputSerializer, 429: QUOTA_EXCEEDED, **errors(400, 401, 404)},
    )
    @learner_limited("reports")
    def post(self, request: LearnerApiRequest) -> Response:
        data = validated_body(self.CreateInputSerializer, request)
        report = problem_report_create(
            user=request.user, target=_target(request, data), category=data["category"], text=data["text"]
        )
        return Response(self.CreateOutputSerializer(report_data(report)).data, status=status.HTTP_201_CREATED)
