"""Lessons and their questions, as the lesson list and a lesson's page return them."""

from __future__ import annotations

from rest_framework import serializers

from quizzes.models import Question


class LessonOptionSerializer(serializers.Serializer):
    text = serializers.CharField()
    text_html = serializers.CharField()


class LessonQuestionSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    key = serializers.CharField()
    kind = serializers.ChoiceField(choices=Question.Kind.choices)
    order = serializers.IntegerField()
    prompt = serializers.CharField(help_text="Markdown with LaTeX in $…$ / $$…$$.")
    prompt_html = serializers.CharField(help_text="The prompt as safe HTML with MathML.")
    answer_form = serializers.ChoiceField(choices=Question.AnswerForm.choices, allow_null=True)
    template = serializers.CharField(allow_null=True)
    options = LessonOptionSerializer(many=True, help_text="Choice questions: the options, in no meaningful order.")
    line_count = serializers.IntegerField(allow_null=True, help_text="Recall cards: how many lines to write.")


class LessonSummarySerializer(serializers.Serializer):
    id = serializers.IntegerField()
    key = serializers.CharField()
    title = serializers.CharField()
    summary = serializers.CharField(allow_blank=True)
    order = serializers.IntegerField()
    question_count = serializers.IntegerField()


class LessonListSerializer(serializers.Serializer):
    lessons = LessonSummarySerializer(many=True)
