"""Offline review packs: issue (Idempotency-Key replays re-render, never from storage), list, read, revoke."""

from __future__ import annotations

from typing import Any

from django.utils import timezone
from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from quizzes.api import representations as r
from quizzes.api.errors import ApiError
from quizzes.api.fields import StrictIntegerField, optional_text
from quizzes.api.idempotency import IDEMPOTENCY_KEY_PARAMETER, idempotent_by_reference
from quizzes.api.schema import errors
from quizzes.api.serializers.common import ErrorResponseSerializer
from quizzes.api.serializers.packs import PackSerializer, PackSummarySerializer
from quizzes.api.throttling import QUOTA_EXCEEDED, RATELIMIT_HEADERS, learner_limited
from quizzes.api.types import LearnerApiRequest
from quizzes.api.views.common import IF_NONE_MATCH_PARAMETER, NOT_MODIFIED, etag_response, found, validated_body
from quizzes.core.errors import ErrorCode
from quizzes.packs import rules as pack_rules
from quizzes.packs.models import ReviewPack
from quizzes.packs.rules import pack_usable
from quizzes.packs.selectors import pack_for
from quizzes.packs.services import pack_issue, pack_revoke

TAG = ["packs"]

KEY_ON_PURPOSE = (
    "**A pack carries the answer keys on purpose.** It is the one exception to the rule that nothing about "
    "correctness reaches a client before an item locks: a learner downloads the keys of their *own* due items "
    "to review without a connection and get immediate feedback. A learner who reads the key before answering "
    "only cheats themselves, and the server never trusts the phone: it grades each uploaded answer again "
    "against its own stored copy of the item (`POST /api/v1/reviews/offline/` with `pack_item_id`)."
)
GONE = OpenApiResponse(ErrorResponseSerializer, description="The pack was revoked or has expired (pack_gone).")


def _pack(request: LearnerApiRequest, pack_id: int) -> ReviewPack:
    return found(pack_for(user=request.user, pack_id=pack_id))


def _served(
    output: type[PackSerializer], request: LearnerApiRequest, pack: ReviewPack, *, status_code: int
) -> Response:
    """The whole pack with an ETag over its body (304 for a GET whose If-None-Match has it); 410 once unusable."""
    now = timezone.now()
    if not pack_usable(pack=pack, now=now):
        raise ApiError(
            status_code=status.HTTP_410_GONE,
            code=ErrorCode.PACK_GONE,
            message=_("This pack was revoked or has expired; issue a new one."),
        )
    data = output(r.pack_public(pack, now=now)).data
    return etag_response(request, data, status_code=status_code, untagged=frozenset({"server_time"}))


def _reference(response: Response) -> dict[str, Any]:
    """All an Idempotency-Key row keeps of a new pack: its id (never the keys)."""
    assert response.data is not None
    return {"pack_id": response.data["id"]}


def _rerender(view: Any, request: LearnerApiRequest, reference: dict[str, Any]) -> Response:
    pack = _pack(request, int(reference["pack_id"]))
    return _served(PackListView.CreateOutputSerializer, request, pack, status_code=status.HTTP_201_CREATED)


class PackListView(APIView):
    class ListOutputSerializer(serializers.Serializer):
        packs = PackSummarySerializer(many=True, help_text="Newest first.")

        class Meta:
            ref_name = "PackList"

    class CreateInputSerializer(serializers.Serializer):
        device = optional_text(max_length=100, help_text='For information, e.g. "Pixel 8".')
        days = StrictIntegerField(
            min_value=0,
            max_value=pack_rules.MAX_DAYS,
            default=pack_rules.DEFAULT_DAYS,
            help_text="Items due today and in this many more study days.",
        )
        max_items = StrictIntegerField(min_value=1, max_value=pack_rules.MAX_ITEMS, default=pack_rules.MAX_ITEMS)

        class Meta:
            ref_name = "PackCreate"

    CreateOutputSerializer = PackSerializer

    @extend_schema(
        tags=TAG,
        operation_id="packs_list",
        summary="Your review packs, newest first (without their items)",
        responses={200: ListOutputSerializer, **errors(401)},
    )
    def get(self, request: LearnerApiRequest) -> Response:
        return Response(self.ListOutputSerializer(r.packs_public(user=request.user)).data)

    @extend_schema(
        tags=TAG,
        operation_id="packs_create",
        summary="Download a review pack: your items due in the next days, with their answer keys",
        description=(
            "Issues a pack of your cards due today and in the next `days` study days (default 3, at most 14; at "
            "most `max_items`, 200), most overdue first. Each item is what the web quiz shows — the question, the "
            "options in an order drawn for this pack item, a numeric variant with its seed — plus its key: the "
            "correct option or value, the grading rule with test vectors, the explanation, every option's "
            "feedback and the worked solution; prompts and recall cards carry their reference. A code item carries "
            "the given code and the names to define, and the reference solution to show after an answer: a phone "
            "cannot run the checker, so the server grades the uploaded code (`key.graded_at_upload`). The pack is "
            "yours, not the device's (`device` is recorded for information); it expires after 14 days and can "
            "be revoked.\n\n" + KEY_ON_PURPOSE + "\n\n"
            "An Idempotency-Key retry returns the same pack re-rendered from its stored items (the key's record "
            "keeps no copy of the answers), or 410 once the pack was revoked or expired. "
            "`Cache-Control: private, no-cache` with an `ETag`; re-sync with `GET /api/v1/packs/{id}/`."
        ),
        parameters=[IDEMPOTENCY_KEY_PARAMETER, *RATELIMIT_HEADERS],
        request=CreateInputSerializer,
        responses={201: CreateOutputSerializer, 410: GONE, 429: QUOTA_EXCEEDED, **errors(400, 401, 422)},
    )
    @learner_limited("packs")
    @idempotent_by_reference(reference=_reference, rerender=_rerender)
    def post(self, request: LearnerApiRequest) -> Response:
        data = validated_body(self.CreateInputSerializer, request)
        pack = pack_issue(user=request.user, **data)
        return _served(self.CreateOutputSerializer, request, pack, status_code=status.HTTP_201_CREATED)


class PackDetailView(APIView):
    OutputSerializer = PackSerializer

    @extend_schema(
        tags=TAG,
        operation_id="packs_read",
        summary="A review pack again, with its items and keys (re-sync with If-None-Match)",
        description=KEY_ON_PURPOSE + "\n\n410 once the pack was revoked or expired.",
        parameters=[IF_NONE_MATCH_PARAMETER],
        responses={200: OutputSerializer, 304: NOT_MODIFIED, 410: GONE, **errors(401, 404)},
    )
    def get(self, request: LearnerApiRequest, pack_id: int) -> Response:
        return _served(self.OutputSerializer, request, _pack(request, pack_id), status_code=status.HTTP_200_OK)

    @extend_schema(
        tags=TAG,
        operation_id="packs_revoke",
        summary="Revoke a review pack (idempotent)",
        description=(
            "E.g. a lost phone. Answers reviewed from now on with this pack are rejected (pack_revoked); answers "
            "reviewed before the revocation still count when they are uploaded."
        ),
        request=None,
        responses={204: None, **errors(401, 404)},
    )
    def delete(self, request: LearnerApiRequest, pack_id: int) -> Response:
        pack_revoke(user=request.user, pack=_pack(request, pack_id))
        return Response(status=status.HTTP_204_NO_CONTENT)
