"""Reviews: the due queue, cards, self-ratings, undo, suspend, forecast, heatmap, the reference of a prompt."""

from __future__ import annotations

from typing import Any

from django.http import Http404
from django.utils import timezone
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from quizzes.api import representations as r
from quizzes.api.errors import ApiError
from quizzes.api.idempotency import IDEMPOTENCY_KEY_PARAMETER, idempotent
from quizzes.api.schema import errors
from quizzes.api.serializers import reviews as s
from quizzes.api.types import LearnerApiRequest
from quizzes.api.views.common import PageQuerySerializer, page_of, query
from quizzes.content.selectors import question_by_id, rateable_question
from quizzes.core.errors import DomainError, ErrorCode
from quizzes.reviews import learner_cache
from quizzes.reviews.models import ReviewCard, ReviewLog
from quizzes.reviews.selectors.cards import card_for, cards_for
from quizzes.reviews.selectors.forecast import due_forecast
from quizzes.reviews.selectors.history import review_heatmap
from quizzes.reviews.services import card_rate, card_suspend, card_undo_last, card_unsuspend

TAG = ["reviews"]


def _card(request: LearnerApiRequest, card_id: int) -> ReviewCard:
    card = card_for(user=request.user, card_id=card_id)
    if card is None:
        raise Http404
    return card


def _card_data(request: LearnerApiRequest, card: ReviewCard | None) -> dict[str, Any] | None:
    if card is None:
        return None
    card = _card(request, card.pk)  # fresh, with question and lesson
    return r.cards_public([card], user=request.user)[0]


def _field_error(field: str, message: str) -> ApiError:
    return ApiError(
        status_code=400,
        code=ErrorCode.VALIDATION_ERROR,
        message=_("Some fields are invalid; see fields."),
        fields={field: [message]},
    )


class DueQueueView(APIView):
    @extend_schema(
        tags=TAG,
        operation_id="reviews_due",
        summary="Today's review queue (most overdue first) and the dashboard counts",
        parameters=[PageQuerySerializer],
        responses={200: s.DueQueueSerializer, **errors(400, 401)},
    )
    def get(self, request: LearnerApiRequest) -> Response:
        params = query(PageQuerySerializer, request)
        now = timezone.now()

        # due_queue_page's dict is already DueQueueSerializer's representation (a test holds them equal):
        # running the serializer too would cost a fifth of a cache miss.
        data = learner_cache.learner_read(
            user_id=request.user.pk,
            name="due-queue",
            params=(params["page"], params["page_size"], get_language()),  # state labels are translated
            now=now,
            build=lambda: r.due_queue_page(user=request.user, now=now, **params),
        )
        return Response(data)


class CardListView(APIView):
    @extend_schema(
        tags=TAG,
        operation_id="cards_list",
        summary="All your review cards, by due date",
        parameters=[PageQuerySerializer],
        responses={200: s.CardPageSerializer, **errors(400, 401)},
    )
    def get(self, request: LearnerApiRequest) -> Response:
        params = query(PageQuerySerializer, request)
        total, rows = page_of(cards_for(user=request.user), **params)
        data = {**params, "count": total, "results": r.cards_public(rows, user=request.user)}
        return Response(s.CardPageSerializer(data).data)


class CardDetailView(APIView):
    @extend_schema(
        tags=TAG,
        operation_id="cards_read",
        summary="One review card",
        responses={200: s.ReviewCardSerializer, **errors(401, 404)},
    )
    def get(self, request: LearnerApiRequest, card_id: int) -> Response:
        return Response(s.ReviewCardSerializer(_card_data(request, _card(request, card_id))).data)


class CardRateView(APIView):
    @extend_schema(
        tags=TAG,
        operation_id="reviews_rate",
        summary="Rate yourself on an interview prompt or a recall card (Again/Hard/Good/Easy)",
        description="Quiz questions are graded by answering an attempt item instead. "
        "A `client_uuid` already stored makes this a no-op returning the card.",
        parameters=[IDEMPOTENCY_KEY_PARAMETER],
        request=s.RateSerializer,
        responses={200: s.ReviewCardSerializer, **errors(400, 401, 422)},
    )
    @idempotent
    def post(self, request: LearnerApiRequest) -> Response:
        serializer = s.RateSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        question = question_by_id(question_id=data["question_id"])  # published or not: card_rate decides
        if question is None:
            raise _field_error("question_id", _("There is no published question with this id."))
        try:
            card = card_rate(
                user=request.user,
                question=question,
                rating=data["rating"],
                reviewed_at=data.get("reviewed_at"),
                duration_ms=data.get("duration_ms"),
                source=ReviewLog.Source.API,
                client_uuid=data.get("client_uuid"),
            )
        except DomainError as exc:
            if exc.field == "question":  # the request names it question_id
                raise _field_error("question_id", " ".join(exc.messages)) from exc
            raise
        return Response(s.ReviewCardSerializer(_card_data(request, card)).data)


class ReviewUndoView(APIView):
    @extend_schema(
        tags=TAG,
        operation_id="reviews_undo",
        summary="Undo the newest rating (of one card, or of any card)",
        parameters=[IDEMPOTENCY_KEY_PARAMETER],
        request=s.UndoSerializer,
        responses={200: s.UndoResultSerializer, **errors(400, 401, 404, 422)},
    )
    @idempotent
    def post(self, request: LearnerApiRequest) -> Response:
        serializer = s.UndoSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        card = None
        if "card_id" in serializer.validated_data:
            card = _card(request, serializer.validated_data["card_id"])
        undone = card_undo_last(user=request.user, card=card)
        data = {"question_id": undone.question_id, "card": _card_data(request, undone.card)}
        return Response(s.UndoResultSerializer(data).data)


class CardSuspendView(APIView):
    @extend_schema(
        tags=TAG,
        operation_id="cards_suspend",
        summary="Take a card out of the review queue (history and schedule kept)",
        parameters=[IDEMPOTENCY_KEY_PARAMETER],
        request=None,
        responses={200: s.ReviewCardSerializer, **errors(401, 404, 422)},
    )
    @idempotent
    def post(self, request: LearnerApiRequest, card_id: int) -> Response:
        card = card_suspend(user=request.user, card=_card(request, card_id))
        return Response(s.ReviewCardSerializer(_card_data(request, card)).data)


class CardUnsuspendView(APIView):
    @extend_schema(
        tags=TAG,
        operation_id="cards_unsuspend",
        summary="Put a suspended card back into the queue",
        parameters=[IDEMPOTENCY_KEY_PARAMETER],
        request=None,
        responses={200: s.ReviewCardSerializer, **errors(401, 404, 422)},
    )
    @idempotent
    def post(self, request: LearnerApiRequest, card_id: int) -> Response:
        card = card_unsuspend(user=request.user, card=_card(request, card_id))
        return Response(s.ReviewCardSerializer(_card_data(request, card)).data)


class ForecastQuerySerializer(serializers.Serializer):
    days = serializers.IntegerField(min_value=1, max_value=90, default=14)


class HeatmapQuerySerializer(serializers.Serializer):
    days = serializers.IntegerField(min_value=1, max_value=731, default=365)


class ForecastView(APIView):
    @extend_schema(
        tags=TAG,
        operation_id="reviews_forecast",
        summary="Due cards per study day, from today",
        parameters=[ForecastQuerySerializer],
        responses={200: s.ForecastSerializer, **errors(400, 401)},
    )
    def get(self, request: LearnerApiRequest) -> Response:
        days = due_forecast(user=request.user, **query(ForecastQuerySerializer, request))
        return Response(s.ForecastSerializer({"days": [{"day": d.day, "count": d.count} for d in days]}).data)


class HeatmapView(APIView):
    @extend_schema(
        tags=TAG,
        operation_id="reviews_heatmap",
        summary="Ratings per study day, ending today",
        parameters=[HeatmapQuerySerializer],
        responses={200: s.HeatmapSerializer, **errors(400, 401)},
    )
    def get(self, request: LearnerApiRequest) -> Response:
        days = review_heatmap(user=request.user, **query(HeatmapQuerySerializer, request))
        return Response(s.HeatmapSerializer({"days": [{"day": d.day, "count": d.count} for d in days]}).data)


class QuestionReferenceView(APIView):
    @extend_schema(
        tags=TAG,
        operation_id="questions_reference",
        summary="The reference answer of an interview prompt or recall card, and what each rating would schedule",
        description="Show it after the learner has answered in their own words. Quiz questions have none (404): "
        "their answers are revealed only by answering an attempt item.",
        responses={200: s.QuestionReferenceSerializer, **errors(401, 404)},
    )
    def get(self, request: LearnerApiRequest, question_id: int) -> Response:
        question = rateable_question(question_id=question_id)
        if question is None:
            raise Http404
        return Response(s.QuestionReferenceSerializer(r.question_reference(user=request.user, question=question)).data)
