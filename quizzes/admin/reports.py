"""Admin for learners' problem reports: authors read the open reports of each question and resolve them.

Nothing here edits a report: the learner's words and the copy of what they saw stay as filed. "Mark resolved"
goes through the one service (``problem_reports_resolve``); the learner then sees the report resolved on their
"My reports" page and in ``GET /api/v1/reports/``. The text is shown escaped, as every admin field is.
"""

from __future__ import annotations

from typing import Any, cast

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html
from django.utils.text import Truncator
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from quizzes.reports.models import ProblemReport
from quizzes.reports.querysets import ProblemReportQuerySet
from quizzes.reports.services import problem_reports_resolve


class ReportStatusFilter(admin.SimpleListFilter):
    """Open reports by default: what an author still has to act on."""

    title = _("status")
    parameter_name = "status"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, Any]]:
        return [("open", _("open")), ("resolved", _("resolved")), ("all", _("all"))]

    def choices(self, changelist: Any) -> Any:
        for choice in super().choices(changelist):
            if choice["query_string"] == changelist.get_query_string(remove=[self.parameter_name]):
                continue  # no "All" that means "open": the default is listed as "open"
            yield choice

    def value(self) -> str:
        return super().value() or "open"

    def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
        reports = cast(ProblemReportQuerySet, queryset)
        if self.value() == "open":
            return reports.open()
        if self.value() == "resolved":
            return reports.resolved()
        return reports


@admin.register(ProblemReport)
class ProblemReportAdmin(admin.ModelAdmin):
    list_display = (
        "question_reports",
        "category",
        "short_text",
        "origin",
        "template_version",
        "variant_seed",
        "user",
        "created_at",
        "status",
    )
    list_display_links = ("short_text",)  # the question column links to the question's reports
    list_filter = (ReportStatusFilter, "category", "origin", ("question", admin.RelatedOnlyFieldListFilter))
    search_fields = ("question__key", "text")
    ordering = ("question__lesson__order", "question__order", "-created_at")
    list_select_related = ("question", "user")
    actions = ("mark_resolved",)
    fields = (
        "question",
        "category",
        "text",
        "prompt",
        "origin",
        "attempt_item",
        "pack_item",
        "card",
        "template_version",
        "variant_seed",
        "user",
        "created_at",
        "resolved_at",
        "resolved_by",
    )
    readonly_fields = fields

    @admin.display(description=_("question"), ordering="question__key")
    def question_reports(self, report: ProblemReport) -> str:
        """The question, linking to all of its reports (the list per question)."""
        url = reverse("admin:quizzes_problemreport_changelist") + f"?question__id__exact={report.question_id}"
        return format_html('<a href="{}">{}</a>', url, report.question.key)

    @admin.display(description=_("text"))
    def short_text(self, report: ProblemReport) -> str:
        return Truncator(report.text).chars(80)

    @admin.display(description=_("status"), boolean=False)
    def status(self, report: ProblemReport) -> str:
        return str(_("resolved")) if report.is_resolved else str(_("open"))

    @admin.action(description=_("Mark the selected reports resolved"), permissions=["change"])
    def mark_resolved(self, request: HttpRequest, queryset: QuerySet[ProblemReport]) -> None:
        count = problem_reports_resolve(reports=queryset, by=request.user)  # type: ignore[arg-type]
        self.message_user(
            request,
            ngettext("%(count)d report marked resolved.", "%(count)d reports marked resolved.", count)
            % {"count": count},
            messages.SUCCESS,
        )

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False
