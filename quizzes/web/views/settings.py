"""The learner's settings page: study preferences (saved through the profile service) and the UI language; the FSRS
parameters that schedule them, and what a desired retention would cost before it is saved (issue 30); "Your data"
(export and account deletion: views.your_data); where the learner is signed in (views.signed_in)."""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone, translation
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from quizzes.accounts.models import LearnerProfile, reminder_choice_fields
from quizzes.accounts.selectors import profile_for
from quizzes.accounts.services import learner_profile_update
from quizzes.privacy.selectors import export_latest
from quizzes.reviews.parameters import parameters_status, retention_preview
from quizzes.web.forms import LearnerSettingsForm, RetentionPreviewForm
from quizzes.web.types import LearnerRequest
from quizzes.web.views.signed_in import signed_in_context
from quizzes.web.views.your_data import export_context


def _set_language_cookie(response: HttpResponse, language: str) -> None:
    response.set_cookie(
        settings.LANGUAGE_COOKIE_NAME,
        language,
        max_age=settings.LANGUAGE_COOKIE_AGE,
        path=settings.LANGUAGE_COOKIE_PATH,
        domain=settings.LANGUAGE_COOKIE_DOMAIN,
        secure=settings.LANGUAGE_COOKIE_SECURE,
        httponly=settings.LANGUAGE_COOKIE_HTTPONLY,
        samesite=settings.LANGUAGE_COOKIE_SAMESITE,
    )


@login_required
@require_http_methods(["GET", "HEAD", "POST"])
def settings_view(request: LearnerRequest) -> HttpResponse:
    """Study preferences. The profile has no language column, so the language is kept the way
    Django's own switcher keeps it: the language cookie (per browser), set on save."""
    profile = profile_for(user=request.user)
    current = {
        "time_zone": profile.time_zone,
        "day_rollover_hour": profile.day_rollover_hour,
        "language": translation.get_language(),
        "desired_retention": profile.desired_retention,
        "new_per_day": profile.new_per_day,
        "reminders": profile.reminder_choice,
    }
    if request.method != "POST":
        form = LearnerSettingsForm(initial=current)
        return render(request, "web/core/settings.html", _page(request, profile, form, profile.desired_retention))
    form = LearnerSettingsForm(request.POST, initial=current)
    if "preview" in request.POST:  # without JavaScript: the workload of the typed retention, nothing saved
        chosen = RetentionPreviewForm(request.POST)
        retention = chosen.cleaned_data["desired_retention"] if chosen.is_valid() else profile.desired_retention
        return render(request, "web/core/settings.html", _page(request, profile, form, retention))
    if form.is_valid():
        changes = {k: v for k, v in form.cleaned_data.items() if k not in ("language", "reminders")}
        changes |= reminder_choice_fields(form.cleaned_data["reminders"])
        try:
            learner_profile_update(user=request.user, **changes)
        except ValidationError as exc:
            for field, errors in exc.message_dict.items():
                form.add_error(field if field in form.fields else None, errors)
    if not form.is_valid():
        page = _page(request, profile, form, profile.desired_retention)
        return render(request, "web/core/settings.html", page, status=400)
    language = form.cleaned_data["language"]
    translation.activate(language)
    messages.success(request, _("Settings saved."))
    response = redirect("web:settings")
    _set_language_cookie(response, language)
    return response


def _page(request: LearnerRequest, profile: LearnerProfile, form: LearnerSettingsForm, retention: float) -> dict:
    return {
        "form": form,
        "parameters": parameters_status(user_id=request.user.pk, profile=profile),
        "preview": retention_preview(
            user=request.user, profile=profile, desired_retention=retention, now=timezone.now()
        ),
        **export_context(export_latest(user=request.user)),
        **signed_in_context(request),
    }


@login_required
@require_http_methods(["GET", "HEAD"])
def settings_workload(request: LearnerRequest) -> HttpResponse:
    """The workload panel for the retention being typed (htmx; nothing is saved). Out of range: 400, the reason."""
    form = RetentionPreviewForm(request.GET)
    if not form.is_valid():
        return render(request, "web/core/_workload.html", {"errors": form.errors["desired_retention"]}, status=400)
    profile = profile_for(user=request.user)
    retention = form.cleaned_data["desired_retention"]
    preview = retention_preview(user=request.user, profile=profile, desired_retention=retention, now=timezone.now())
    return render(request, "web/core/_workload.html", {"preview": preview})
