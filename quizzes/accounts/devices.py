"""Device writes: a learner's phones and browsers with API tokens, their push registration, their "last seen".

A device (``Device``) is a record that outlives its tokens: log-in finds it again by the app's own stable id
(quizzes.accounts.services.api_token_create), so a re-login keeps its name and push registration. Deleting a
device ends its tokens and its push registration at once. Keyword-only ``device_*`` services, each in a
transaction; the reads are in quizzes.accounts.selectors.

Push registrations are django-push-notifications' rows (``GCMDevice`` for FCM, ``APNSDevice``, ``WebPushDevice``),
at most one per device (a check constraint). A push token belongs to one device: registering it on a device
takes it off any other device that had it (the same phone, another account signed in on it before).
"""

from __future__ import annotations

import base64
import binascii
import datetime as dt
import re
import threading
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from knox.models import AuthToken
from push_notifications.models import APNSDevice, GCMDevice, WebPushDevice

from quizzes.accounts.models import Device
from quizzes.core.errors import DomainError, ErrorCode

#: The push services a device can register with, and the platforms each one serves.
PUSH_SERVICES: Mapping[str, frozenset[str]] = {
    "fcm": frozenset({Device.Platform.ANDROID, Device.Platform.IOS, Device.Platform.WEB}),
    "apns": frozenset({Device.Platform.IOS}),
    "webpush": frozenset({Device.Platform.WEB}),
}
#: A device of unknown platform (logged in without one, or from before devices had one) takes it from the service.
IMPLIED_PLATFORM = {"apns": Device.Platform.IOS, "webpush": Device.Platform.WEB}

#: FCM registration tokens: URL-safe base64 with ":" (about 160 characters today; Google promises no length).
FCM_TOKEN = re.compile(r"[A-Za-z0-9_:\-]{32,4096}")
#: APNs device tokens: hexadecimal bytes (32 today; Apple says they may grow), sent as hex.
APNS_TOKEN = re.compile(r"(?:[0-9a-fA-F]{2}){32,100}")
WEBPUSH_BROWSERS = frozenset(code for code, _label in WebPushDevice._meta.get_field("browser").choices or ())


def _invalid(field: str, message: str) -> DomainError:
    return DomainError(ErrorCode.VALIDATION_ERROR, message, field=field)


def _base64url_bytes(value: object, field: str) -> bytes:
    if not isinstance(value, str) or not re.fullmatch(r"[A-Za-z0-9_\-]+={0,2}", value):
        raise _invalid(field, _("Not URL-safe base64."))
    try:
        return base64.urlsafe_b64decode(value + "=" * (-len(value) % 4))
    except (binascii.Error, ValueError):
        raise _invalid(field, _("Not URL-safe base64.")) from None


def _checked_subscription(subscription: Mapping[str, Any]) -> dict[str, str]:
    """A Web Push subscription (PushSubscription.toJSON()): an https endpoint and the keys of RFC 8291."""
    endpoint = subscription.get("endpoint")
    if not isinstance(endpoint, str) or len(endpoint) > 2048:
        raise _invalid("subscription.endpoint", _("An https URL of at most 2048 characters."))
    parts = urlsplit(endpoint)
    if parts.scheme != "https" or not parts.hostname:
        raise _invalid("subscription.endpoint", _("An https URL of at most 2048 characters."))
    keys = subscription.get("keys")
    keys = keys if isinstance(keys, Mapping) else {}
    p256dh = _base64url_bytes(keys.get("p256dh"), "subscription.keys.p256dh")
    if len(p256dh) != 65 or p256dh[0] != 4:
        raise _invalid("subscription.keys.p256dh", _("An uncompressed P-256 public key (65 bytes)."))
    if len(_base64url_bytes(keys.get("auth"), "subscription.keys.auth")) != 16:
        raise _invalid("subscription.keys.auth", _("A 16-byte authentication secret."))
    return {"endpoint": endpoint, "p256dh": str(keys["p256dh"]), "auth": str(keys["auth"])}


def _checked_platform(*, device: Device, service: str) -> str:
    if service not in PUSH_SERVICES:
        raise _invalid("service", _("One of: %(services)s.") % {"services": ", ".join(PUSH_SERVICES)})
    platform = device.platform
    if platform == Device.Platform.OTHER:
        platform = IMPLIED_PLATFORM.get(service, platform)
    elif platform not in PUSH_SERVICES[service]:
        raise _invalid(
            "service",
            _("A %(platform)s device cannot register with %(service)s.")
            % {"platform": device.get_platform_display(), "service": service},
        )
    return platform


def _push_rows_of(device: Device) -> list[Any]:
    return [row for row in (device.fcm, device.apns, device.webpush) if row is not None]


@transaction.atomic
def device_push_register(
    *,
    device: Device,
    service: str,
    token: str = "",
    subscription: Mapping[str, Any] | None = None,
    browser: str = "CHROME",
) -> Device:
    """Register this device's push token (``fcm``/``apns``) or Web Push subscription, replacing its previous one.

    Refused on the field (400): an unknown service, one the device's platform does not use (APNs is iOS's, Web Push
    the browser's), a token of the wrong format. The token is taken off every other device that had it.
    """
    device = Device.objects.select_for_update(of=("self",)).select_related("fcm", "apns", "webpush").get(pk=device.pk)
    platform = _checked_platform(device=device, service=service)
    row: GCMDevice | APNSDevice | WebPushDevice
    if service == "webpush":
        if browser not in WEBPUSH_BROWSERS:
            raise _invalid("browser", _("One of: %(browsers)s.") % {"browsers": ", ".join(sorted(WEBPUSH_BROWSERS))})
        checked = _checked_subscription(subscription if isinstance(subscription, Mapping) else {})
        WebPushDevice.objects.filter(registration_id=checked["endpoint"]).delete()
        row = WebPushDevice(
            user=device.user,
            name=device.name,
            registration_id=checked["endpoint"],
            p256dh=checked["p256dh"],
            auth=checked["auth"],
            browser=browser,
        )
    elif service == "fcm":
        if not FCM_TOKEN.fullmatch(token or ""):
            raise _invalid("token", _("Not an FCM registration token."))
        GCMDevice.objects.filter(registration_id=token).delete()
        row = GCMDevice(user=device.user, name=device.name, registration_id=token, cloud_message_type="FCM")
    else:
        if not APNS_TOKEN.fullmatch(token or ""):
            raise _invalid("token", _("Not an APNs device token (hexadecimal, at least 32 bytes)."))
        APNSDevice.objects.filter(registration_id__iexact=token).delete()
        row = APNSDevice(user=device.user, name=device.name, registration_id=token.lower())
    for old in _push_rows_of(device):
        old.delete()
    row.save()
    device.fcm = row if isinstance(row, GCMDevice) else None
    device.apns = row if isinstance(row, APNSDevice) else None
    device.webpush = row if isinstance(row, WebPushDevice) else None
    device.platform = platform
    device.save(update_fields=["fcm", "apns", "webpush", "platform"])
    return device


@transaction.atomic
def device_push_unregister(*, device: Device) -> bool:
    """This device gets no pushes any more. Returns whether it had a registration (the call is idempotent)."""
    device = Device.objects.select_for_update(of=("self",)).select_related("fcm", "apns", "webpush").get(pk=device.pk)
    rows = _push_rows_of(device)
    for row in rows:
        row.delete()
    return bool(rows)


@transaction.atomic
def device_rename(*, device: Device, name: str) -> Device:
    device.name = name
    device.full_clean(validate_unique=False, validate_constraints=False)
    device.save(update_fields=["name"])
    for row in _push_rows_of(device):  # the library's admin shows its own name
        type(row).objects.filter(pk=row.pk).update(name=name)
    return device


@transaction.atomic
def device_delete(*, device: Device) -> None:
    """Sign this device out for good: its tokens and its push registration end with it, at once."""
    AuthToken.objects.filter(device__device=device).delete()
    device = Device.objects.select_related("fcm", "apns", "webpush").get(pk=device.pk)
    for row in _push_rows_of(device):
        row.delete()
    device.delete()


# --- last seen: knox authenticates every API request; this writes at most once per interval ------------------

_seen: dict[str, dt.datetime] = {}
_seen_lock = threading.Lock()
_SEEN_MAX = 50_000


def device_seen_note(*, digest: str, now: dt.datetime) -> None:
    """Remember that this token's device was written at ``now`` (log-in writes last_seen_at itself)."""
    with _seen_lock:
        if len(_seen) >= _SEEN_MAX:
            _seen.clear()
        _seen[digest] = now


def device_seen(*, token: AuthToken, now: dt.datetime | None = None) -> None:
    """The device of this token was seen now: one UPDATE at most every DEVICE_SEEN_INTERVAL per token and process.

    The hot path (every token-authenticated request) does no query at all while the process wrote the token's device
    less than the interval ago; after that, one conditional UPDATE (writing nothing if another process wrote it).
    One statement, so no transaction of its own.
    """
    now = now or timezone.now()
    interval = settings.DEVICE_SEEN_INTERVAL
    last = _seen.get(token.digest)
    if last is not None and now - last < interval:
        return
    device_seen_note(digest=token.digest, now=now)
    Device.objects.filter(tokens__token=token.digest, last_seen_at__lt=now - interval).update(last_seen_at=now)
