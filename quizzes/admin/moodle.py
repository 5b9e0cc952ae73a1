"""Admin for Moodle XML: import a file into a lesson, export a lesson, selected lessons or selected questions.

Staff only, as every admin page (``admin_site.admin_view``: anyone else is sent to the admin's log-in), and by
permission: importing needs the permissions to add and change questions and to change the lesson; exporting,
to view questions. Thin: reading, mapping, validating and writing are ``lesson_moodle_import``'s; what a file
holds is ``lesson_moodle_export``'s and its siblings' (quizzes.content.moodle). When some questions cannot be
exported, a page lists them with the reason and offers the rest.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.core.exceptions import PermissionDenied
from django.db.models import QuerySet
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import URLPattern, path, reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from quizzes.content.models import Lesson, Question
from quizzes.content.moodle.exporter import (
    MoodleExport,
    lesson_moodle_export,
    lessons_moodle_export,
    selected_questions_moodle_export,
)
from quizzes.content.moodle.importer import lesson_moodle_import
from quizzes.content.moodle.xmlfile import MAX_BYTES, MoodleError

SKIP = "skip_unsupported"


class MoodleImportForm(forms.Form):
    file = forms.FileField(
        label=gettext_lazy("Moodle XML file"),
        help_text=gettext_lazy("A file exported from Moodle's question bank (Moodle XML format), at most 10 MiB."),
    )
    skip_unsupported = forms.BooleanField(
        label=gettext_lazy("Skip unsupported questions"),
        required=False,
        help_text=gettext_lazy(
            "Import the questions that can be represented here and list the others, instead of importing nothing."
        ),
    )


def _download(export: MoodleExport, filename: str) -> HttpResponse:
    response = HttpResponse(export.xml, content_type="application/xml; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


def _export_or_explain(
    request: HttpRequest,
    modeladmin: admin.ModelAdmin,
    *,
    export: Callable[[bool], MoodleExport],
    filename: str,
    context: dict[str, Any],
) -> HttpResponse:
    """The file, or (when some questions cannot be exported) a page naming them that offers the rest."""
    skip = request.POST.get(SKIP) == "1" or request.GET.get(SKIP) == "1"
    try:
        return _download(export(skip), filename)
    except MoodleError as exc:
        problems = [str(problem).removeprefix("export, ") for problem in exc.problems]
    page = {
        **modeladmin.admin_site.each_context(request),
        "opts": modeladmin.opts,
        "title": _("Export as Moodle XML"),
        "problems": problems,
        "skip_name": SKIP,
        "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
        **context,
    }
    return TemplateResponse(request, "admin/quizzes/moodle_export_refused.html", page)


def _may_export(request: HttpRequest) -> None:
    if not request.user.has_perm("quizzes.view_question"):
        raise PermissionDenied


class MoodleLessonAdmin(admin.ModelAdmin):
    """The lesson admin's Moodle XML pages: "Import Moodle XML" and "Export as Moodle XML" (on the change form),
    and the changelist action that exports the selected lessons."""

    def get_urls(self) -> list[URLPattern]:
        own = [
            path(
                "<path:object_id>/moodle-import/",
                self.admin_site.admin_view(self.moodle_import_view),
                name="quizzes_lesson_moodle_import",
            ),
            path(
                "<path:object_id>/moodle-export/",
                self.admin_site.admin_view(self.moodle_export_view),
                name="quizzes_lesson_moodle_export",
            ),
        ]
        return [*own, *super().get_urls()]

    def _lesson(self, request: HttpRequest, object_id: str) -> Lesson:
        lesson = self.get_object(request, object_id)
        if lesson is None:
            raise Http404
        return lesson

    def moodle_import_view(self, request: HttpRequest, object_id: str) -> HttpResponse:
        """Upload a Moodle XML file into this lesson; every problem is listed and nothing written, or the summary."""
        lesson = self._lesson(request, object_id)
        allowed = ("quizzes.add_question", "quizzes.change_question")
        if not self.has_change_permission(request, lesson) or not request.user.has_perms(allowed):
            raise PermissionDenied
        form = MoodleImportForm(request.POST or None, request.FILES or None)
        problems: list[str] = []
        if request.method == "POST" and form.is_valid():
            upload = form.cleaned_data["file"]
            try:
                report = lesson_moodle_import(
                    lesson=lesson,
                    data=upload.read(MAX_BYTES + 1),  # one byte past the limit: the service refuses it
                    file=upload.name,
                    skip_unsupported=form.cleaned_data["skip_unsupported"],
                )
            except MoodleError as exc:
                problems = [str(problem) for problem in exc.problems]
            else:
                self.message_user(
                    request,
                    _("Imported %(file)s: %(created)d created, %(updated)d updated, %(unchanged)d unchanged.")
                    % {
                        "file": upload.name,
                        "created": len(report.created),
                        "updated": len(report.updated),
                        "unchanged": len(report.unchanged),
                    },
                    messages.SUCCESS,
                )
                for skipped in report.skipped:
                    self.message_user(request, _("Skipped: %(what)s") % {"what": skipped}, messages.WARNING)
                for note in report.notes:
                    self.message_user(request, _("Note: %(note)s") % {"note": note}, messages.INFO)
                return HttpResponseRedirect(reverse("admin:quizzes_lesson_change", args=[lesson.pk]))
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "original": lesson,
            "title": _("Import Moodle XML into %(lesson)s") % {"lesson": lesson.title},
            "form": form,
            "problems": problems,
        }
        return TemplateResponse(
            request, "admin/quizzes/lesson/moodle_import.html", context, status=400 if problems else 200
        )

    def moodle_export_view(self, request: HttpRequest, object_id: str) -> HttpResponse:
        """This lesson's questions as a Moodle XML download."""
        lesson = self._lesson(request, object_id)
        _may_export(request)
        return _export_or_explain(
            request,
            self,
            export=lambda skip: lesson_moodle_export(lesson=lesson, skip_unsupported=skip),
            filename=f"{lesson.key}-moodle.xml",
            context={"original": lesson, "again_url": request.path},
        )


@admin.action(description=gettext_lazy("Export as Moodle XML"), permissions=["view"])
def export_lessons_as_moodle(
    modeladmin: admin.ModelAdmin, request: HttpRequest, queryset: QuerySet[Lesson]
) -> HttpResponse:
    """The selected lessons' questions as one Moodle XML file, a category per lesson."""
    _may_export(request)
    ids = [lesson.pk for lesson in queryset]
    return _export_or_explain(
        request,
        modeladmin,
        export=lambda skip: lessons_moodle_export(lesson_ids=ids, skip_unsupported=skip),
        filename="lessons-moodle.xml",
        context={"selected": ids, "action": "export_lessons_as_moodle"},
    )


@admin.action(description=gettext_lazy("Export selected questions as Moodle XML"), permissions=["view"])
def export_questions_as_moodle(
    modeladmin: admin.ModelAdmin, request: HttpRequest, queryset: QuerySet[Question]
) -> HttpResponse:
    """The selected questions, lesson by lesson (a category each), as one Moodle XML file."""
    ids = [question.pk for question in queryset]
    return _export_or_explain(
        request,
        modeladmin,
        export=lambda skip: selected_questions_moodle_export(ids=ids, skip_unsupported=skip),
        filename="questions-moodle.xml",
        context={"selected": ids, "action": "export_questions_as_moodle"},
    )
