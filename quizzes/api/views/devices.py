"""A learner's devices: list them, rename one, sign one out for good (DELETE), register and drop its push token.

A device is the record behind the app's tokens (quizzes.accounts.devices): it outlives them, so a re-login with
the same ``device_id`` keeps its name and push registration. Another learner's device is not found (404), like
an unknown one: a 403 would tell that it exists.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from drf_spectacular.utils import OpenApiResponse, extend_schema
from knox.models import AuthToken
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from quizzes.accounts.devices import (
    PUSH_SERVICES,
    WEBPUSH_BROWSERS,
    device_push_register,
    device_push_unregister,
    device_rename,
)
from quizzes.accounts.devices import device_delete as delete_device
from quizzes.accounts.models import Device
from quizzes.accounts.selectors import DeviceView, device_for, device_view, devices_of
from quizzes.api.fields import StrictCharField
from quizzes.api.schema import errors
from quizzes.api.types import LearnerApiRequest
from quizzes.api.views.common import found, validated_body

TAG = ["devices"]

#: What a device id may be: the app's own stable id (a UUID, an install id), printable ASCII without spaces.
DEVICE_ID_PATTERN = r"^[A-Za-z0-9._:\-]{1,128}$"
#: The push services, as one enum in the schema (PushServiceEnum: settings.SPECTACULAR_SETTINGS).
PUSH_CHOICES = list(PUSH_SERVICES)


# --- the shapes these views (and auth's) share ---------------------------------------------------------------


class DeviceSerializer(serializers.Serializer):
    id = serializers.IntegerField(help_text="The server's id of the device: /api/v1/auth/devices/{device_pk}/.")
    device_id = serializers.CharField(help_text="The app's own stable id, as sent at log-in.")
    name = serializers.CharField(allow_blank=True)
    platform = serializers.ChoiceField(choices=Device.Platform.choices)
    created = serializers.DateTimeField()
    last_seen = serializers.DateTimeField(help_text="The device's last request; updated at most every 15 minutes.")
    signed_in = serializers.BooleanField(help_text="It has an unexpired token (only such devices get pushes).")
    current = serializers.BooleanField(help_text="The device of the token this request was made with.")
    push = serializers.ChoiceField(
        choices=PUSH_CHOICES, allow_null=True, help_text="The push service it is registered with, if any."
    )


class PushKeysSerializer(serializers.Serializer):
    p256dh = StrictCharField(max_length=200, help_text="The browser's P-256 public key, URL-safe base64.")
    auth = StrictCharField(max_length=100, help_text="The 16-byte authentication secret, URL-safe base64.")


class PushSubscriptionSerializer(serializers.Serializer):
    endpoint = StrictCharField(max_length=2048, help_text="The push service's https URL for this browser.")
    keys = PushKeysSerializer()


# --- representation --------------------------------------------------------------------------------------------


def device_data(view: DeviceView) -> dict[str, Any]:
    """A device as ``DeviceSerializer`` reads it (its extra ``platform_label`` is the settings page's)."""
    return dataclasses.asdict(view)


def current_token_digest(request: LearnerApiRequest) -> str | None:
    """The digest of the token this request came with (its device is ``current``); None for a browser session."""
    return request.auth.digest if isinstance(request.auth, AuthToken) else None


def _device(request: LearnerApiRequest, device_pk: int) -> Device:
    return found(device_for(user=request.user, device_pk=device_pk))


def _shown(output: type[DeviceSerializer], request: LearnerApiRequest, device: Device) -> Response:
    view = found(device_view(user=request.user, device_pk=device.pk, current_digest=current_token_digest(request)))
    return Response(output(device_data(view)).data)


# --- views -----------------------------------------------------------------------------------------------------


class DeviceListView(APIView):
    class OutputSerializer(serializers.Serializer):
        devices = DeviceSerializer(many=True)

        class Meta:
            ref_name = "DeviceList"

    @extend_schema(
        tags=TAG,
        operation_id="devices_list",
        summary="Your devices: the phones and browsers you logged in to the API from",
        description="The most recently seen first. A device stays listed after its tokens expire or log out; "
        "DELETE signs it out for good.",
        responses={200: OutputSerializer, **errors(401)},
    )
    def get(self, request: LearnerApiRequest) -> Response:
        devices = devices_of(user=request.user, current_digest=current_token_digest(request))
        return Response(self.OutputSerializer({"devices": [device_data(view) for view in devices]}).data)


class DeviceDetailView(APIView):
    class InputSerializer(serializers.Serializer):
        name = StrictCharField(max_length=100, allow_blank=True, help_text='e.g. "Work phone".')

        class Meta:
            ref_name = "DeviceRename"

    OutputSerializer = DeviceSerializer

    @extend_schema(
        tags=TAG,
        operation_id="devices_read",
        summary="One of your devices",
        responses={200: OutputSerializer, **errors(401, 404)},
    )
    def get(self, request: LearnerApiRequest, device_pk: int) -> Response:
        return _shown(self.OutputSerializer, request, _device(request, device_pk))

    @extend_schema(
        tags=TAG,
        operation_id="devices_rename",
        summary="Rename a device",
        request=InputSerializer,
        responses={200: OutputSerializer, **errors(400, 401, 404)},
    )
    def patch(self, request: LearnerApiRequest, device_pk: int) -> Response:
        device = _device(request, device_pk)
        data = validated_body(self.InputSerializer, request)
        return _shown(self.OutputSerializer, request, device_rename(device=device, name=data["name"]))

    @extend_schema(
        tags=TAG,
        operation_id="devices_delete",
        summary="Sign a device out for good (a lost phone): its tokens and push registration end at once",
        request=None,
        responses={204: OpenApiResponse(description="Signed out and forgotten."), **errors(401, 404)},
    )
    def delete(self, request: LearnerApiRequest, device_pk: int) -> Response:
        delete_device(device=_device(request, device_pk))
        return Response(status=status.HTTP_204_NO_CONTENT)


class DevicePushView(APIView):
    class InputSerializer(serializers.Serializer):
        service = serializers.ChoiceField(
            choices=PUSH_CHOICES,
            help_text="fcm: Android (or an iOS/web app using Firebase); apns: iOS; webpush: a browser.",
        )
        token = StrictCharField(
            max_length=4096,
            required=False,
            help_text="fcm: the FCM registration token; apns: the device token in hexadecimal.",
        )
        subscription = PushSubscriptionSerializer(required=False, help_text="webpush: PushSubscription.toJSON().")
        browser = serializers.ChoiceField(choices=sorted(WEBPUSH_BROWSERS), required=False, default="CHROME")

        def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
            needed = "subscription" if attrs["service"] == "webpush" else "token"
            if needed not in attrs:
                raise serializers.ValidationError({needed: [f"This field is required for {attrs['service']}."]})
            return attrs

        class Meta:
            ref_name = "PushRegister"

    OutputSerializer = DeviceSerializer

    @extend_schema(
        tags=TAG,
        operation_id="devices_push_register",
        summary="Register this device's push token (replaces its previous one)",
        description="FCM and APNs send a `token`, Web Push a `subscription`. APNs is for iOS devices, Web Push for "
        "browsers; a device logged in without a platform takes it from the service. A token registered here is "
        "taken off any other device that had it. Wrong format or platform: 400 naming the field.",
        request=InputSerializer,
        responses={200: OutputSerializer, **errors(400, 401, 404)},
    )
    def put(self, request: LearnerApiRequest, device_pk: int) -> Response:
        device = _device(request, device_pk)
        data = validated_body(self.InputSerializer, request)
        registered = device_push_register(
            device=device,
            service=data["service"],
            token=data.get("token", ""),
            subscription=data.get("subscription"),
            browser=data["browser"],
        )
        return _shown(self.OutputSerializer, request, registered)

    @extend_schema(
        tags=TAG,
        operation_id="devices_push_unregister",
        summary="Stop pushes to this device (idempotent)",
        request=None,
        responses={204: OpenApiResponse(description="No push registration any more."), **errors(401, 404)},
    )
    def delete(self, request: LearnerApiRequest, device_pk: int) -> Response:
        device_push_unregister(device=_device(request, device_pk))
        return Response(status=status.HTTP_204_NO_CONTENT)
