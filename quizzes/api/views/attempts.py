"""Attempts: start (study or review), list, read, answer an item (first answer locks), finish, show the skipped
answers (they count as not known), practise the missed."""

from __future__ import annotations

from typing import Any

from django.http import Http404
from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.response import Response
from rest_framework.views import APIView

from quizzes.api import representations as r
from quizzes.api.errors import ApiError
from quizzes.api.idempotency import IDEMPOTENCY_KEY_PARAMETER, idempotent
from quizzes.api.schema import errors
from quizzes.api.serializers import attempts as s
from quizzes.api.serializers.common import ErrorResponseSerializer
from quizzes.api.throttling import RATELIMIT_HEADERS, learner_limited
from quizzes.api.types import LearnerApiRequest
from quizzes.api.views.common import PageQuerySerializer, page_of, query
from quizzes.content.models import Question
from quizzes.content.selectors import lesson_published_by_id
from quizzes.core.errors import ErrorCode
from quizzes.practice.code_messages import word_message
from quizzes.practice.grading_budget import GradingBudgetExceeded
from quizzes.practice.models import Attempt, AttemptItem
from quizzes.practice.presenter import option_from_handle
from quizzes.practice.selectors import attempt_for, attempts_for, item_for, item_rating
from quizzes.practice.services import (
    CodeNotRunnable,
    attempt_finish,
    attempt_show_skipped,
    attempt_start,
    attempt_start_missed,
    item_answer,
    item_rate,
)
from quizzes.reviews.models import ReviewLog

TAG = ["attempts"]


def _attempt(request: LearnerApiRequest, attempt_id: int) -> Attempt:
    attempt = attempt_for(user=request.user, attempt_id=attempt_id)
    if attempt is None:
        raise Http404
    return attempt


#: One bound serializer shared by every request: DRF deep-copies a serializer's fields (≈ 60 here) each time
#: one is built, ≈ 0.7 ms of the answer POST (issue 16); ``to_representation`` keeps no state between calls.
_ITEM_SERIALIZER = s.AttemptItemSerializer()
#: The same for the answer's input: ``run_validation`` keeps no state either (``is_valid`` is what stores errors).
_ANSWER_SERIALIZER = s.AnswerSerializer()


def _item_data(item: AttemptItem) -> dict[str, Any]:
    """An item's documented public form (``AttemptItemSerializer``)."""
    return _ITEM_SERIALIZER.to_representation(r.item_public(item))


def _item(request: LearnerApiRequest, item_id: int) -> AttemptItem:
    item = item_for(user=request.user, item_id=item_id)
    if item is None:
        raise Http404
    return item


class AttemptListView(APIView):
    @extend_schema(
        tags=TAG,
        operation_id="attempts_list",
        summary="Your attempts, newest first",
        parameters=[PageQuerySerializer],
        responses={200: s.AttemptPageSerializer, **errors(400, 401)},
    )
    def get(self, request: LearnerApiRequest) -> Response:
        params = query(PageQuerySerializer, request)
        total, rows = page_of(attempts_for(user=request.user), **params)
        data = {**params, "count": total, "results": [r.attempt_public(a, with_items=False) for a in rows]}
        return Response(s.AttemptPageSerializer(data).data)

    @extend_schema(
        tags=TAG,
        operation_id="attempts_start",
        summary="Start an attempt at a lesson's quiz",
        description=(
            "study: every quiz question of the lesson; review: only your quiz questions of the lesson due today, "
            "shuffled. Options come in a new order for this attempt, numeric questions with new numbers. "
            "Nothing about correctness is included until an item is answered."
        ),
        parameters=[IDEMPOTENCY_KEY_PARAMETER],
        request=s.AttemptStartSerializer,
        responses={201: s.AttemptSerializer, **errors(400, 401, 422)},
    )
    @idempotent
    def post(self, request: LearnerApiRequest) -> Response:
        serializer = s.AttemptStartSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        lesson = lesson_published_by_id(lesson_id=serializer.validated_data["lesson_id"])
        if lesson is None:
            raise ApiError(
                status_code=400,
                code=ErrorCode.VALIDATION_ERROR,
                message=_("Some fields are invalid; see fields."),
                fields={"lesson_id": [_("There is no published lesson with this id.")]},
            )
        attempt = attempt_start(user=request.user, lesson=lesson, mode=serializer.validated_data["mode"])
        data = r.attempt_public(_attempt(request, attempt.pk))
        return Response(s.AttemptSerializer(data).data, status=status.HTTP_201_CREATED)


class AttemptDetailView(APIView):
    @extend_schema(
        tags=TAG,
        operation_id="attempts_read",
        summary="An attempt with its items (answered items show their result)",
        responses={200: s.AttemptSerializer, **errors(401, 404)},
    )
    def get(self, request: LearnerApiRequest, attempt_id: int) -> Response:
        return Response(s.AttemptSerializer(r.attempt_public(_attempt(request, attempt_id))).data)


class AttemptFinishView(APIView):
    @extend_schema(
        tags=TAG,
        operation_id="attempts_finish",
        summary="Finish an attempt (idempotent); unanswered items stay unanswered and score 0",
        description=(
            "Unanswered items keep their answers hidden (`skipped_count`); POST /attempts/{id}/show-skipped/ shows "
            "them and counts them as not known."
        ),
        parameters=[IDEMPOTENCY_KEY_PARAMETER],
        request=None,
        responses={200: s.AttemptSerializer, **errors(401, 404, 422)},
    )
    @idempotent
    def post(self, request: LearnerApiRequest, attempt_id: int) -> Response:
        attempt = _attempt(request, attempt_id)
        attempt_finish(user=request.user, attempt=attempt)
        return Response(s.AttemptSerializer(r.attempt_public(_attempt(request, attempt_id))).data)


class AttemptShowSkippedView(APIView):
    @extend_schema(
        tags=TAG,
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
        parameters=[IDEMPOTENCY_KEY_PARAMETER],
        request=None,
        responses={200: s.AttemptSerializer, **errors(400, 401, 404, 422)},
    )
    @idempotent
    def post(self, request: LearnerApiRequest, attempt_id: int) -> Response:
        attempt_show_skipped(user=request.user, attempt=_attempt(request, attempt_id), source=ReviewLog.Source.API)
        return Response(s.AttemptSerializer(r.attempt_public(_attempt(request, attempt_id))).data)


class AttemptMissedView(APIView):
    @extend_schema(
        tags=TAG,
        operation_id="attempts_practise_missed",
        summary="Practise the missed ones now: a new attempt of just the items this finished attempt missed",
        description=(
            "Missed = answered wrong or not answered. The new attempt (mode `missed`) reshuffles the options and "
            "draws new numbers for numeric questions. Its answers are logged like any other, but only a question's "
            "first answer of the study day moves its review date, so practising right away does not push reviews "
            "back. Refused with 400 `attempt_unfinished` before the attempt is finished and `nothing_missed` when "
            "every item was right."
        ),
        parameters=[IDEMPOTENCY_KEY_PARAMETER],
        request=None,
        responses={201: s.AttemptSerializer, **errors(400, 401, 404, 422)},
    )
    @idempotent
    def post(self, request: LearnerApiRequest, attempt_id: int) -> Response:
        practice = attempt_start_missed(user=request.user, attempt=_attempt(request, attempt_id))
        data = r.attempt_public(_attempt(request, practice.pk))
        return Response(s.AttemptSerializer(data).data, status=status.HTTP_201_CREATED)


class ItemDetailView(APIView):
    @extend_schema(
        tags=TAG,
        operation_id="items_read",
        summary="One attempt item",
        responses={200: s.AttemptItemSerializer, **errors(401, 404)},
    )
    def get(self, request: LearnerApiRequest, item_id: int) -> Response:
        return Response(_item_data(_item(request, item_id)))


def _answer_arguments(item: AttemptItem, data: dict[str, Any]) -> dict[str, Any]:
    """The service's keyword arguments for this item's kind; a missing or foreign answer is a 400 naming the field."""
    question = item.question
    if question.kind == Question.Kind.CODE:
        if not isinstance(data.get("code"), str):
            raise ApiError(
                status_code=400,
                code=ErrorCode.VALIDATION_ERROR,
                message=_("Some fields are invalid; see fields."),
                fields={"code": [_("Send your code as text in code.")]},
            )
        return {"code": data["code"]}
    if question.kind == Question.Kind.CHOICE:
        handle = data.get("option_id")
        if handle is None:
            raise ApiError(
                status_code=400,
                code=ErrorCode.VALIDATION_ERROR,
                message=_("Some fields are invalid; see fields."),
                fields={"option_id": [_("Choose an option: send one of this item's option ids.")]},
            )
        option_id = option_from_handle(item=item, handle=handle)
        if option_id is None:
            raise ApiError(
                status_code=400,
                code=ErrorCode.VALIDATION_ERROR,
                message=_("Some fields are invalid; see fields."),
                fields={"option_id": [_("That is not one of this item's option ids.")]},
            )
        return {"option_id": option_id}
    if question.answer_form == Question.AnswerForm.CHOICE:
        return {"choice_index": data.get("choice_index")}
    return {"value": data.get("value")}


class ItemAnswerView(APIView):
    @extend_schema(
        tags=TAG,
        operation_id="items_answer",
        summary="Answer an item: the first answer locks it",
        description=(
            "Choice questions: `option_id`; numeric questions: `value` (answer_form=input) or `choice_index` "
            "(answer_form=choice); number questions: `value`; code questions: `code` (run in a sandbox on seeded "
            "inputs). The first answer is "
            "graded and locks the item; the response reveals the result. The same answer again returns the same "
            "result (`replayed: true`); a different answer after the lock is refused with 409 and the locked item. "
            "Code the checker refuses before running (a syntax error, a disallowed construct, a missing name) is a "
            "400 with code `code_not_runnable`, the messages with line and column in `check`, and locks nothing: "
            "fix it and send it again. A runnable code answer locks and records the suggested rating "
            "(`result.suggested_rating`); change it with POST /items/{id}/rate/. Code grading is limited per "
            "learner (by default 10 s of sandbox time per minute, far above what answering uses): past it, 429 "
            "with code `grading_budget_exceeded` and `Retry-After`; nothing is graded or locked."
        ),
        parameters=[IDEMPOTENCY_KEY_PARAMETER, *RATELIMIT_HEADERS],
        request=s.AnswerSerializer,
        responses={
            200: s.AnswerResultSerializer,
            400: OpenApiResponse(
                s.CodeNotRunnableSerializer,
                description=(
                    "Invalid input (the error shape); for code that cannot run, code `code_not_runnable` "
                    "and the checker's messages in `check`."
                ),
            ),
            409: OpenApiResponse(
                s.AnswerConflictSerializer, description="Already answered differently: the locked item."
            ),
            429: OpenApiResponse(
                ErrorResponseSerializer,
                description="Code: grading_budget_exceeded (this learner's grading for the minute is spent; "
                "nothing was locked), or throttled (this learner's answers quota, RateLimit-Policy / RateLimit). "
                "Retry after the Retry-After header's seconds.",
            ),
            **errors(401, 404, 422),
        },
    )
    @learner_limited("answers")
    @idempotent
    def post(self, request: LearnerApiRequest, item_id: int) -> Response:
        item = _item(request, item_id)
        answer = _ANSWER_SERIALIZER.run_validation(request.data)  # invalid: a ValidationError, as is_valid raises
        try:
            outcome = item_answer(
                user=request.user,
                item=item,
                duration_ms=answer.get("duration_ms"),
                source=ReviewLog.Source.API,
                **_answer_arguments(item, answer),
            )
        except CodeNotRunnable as exc:
            raise ApiError(
                status_code=400,
                code=ErrorCode.CODE_NOT_RUNNABLE,
                message=exc.messages[0],
                fields={"code": [word_message(m) for m in exc.check.get("messages", [])]},
                extra={"check": exc.check},
            ) from exc
        except GradingBudgetExceeded as exc:
            raise ApiError(
                status_code=status.HTTP_429_TOO_MANY_REQUESTS,
                code=ErrorCode.GRADING_BUDGET_EXCEEDED,
                message=exc.messages[0],
                headers={"Retry-After": str(exc.retry_after)},
            ) from exc
        item_data = _item_data(outcome.item)
        if outcome.conflicting:
            raise ApiError(
                status_code=status.HTTP_409_CONFLICT,
                code=ErrorCode.ANSWER_LOCKED,
                message=_("This item is already answered with a different answer; the first answer counts."),
                extra={"item": item_data},
            )
        # item_data is already serialized: wrapping it in AnswerResultSerializer (the schema) would do it twice.
        return Response({"replayed": outcome.replayed, "item": item_data})


class ItemRateView(APIView):
    @extend_schema(
        tags=TAG,
        operation_id="items_rate",
        summary="Accept or change the rating a code answer suggested",
        description=(
            "A locked code item recorded the checker's suggested rating (`result.suggested_rating`) for the "
            "scheduler; send the rating you choose (the same one to accept it). It replaces the recorded one and "
            "the card is rescheduled. Only answered code items take a rating (otherwise a 400 naming the rating field)."
        ),
        parameters=[IDEMPOTENCY_KEY_PARAMETER],
        request=s.ItemRateSerializer,
        responses={200: s.ItemRateResultSerializer, **errors(400, 401, 403, 404, 422)},
    )
    @idempotent
    def post(self, request: LearnerApiRequest, item_id: int) -> Response:
        item = _item(request, item_id)
        serializer = s.ItemRateSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        item_rate(user=request.user, item=item, rating=serializer.validated_data["rating"])
        item = _item(request, item_id)
        data = {"rating": item_rating(item=item), "item": _item_data(item)}
        return Response(data)
