"""Admin for background jobs: bulk generation's progress and result (started from the question list's action)."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext_lazy as _

from quizzes.content.models import GenerationJob


@admin.register(GenerationJob)
class GenerationJobAdmin(admin.ModelAdmin):
    """Progress and result of bulk generation; jobs are started from the question list's action."""

    list_display = (
        "created_at",
        "source",
        "first_seed",
        "progress",
        "created",
        "status",
        "error_count",
        "requested_by",
    )
    list_filter = ("status",)
    list_select_related = ("source", "requested_by")
    search_fields = ("source__key",)
    ordering = ("-created_at",)
    fields = (
        "source",
        "requested_by",
        "status",
        "first_seed",
        "total",
        "done",
        "created",
        "progress",
        "generated_link",
        "error_list",
        "task_id",
        "created_at",
        "started_at",
        "finished_at",
    )
    readonly_fields = fields

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    @admin.display(description=_("progress"))
    def progress(self, obj: GenerationJob) -> str:
        return f"{obj.done}/{obj.total}"

    @admin.display(description=_("errors"))
    def error_count(self, obj: GenerationJob) -> int:
        return len(obj.errors or [])

    @admin.display(description=_("errors"))
    def error_list(self, obj: GenerationJob) -> str:
        if not obj.errors:
            return "—"
        return format_html_join(
            "\n",
            "<div>{}: {}</div>",
            (
                (
                    _("seed %(seed)s") % {"seed": e.get("seed")} if e.get("seed") is not None else _("job"),
                    e.get("error"),
                )
                for e in obj.errors
            ),
        )

    @admin.display(description=_("generated questions"))
    def generated_link(self, obj: GenerationJob) -> str:
        url = reverse("admin:quizzes_question_changelist") + f"?generated_from__id__exact={obj.source_id}"
        return format_html('<a href="{}">{}</a>', url, _("Questions generated from %(key)s") % {"key": obj.source.key})
