"""Admin: "Download as YAML" for selected lessons and for selected questions, in the lesson files' schema.

Staff only (every admin page is) and by the view permission. Thin: what a file holds is
quizzes.content.dumper's (each lesson written onto its file in fixtures/lessons when it has one, so the download
differs from the committed file exactly where the database does). One lesson → its .yaml, several → a .zip.
A selection of questions gives each lesson's file with only those questions: copy them into the lesson's file
(loaded as the whole lesson, it would remove the others).
"""

from __future__ import annotations

import io
import zipfile

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.utils.translation import gettext_lazy

from quizzes.content.dumper import LessonFile, lessons_yaml
from quizzes.content.models import Lesson, Question
from quizzes.content.selectors import lessons_of_questions


def _download(files: list[LessonFile], zip_name: str) -> HttpResponse:
    if len(files) == 1:
        response = HttpResponse(files[0].text, content_type="application/yaml; charset=utf-8")
        name = files[0].name
    else:
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
            for file in files:
                archive.writestr(file.name, file.text)
        response = HttpResponse(buffer.getvalue(), content_type="application/zip")
        name = zip_name
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response


@admin.action(description=gettext_lazy("Download as YAML"), permissions=["view"])
def download_lessons_as_yaml(
    modeladmin: admin.ModelAdmin, request: HttpRequest, queryset: QuerySet[Lesson]
) -> HttpResponse:
    """The selected lessons' files (a zip when several)."""
    return _download(lessons_yaml(lessons=queryset.order_by("order", "key")), "lessons.zip")


@admin.action(description=gettext_lazy("Download selected questions as YAML"), permissions=["view"])
def download_questions_as_yaml(
    modeladmin: admin.ModelAdmin, request: HttpRequest, queryset: QuerySet[Question]
) -> HttpResponse:
    """The selected questions, each lesson's in a file of that lesson holding only them (a zip when several)."""
    ids = set(queryset.values_list("pk", flat=True))
    lessons = lessons_of_questions(question_ids=ids)
    files = lessons_yaml(lessons=lessons, question_ids=ids)
    return _download(
        [LessonFile(f.name.removesuffix(".yaml") + "-selected.yaml", f.text) for f in files], "questions.zip"
    )


def register(site: admin.AdminSite) -> None:
    """Add the actions to the lesson and question admins (registered by quizzes.admin.content)."""
    lessons = site.get_model_admin(Lesson)
    lessons.actions = (*(lessons.actions or ()), download_lessons_as_yaml)
    questions = site.get_model_admin(Question)
    questions.actions = (*(questions.actions or ()), download_questions_as_yaml)
