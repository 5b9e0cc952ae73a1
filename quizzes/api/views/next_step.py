"""GET /api/v1/next-step/: what the learner should do now, with the ids a client needs (quizzes.practice.next_step)."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from quizzes.api import representations as r
from quizzes.api.schema import errors
from quizzes.api.types import LearnerApiRequest
from quizzes.practice.next_step import NextStepKind, next_step_for

NEXT_STEP_KINDS = [(kind.value, kind.value) for kind in NextStepKind]


class NextStepView(APIView):
    class OutputSerializer(serializers.Serializer):
        kind = serializers.ChoiceField(
            choices=NEXT_STEP_KINDS,
            help_text=(
                "review: reviews are due (GET /reviews/due/); attempt: continue attempt_id; lesson: study lesson_id "
                "(its text, then POST /attempts/ with lesson_id); prompt / recall: self-rate question_id "
                "(GET /questions/{id}/reference/, POST /reviews/rate/); wait: nothing to do until next_review_at "
                "(null: nothing is scheduled)."
            ),
        )
        due_count = serializers.IntegerField(help_text="Cards due today (non-zero only for kind=review).")
        lesson_id = serializers.IntegerField(allow_null=True)
        lesson_key = serializers.CharField(allow_null=True)
        lesson_title = serializers.CharField(allow_null=True)
        attempt_id = serializers.IntegerField(allow_null=True, help_text="kind=attempt: the open attempt.")
        question_id = serializers.IntegerField(
            allow_null=True, help_text="kind=prompt/recall: the question to rate; kind=lesson: its first unstudied one."
        )
        question_key = serializers.CharField(allow_null=True)
        next_review_at = serializers.DateTimeField(
            allow_null=True, help_text="kind=wait: when the next card falls due."
        )

        class Meta:
            ref_name = "NextStep"

    @extend_schema(
        tags=["reviews"],
        operation_id="next_step",
        summary="The one obvious next step: review, continue an attempt or a lesson, a prompt, or wait",
        description=(
            "The same rule as the web dashboard's primary button: reviews due today come first, then an open "
            "attempt, then the first place in the lessons never studied (a lesson's quiz, else its next interview "
            "prompt, else its recall card); otherwise when the next review falls due."
        ),
        responses={200: OutputSerializer, **errors(401)},
    )
    def get(self, request: LearnerApiRequest) -> Response:
        return Response(self.OutputSerializer(r.next_step_public(next_step_for(user=request.user))).data)
