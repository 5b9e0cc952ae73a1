"""Your data: export (a background job, its progress and signed download links) and deleting your account.

The rules are quizzes.privacy's: ``data_export_request`` (one job at a time), ``export_download`` (the signed
link, README "Your data"), ``account_delete`` (the one service the API calls too). Asking for an export and
confirming the password are throttled (quizzes.accounts.throttle: ``export``, ``password_confirm``).
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import logout
from django.contrib.auth.decorators import login_required
from django.http import FileResponse, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from quizzes.accounts import throttle
from quizzes.core.errors import DomainError
from quizzes.privacy.deletion import account_delete
from quizzes.privacy.models import DataExport
from quizzes.privacy.selectors import export_download, export_download_tokens, export_for
from quizzes.privacy.services import data_export_request
from quizzes.web.forms import AccountDeleteForm
from quizzes.web.types import LearnerRequest
from quizzes.web.views.accounts import throttled_page
from quizzes.web.views.common import found


def export_context(export: DataExport | None) -> dict[str, object]:
    """What the settings page's "Your data" part shows of the latest export."""
    if export is None:
        return {"export": None}
    links = {
        kind: reverse("web:export_download", args=[token])
        for kind, token in export_download_tokens(export=export).items()
    }
    active = export.status in (DataExport.Status.PENDING, DataExport.Status.RUNNING)
    return {"export": export, "export_links": links, "export_active": active}


@login_required
@require_POST
def export_start(request: LearnerRequest) -> HttpResponse:
    """Start an export (or show the one running): back to the settings page, which shows its progress."""
    try:
        quotas = throttle.request_quotas("export", request=request, username=f"learner:{request.user.pk}")
    except throttle.Throttled as exc:
        return throttled_page(request, exc)
    if data_export_request(user=request.user).created:
        messages.success(request, _("Your export has started. This page shows when it is ready."))
    response = redirect(reverse("web:settings") + "#your-data")
    for name, value in throttle.ratelimit_headers(*quotas).items():
        response[name] = value
    return response


@login_required
@require_safe
def export_status(request: LearnerRequest, export_id: int) -> HttpResponse:
    """The export's status block (htmx polls it every 2 s while the job runs)."""
    export = found(export_for(user=request.user, export_id=export_id), _("No such export of yours."))
    return render(request, "web/core/_export_status.html", export_context(export))


@require_safe
def export_download_view(request: HttpRequest, token: str) -> FileResponse:
    """A signed download link (no sign-in needed: the link is the key, until the export expires)."""
    download = found(
        export_download(token=token),
        _("This download link has expired or is not valid. Ask for a new export in Settings."),
    )
    response = FileResponse(
        download.handle, as_attachment=True, filename=download.filename, content_type=download.content_type
    )
    response["Cache-Control"] = "private, no-store"
    response["Referrer-Policy"] = "no-referrer"
    response["X-Robots-Tag"] = "noindex"
    return response


@login_required
@require_http_methods(["GET", "HEAD", "POST"])
def account_delete_view(request: LearnerRequest) -> HttpResponse:
    """Delete the account: what goes, the password again, a box to tick. A wrong password: 403, nothing deleted."""
    form = AccountDeleteForm(request.POST or None)
    staff = request.user.is_staff or request.user.is_superuser
    context = {"form": form, "staff": staff}
    if request.method != "POST":
        return render(request, "web/core/account_delete.html", context, status=403 if staff else 200)
    if not form.is_valid():
        return render(request, "web/core/account_delete.html", context, status=400)
    try:  # counted before the password is checked
        throttle.attempt("password_confirm", request=request, username=request.user.get_username())
    except throttle.Throttled as exc:
        return throttled_page(request, exc)
    try:
        account_delete(user=request.user, password=form.cleaned_data["password"])
    except DomainError as exc:
        form.add_error("password" if exc.field == "password" else None, exc.messages)
        return render(request, "web/core/account_delete.html", context, status=403)
    logout(request)
    return redirect("web:account_deleted")


@require_safe
def account_deleted(request: HttpRequest) -> HttpResponse:
    return render(request, "web/core/account_deleted.html")
