"""Serializer fields that accept only the JSON type the schema promises.

DRF coerces by default ("5" → 5, 5 → "5", "true" → True); a mobile client sending the wrong
type has a bug it should hear about, and schemathesis' negative tests rightly expect a 400.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from rest_framework import serializers

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise


class StrictCharField(serializers.CharField):
    def to_internal_value(self, data: Any) -> str:
        if not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)


def optional_text(*, max_length: int, **kwargs: Any) -> StrictCharField:
    """Text a client may leave out or send blank: both read as "" (a device's name, a report's words)."""
    return StrictCharField(max_length=max_length, required=False, default="", allow_blank=True, **kwargs)


class StrictIntegerField(serializers.IntegerField):
    default_error_messages: ClassVar[dict[str, StrOrPromise]] = {"invalid": "A whole number is required."}

    def to_internal_value(self, data: Any) -> int:
        if (
            isinstance(data, bool)
            or not isinstance(data, int | float)
            or (isinstance(data, float) and not data.is_integer())
        ):
            self.fail("invalid")
        return super().to_internal_value(int(data))


class StrictFloatField(serializers.FloatField):
    def to_internal_value(self, data: Any) -> float:
        if isinstance(data, bool) or not isinstance(data, int | float):
            self.fail("invalid")
        return super().to_internal_value(data)


class StrictBooleanField(serializers.BooleanField):
    def to_internal_value(self, data: Any) -> bool:
        if not isinstance(data, bool):
            self.fail("invalid")
        return data


class StrictUUIDField(serializers.UUIDField):
    def to_internal_value(self, data: Any) -> Any:
        if not isinstance(data, str):
            self.fail("invalid", value=data)
        return super().to_internal_value(data)


class StrictDateTimeField(serializers.DateTimeField):
    """An ISO 8601 string with a time zone (offline clients must say which clock they used)."""

    default_error_messages: ClassVar[dict[str, StrOrPromise]] = {
        "naive": "Give the time zone (e.g. 2025-03-10T14:00:00Z)."
    }

    def to_internal_value(self, value: Any) -> Any:
        if not isinstance(value, str):
            self.fail("invalid", format="ISO 8601")
        parsed = super().to_internal_value(value)
        return parsed

    def enforce_timezone(self, value: Any) -> Any:
        if value.tzinfo is None:
            self.fail("naive")
        return super().enforce_timezone(value)
