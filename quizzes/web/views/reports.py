"""Report a problem with a question (after its lock, or a card's reveal), and "My reports": whether each was resolved.

The rules are quizzes.reports' (the learner's own item or card, only once its answer was shown); filing one counts
against the learner's ``reports`` quota, as the API's does (429 with Retry-After and the RateLimit headers).
"""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_http_methods, require_safe

from quizzes.accounts.throttle import QuotaExceeded, learner_quota, ratelimit_headers
from quizzes.reports.models import TEXT_MAX_LENGTH, ProblemReport
from quizzes.reports.selectors import ReportTarget, card_target, item_target, reports_of
from quizzes.reports.services import problem_report_create
from quizzes.web.types import LearnerRequest
from quizzes.web.views.common import found


class ReportForm(forms.Form):
    category = forms.ChoiceField(
        label=gettext_lazy("What is wrong?"), choices=ProblemReport.Category.choices, widget=forms.RadioSelect
    )
    text = forms.CharField(
        label=gettext_lazy("Tell us more (optional)"),
        required=False,
        max_length=TEXT_MAX_LENGTH,
        widget=forms.Textarea(attrs={"rows": 5}),
    )


def _back_url(target: ReportTarget) -> str | None:
    """Where "back to the question" goes: the attempt item's page (a card has no page of its own here)."""
    item = target.attempt_item
    if item is None:
        return None
    return reverse("web:attempt_item", args=[item.attempt_id, item.position + 1])


def _report_page(request: LearnerRequest, target: ReportTarget | None, action: str) -> HttpResponse:
    target = found(target, _("No such question to report."))
    context = {"target": target, "action": action, "back_url": _back_url(target)}
    if not target.revealed:
        context["form"] = ReportForm()
        context["error"] = _("Answer this item first: a problem can be reported once its answer is shown.")
        return render(request, "web/reports/report_form.html", context, status=400)
    form = ReportForm(request.POST if request.method == "POST" else None)
    if request.method != "POST" or not form.is_valid():
        context["form"] = form
        return render(request, "web/reports/report_form.html", context, status=400 if form.is_bound else 200)
    try:
        quota = learner_quota("reports", user_id=request.user.pk)
    except QuotaExceeded as exc:
        context["form"] = form
        context["error"] = _("Too many reports in a short time; wait %(seconds)d s and send it again.") % {
            "seconds": exc.retry_after
        }
        response = render(request, "web/reports/report_form.html", context, status=429)
        for name, value in {"Retry-After": str(exc.retry_after), **ratelimit_headers(exc.quota)}.items():
            response[name] = value
        return response
    try:
        problem_report_create(
            user=request.user, target=target, category=form.cleaned_data["category"], text=form.cleaned_data["text"]
        )
    except ValidationError as exc:
        context["form"] = form
        context["error"] = " ".join(exc.messages)
        return render(request, "web/reports/report_form.html", context, status=400)
    messages.success(request, _("Thank you: your report was sent to the authors."))
    response = redirect("web:my_reports")
    for name, value in ratelimit_headers(quota).items():
        response[name] = value
    return response


@login_required
@require_http_methods(["GET", "HEAD", "POST"])
def report_item(request: LearnerRequest, item_id: int) -> HttpResponse:
    """Report a problem with an item of one of the learner's attempts (after its lock)."""
    target = item_target(user=request.user, item_id=item_id)
    return _report_page(request, target, reverse("web:report_item", args=[item_id]))


@login_required
@require_http_methods(["GET", "HEAD", "POST"])
def report_card(request: LearnerRequest, card_id: int) -> HttpResponse:
    """Report a problem with one of the learner's cards (an interview prompt or recall card after its reveal)."""
    target = card_target(user=request.user, card_id=card_id)
    return _report_page(request, target, reverse("web:report_card", args=[card_id]))


@login_required
@require_safe
def my_reports(request: LearnerRequest) -> HttpResponse:
    """The learner's reports, newest first: open, or resolved (and when)."""
    return render(request, "web/reports/my_reports.html", {"reports": reports_of(user=request.user)})
