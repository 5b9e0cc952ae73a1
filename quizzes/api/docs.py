"""Redoc without the Google Fonts links of drf-spectacular's template: the docs must work offline."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse
from django.template import Context, Template
from drf_spectacular.utils import extend_schema
from drf_spectacular.views import SpectacularRedocView

REDOC_PAGE = Template(
    """<!DOCTYPE html>
<html>
  <head>
    <title>{{ title }}</title>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <style>body { margin: 0; padding: 0; }</style>
  </head>
  <body>
    <redoc spec-url="{{ schema_url }}"></redoc>
    <script src="{{ redoc_standalone }}"></script>
  </body>
</html>
"""
)


class OfflineRedocView(SpectacularRedocView):
    @extend_schema(exclude=True)
    def get(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        context = {
            "title": self.title,
            "redoc_standalone": self._redoc_standalone(),
            "schema_url": self._get_schema_url(request),
        }
        return HttpResponse(REDOC_PAGE.render(Context(context)))
