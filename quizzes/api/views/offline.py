"""Offline review upload: a batch recorded without a connection, pack answers graded here, merged idempotently."""

from __future__ import annotations

from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.response import Response
from rest_framework.views import APIView

from quizzes.api import representations as r
from quizzes.api.deprecation import offline_correct_headers
from quizzes.api.idempotency import IDEMPOTENCY_KEY_PARAMETER, idempotent
from quizzes.api.schema import errors
from quizzes.api.serializers import offline as s
from quizzes.api.throttling import QUOTA_EXCEEDED, RATELIMIT_HEADERS, learner_limited
from quizzes.api.types import LearnerApiRequest
from quizzes.packs.upload import PackAnswer, UploadEntry, offline_upload
from quizzes.reviews.offline import offline_entry_from_dict

DEPRECATION_HEADERS = [
    OpenApiParameter(
        name,
        OpenApiTypes.STR,
        OpenApiParameter.HEADER,
        response=[200],
        description=f"Only when an entry used the deprecated `correct` form: {text}",
    )
    for name, text in (
        ("Deprecation", "`@<seconds since the epoch>` when the form was deprecated (RFC 9745)."),
        ("Sunset", "the HTTP-date from which it is no longer accepted (RFC 8594)."),
        ("Link", 'the docs of this operation, `rel="deprecation"` and `rel="sunset"`.'),
    )
]


def _upload_entry(data: dict[str, Any]) -> UploadEntry:
    answer = None
    if "pack_item_id" in data:
        answer = PackAnswer(
            pack_item_id=data["pack_item_id"],
            option_id=data.get("option_id"),
            choice_index=data.get("choice_index"),
            value=data.get("value"),
            code=data.get("code"),
            shown_correct=data.get("shown_correct"),
        )
    return UploadEntry(entry=offline_entry_from_dict(data=data), answer=answer)


class OfflineUploadView(APIView):
    @extend_schema(
        tags=["reviews"],
        operation_id="reviews_offline_upload",
        summary="Upload reviews recorded offline",
        description=(
            "Each entry: a client UUID, `reviewed_at` with a time zone, optionally the duration, and what happened. "
            "**Answers from a review pack** (`POST /api/v1/packs/`) name the `pack_item_id` and carry what the learner"
            " did — `option_id`, `choice_index` or `value` for quiz items, `rating` 1–4 for prompts and recall cards —"
            " never `correct`: the server grades each against its own stored copy of the pack item with the same "
            "grader as online answers (even if the question changed or was unpublished since), and returns its grade "
            "(`graded`); where it differs from `shown_correct` the server's grade stands (`overrides_client`). A pack "
            "answer is judged by when it was reviewed: before the pack was issued, at or after its revocation, after "
            "its expiry plus one day, for an item of someone else's pack, or a second answer to the same pack item "
            "(the first counts) → rejected with a reason. Entries without a pack name the question (id or key) with "
            "`rating` (prompts, recall cards) or `correct` for quiz questions — **deprecated**: the client's own "
            "grade, marked client-graded in the logs; it may update a card the learner has, never create one (rejected"
            " `not_studied`: a quiz question's first answer is graded by the server), and a card whose ratings are all"
            " client-graded is not put in a review pack (no key); a response to an upload that used it carries "
            "`Deprecation` (RFC 9745), `Sunset` (RFC 8594) and a `Link` to this page. UUIDs already stored are "
            "skipped; a touched card "
            "takes one scheduling step per new entry from its stored state, or is rebuilt from its whole history in "
            "reviewed-at order when an entry predates one already stored, so uploading twice, in pieces or in any "
            "order gives the same schedule. Entries in the future (beyond 5 minutes of clock skew), before the "
            "question or your account existed, or for an unknown question are rejected with a reason; the rest are "
            "applied. At most 500 entries per batch. Code answers are graded within a budget per upload (by default "
            "2 s of sandbox time) and per learner (10 s per minute): the code entries past it are rejected "
            "`grading_budget_exceeded`, nothing locked — upload them again later."
        ),
        parameters=[IDEMPOTENCY_KEY_PARAMETER, *DEPRECATION_HEADERS, *RATELIMIT_HEADERS],
        request=s.OfflineUploadSerializer,
        responses={200: s.OfflineUploadResultSerializer, 429: QUOTA_EXCEEDED, **errors(400, 401, 413, 422)},
    )
    @learner_limited("offline_uploads")
    @idempotent
    def post(self, request: LearnerApiRequest) -> Response:
        serializer = s.OfflineUploadSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        entries = [_upload_entry(entry) for entry in serializer.validated_data["entries"]]
        result = offline_upload(user=request.user, entries=entries)
        data = {
            "entries": [
                {
                    "client_uuid": o.outcome.client_uuid,
                    "status": o.outcome.status,
                    "reason": o.outcome.reason,
                    "message": o.outcome.message,
                    "question_id": o.outcome.question_id,
                    "card_id": o.outcome.card_id,
                    "pack_item_id": o.pack_item_id,
                    "graded": o.graded,
                    "overrides_client": o.overrides_client,
                }
                for o in result.entries
            ],
            "cards": r.cards_public(result.cards, user=request.user, profile=result.profile),
        }
        deprecated = any("correct" in entry for entry in serializer.validated_data["entries"])
        headers = offline_correct_headers(request) if deprecated else None
        return Response(s.OfflineUploadResultSerializer(data).data, headers=headers)
