"""Attempts: start (study or review), list, read, finish, show the skipped answers (they count as not known),
practise the missed. Answering an attempt's items is views.items'.

Each view names its input and output serializers in its class (HackSoft's Django-Styleguide habit); the shapes
several views return (an attempt, its items) are quizzes.api.serializers.attempts'."""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpResponse
from django.utils.translation import gettext as _
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from quizzes.api import representations as r
from quizzes.api.errors import ApiError
from quizzes.api.fields import StrictIntegerField
from quizzes.api.idempotency import IDEMPOTENCY_KEY_PARAMETER, idempotent
from quizzes.api.schema import errors
from quizzes.api.serializers.attempts import AttemptSerializer, AttemptSummarySerializer
from quizzes.api.serializers.common import page_fields
from quizzes.api.types import LearnerApiRequest
from quizzes.api.views.common import PageQuerySerializer, found, page_of, query, validated_body
from quizzes.content.selectors import lesson_published_by_id
from quizzes.core.errors import ErrorCode
from quizzes.practice.models import Attempt
from quizzes.practice.selectors import attempt_for, attempts_for
from quizzes.practice.services import attempt_finish, attempt_show_skipped, attempt_start, attempt_start_missed
from quizzes.reviews.models import ReviewLog

TAG = ["attempts"]


def _attempt(request: LearnerApiRequest, attempt_id: int) -> Attempt:
    return found(attempt_for(user=request.user, attempt_id=attempt_id))


def _attempt_response(
    output: type[AttemptSerializer], request: LearnerApiRequest, attempt_id: int, *, status_code: int = 200
) -> Response:
    """An attempt as it is now, with its items: what reading it and every write on it answer."""
    data = output(r.attempt_public(_attempt(request, attempt_id))).data
    return Response(data, status=status_code)


def _attempt_write(
    *,
    operation_id: str,
    summary: str,
    description: str,
    output: type[AttemptSerializer],
    request: type[serializers.Serializer] | None = None,
    status_code: int = 200,
    codes: tuple[int, ...] = (400, 401, 404, 422),
) -> Callable[[Callable[..., Response]], Callable[..., HttpResponse]]:
    """Every POST here (start, finish, show the skipped, practise the missed) takes an Idempotency-Key and answers
    with the attempt it wrote (``output``): one schema and the ``@idempotent`` replay for all of them."""
    schema = extend_schema(
        tags=TAG,
        operation_id=operation_id,
        summary=summary,
        description=description,
        parameters=[IDEMPOTENCY_KEY_PARAMETER],
        request=request,
        responses={status_code: output, **errors(*codes)},
    )
    return lambda handler: schema(idempotent(handler))


#: The modes a client may start: missed-items attempts start from an earlier attempt (POST /attempts/{id}/missed/).
START_MODES = [(mode.value, mode.label) for mode in (Attempt.Mode.STUDY, Attempt.Mode.REVIEW)]


class AttemptListView(APIView):
    ListInputSerializer = PageQuerySerializer

    class ListOutputSerializer(serializers.Serializer):
        count, page, page_size = page_fields()
        results = AttemptSummarySerializer(many=True)

        class Meta:
            ref_name = "AttemptPage"

    class StartInputSerializer(serializers.Serializer):
        lesson_id = StrictIntegerField(min_value=1)
        mode = serializers.ChoiceField(choices=START_MODES, default=Attempt.Mode.STUDY)

        class Meta:
            ref_name = "AttemptStart"

    StartOutputSerializer = AttemptSerializer

    @extend_schema(
        tags=TAG,
        operation_id="attempts_list",
        summary="Your attempts, newest first",
        parameters=[ListInputSerializer],
        responses={200: ListOutputSerializer, **errors(400, 401)},
    )
    def get(self, request: LearnerApiRequest) -> Response:
        params = query(self.ListInputSerializer, request)
        total, rows = page_of(attempts_for(user=request.user), **params)
        data = {**params, "count": total, "results": [r.attempt_public(a, with_items=False) for a in rows]}
        return Response(self.ListOutputSerializer(data).data)

    @_attempt_write(
        operation_id="attempts_start",
        summary="Start an attempt at a lesson's quiz",
        description=(
            "study: every quiz question of the lesson; review: only your quiz questions of the lesson due today, "
            "shuffled. Options come in a new order for this attempt, numeric questions with new numbers. "
            "Nothing about correctness is included until an item is answered."
        ),
        output=StartOutputSerializer,
        request=StartInputSerializer,
        status_code=status.HTTP_201_CREATED,
        codes=(400, 401, 422),
    )
    def post(self, request: LearnerApiRequest) -> Response:
        data = validated_body(self.StartInputSerializer, request)
        lesson = lesson_published_by_id(lesson_id=data["lesson_id"])
        if lesson is None:
            raise ApiError(
                status_code=400,
                code=ErrorCode.VALIDATION_ERROR,
                message=_("Some fields are invalid; see fields."),
                fields={"lesson_id": [_("There is no published lesson with this id.")]},
            )
        attempt = attempt_start(user=request.user, lesson=lesson, mode=data["mode"])
        return _attempt_response(self.StartOutputSerializer, request, attempt.pk, status_code=status.HTTP_201_CREATED)


class AttemptDetailView(APIView):
    OutputSerializer = AttemptSerializer

    @extend_schema(
        tags=TAG,
        operation_id="attempts_read",
        summary="An attempt with its items (answered items show their result)",
        responses={200: OutputSerializer, **errors(401, 404)},
    )
    def get(self, request: LearnerApiRequest, attempt_id: int) -> Response:
        return _attempt_response(self.OutputSerializer, request, attempt_id)


class AttemptFinishView(APIView):
    OutputSerializer = AttemptSerializer

    @_attempt_write(
        operation_id="attempts_finish",
        summary="Finish an attempt (idempotent); unanswered items stay unanswered and score 0",
        description=(
            "Unanswered items keep their answers hidden (`skipped_count`); POST /attempts/{id}/show-skipped/ shows "
            "them and counts them as not known."
        ),
        output=OutputSerializer,
        codes=(401, 404, 422),
    )
    def post(self, request: LearnerApiRequest, attempt_id: int) -> Response:
        attempt = _attempt(request, attempt_id)
        attempt_finish(user=request.user, attempt=attempt)
        return _attempt_response(self.OutputSerializer, request, attempt_id)


class AttemptShowSkippedView(APIView):
    OutputSerializer = AttemptSerializer

    @_attempt_write(
        operation_id="attempts_show_skipped",
        summary="Show the answers of the items a finished attempt skipped: they count as not known",
        description=(
            "A finished attempt's unanswered items (`skipped_count`) keep their answers hidden: seeing an answer "
            'without recalling it first is a failed retrieval. Ask the learner first ("show the answers to the '
            '24 items you skipped — they will count as not known"), then call this: each skipped item is '
            "recorded as Again on its card now, and only a question's first answer of the study day moves its "
            "review date, so answering it again today (a retake, practising the missed ones) does not count. "
            "The attempt comes back with `skipped_shown_at` set and each skipped item's `skipped_key`. "
            "Idempotent: calling it again records nothing and returns the same. Refused with 400 "
            "`attempt_unfinished` before the attempt is finished and `nothing_skipped` when every item was answered."
        ),
        output=OutputSerializer,
    )
    def post(self, request: LearnerApiRequest, attempt_id: int) -> Response:
        attempt_show_skipped(user=request.user, attempt=_attempt(request, attempt_id), source=ReviewLog.Source.API)
        return _attempt_response(self.OutputSerializer, request, attempt_id)


class AttemptMissedView(APIView):
    OutputSerializer = AttemptSerializer

    @_attempt_write(
        operation_id="attempts_practise_missed",
        summary="Practise the missed ones now: a new attempt of just the items this finished attempt missed",
        description=(
            "Missed = answered wrong or not answered. The new attempt (mode `missed`) reshuffles the options and "
            "draws new numbers for numeric questions. Its answers are logged like any other, but only a question's "
            "first answer of the study day moves its review date, so practising right away does not push reviews "
            "back. Refused with 400 `attempt_unfinished` before the attempt is finished and `nothing_missed` when "
            "every item was right."
        ),
        output=OutputSerializer,
        status_code=status.HTTP_201_CREATED,
    )
    def post(self, request: LearnerApiRequest, attempt_id: int) -> Response:
        practice = attempt_start_missed(user=request.user, attempt=_attempt(request, attempt_id))
        return _attempt_response(self.OutputSerializer, request, practice.pk, status_code=status.HTTP_201_CREATED)
