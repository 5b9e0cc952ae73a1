"""Ways in: sign-up, log-in and password reset, each behind the one throttle policy (quizzes.accounts.throttle);
a password change or reset, which ends the learner's other sessions and API tokens."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.contrib.auth.forms import AuthenticationForm, PasswordChangeForm, SetPasswordForm
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from quizzes.accounts import throttle
from quizzes.accounts.services import account_signed_out_elsewhere, account_signup
from quizzes.core.errors import DomainError
from quizzes.web.forms import SignupForm

#: The backend a fresh sign-up is logged in with (settings.AUTHENTICATION_BACKENDS' first).
LOGIN_BACKEND = "quizzes.accounts.throttle.ThrottledModelBackend"


def throttled_page(request: HttpRequest, exc: throttle.Throttled) -> HttpResponse:
    """429 with Retry-After and a page that says how long to wait."""
    response = render(request, "registration/throttled.html", {"minutes": exc.minutes}, status=429)
    response["Retry-After"] = str(exc.retry_after)
    if isinstance(exc, throttle.QuotaExceeded):  # a quota (sign-up, exports): its RateLimit headers too
        for name, value in throttle.ratelimit_headers(*exc.quotas).items():
            response[name] = value
    return response


class LoginView(auth_views.LoginView):
    """Django's log-in page; the throttle runs inside authenticate() and leaves ``request.throttled``. A success
    makes this browser a known device of the account (its own log-in counter: quizzes.accounts.throttle)."""

    def form_valid(self, form: AuthenticationForm) -> HttpResponse:
        response = super().form_valid(form)
        throttle.remember_device(response, username=form.get_user().get_username())
        return response

    def form_invalid(self, form: AuthenticationForm) -> HttpResponse:
        refused = getattr(self.request, "throttled", None)
        if refused is not None:
            return throttled_page(self.request, refused)
        return super().form_invalid(form)


class PasswordResetView(auth_views.PasswordResetView):
    """Every request counts against the e-mail address and the client IP."""

    email_template_name = "registration/password_reset_email.txt"
    subject_template_name = "registration/password_reset_subject.txt"

    def post(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        try:
            throttle.attempt("password_reset", request=request, username=request.POST.get("email"))
        except throttle.Throttled as exc:
            return throttled_page(request, exc)
        return super().post(request, *args, **kwargs)


class PasswordResetConfirmView(auth_views.PasswordResetConfirmView):
    """The new password from the e-mail's link: every session and API token of the learner ends (the owner proved
    they hold the address), the account's account-wide log-in lock ends, and this browser becomes a known device."""

    def form_valid(self, form: SetPasswordForm) -> HttpResponse:
        response = super().form_valid(form)
        user = form.user
        account_signed_out_elsewhere(user=user)
        throttle.account_reset(username=user.get_username())
        throttle.remember_device(response, username=user.get_username())
        return response


class PasswordChangeView(auth_views.PasswordChangeView):
    """Django's password change (which keeps this session signed in); every other session and API token ends."""

    def form_valid(self, form: PasswordChangeForm) -> HttpResponse:
        response = super().form_valid(form)
        account_signed_out_elsewhere(user=form.user, keep_session_key=self.request.session.session_key)
        return response


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
    ``signup`` throttle (per client IP and per probed username, quizzes.accounts.throttle).
    """
    if request.user.is_authenticated:
        return redirect("web:dashboard")
    next_url = request.POST.get("next") or request.GET.get("next") or ""
    if not url_has_allowed_host_and_scheme(
        next_url, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        next_url = ""
    quotas: tuple[throttle.Quota, ...] = ()
    if request.method == "POST":
        try:  # every submitted form counts: limits account farming and probing for taken usernames
            quotas = throttle.request_quotas("signup", request=request, username=request.POST.get("username"))
        except throttle.Throttled as exc:
            return throttled_page(request, exc)
    response = _signup_form(request, next_url)
    for name, value in throttle.ratelimit_headers(*quotas).items():
        response[name] = value
    return response


def _signup_form(request: HttpRequest, next_url: str) -> HttpResponse:
    """The sign-up form, or the account it created (signed in)."""
    form = SignupForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            user = account_signup(
                username=form.cleaned_data["username"],
                email=form.cleaned_data.get("email") or "",
                password=form.cleaned_data["password1"],
            )
        except DomainError as exc:  # a concurrent sign-up took the username or the e-mail address first
            form.add_error(exc.field, exc.messages)
            return render(request, "web/core/signup.html", {"form": form, "next": next_url}, status=400)
        login(request, user, backend=LOGIN_BACKEND)
        messages.success(request, _("Welcome, %(name)s! Start with the first lesson.") % {"name": user.get_username()})
        response = redirect(next_url or reverse("web:dashboard"))
        throttle.remember_device(response, username=user.get_username())
        return response
    status = 400 if request.method == "POST" else 200
    return render(request, "web/core/signup.html", {"form": form, "next": next_url}, status=status)
