"""Admin page "Item statistics" of a lesson: how each question performs in learners' first study attempts.

Staff only (``admin_site.admin_view``: anyone else is sent to the admin's log-in) and by permission (viewing
questions). Thin: every figure and flag is ``lesson_statistics``'s (quizzes.item_statistics.selectors).
"""

from __future__ import annotations

from django.contrib import admin
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.urls import URLPattern, path
from django.utils.translation import gettext as _

from quizzes.item_statistics.selectors import (
    DISCRIMINATION_LOW,
    FACILITY_HIGH,
    FACILITY_LOW,
    RARE_DISTRACTOR,
    VERSION_FACILITY_CHANGE,
    VERSION_MIN_ATTEMPTS,
    lesson_statistics,
)


class StatisticsLessonAdmin(admin.ModelAdmin):
    """The lesson admin's "Item statistics" page (linked from the lesson's change form)."""

    def get_urls(self) -> list[URLPattern]:
        own = [
            path(
                "<path:object_id>/statistics/",
                self.admin_site.admin_view(self.statistics_view),
                name="quizzes_lesson_statistics",
            )
        ]
        return [*own, *super().get_urls()]

    def statistics_view(self, request: HttpRequest, object_id: str) -> HttpResponse:
        """Every item's facility, discrimination, option picks, time and review figures, with its flags."""
        if not request.user.has_perm("quizzes.view_question"):
            raise PermissionDenied
        lesson = self.get_object(request, object_id)
        if lesson is None:
            raise Http404(_("No lesson with this id."))
        stats = lesson_statistics(lesson=lesson)
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "original": lesson,
            "title": _("Item statistics: %(lesson)s") % {"lesson": lesson.title},
            "stats": stats,
            "thresholds": {
                "facility_high": FACILITY_HIGH,
                "facility_low": FACILITY_LOW,
                "discrimination_low": DISCRIMINATION_LOW,
                "rare_percent": round(RARE_DISTRACTOR * 100),
                "version_change": VERSION_FACILITY_CHANGE,
                "version_min_attempts": VERSION_MIN_ATTEMPTS,
            },
        }
        return TemplateResponse(request, "admin/quizzes/lesson/statistics.html", context)
