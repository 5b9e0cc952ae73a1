"""The learner's data export: inline when small, otherwise (and on request) a background job with download links.

* ``GET /profile/export/`` — the JSON document (``ExportDocument``) inline when the learner's history is at most
  ``EXPORT_INLINE_MAX_ROWS`` rows (cards + review logs + attempt items + pack items; 2,000 by default); above
  that, 202 with the export job (started, or the one already running) and ``Location`` to poll.
* ``POST /profile/exports/`` — always a job (its files: the JSON document and an Anki ``.apkg`` of the cards):
  202 with the job; asked again while one is pending or running, the same job (one per learner: a constraint).
* ``GET /profile/exports/{id}/`` — the job's status and progress, and once ready its signed download links
  (valid until ``expires_at``, 24 h after it finished; then the files are deleted).

Asking for an export (the GET and the POST, not polling or downloading) is counted against two quotas, per learner
and per client IP (the ``export`` limits in settings): RateLimit-Policy / RateLimit (``"export_username"``,
``"export_ip"``) on the response, and past either, 429 with Retry-After and both headers.
"""

from __future__ import annotations

from typing import Any

from django.urls import reverse
from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from quizzes.accounts import throttle
from quizzes.api.errors import ApiError
from quizzes.api.schema import errors
from quizzes.api.throttling import RATELIMIT_HEADERS, throttled_error
from quizzes.api.types import LearnerApiRequest
from quizzes.api.views.export_document import ExportDocumentSerializer
from quizzes.core.errors import ErrorCode
from quizzes.privacy.document import export_document
from quizzes.privacy.models import DataExport
from quizzes.privacy.selectors import export_download_tokens, export_fits_inline, export_for
from quizzes.privacy.services import data_export_request

TAG = ["profile"]


class ExportFileSerializer(serializers.Serializer):
    kind = serializers.ChoiceField(choices=["json", "apkg"], help_text="json: the document; apkg: an Anki deck.")
    url = serializers.URLField(help_text="Signed download link; needs no token; works until the job's expires_at.")


class ExportJobSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    status = serializers.ChoiceField(choices=DataExport.Status.values)
    done = serializers.IntegerField(help_text="Rows written so far.")
    total = serializers.IntegerField(help_text="Rows to write (0 until the job starts).")
    created_at = serializers.DateTimeField()
    started_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)
    expires_at = serializers.DateTimeField(allow_null=True, help_text="When the links stop working and the files go.")
    error = serializers.CharField(allow_blank=True, help_text="Why a failed job failed; ask again.")
    url = serializers.URLField(help_text="This job's status URL, to poll.")
    files = ExportFileSerializer(many=True, help_text="Empty until the job is ready, and after it expired.")


def _job(request: Request, export: DataExport) -> dict[str, Any]:
    links = export_download_tokens(export=export)
    return {
        "id": export.pk,
        "status": export.status,
        "done": export.done,
        "total": export.total,
        "created_at": export.created_at,
        "started_at": export.started_at,
        "finished_at": export.finished_at,
        "expires_at": export.expires_at,
        "error": export.error,
        "url": request.build_absolute_uri(reverse("api:v1:export", args=[export.pk])),
        "files": [
            {"kind": kind, "url": request.build_absolute_uri(reverse("web:export_download", args=[token]))}
            for kind, token in links.items()
        ],
    }


def _count_request(request: LearnerApiRequest) -> dict[str, str]:
    """Count an export asked for against the ``export`` quotas (per learner, per client IP): their RateLimit headers,
    or 429 ``throttled`` with Retry-After and the headers."""
    try:
        quotas = throttle.request_quotas("export", request=request, username=f"learner:{request.user.pk}")
    except throttle.QuotaExceeded as exc:
        error = throttled_error(exc)
        raise ApiError(
            status_code=status.HTTP_429_TOO_MANY_REQUESTS,
            code=ErrorCode.THROTTLED,
            message=str(error.detail),
            headers={"Retry-After": str(exc.retry_after), **throttle.ratelimit_headers(*exc.quotas)},
        ) from None
    return throttle.ratelimit_headers(*quotas)


def _with_headers(response: Response, headers: dict[str, str]) -> Response:
    for name, value in headers.items():
        response[name] = value
    return response


def _accepted(request: LearnerApiRequest) -> Response:
    export = data_export_request(user=request.user).export
    data = ExportJobSerializer(_job(request, export)).data
    return Response(data, status=status.HTTP_202_ACCEPTED, headers={"Location": data["url"]})


class ExportView(APIView):
    @extend_schema(
        tags=TAG,
        operation_id="profile_export",
        summary="Your data as JSON: inline when small, else a job to poll",
        description=(
            "200: the whole document, when your history is at most `EXPORT_INLINE_MAX_ROWS` rows (cards + review "
            "logs + attempt items + pack items; 2,000 by default). 202: larger; the body is the export job "
            "(started now, or the one already running) and `Location` its URL: poll it until `status` is "
            "`ready`, then download `files`. Throttled per learner (429)."
        ),
        parameters=RATELIMIT_HEADERS,
        responses={
            200: ExportDocumentSerializer,
            202: OpenApiResponse(ExportJobSerializer, description="Too large to answer inline: the export job."),
            **errors(401, 429),
        },
    )
    def get(self, request: LearnerApiRequest) -> Response:
        headers = _count_request(request)
        if not export_fits_inline(user=request.user):
            return _with_headers(_accepted(request), headers)
        response = Response(export_document(user=request.user))
        response["Content-Disposition"] = 'inline; filename="quizsite-export.json"'
        return _with_headers(response, headers)


class ExportListView(APIView):
    @extend_schema(
        tags=TAG,
        operation_id="profile_exports_create",
        summary="Start an export job (JSON document and Anki deck)",
        description=(
            "202 with the job. While one is pending or running, asking again returns that same job (one per "
            "learner). Runs in the background (queue `exports`); poll its `url`. Throttled per learner (429)."
        ),
        request=None,
        parameters=RATELIMIT_HEADERS,
        responses={202: ExportJobSerializer, **errors(401, 429)},
    )
    def post(self, request: LearnerApiRequest) -> Response:
        headers = _count_request(request)
        return _with_headers(_accepted(request), headers)


class ExportDetailView(APIView):
    @extend_schema(
        tags=TAG,
        operation_id="profile_exports_read",
        summary="An export job: status, progress, download links",
        responses={200: ExportJobSerializer, **errors(401, 404)},
    )
    def get(self, request: LearnerApiRequest, export_id: int) -> Response:
        export = export_for(user=request.user, export_id=export_id)
        if export is None:
            raise ApiError(status_code=404, code=ErrorCode.NOT_FOUND, message=_("No such export of yours."))
        return Response(ExportJobSerializer(_job(request, export)).data)
