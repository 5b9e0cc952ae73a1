"""Admin for accounts: e-mail uniqueness in the user form, and unlocking throttled sign-ins.

- The user change/add forms refuse an e-mail address another account already uses (case-insensitive),
  so the admin hears a message instead of the database's unique index raising.
- Action "Unlock sign-in" on selected users: forgets their log-in, sign-up and password-reset counters
  and locks (by username and by e-mail address).
- Page ``/admin/auth/user/throttles/`` ("Sign-in locks" on the user list): look up a username, e-mail
  address or IP, see its counters and locks, and unlock it.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import UserAdmin
from django.contrib.auth.forms import UserChangeForm
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.urls import URLPattern, path
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from quizzes.accounts import throttle
from quizzes.accounts.selectors import email_taken
from quizzes.core.errors import ErrorCode

User = get_user_model()


class UniqueEmailChangeForm(UserChangeForm):
    def clean_email(self) -> str:
        email = (self.cleaned_data.get("email") or "").strip()
        if email and email_taken(email=email, exclude_pk=self.instance.pk):
            raise forms.ValidationError(
                _("Another account already uses this e-mail address."), code=ErrorCode.EMAIL_TAKEN
            )
        return email


class ThrottleLookupForm(forms.Form):
    username = forms.CharField(label=_("Username or e-mail address"), required=False, max_length=254)
    ip = forms.GenericIPAddressField(label=_("IP address"), required=False)

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        if not cleaned.get("username") and not cleaned.get("ip"):
            raise forms.ValidationError(_("Give a username, an e-mail address or an IP address."))
        return cleaned


class AccountAdmin(UserAdmin):
    form = UniqueEmailChangeForm
    actions = ("unlock_sign_in",)
    change_list_template = "admin/auth/user/change_list_throttles.html"

    @admin.action(description=_("Unlock sign-in (log-in, sign-up and password-reset limits)"))
    def unlock_sign_in(self, request: HttpRequest, queryset: QuerySet[Any]) -> None:
        cleared = 0
        for user in queryset:
            cleared += throttle.unlock(username=user.get_username())
            if user.email:
                cleared += throttle.unlock(username=user.email)
        self.message_user(
            request,
            ngettext(
                "Unlocked %(users)d user (%(cleared)d counter cleared).",
                "Unlocked %(users)d users (%(cleared)d counters cleared).",
                queryset.count(),
            )
            % {"users": queryset.count(), "cleared": cleared},
            messages.SUCCESS,
        )

    def get_urls(self) -> list[URLPattern]:
        return [
            path("throttles/", self.admin_site.admin_view(self.throttles_view), name="auth_user_throttles"),
            *super().get_urls(),
        ]

    def throttles_view(self, request: HttpRequest) -> HttpResponse:
        if not self.has_change_permission(request):
            from django.core.exceptions import PermissionDenied

            raise PermissionDenied
        form = ThrottleLookupForm(request.POST or request.GET or None)
        rows: list[dict] = []
        if form.is_bound and form.is_valid():
            username, ip = form.cleaned_data.get("username") or "", form.cleaned_data.get("ip") or ""
            if request.method == "POST" and "unlock" in request.POST:
                cleared = throttle.unlock(username=username, ip=ip)
                self.message_user(request, _("Unlocked (%(cleared)d counters cleared).") % {"cleared": cleared})
            rows = throttle.locks(username=username, ip=ip)
        context = {
            **self.admin_site.each_context(request),
            "title": _("Sign-in locks"),
            "opts": self.model._meta,
            "form": form,
            "rows": rows,
            "rates": throttle.rates(),
        }
        return TemplateResponse(request, "admin/auth/user/throttles.html", context)


def register(site: admin.AdminSite) -> None:
    if site.is_registered(User):
        site.unregister(User)
    site.register(User, AccountAdmin)
