"""The API renderer (orjson) writes what DRF's own JSONRenderer writes: the same bytes, or the same values.

DRF's renderer is the reference: every response the app sent before the switch must read the same to a
client. Data are generated (hypothesis) from the types our responses hold, with the awkward corners in them:
datetimes with microseconds in any zone, int keys, U+2028 in a string, lazy translations, Decimals.
"""

from __future__ import annotations

import datetime as dt
import decimal
import json
import uuid

from django.utils.translation import gettext_lazy
from hypothesis import given, settings
from hypothesis import strategies as st
from rest_framework.renderers import JSONRenderer

from quizzes.api.renderers import SafeJSONRenderer

# Offsets of whole minutes: every zone since 1980 (earlier local mean times had seconds, which orjson rounds).
_datetimes = st.datetimes(
    min_value=dt.datetime(1980, 1, 1), max_value=dt.datetime(2200, 1, 1), timezones=st.none() | st.timezones()
)
_text = st.text(alphabet=st.characters(blacklist_categories=["Cs"]) | st.sampled_from('\u2028\u2029<>&"\\'))
_scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**63 - 1)
    | _text
    | _datetimes
    | st.dates()
    | st.uuids()
)
_floats = st.floats(allow_nan=False, allow_infinity=False)


def _documents(leaves: st.SearchStrategy) -> st.SearchStrategy:
    return st.recursive(
        leaves,
        lambda inner: (
            st.lists(inner, max_size=4)
            | st.dictionaries(st.integers(-5, 5).map(str) | _text | st.integers(0, 9), inner, max_size=4)
        ),
        max_leaves=20,
    )


def drf(data) -> bytes:
    return JSONRenderer().render(data)


@settings(max_examples=300, deadline=None)
@given(_documents(_scalars))
def test_without_floats_the_bytes_are_drfs(data):
    assert SafeJSONRenderer().render(data) == drf(data)


@settings(max_examples=300, deadline=None)
@given(_documents(_scalars | _floats))
def test_with_floats_the_values_are_drfs(data):
    """A float below 1e-4 is spelled without the exponent (0.00001 for 1e-05): the same number."""
    body = {"data": data}  # a top-level None renders as an empty body, which is not JSON to compare
    assert json.loads(SafeJSONRenderer().render(body)) == json.loads(drf(body))


def test_what_orjson_does_not_know_goes_through_drfs_encoder():
    data = {
        "label": gettext_lazy("Dashboard"),
        "price": decimal.Decimal("1.25"),
        "key": uuid.UUID(int=7),
        "span": dt.timedelta(seconds=90),
        "when": dt.datetime(2026, 11, 30, 12, 0, 0, 123456, tzinfo=dt.UTC),
        "big": 2**70,  # beyond orjson's 64 bits: DRF renders the whole body
        "line": "a\u2028b\u2029c",
    }
    assert SafeJSONRenderer().render(data) == drf(data)
    assert SafeJSONRenderer().render({k: v for k, v in data.items() if k != "big"}) == drf(
        {k: v for k, v in data.items() if k != "big"}
    )


def test_indent_asked_for_in_the_accept_header_is_honoured():
    data = {"a": [1, 2]}
    indented = "application/json; indent=2"
    assert SafeJSONRenderer().render(data, indented) == JSONRenderer().render(data, indented)


def test_no_data_is_an_empty_body():
    assert SafeJSONRenderer().render(None) == b""
