"""The learner's settings page: study preferences (saved through the profile service) and the UI language."""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.utils import translation
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from quizzes.accounts.selectors import profile_for
from quizzes.accounts.services import learner_profile_update
from quizzes.web.forms import REMINDERS_OFF, LearnerSettingsForm, reminder_changes
from quizzes.web.types import LearnerRequest
from quizzes.web.views.signed_in import signed_in_context


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
        "reminders": profile.reminder_channel if profile.reminder_opt_in else REMINDERS_OFF,
    }
    if request.method != "POST":
        context = {"form": LearnerSettingsForm(initial=current), **signed_in_context(request)}
        return render(request, "web/core/settings.html", context)
    form = LearnerSettingsForm(request.POST, initial=current)
    if form.is_valid():
        changes = {k: v for k, v in form.cleaned_data.items() if k not in ("language", "reminders")}
        changes |= reminder_changes(form.cleaned_data["reminders"])
        try:
            learner_profile_update(user=request.user, **changes)
        except ValidationError as exc:
            for field, errors in exc.message_dict.items():
                form.add_error(field if field in form.fields else None, errors)
    if not form.is_valid():
        return render(request, "web/core/settings.html", {"form": form, **signed_in_context(request)}, status=400)
    language = form.cleaned_data["language"]
    translation.activate(language)
    messages.success(request, _("Settings saved."))
    response = redirect("web:settings")
    _set_language_cookie(response, language)
    return response
