"""Offline review upload: a batch recorded without a connection, merged idempotently."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework.response import Response
from rest_framework.views import APIView

from quizzes.api import representations as r
from quizzes.api import serializers as s
from quizzes.api.idempotency import IDEMPOTENCY_KEY_PARAMETER, idempotent
from quizzes.api.schema import errors
from quizzes.api.types import LearnerApiRequest
from quizzes.reviews.offline import offline_entry_from_dict, offline_reviews_merge


class OfflineUploadView(APIView):
    @extend_schema(
        tags=["reviews"],
        operation_id="reviews_offline_upload",
        summary="Upload reviews recorded offline",
        description=(
            "Each entry: a client UUID, the question (id or key), what happened (`correct` for quiz questions, "
            "`rating` 1–4 for prompts and recall cards), `reviewed_at` with a time zone, and optionally the duration. "
            "UUIDs already stored are skipped; each touched card ends as if its whole history were replayed in "
            "reviewed-at order, so uploading twice, in pieces or in any order gives the same schedule. Entries in "
            "the future (beyond 5 minutes of clock skew), before the question or your account existed, or for an "
            "unknown question are rejected with a reason; the rest are applied. At most 500 entries per batch."
        ),
        parameters=[IDEMPOTENCY_KEY_PARAMETER],
        request=s.OfflineUploadSerializer,
        responses={200: s.OfflineUploadResultSerializer, **errors(400, 401, 413, 422)},
    )
    @idempotent
    def post(self, request: LearnerApiRequest) -> Response:
        serializer = s.OfflineUploadSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        entries = [offline_entry_from_dict(data=entry) for entry in serializer.validated_data["entries"]]
        result = offline_reviews_merge(user=request.user, entries=entries)
        data = {
            "entries": [
                {
                    "client_uuid": o.client_uuid,
                    "status": o.status,
                    "reason": o.reason,
                    "message": o.message,
                    "question_id": o.question_id,
                    "card_id": o.card_id,
                }
                for o in result.entries
            ],
            "cards": r.cards_public(result.cards, user=request.user),
        }
        return Response(s.OfflineUploadResultSerializer(data).data)
