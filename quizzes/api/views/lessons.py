"""Lesson content for caching clients: no correctness data of any kind, ETag / If-None-Match → 304."""

from __future__ import annotations

from django.http import Http404
from drf_spectacular.utils import extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from quizzes.api import representations as r
from quizzes.api import serializers as s
from quizzes.api.schema import errors
from quizzes.api.views.common import IF_NONE_MATCH_PARAMETER, NOT_MODIFIED, etag_response
from quizzes.content.selectors import lesson_list_published, lesson_with_content

TAG = ["lessons"]


class LessonListView(APIView):
    @extend_schema(
        tags=TAG,
        operation_id="lessons_list",
        summary="Published lessons in order",
        parameters=[IF_NONE_MATCH_PARAMETER],
        responses={200: s.LessonListSerializer, 304: NOT_MODIFIED, **errors(401)},
    )
    def get(self, request: Request) -> Response:
        lessons = [r.lesson_summary(lesson) for lesson in lesson_list_published()]
        return etag_response(request, s.LessonListSerializer({"lessons": lessons}).data)


class LessonDetailView(APIView):
    @extend_schema(
        tags=TAG,
        operation_id="lessons_read",
        summary="A lesson with its published questions (no answers, explanations or feedback)",
        parameters=[IF_NONE_MATCH_PARAMETER],
        responses={200: s.LessonDetailSerializer, 304: NOT_MODIFIED, **errors(401, 404)},
    )
    def get(self, request: Request, lesson_id: int) -> Response:
        lesson = lesson_with_content(lesson_id=lesson_id)
        if lesson is None:
            raise Http404
        return etag_response(request, s.LessonDetailSerializer(r.lesson_content(lesson)).data)
