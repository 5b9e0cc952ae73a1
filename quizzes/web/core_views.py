"""The learner shell: landing/dashboard, lessons, the d_k demo, settings and sign-up.

Thin: reads go through quizzes.selectors / quizzes.selectors_web, writes through quizzes.services.
The practice flows (attempts, reviews, interview, recall) live in quizzes.web.practice_views.
"""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_safe

from quizzes import charts, demo, selectors, selectors_web, throttle
from quizzes.models import Lesson
from quizzes.services.profiles import learner_profile_get_or_create, learner_profile_update
from quizzes.web.forms import EMAIL_TAKEN, DemoForm, LearnerSettingsForm, SignupForm, email_taken

#: The lesson whose page carries the d_k demo (lesson 1, scaled dot-product attention).
DEMO_LESSON_KEY = "sdpa"


# --- dashboard / landing -------------------------------------------------------------------------


@require_safe
def dashboard(request: HttpRequest) -> HttpResponse:
    """ "/": the learner's dashboard, or a short landing page with the lessons for visitors."""
    if not request.user.is_authenticated:
        return render(request, "web/core/landing.html", {"lessons": selectors.lesson_list_published()})
    user = request.user
    now = timezone.now()
    profile = selectors.profile_for(user)  # once per request, passed down
    today = selectors.today_logs(user=user, profile=profile, now=now)
    due = selectors.due_count(user=user, now=now, profile=profile, today=today)
    request._quizzes_due_now = due  # the nav badge reuses it
    forecast = selectors.due_forecast(user=user, days=14, now=now, profile=profile)
    heatmap = selectors.review_heatmap(user=user, days=365, now=now, profile=profile)
    context = {
        "profile": profile,
        "due": due,
        "next_review": None if due else selectors_web.next_review_at(user=user),
        "streak": selectors.review_streak(user=user, now=now, profile=profile, recent=heatmap),
        "progress": selectors.lesson_progress(user=user, now=now, profile=profile),
        "forecast": forecast,
        "forecast_svg": charts.forecast_svg(forecast),
        "forecast_summary": charts.forecast_summary(forecast),
        "heatmap_svg": charts.heatmap_svg(heatmap),
        "heatmap_summary": charts.heatmap_summary(heatmap),
        "heatmap_active_days": [d for d in reversed(heatmap) if d.count],
        "new_available": selectors.new_count(user=user, now=now, profile=profile, today=today),
    }
    return render(request, "web/core/dashboard.html", context)


# --- lessons -------------------------------------------------------------------------------------


@require_safe
def lesson_list(request: HttpRequest) -> HttpResponse:
    """Every published lesson; signed-in learners also see their progress per lesson."""
    context: dict = {"lessons": selectors.lesson_list_published()}
    if request.user.is_authenticated:
        context["progress"] = {p.lesson.pk: p for p in selectors.lesson_progress(user=request.user)}
    return render(request, "web/core/lesson_list.html", context)


def _demo_context(request: HttpRequest) -> tuple[dict, int]:
    """The demo form and its matrix; status 400 (with the form's message) for a bad d_k."""
    form = DemoForm.from_query(request.GET)
    if not form.is_valid():
        return {"demo_form": form, "demo": None}, 400
    try:
        matrix = demo.demo_matrix(**form.cleaned_data)
    except ValueError as exc:  # the form already checks the range; this keeps the pure function's word final
        form.add_error("d_k", str(exc))
        return {"demo_form": form, "demo": None}, 400
    rows = [
        {
            "index": i + 1,
            "max": matrix["row_max"][i],
            "cells": [
                {
                    "weight": w,
                    "masked": matrix["causal"] and j > i,
                    "is_max": w == matrix["row_max"][i],
                    "dark": w >= 0.5,
                    "heat": round(w * 20),  # CSS class heat-0…heat-20 (site.css): no inline style, for the CSP
                }
                for j, w in enumerate(row)
            ],
        }
        for i, row in enumerate(matrix["weights"])
    ]
    return {"demo_form": form, "demo": matrix, "demo_rows": rows, "demo_columns": range(1, matrix["tokens"] + 1)}, 200


@require_safe
def lesson_detail(request: HttpRequest, key: str) -> HttpResponse:
    try:
        lesson = selectors_web.lesson_published_get(key=key)
    except Lesson.DoesNotExist:
        raise Http404(_("No published lesson with this key.")) from None
    context: dict = {
        "lesson": lesson,
        "quiz_count": selectors_web.lesson_quiz_count(lesson=lesson),
        **selectors_web.lesson_practice_questions(lesson=lesson),
        "attempts": [],
        "has_demo": lesson.key == DEMO_LESSON_KEY,
    }
    status = 200
    if request.user.is_authenticated:
        context["attempts"] = selectors_web.lesson_attempts(user=request.user, lesson=lesson)
        context["learner_time_zone"] = selectors.profile_for(request.user).time_zone
    if context["has_demo"]:
        demo_context, status = _demo_context(request)
        context.update(demo_context)
    return render(request, "web/core/lesson_detail.html", context, status=status)


@require_safe
def attention_demo(request: HttpRequest) -> HttpResponse:
    """The d_k demo alone: the matrix fragment for htmx, a full page for a plain request."""
    context, status = _demo_context(request)
    template = "web/core/_demo_matrix.html" if request.htmx else "web/core/demo.html"
    return render(request, template, context, status=status)


# --- settings ------------------------------------------------------------------------------------


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
def settings_view(request: HttpRequest) -> HttpResponse:
    """Study preferences. The profile has no language column, so the language is kept the way
    Django's own switcher keeps it: the language cookie (per browser), set on save."""
    profile = selectors.profile_for(request.user)
    current = {
        "time_zone": profile.time_zone,
        "day_rollover_hour": profile.day_rollover_hour,
        "language": translation.get_language(),
        "desired_retention": profile.desired_retention,
        "new_per_day": profile.new_per_day,
        "reminder_opt_in": profile.reminder_opt_in,
    }
    if request.method != "POST":
        return render(request, "web/core/settings.html", {"form": LearnerSettingsForm(initial=current)})
    form = LearnerSettingsForm(request.POST, initial=current)
    if form.is_valid():
        changes = {k: v for k, v in form.cleaned_data.items() if k != "language"}
        try:
            learner_profile_update(user=request.user, **changes)
        except ValidationError as exc:
            for field, errors in exc.message_dict.items():
                form.add_error(field if field in form.fields else None, errors)
    if not form.is_valid():
        return render(request, "web/core/settings.html", {"form": form}, status=400)
    language = form.cleaned_data["language"]
    translation.activate(language)
    messages.success(request, _("Settings saved."))
    response = redirect("web:settings")
    _set_language_cookie(response, language)
    return response


# --- throttled ways in (quizzes.throttle): log-in, password reset, sign-up ------------------------------


def throttled_page(request: HttpRequest, exc: throttle.Throttled) -> HttpResponse:
    """429 with Retry-After and a page that says how long to wait."""
    response = render(request, "registration/throttled.html", {"minutes": exc.minutes}, status=429)
    response["Retry-After"] = str(exc.retry_after)
    return response


class LoginView(auth_views.LoginView):
    """Django's log-in page; the throttle runs inside authenticate() and leaves ``request.throttled``."""

    def form_invalid(self, form):  # type: ignore[no-untyped-def]
        refused = getattr(self.request, "throttled", None)
        if refused is not None:
            return throttled_page(self.request, refused)
        return super().form_invalid(form)


class PasswordResetView(auth_views.PasswordResetView):
    """Every request counts against the e-mail address and the client IP."""

    def post(self, request: HttpRequest, *args, **kwargs) -> HttpResponse:  # type: ignore[no-untyped-def]
        try:
            throttle.attempt("password_reset", request=request, username=request.POST.get("email"))
        except throttle.Throttled as exc:
            return throttled_page(request, exc)
        return super().post(request, *args, **kwargs)


# --- sign-up -------------------------------------------------------------------------------------


@require_http_methods(["GET", "HEAD", "POST"])
def signup(request: HttpRequest) -> HttpResponse:
    """Create an account and its learner profile, then sign in (back to ``next`` if it is ours).

    Username enumeration, decided: sign-up necessarily says "this username is taken" (a username is a
    handle the learner picks, and they must be told to pick another), and likewise that an e-mail
    address is already used by another account (one account per address). That is acceptable here:
    accounts hold study progress, not secrets, and these are the only places an account's existence
    shows — log-in (page and API) answers "wrong username or password" either way, and password reset
    always answers "sent if an account has this address". Probing through this form is limited by the
    ``signup`` throttle (per client IP and per probed username, quizzes.throttle).
    """
    if request.user.is_authenticated:
        return redirect("web:dashboard")
    next_url = request.POST.get("next") or request.GET.get("next") or ""
    if not url_has_allowed_host_and_scheme(
        next_url, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        next_url = ""
    if request.method == "POST":
        try:  # every submitted form counts: limits account farming and probing for taken usernames
            throttle.attempt("signup", request=request, username=request.POST.get("username"))
        except throttle.Throttled as exc:
            return throttled_page(request, exc)
    form = SignupForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            with transaction.atomic():
                user = form.save()
                learner_profile_get_or_create(user=user)
        except IntegrityError:  # a concurrent sign-up took the username or the e-mail address first
            taken = email_taken(form.cleaned_data.get("email") or "") if form.cleaned_data.get("email") else False
            form.add_error("email" if taken else "username", EMAIL_TAKEN if taken else _("This username is taken."))
            return render(request, "web/core/signup.html", {"form": form, "next": next_url}, status=400)
        login(request, user, backend="quizzes.throttle.ThrottledModelBackend")
        messages.success(request, _("Welcome, %(name)s! Start with the first lesson.") % {"name": user.get_username()})
        return redirect(next_url or reverse("web:dashboard"))
    status = 400 if request.method == "POST" else 200
    return render(request, "web/core/signup.html", {"form": form, "next": next_url}, status=status)
