"""An attempt's items: read one, answer it (the first answer locks), accept or change a code answer's rating.

Each view names its input and output serializers in its class (HackSoft's Django-Styleguide habit); an item's
shape is quizzes.api.serializers.attempts' (attempts show their items the same way)."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from quizzes.api import representations as r
from quizzes.api.errors import ApiError
from quizzes.api.fields import StrictIntegerField
from quizzes.api.idempotency import IDEMPOTENCY_KEY_PARAMETER, idempotent
from quizzes.api.locking import answer_locked, locked_response
from quizzes.api.schema import errors
from quizzes.api.serializers.attempts import AttemptItemSerializer
from quizzes.api.serializers.common import MAX_DURATION_MS, ErrorResponseSerializer
from quizzes.api.serializers.items import CodeCheckSerializer, answer_fields
from quizzes.api.throttling import RATELIMIT_HEADERS, learner_limited
from quizzes.api.types import LearnerApiRequest
from quizzes.api.views.common import found, shared, validated_body
from quizzes.content.models import Question
from quizzes.core.errors import ErrorCode
from quizzes.practice.code_messages import word_message
from quizzes.practice.grading_budget import GradingBudgetExceeded
from quizzes.practice.models import AttemptItem
from quizzes.practice.presenter import option_from_handle
from quizzes.practice.selectors import item_for, item_rating
from quizzes.practice.services import CodeNotRunnable, item_answer, item_rate
from quizzes.reviews.models import ReviewLog

TAG = ["attempts"]


def _item(request: LearnerApiRequest, item_id: int) -> AttemptItem:
    return found(item_for(user=request.user, item_id=item_id))


class ItemDetailView(APIView):
    OutputSerializer = AttemptItemSerializer

    @extend_schema(
        tags=TAG,
        operation_id="items_read",
        summary="One attempt item",
        responses={200: OutputSerializer, **errors(401, 404)},
    )
    def get(self, request: LearnerApiRequest, item_id: int) -> Response:
        return Response(shared(self.OutputSerializer).to_representation(r.item_public(_item(request, item_id))))


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
    class InputSerializer(serializers.Serializer):
        option_id, choice_index, value, code = answer_fields(
            option="Choice questions: an option id of this item.",
            choice_index="Numeric, answer_form=choice.",
            value=(
                'Numeric, answer_form=input: a number, list, nested list or text like "0.54, 0.46". '
                'Number questions (kind=number): one number, or text like "512" or "512 MiB" (its unit after it). '
                "One number (a string, a list's string, one value of a text): a point for decimals (0.25, -1.5, 1e-3), "
                'full-width digits and the minus sign "−" read as plain ones; when the answer is a single number, '
                'a space may group thousands ("1 000"). A comma between digits ("1,5", "1,000") or a "%" is '
                "ambiguous: refused (400, the reason in fields.value) and nothing locks. A text of several numbers "
                'separates them by commas ("，", "、") or spaces and rows by ";", newlines or "], [" — so there '
                '"1 000" and "1,5" are two values.'
            ),
            code="Code questions: your lines (for a scaffold: one line per TODO, in order).",
        )
        duration_ms = StrictIntegerField(min_value=0, max_value=MAX_DURATION_MS, required=False)

        class Meta:
            ref_name = "Answer"

    class OutputSerializer(serializers.Serializer):
        replayed = serializers.BooleanField(
            help_text="true: the item was already answered with this answer; nothing stored."
        )
        item = AttemptItemSerializer()

        class Meta:
            ref_name = "AnswerResult"

    class CodeNotRunnableSerializer(ErrorResponseSerializer):
        check = CodeCheckSerializer(
            required=False,
            help_text=(
                "code_not_runnable only: the refusal, every message with its line and column. Nothing was locked."
            ),
        )

        class Meta:
            ref_name = "CodeNotRunnable"

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
        request=InputSerializer,
        responses={
            200: OutputSerializer,
            400: OpenApiResponse(
                CodeNotRunnableSerializer,
                description=(
                    "Invalid input (the error shape); for code that cannot run, code `code_not_runnable` "
                    "and the checker's messages in `check`."
                ),
            ),
            409: locked_response(
                "AnswerConflict",
                item=AttemptItemSerializer(help_text="The item with its locked response and result."),
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
        answer = shared(self.InputSerializer).run_validation(
            request.data
        )  # invalid: the ValidationError is_valid raises
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
        data = shared(self.OutputSerializer).to_representation(
            {"replayed": outcome.replayed, "item": r.item_public(outcome.item)}
        )
        if outcome.conflicting:
            raise answer_locked(
                _("This item is already answered with a different answer; the first answer counts."), item=data["item"]
            )
        return Response(data)


class ItemRateView(APIView):
    class InputSerializer(serializers.Serializer):
        rating = StrictIntegerField(min_value=1, max_value=4, help_text="1 Again, 2 Hard, 3 Good, 4 Easy.")

        class Meta:
            ref_name = "ItemRate"

    class OutputSerializer(serializers.Serializer):
        rating = serializers.IntegerField(help_text="The rating the scheduler now has for this answer.")
        item = AttemptItemSerializer()

        class Meta:
            ref_name = "ItemRateResult"

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
        request=InputSerializer,
        responses={200: OutputSerializer, **errors(400, 401, 403, 404, 422)},
    )
    @idempotent
    def post(self, request: LearnerApiRequest, item_id: int) -> Response:
        item = _item(request, item_id)
        body = validated_body(self.InputSerializer, request)
        item_rate(user=request.user, item=item, rating=body["rating"])
        item = _item(request, item_id)
        data = {"rating": item_rating(item=item), "item": r.item_public(item)}
        return Response(shared(self.OutputSerializer).to_representation(data))
