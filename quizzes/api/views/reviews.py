"""Reviews: the due queue, cards, self-ratings, undo, suspend, forecast, heatmap, the reference of a prompt.

Each view names its input and output serializers in its class (HackSoft's Django-Styleguide habit); a card's
shape is quizzes.api.serializers.reviews' (every view that shows a card shows it the same way)."""

from __future__ import annotations

from typing import Any

from django.utils import timezone
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from quizzes.api import representations as r
from quizzes.api.errors import ApiError
from quizzes.api.fields import StrictDateTimeField, StrictIntegerField, StrictUUIDField
from quizzes.api.idempotency import IDEMPOTENCY_KEY_PARAMETER, idempotent
from quizzes.api.schema import errors
from quizzes.api.serializers.common import MAX_DURATION_MS, page_fields
from quizzes.api.serializers.reviews import ReviewCardSerializer, reference_fields
from quizzes.api.types import LearnerApiRequest
from quizzes.api.views.common import PageQuerySerializer, found, page_of, query, validated_body
from quizzes.content.models import Question
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
    return found(card_for(user=request.user, card_id=card_id))


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


class DashboardCountsSerializer(serializers.Serializer):
    due = serializers.IntegerField(help_text="Cards due today (capped by reviews per day).")
    new = serializers.IntegerField(help_text="New questions available today (capped by new per day).")
    reviewed_today = serializers.IntegerField()
    streak = serializers.IntegerField(help_text="Consecutive study days with a rating.")
    next_due_after_today = serializers.DateTimeField(allow_null=True)
    study_day = serializers.DateField()


class DayCountSerializer(serializers.Serializer):
    day = serializers.DateField()
    count = serializers.IntegerField()


class RatingPreviewSerializer(serializers.Serializer):
    rating = serializers.IntegerField()
    label = serializers.CharField()  # type: ignore[assignment]  # a field, not Field.label
    due = serializers.DateTimeField()
    interval_seconds = serializers.IntegerField()
    counts = serializers.BooleanField(help_text="false: a same-day repeat, logged without moving the schedule.")


class DueQueueView(APIView):
    InputSerializer = PageQuerySerializer

    class OutputSerializer(serializers.Serializer):
        counts = DashboardCountsSerializer()
        count = serializers.IntegerField(help_text="Cards in the queue (all pages).")
        page = serializers.IntegerField()
        page_size = serializers.IntegerField()
        results = ReviewCardSerializer(many=True, help_text="Most overdue first.")

        class Meta:
            ref_name = "DueQueue"

    @extend_schema(
        tags=TAG,
        operation_id="reviews_due",
        summary="Today's review queue (most overdue first) and the dashboard counts",
        parameters=[InputSerializer],
        responses={200: OutputSerializer, **errors(400, 401)},
    )
    def get(self, request: LearnerApiRequest) -> Response:
        params = query(self.InputSerializer, request)
        now = timezone.now()

        # due_queue_page's dict is already OutputSerializer's representation (a test holds them equal):
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
    InputSerializer = PageQuerySerializer

    class OutputSerializer(serializers.Serializer):
        count, page, page_size = page_fields()
        results = ReviewCardSerializer(many=True)

        class Meta:
            ref_name = "CardPage"

    @extend_schema(
        tags=TAG,
        operation_id="cards_list",
        summary="All your review cards, by due date",
        parameters=[InputSerializer],
        responses={200: OutputSerializer, **errors(400, 401)},
    )
    def get(self, request: LearnerApiRequest) -> Response:
        params = query(self.InputSerializer, request)
        total, rows = page_of(cards_for(user=request.user), **params)
        data = {**params, "count": total, "results": r.cards_public(rows, user=request.user)}
        return Response(self.OutputSerializer(data).data)


class CardDetailView(APIView):
    OutputSerializer = ReviewCardSerializer

    @extend_schema(
        tags=TAG,
        operation_id="cards_read",
        summary="One review card",
        responses={200: OutputSerializer, **errors(401, 404)},
    )
    def get(self, request: LearnerApiRequest, card_id: int) -> Response:
        return Response(self.OutputSerializer(_card_data(request, _card(request, card_id))).data)


class CardRateView(APIView):
    class InputSerializer(serializers.Serializer):
        question_id = StrictIntegerField(min_value=1)
        rating = StrictIntegerField(min_value=1, max_value=4, help_text="1 Again, 2 Hard, 3 Good, 4 Easy.")
        reviewed_at = StrictDateTimeField(required=False, help_text="Default: now.")
        duration_ms = StrictIntegerField(min_value=0, max_value=MAX_DURATION_MS, required=False)
        client_uuid = StrictUUIDField(required=False, help_text="Makes a retried rating harmless.")

        class Meta:
            ref_name = "Rate"

    OutputSerializer = ReviewCardSerializer

    @extend_schema(
        tags=TAG,
        operation_id="reviews_rate",
        summary="Rate yourself on an interview prompt or a recall card (Again/Hard/Good/Easy)",
        description="Quiz questions are graded by answering an attempt item instead. "
        "A `client_uuid` already stored makes this a no-op returning the card.",
        parameters=[IDEMPOTENCY_KEY_PARAMETER],
        request=InputSerializer,
        responses={200: OutputSerializer, **errors(400, 401, 422)},
    )
    @idempotent
    def post(self, request: LearnerApiRequest) -> Response:
        data = validated_body(self.InputSerializer, request)
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
        return Response(self.OutputSerializer(_card_data(request, card)).data)


class ReviewUndoView(APIView):
    class InputSerializer(serializers.Serializer):
        card_id = StrictIntegerField(min_value=1, required=False, help_text="Default: the newest rating of any card.")

        class Meta:
            ref_name = "Undo"

    class OutputSerializer(serializers.Serializer):
        question_id = serializers.IntegerField()
        card = ReviewCardSerializer(allow_null=True, help_text="null: that was the card's only rating (new again).")

        class Meta:
            ref_name = "UndoResult"

    @extend_schema(
        tags=TAG,
        operation_id="reviews_undo",
        summary="Undo the newest rating (of one card, or of any card)",
        parameters=[IDEMPOTENCY_KEY_PARAMETER],
        request=InputSerializer,
        responses={200: OutputSerializer, **errors(400, 401, 404, 422)},
    )
    @idempotent
    def post(self, request: LearnerApiRequest) -> Response:
        body = validated_body(self.InputSerializer, request)
        card = None
        if "card_id" in body:
            card = _card(request, body["card_id"])
        undone = card_undo_last(user=request.user, card=card)
        data = {"question_id": undone.question_id, "card": _card_data(request, undone.card)}
        return Response(self.OutputSerializer(data).data)


class CardSuspendView(APIView):
    OutputSerializer = ReviewCardSerializer

    @extend_schema(
        tags=TAG,
        operation_id="cards_suspend",
        summary="Take a card out of the review queue (history and schedule kept)",
        parameters=[IDEMPOTENCY_KEY_PARAMETER],
        request=None,
        responses={200: OutputSerializer, **errors(401, 404, 422)},
    )
    @idempotent
    def post(self, request: LearnerApiRequest, card_id: int) -> Response:
        card = card_suspend(user=request.user, card=_card(request, card_id))
        return Response(self.OutputSerializer(_card_data(request, card)).data)


class CardUnsuspendView(APIView):
    OutputSerializer = ReviewCardSerializer

    @extend_schema(
        tags=TAG,
        operation_id="cards_unsuspend",
        summary="Put a suspended card back into the queue",
        parameters=[IDEMPOTENCY_KEY_PARAMETER],
        request=None,
        responses={200: OutputSerializer, **errors(401, 404, 422)},
    )
    @idempotent
    def post(self, request: LearnerApiRequest, card_id: int) -> Response:
        card = card_unsuspend(user=request.user, card=_card(request, card_id))
        return Response(self.OutputSerializer(_card_data(request, card)).data)


class ForecastView(APIView):
    class InputSerializer(serializers.Serializer):
        days = serializers.IntegerField(min_value=1, max_value=90, default=14)

    class OutputSerializer(serializers.Serializer):
        days = DayCountSerializer(
            many=True, help_text="Due cards per study day from today; today includes the overdue."
        )

        class Meta:
            ref_name = "Forecast"

    @extend_schema(
        tags=TAG,
        operation_id="reviews_forecast",
        summary="Due cards per study day, from today",
        parameters=[InputSerializer],
        responses={200: OutputSerializer, **errors(400, 401)},
    )
    def get(self, request: LearnerApiRequest) -> Response:
        days = due_forecast(user=request.user, **query(self.InputSerializer, request))
        return Response(self.OutputSerializer({"days": days}).data)


class HeatmapView(APIView):
    class InputSerializer(serializers.Serializer):
        days = serializers.IntegerField(min_value=1, max_value=731, default=365)

    class OutputSerializer(serializers.Serializer):
        days = DayCountSerializer(many=True, help_text="Ratings per study day, oldest first, ending today.")

        class Meta:
            ref_name = "Heatmap"

    @extend_schema(
        tags=TAG,
        operation_id="reviews_heatmap",
        summary="Ratings per study day, ending today",
        parameters=[InputSerializer],
        responses={200: OutputSerializer, **errors(400, 401)},
    )
    def get(self, request: LearnerApiRequest) -> Response:
        days = review_heatmap(user=request.user, **query(self.InputSerializer, request))
        return Response(self.OutputSerializer({"days": days}).data)


class QuestionReferenceView(APIView):
    class OutputSerializer(serializers.Serializer):
        question_id = serializers.IntegerField()
        kind = serializers.ChoiceField(choices=Question.Kind.choices)
        (reference_answer, reference_answer_html, rubric, expected_lines, explanation, explanation_html) = (
            reference_fields()
        )
        rating_previews = RatingPreviewSerializer(many=True)

        class Meta:
            ref_name = "QuestionReference"

    @extend_schema(
        tags=TAG,
        operation_id="questions_reference",
        summary="The reference answer of an interview prompt or recall card, and what each rating would schedule",
        description="Show it after the learner has answered in their own words. Quiz questions have none (404): "
        "their answers are revealed only by answering an attempt item.",
        responses={200: OutputSerializer, **errors(401, 404)},
    )
    def get(self, request: LearnerApiRequest, question_id: int) -> Response:
        question = found(rateable_question(question_id=question_id))
        return Response(self.OutputSerializer(r.question_reference(user=request.user, question=question)).data)
