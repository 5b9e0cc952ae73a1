"""What a learner should do next."""

from __future__ import annotations

from rest_framework import serializers

from quizzes.practice.next_step import NextStepKind

NEXT_STEP_KINDS = [(kind.value, kind.value) for kind in NextStepKind]


class NextStepSerializer(serializers.Serializer):
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
    next_review_at = serializers.DateTimeField(allow_null=True, help_text="kind=wait: when the next card falls due.")
