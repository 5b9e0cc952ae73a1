"""Export reads: a learner's export (theirs only), their latest, whether to answer inline, a download's file."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from django.contrib.auth.models import User
from django.core.files import File
from django.core.files.storage import default_storage
from django.utils import timezone

from quizzes.privacy.document import export_size
from quizzes.privacy.models import DataExport
from quizzes.privacy.rules import FILE_KINDS, download_token, inline_max_rows, read_download_token


def export_for(*, user: User, export_id: int) -> DataExport | None:
    """The learner's export with this id, or None (another learner's is not found either)."""
    return DataExport.objects.owned_by(user).filter(pk=export_id).first()


def export_latest(*, user: User) -> DataExport | None:
    """The learner's most recent export (the settings page shows it)."""
    return DataExport.objects.owned_by(user).first()


def export_fits_inline(*, user: User) -> bool:
    """Whether the learner's whole history is small enough to answer in the request (EXPORT_INLINE_MAX_ROWS)."""
    return export_size(user=user).rows <= inline_max_rows()


def export_download_tokens(*, export: DataExport, now: dt.datetime | None = None) -> dict[str, str]:
    """The signed tokens of a ready export's files, by kind ("json", "apkg"); {} before it is ready or after."""
    now = now or timezone.now()
    if export.status != DataExport.Status.READY or export.expires_at is None or export.expires_at <= now:
        return {}
    return {
        kind: download_token(export_id=export.pk, kind=kind, user_id=export.user_id, expires_at=export.expires_at)
        for kind in export.files
    }


@dataclass(frozen=True)
class Download:
    handle: File
    filename: str
    content_type: str
    size: int


def export_download(*, token: str, now: dt.datetime | None = None) -> Download | None:
    """The file a download token names, opened, while its export exists and has not expired; None otherwise."""
    now = now or timezone.now()
    claim = read_download_token(token, now=now)
    if claim is None:
        return None
    export = DataExport.objects.filter(
        pk=claim.export_id, user_id=claim.user_id, status=DataExport.Status.READY, expires_at__gt=now
    ).first()
    if export is None or export.expires_at is None or claim.kind not in export.files:
        return None
    if int(export.expires_at.timestamp()) != int(claim.expires_at.timestamp()):  # a link of an earlier state
        return None
    name = export.files[claim.kind]
    try:
        handle = default_storage.open(name, "rb")
    except FileNotFoundError:
        return None
    _suffix, content_type = FILE_KINDS[claim.kind]
    return Download(handle=handle, filename=name.rsplit("/", 1)[-1], content_type=content_type, size=handle.size)
