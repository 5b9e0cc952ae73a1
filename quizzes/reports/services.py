"""Writes of problem reports: a learner files one about what they saw; staff resolve them."""

from __future__ import annotations

from collections.abc import Iterable

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from quizzes.core.errors import DomainError, ErrorCode
from quizzes.reports.models import ProblemReport
from quizzes.reports.selectors import ReportTarget


@transaction.atomic
def problem_report_create(*, user: User, target: ReportTarget, category: str, text: str) -> ProblemReport:
    """File a report about ``target`` (one of the learner's own: the selectors found it for them).

    Refused before the reveal (``NOT_REVEALED``): a report is about a question whose answer the learner has
    seen, and the page only offers it then. A category or text the model refuses is a field error.
    """
    if not target.revealed:
        raise DomainError(
            ErrorCode.NOT_REVEALED,
            _("Answer this item first: a problem can be reported once its answer is shown."),
        )
    report = ProblemReport(
        user=user,
        question=target.question,
        origin=target.origin,
        attempt_item=target.attempt_item,
        pack_item=target.pack_item,
        card=target.card,
        prompt=target.prompt,
        template_version=target.template_version,
        variant_seed=target.variant_seed,
        category=category,
        text=text.strip(),
    )
    report.full_clean()
    report.save()
    return report


@transaction.atomic
def problem_reports_resolve(*, reports: Iterable[ProblemReport], by: User) -> int:
    """Mark open reports resolved by ``by`` (staff: the admin's action); already resolved ones stay as they were.
    Returns how many were resolved now."""
    ids = [report.pk for report in reports]
    return ProblemReport.objects.open().filter(pk__in=ids).update(resolved_at=timezone.now(), resolved_by=by)
