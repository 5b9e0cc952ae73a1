"""Admin for learner history (attempts, review cards and logs, parameter fits): support staff may look, never touch.

Learner history is written only by the services.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from quizzes.practice.models import Attempt, AttemptItem
from quizzes.reviews.models import ParameterFit, ReviewCard, ReviewLog


class ReadOnlyAdmin(admin.ModelAdmin):
    """Learner history is written only by the services; support staff may look, never touch."""

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class ReviewLogInline(admin.TabularInline):
    model = ReviewLog
    fields = ("reviewed_at", "rating", "role", "source", "duration_ms", "client_uuid", "attempt_item")
    readonly_fields = fields
    extra = 0
    can_delete = False
    ordering = ("reviewed_at", "id")

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(ReviewCard)
class ReviewCardAdmin(ReadOnlyAdmin):
    list_display = ("user", "question", "state", "due", "last_review", "reps", "lapses", "suspended", "is_leech")
    list_filter = ("state", "suspended", "is_leech", "question__lesson")
    list_select_related = ("user", "question")
    search_fields = ("user__username", "user__email", "question__key")
    date_hierarchy = "due"
    ordering = ("user", "due")
    inlines = (ReviewLogInline,)


@admin.register(ParameterFit)
class ParameterFitAdmin(ReadOnlyAdmin):
    """Every fit of a learner's FSRS parameters (issue 30), kept or not, with both held-out figures."""

    list_display = (
        "user",
        "created_at",
        "outcome",
        "reviews",
        "cards",
        "log_loss_before",
        "log_loss_after",
        "cpu_seconds",
    )
    list_filter = ("outcome",)
    list_select_related = ("user",)
    search_fields = ("user__username", "user__email")
    date_hierarchy = "created_at"
    ordering = ("-created_at", "-id")


@admin.register(ReviewLog)
class ReviewLogAdmin(ReadOnlyAdmin):
    list_display = ("user", "card", "rating", "role", "source", "reviewed_at", "duration_ms")
    list_filter = ("rating", "role", "source", "card__question__lesson")
    list_select_related = ("user", "card__question", "card__user")
    search_fields = ("user__username", "user__email", "card__question__key", "client_uuid")
    date_hierarchy = "reviewed_at"
    ordering = ("-reviewed_at", "-id")


class AttemptItemInline(admin.TabularInline):
    model = AttemptItem
    fields = (
        "position",
        "question",
        "option_order",
        "variant_seed",
        "response",
        "chosen_option",
        "is_correct",
        "score",
        "answered_at",
    )
    readonly_fields = fields
    extra = 0
    can_delete = False
    ordering = ("position",)

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Attempt)
class AttemptAdmin(ReadOnlyAdmin):
    list_display = ("user", "lesson", "number", "mode", "started_at", "finished_at")
    list_filter = ("mode", "lesson")
    list_select_related = ("user", "lesson")
    search_fields = ("user__username", "user__email", "lesson__key")
    date_hierarchy = "started_at"
    ordering = ("-started_at",)
    inlines = (AttemptItemInline,)
