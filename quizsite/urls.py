"""Top-level URLs: admin, language switching, and the quizzes app."""

from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("admin/", admin.site.urls),
    path("i18n/", include("django.conf.urls.i18n")),
    # API: /api/v1/ and /api/schema/, /api/docs/ (added by quizzes.api)
    # Ops: /healthz
    path("", include("quizzes.web.urls")),
]
