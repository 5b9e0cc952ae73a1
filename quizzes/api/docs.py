"""The API docs pages, offline and under the Content-Security-Policy.

- Swagger UI: drf-spectacular's page with a nonce on its inline style and script (``api/swagger_ui.html``);
  the site's policy otherwise applies unchanged.
- Redoc: without the Google Fonts links of drf-spectacular's template (the docs must work offline), under
  a route-specific policy: Redoc injects its styles at run time (styled-components) and runs its search
  in a ``blob:`` worker, so this page alone allows inline styles and blob workers (scripts stay 'self').
"""

from __future__ import annotations

from typing import Any

from csp.constants import SELF, UNSAFE_INLINE
from csp.decorators import csp_replace
from django.http import HttpRequest, HttpResponse
from django.template import Context, Template
from django.utils.decorators import method_decorator
from drf_spectacular.utils import extend_schema
from drf_spectacular.views import SpectacularRedocView, SpectacularSwaggerView

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


class NoncedSwaggerView(SpectacularSwaggerView):
    template_name = "api/swagger_ui.html"


#: Only for the Redoc page (see the module docstring); "style-src" is replaced, not extended: a nonce in
#: it would make browsers ignore 'unsafe-inline'.
REDOC_POLICY = {"style-src": [SELF, UNSAFE_INLINE], "worker-src": [SELF, "blob:"]}


class OfflineRedocView(SpectacularRedocView):
    @method_decorator(csp_replace(REDOC_POLICY))
    @extend_schema(exclude=True)
    def get(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        context = {
            "title": self.title,
            "redoc_standalone": self._redoc_standalone(),
            "schema_url": self._get_schema_url(request),
        }
        return HttpResponse(REDOC_PAGE.render(Context(context)))
