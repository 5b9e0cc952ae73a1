"""GET /api/v1/next-step/: what the learner should do now, with the ids a client needs (quizzes.practice.next_step)."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework.response import Response
from rest_framework.views import APIView

from quizzes.api import representations as r
from quizzes.api.schema import errors
from quizzes.api.serializers import next_step as s
from quizzes.api.types import LearnerApiRequest
from quizzes.practice.next_step import next_step_for


class NextStepView(APIView):
    @extend_schema(
        tags=["reviews"],
        operation_id="next_step",
        summary="The one obvious next step: review, continue an attempt or a lesson, a prompt, or wait",
        description=(
            "The same rule as the web dashboard's primary button: reviews due today come first, then an open "
            "attempt, then the first place in the lessons never studied (a lesson's quiz, else its next interview "
            "prompt, else its recall card); otherwise when the next review falls due."
        ),
        responses={200: s.NextStepSerializer, **errors(401)},
    )
    def get(self, request: LearnerApiRequest) -> Response:
        return Response(s.NextStepSerializer(r.next_step_public(next_step_for(user=request.user))).data)
