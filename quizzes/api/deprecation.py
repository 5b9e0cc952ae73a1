"""What the API says at run time about a deprecated form: ``Deprecation`` (RFC 9745), ``Sunset`` (RFC 8594), ``Link``.

One deprecated form today: the offline entry ``{"question_id"|"question_key", "correct"}`` (the client's own grade;
review packs replace it, issue 17). A response to an upload that used it carries

    Deprecation: @1796030576                       (when it was deprecated, seconds since the epoch)
    Sunset: Wed, 30 Jun 2027 00:00:00 GMT          (when it stops being accepted: settings.OFFLINE_CORRECT_SUNSET)
    Link: <https://host/api/docs/#/reviews/reviews_offline_upload>; rel="deprecation"; type="text/html",
          <…same…>; rel="sunset"; type="text/html"
"""

from __future__ import annotations

import datetime as dt

from django.conf import settings
from django.http import HttpRequest
from django.utils.http import http_date

#: When the ``correct`` form was deprecated: the review packs' commit (919cae9, issue 17).
OFFLINE_CORRECT_DEPRECATED_AT = dt.datetime(2026, 11, 30, 9, 22, 56, tzinfo=dt.UTC)
OFFLINE_DOCS = "/api/docs/#/reviews/reviews_offline_upload"


def offline_correct_headers(request: HttpRequest) -> dict[str, str]:
    """The headers of a response to an upload that used the deprecated ``correct`` form."""
    sunset: dt.date = settings.OFFLINE_CORRECT_SUNSET
    sunset_at = dt.datetime(sunset.year, sunset.month, sunset.day, tzinfo=dt.UTC)
    docs = request.build_absolute_uri(OFFLINE_DOCS)
    return {
        "Deprecation": f"@{int(OFFLINE_CORRECT_DEPRECATED_AT.timestamp())}",
        "Sunset": http_date(sunset_at.timestamp()),
        "Link": f'<{docs}>; rel="deprecation"; type="text/html", <{docs}>; rel="sunset"; type="text/html"',
    }
