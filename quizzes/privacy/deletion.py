"""Account deletion: the learner's own, with the password asked again; the web page and the API call this one service.

What goes (README "Your data"): the account row and, through it, every row keyed to the user — the learner
profile, API tokens and their devices, cards, every review log, attempts and their items, review packs and
their items, reminder deliveries, Idempotency-Key records, problem reports, data exports (and their stored
files, after the commit), and any table a later issue adds with a foreign key to the user (the deletion test
lists them from the models, so none can be forgotten) — and the browser sessions signed in as the account (they
have no user column; ``user_sessions_end`` finds them). What stays: the answers of each first study-mode attempt per
lesson, copied beforehand into anonymous rows for item statistics (``attempts_anonymise``: no user, no link
back, no free text).

Refused (nothing is deleted): a wrong password (``WRONG_PASSWORD``); a staff or superuser account
(``STAFF_ACCOUNT``: an administrator removes it in the admin, so a stolen admin session cannot wipe it).
Idempotent: an account already deleted is not an error (``AccountDeletion.deleted`` is False).
"""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.db import transaction
from django.utils.translation import gettext as _

from quizzes.accounts.services import user_sessions_end
from quizzes.core.errors import DomainError, ErrorCode
from quizzes.practice.services import attempts_anonymise
from quizzes.privacy.services import data_exports_files, data_exports_files_delete
from quizzes.reviews.models import ReviewLog


@dataclass(frozen=True)
class AccountDeletion:
    deleted: bool
    anonymous_answers: int = 0
    sessions_ended: int = 0


def _delete_review_logs(user_id: int) -> None:
    """The largest table first, by the ORM (issue 26: no hand-written DELETE off the hot paths). The ORM loads
    the logs to send each one's ``post_delete`` (the learner cache's stamp, renewed once per transaction)."""
    ReviewLog.objects.filter(user_id=user_id).delete()


def _refuse(account: User, password: str) -> None:
    if account.is_staff or account.is_superuser:
        raise DomainError(
            ErrorCode.STAFF_ACCOUNT,
            _("A staff account cannot delete itself. Ask another administrator to remove it in the admin."),
        )
    if not password or not account.check_password(password):
        raise DomainError(
            ErrorCode.WRONG_PASSWORD, _("That is not your password. Nothing was deleted."), field="password"
        )


@transaction.atomic
def account_delete(*, user: User, password: str) -> AccountDeletion:
    """Delete the learner's account and everything keyed to it (see the module docstring), or refuse."""
    # get_user_model(), not type(user): a request's user is a SimpleLazyObject.
    account = get_user_model().objects.select_for_update().filter(pk=user.pk).first()
    if account is None:  # deleted already (a double submit waited on the row lock above): nothing left to do
        return AccountDeletion(deleted=False)
    _refuse(account, password)
    user_id = account.pk
    anonymous = attempts_anonymise(user=account)
    files = data_exports_files(user=account)
    sessions = user_sessions_end(user_id=user_id)
    _delete_review_logs(user_id)
    account.delete()
    transaction.on_commit(lambda: data_exports_files_delete(names=files))
    return AccountDeletion(deleted=True, anonymous_answers=anonymous, sessions_ended=sessions)
