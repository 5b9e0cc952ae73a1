"""Push reminders to a learner's signed-in devices, through django-push-notifications.

Why that library: it is the maintained Django app for the three services a phone or browser registers with — FCM
(HTTP v1, through Google's own firebase-admin SDK, ``messaging.send_each``), APNs (token auth through aioapns) and
Web Push (RFC 8030/8291 through pywebpush) — with the registrations as ordinary models, and it already turns a
service's "this token is gone" answer into an inactive registration (FCM ``UNREGISTERED``, APNs ``Unregistered``,
Web Push 404/410). What it lacks we add here: one result per learner (did any device take the reminder, so the
pass knows whether to fall back to e-mail), and removing the dead registrations instead of keeping them inactive.

Who gets a push: the learner's devices with a registration *and* a live API token (a device that logged out keeps
its registration for the next log-in, but gets nothing meanwhile). Credentials come from the environment
(settings: FCM_SERVICE_ACCOUNT_FILE, APNS_*, WEBPUSH_VAPID_*); a service whose credentials are unset logs the push
it would have sent and counts it as delivered — as e-mail goes to the console in development.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import firebase_admin
from django.conf import settings
from django.contrib.auth.models import User
from django.db.models import Exists, OuterRef, Q
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from firebase_admin import credentials, messaging
from knox.models import AuthToken
from push_notifications.models import APNSDevice, GCMDevice, WebPushDevice

from quizzes.accounts.models import Device

logger = logging.getLogger(__name__)

#: Groups the day's reminders on the phone (a newer one replaces an unread older one).
COLLAPSE_KEY = "reviews_due"


@dataclass(frozen=True)
class PushMessage:
    title: str
    body: str
    data: dict[str, str]


@dataclass
class PushResult:
    """What one learner's push did: devices that took it, that failed, registrations removed as gone."""

    delivered: int = 0
    failed: int = 0
    removed: int = 0
    services: list[str] = field(default_factory=list)


def reminder_push_message(*, due: int, day: dt.date, url: str) -> PushMessage:
    """The reminder's text, in the active language (the caller chooses it, as for the e-mail)."""
    return PushMessage(
        title=_("Reviews are due"),
        body=ngettext("%(count)d review is due today.", "%(count)d reviews are due today.", due) % {"count": due},
        data={"kind": COLLAPSE_KEY, "due": str(due), "day": day.isoformat(), "url": url},
    )


def push_targets(*, user: User) -> list[Device]:
    """The learner's devices that get a push: registered, with an active registration and a live token."""
    live = AuthToken.objects.filter(
        Q(expiry__gt=timezone.now()) | Q(expiry__isnull=True), device__device=OuterRef("pk")
    )
    registered = Q(fcm__active=True) | Q(apns__active=True) | Q(webpush__active=True)
    devices = Device.objects.filter(registered, Exists(live), user=user)
    return list(devices.select_related("fcm", "apns", "webpush").order_by("pk"))


def configured(service: str) -> bool:
    """Whether a service's credentials are set (unset: its pushes are logged, not sent)."""
    return bool(
        {
            "fcm": settings.FCM_SERVICE_ACCOUNT_FILE,
            "apns": settings.APNS_AUTH_KEY_PATH,
            "webpush": settings.WEBPUSH_VAPID_PRIVATE_KEY,
        }[service]
    )


_firebase_lock = threading.Lock()


def firebase_app() -> firebase_admin.App:
    """The default Firebase app (django-push-notifications sends through it), made once from the service account."""
    with _firebase_lock:
        try:
            return firebase_admin.get_app()
        except ValueError:
            certificate = credentials.Certificate(settings.FCM_SERVICE_ACCOUNT_FILE)
            return firebase_admin.initialize_app(certificate, {"httpTimeout": 10})


def _fcm(rows: list[GCMDevice], message: PushMessage) -> list[bool]:
    firebase_app()
    fcm_message = messaging.Message(
        notification=messaging.Notification(title=message.title, body=message.body),
        data=message.data,
        android=messaging.AndroidConfig(collapse_key=COLLAPSE_KEY, priority="normal", ttl=dt.timedelta(hours=12)),
        apns=messaging.APNSConfig(headers={"apns-collapse-id": COLLAPSE_KEY}),
    )
    registrations: Any = GCMDevice.objects.filter(pk__in=[row.pk for row in rows]).order_by("pk")  # its QuerySet
    batch = registrations.send_message(fcm_message)
    return [response.success for response in batch.responses]


def _apns(rows: list[APNSDevice], message: PushMessage) -> list[bool]:
    from push_notifications.apns_async import Alert, apns_send_bulk_message
    from push_notifications.exceptions import APNSError

    outcomes = []
    for row in rows:  # one by one: the library raises for the whole batch if any token failed
        try:
            apns_send_bulk_message(
                registration_ids=[row.registration_id],
                alert=Alert(title=message.title, body=message.body),
                extra=message.data,
                thread_id=COLLAPSE_KEY,
                collapse_id=COLLAPSE_KEY,
            )
            outcomes.append(True)
        except APNSError as exc:
            logger.warning("push: APNs refused device %s: %s", row.pk, exc)
            outcomes.append(False)
    return outcomes


def _webpush(rows: list[WebPushDevice], message: PushMessage) -> list[bool]:
    from push_notifications.exceptions import WebPushError
    from push_notifications.webpush import webpush_send_message

    payload = json.dumps({"title": message.title, "body": message.body, "data": message.data})
    outcomes = []
    for row in rows:
        try:
            outcomes.append(bool(webpush_send_message(row, payload).get("success")))
        except WebPushError as exc:
            logger.warning("push: Web Push refused device %s: %s", row.pk, exc)
            outcomes.append(False)
    return outcomes


SENDERS: dict[str, Callable[[list[Any], PushMessage], list[bool]]] = {
    "fcm": _fcm,
    "apns": _apns,
    "webpush": _webpush,
}
MODELS: dict[str, type[GCMDevice] | type[APNSDevice] | type[WebPushDevice]] = {
    "fcm": GCMDevice,
    "apns": APNSDevice,
    "webpush": WebPushDevice,
}


def _send(service: str, rows: list[Any], message: PushMessage, user: User) -> list[bool]:
    if not configured(service):
        logger.info(
            "push (%s not configured, logged instead of sent) to user %s, %d device(s): %s — %s %s",
            service,
            user.pk,
            len(rows),
            message.title,
            message.body,
            message.data,
        )
        return [True] * len(rows)
    try:
        return SENDERS[service](rows, message)
    except Exception:  # a service down or misconfigured: this learner's other services and the e-mail still go
        logger.exception("push: %s failed for user %s", service, user.pk)
        return [False] * len(rows)


def push_send(*, user: User, message: PushMessage, devices: list[Device] | None = None) -> PushResult:
    """Send the message to the learner's push targets, service by service; remove the registrations found gone."""
    devices = push_targets(user=user) if devices is None else devices
    result = PushResult()
    for service in SENDERS:
        rows = [getattr(device, service) for device in devices if getattr(device, f"{service}_id") is not None]
        rows = [row for row in rows if row.active]
        if not rows:
            continue
        outcomes = _send(service, rows, message, user)
        result.delivered += sum(outcomes)
        result.failed += len(outcomes) - sum(outcomes)
        result.services.append(service)
        # The library marks a registration the service called gone as inactive; it is gone for us too.
        _total, per_model = MODELS[service].objects.filter(pk__in=[row.pk for row in rows], active=False).delete()
        result.removed += per_model.get(MODELS[service]._meta.label, 0)
    return result
