"""GET /api/v1/ping/: authentication + a tiny JSON body, no query of its own.

The load benchmark's ceiling (bench/load.py): what the stack costs for an authenticated API request
before any view logic. Clients may also use it to check that a token still works.
"""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from quizzes.api.schema import errors
from quizzes.api.types import LearnerApiRequest


class PingView(APIView):
    class OutputSerializer(serializers.Serializer):
        ok = serializers.BooleanField()
        user_id = serializers.IntegerField()

        class Meta:
            ref_name = "Ping"

    @extend_schema(
        tags=["auth"],
        operation_id="ping",
        summary="Check that your token works (no other work: the benchmarks' ceiling)",
        responses={200: OutputSerializer, **errors(401)},
    )
    def get(self, request: LearnerApiRequest) -> Response:
        return Response(self.OutputSerializer({"ok": True, "user_id": request.user.pk}).data)
