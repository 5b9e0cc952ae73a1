"""Admin for offline review packs: support staff may look (learner, device, life, items) and revoke, never edit.

A revocation goes through the one service (``pack_revoke``), as a learner's ``DELETE /api/v1/packs/{id}/`` does;
packs ended long ago are pruned by housekeeping (quizzes.packs.pruning), not here.
"""

from __future__ import annotations

from typing import Any, cast

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from quizzes.packs.models import PackItem, ReviewPack
from quizzes.packs.querysets import ReviewPackQuerySet
from quizzes.packs.rules import pack_status
from quizzes.packs.services import pack_revoke


class PackStateFilter(admin.SimpleListFilter):
    title = _("state")
    parameter_name = "state"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, Any]]:
        return [("active", _("active")), ("revoked", _("revoked")), ("expired", _("expired"))]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
        packs = cast(ReviewPackQuerySet, queryset)
        now = timezone.now()
        if self.value() == "active":
            return packs.usable_at(now)
        if self.value() == "revoked":
            return packs.revoked()
        if self.value() == "expired":
            return packs.expired_at(now)
        return packs


class PackItemInline(admin.TabularInline):
    model = PackItem
    fields = ("position", "question", "variant_seed", "template_version", "due", "answered_at", "is_correct")
    readonly_fields = fields
    extra = 0
    can_delete = False
    ordering = ("position",)
    show_change_link = False

    def get_queryset(self, request: HttpRequest) -> QuerySet[PackItem]:
        return super().get_queryset(request).select_related("question")

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(ReviewPack)
class ReviewPackAdmin(admin.ModelAdmin):
    list_display = ("id", "user", "device", "issued_at", "expires_at", "item_count", "answered_count", "state")
    list_filter = (PackStateFilter, "issued_at")
    list_select_related = ("user",)
    search_fields = ("user__username",)
    date_hierarchy = "issued_at"
    ordering = ("-issued_at", "-id")
    fields = ("user", "device", "horizon_days", "issued_at", "expires_at", "revoked_at", "state", "item_count")
    readonly_fields = fields
    inlines = (PackItemInline,)
    actions = ("revoke",)

    def get_queryset(self, request: HttpRequest) -> QuerySet[ReviewPack]:
        return cast(ReviewPackQuerySet, super().get_queryset(request)).with_item_counts()

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False  # read-only: the one change staff may make is the revoke action

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_revoke_permission(self, request: HttpRequest) -> bool:
        return bool(request.user.has_perm("quizzes.change_reviewpack"))

    @admin.display(description=_("items"), ordering="item_count")
    def item_count(self, obj: ReviewPack) -> int:
        return obj.item_count  # type: ignore[attr-defined]  # annotated by with_item_counts()

    @admin.display(description=_("answered"), ordering="answered_count")
    def answered_count(self, obj: ReviewPack) -> int:
        return obj.answered_count  # type: ignore[attr-defined]  # annotated by with_item_counts()

    @admin.display(description=_("state"))
    def state(self, obj: ReviewPack) -> str:
        return pack_status(pack=obj, now=timezone.now())

    @admin.action(description=_("Revoke the selected packs"), permissions=("revoke",))
    def revoke(self, request: HttpRequest, queryset: QuerySet[ReviewPack]) -> None:
        packs = list(queryset.select_related("user"))
        for pack in packs:
            pack_revoke(user=pack.user, pack=pack)
        self.message_user(
            request,
            ngettext("Revoked %(count)d pack.", "Revoked %(count)d packs.", len(packs)) % {"count": len(packs)},
            messages.SUCCESS,
        )
