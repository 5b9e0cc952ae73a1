"""Where the learner is signed in (the settings page's "Signed in" section): browser sessions and the app's devices,
each with "Sign out", and "Sign out everywhere". Another learner's session or device is not found (404)."""

from __future__ import annotations

import re
from typing import Any

from django.contrib import messages
from django.contrib.auth import logout
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse
from django.shortcuts import redirect
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from quizzes.accounts.devices import device_delete
from quizzes.accounts.selectors import browser_sessions_of, device_for, devices_of
from quizzes.accounts.services import account_sign_out_everywhere, browser_session_end
from quizzes.web.types import LearnerRequest
from quizzes.web.views.common import found

#: (pattern, name) in the order they must be tried: Edge and Opera say "Chrome" too, Chrome says "Safari".
BROWSERS = (
    (r"Edg/", "Edge"),
    (r"OPR/|Opera", "Opera"),
    (r"Firefox/", "Firefox"),
    (r"Chrom(e|ium)/", "Chrome"),
    (r"Safari/", "Safari"),
)
SYSTEMS = (
    (r"Android", "Android"),
    (r"iPhone|iPad|iPod", "iOS"),
    (r"Windows", "Windows"),
    (r"Mac OS X|Macintosh", "macOS"),
    (r"CrOS", "ChromeOS"),
    (r"Linux", "Linux"),
)


def browser_label(user_agent: str) -> str:
    """ "Firefox on Linux" from a User-Agent header; a short, honest guess (the header is the browser's own word)."""
    browser = next((name for pattern, name in BROWSERS if re.search(pattern, user_agent)), "")
    system = next((name for pattern, name in SYSTEMS if re.search(pattern, user_agent)), "")
    if browser and system:
        return _("%(browser)s on %(system)s") % {"browser": browser, "system": system}
    return browser or system or _("Unknown browser")


def signed_in_context(request: LearnerRequest) -> dict[str, Any]:
    """The settings page's lists: this learner's browser sessions and devices."""
    sessions = browser_sessions_of(user=request.user, current_key=request.session.session_key)
    return {
        "browser_sessions": [{"row": row, "browser": browser_label(row.user_agent)} for row in sessions],
        "devices": devices_of(user=request.user),
    }


@login_required
@require_POST
def session_sign_out(request: LearnerRequest, session_id: int) -> HttpResponse:
    current = next(
        (row for row in browser_sessions_of(user=request.user, current_key=request.session.session_key) if row.current),
        None,
    )
    if not browser_session_end(user=request.user, session_id=session_id):
        raise Http404(_("No such session."))
    if current is not None and current.id == session_id:
        logout(request)
        return redirect("web:login")
    messages.success(request, _("That browser is signed out."))
    return redirect("web:settings")


@login_required
@require_POST
def device_sign_out(request: LearnerRequest, device_id: int) -> HttpResponse:
    device = found(device_for(user=request.user, device_pk=device_id), _("No such device."))
    device_delete(device=device)
    messages.success(request, _("%(device)s is signed out; it gets no more reminders.") % {"device": device})
    return redirect("web:settings")


@login_required
@require_POST
def sign_out_everywhere(request: LearnerRequest) -> HttpResponse:
    account_sign_out_everywhere(user=request.user)
    logout(request)
    messages.success(request, _("You are signed out everywhere: every browser and every app."))
    return redirect("web:login")
