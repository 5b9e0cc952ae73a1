"""Top-level URLs: admin, language switching, and the quizzes app."""

from django.contrib import admin
from django.urls import include, path

from quizzes.sitewide import headers, health
from quizzes.sitewide.guards import bad_request
from quizzes.web.views.reminders import reminder_unsubscribe_view

handler400 = bad_request  # JSON in the API's error shape under /api/ (413 for Django's size limit), else a page

urlpatterns = [
    path("admin/", admin.site.urls),
    path("i18n/", include("django.conf.urls.i18n")),
    # API: /api/v1/ and /api/schema/, /api/docs/ (added by quizzes.api)
    path("api/", include("quizzes.api.urls")),
    # Ops: /healthz
    path("healthz", health.healthz, name="healthz"),
    path("favicon.ico", headers.favicon, name="favicon"),
    path("reminders/unsubscribe/<str:token>/", reminder_unsubscribe_view, name="reminder_unsubscribe"),
    path("", include("quizzes.web.urls")),
]
