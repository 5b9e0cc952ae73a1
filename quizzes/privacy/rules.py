"""The export's rules: inline or a job, how long links live, and the download link's token.

**The download link** is a bearer link, *signed and short-lived*: its token is the export's id, the file's kind,
the owner's id and the export's expiry, signed with HMAC-SHA256 under ``SECRET_KEY`` (Django's ``signing``,
a salt of its own). It cannot be guessed or altered, and it works only while the export exists and until
``expires_at`` (``EXPORT_LINK_TTL`` after the job finished: 24 h by default), when housekeeping deletes the
files. It needs no cookie or token, so a phone can hand it to the system's downloader; whoever holds the
link within that window can download the file, so it is shown only to its owner, and the download answers
``Cache-Control: no-store`` and ``Referrer-Policy: no-referrer``.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from django.conf import settings
from django.core import signing

#: The kinds of file an export writes, with their download names' suffix and content type.
FILE_KINDS = {"json": ("json", "application/json"), "apkg": ("apkg", "application/octet-stream")}
SALT = "quizzes.privacy.export-download"
#: The document's format name and version (bump the version when a key changes meaning or goes away).
DOCUMENT_FORMAT = "quizsite-export"
DOCUMENT_VERSION = 1


def inline_max_rows() -> int:
    """At most this many rows are answered inline by the API; more run as a job."""
    return int(settings.EXPORT_INLINE_MAX_ROWS)


def link_ttl() -> dt.timedelta:
    ttl: dt.timedelta = settings.EXPORT_LINK_TTL
    return ttl


def stale_after() -> dt.timedelta:
    after: dt.timedelta = settings.EXPORT_STALE_AFTER
    return after


@dataclass(frozen=True)
class DownloadClaim:
    """What a valid download token says: which export's which file, for whom, until when."""

    export_id: int
    kind: str
    user_id: int
    expires_at: dt.datetime


def download_token(*, export_id: int, kind: str, user_id: int, expires_at: dt.datetime) -> str:
    """The signed token of one file's download link."""
    assert kind in FILE_KINDS
    payload = [export_id, kind, user_id, int(expires_at.timestamp())]
    return signing.dumps(payload, salt=SALT, compress=False)


def read_download_token(token: str, *, now: dt.datetime) -> DownloadClaim | None:
    """The claim of a token that verifies and has not expired at ``now``; None otherwise (tampered, expired)."""
    try:
        export_id, kind, user_id, expires = signing.loads(token, salt=SALT)
    except (signing.BadSignature, ValueError, TypeError):
        return None
    if kind not in FILE_KINDS or not all(isinstance(v, int) for v in (export_id, user_id, expires)):
        return None
    expires_at = dt.datetime.fromtimestamp(expires, tz=dt.UTC)
    if expires_at <= now:
        return None
    return DownloadClaim(export_id=export_id, kind=kind, user_id=user_id, expires_at=expires_at)
