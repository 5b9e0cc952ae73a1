"""/api/: v1 endpoints, the OpenAPI schema, Swagger UI and Redoc (served offline from drf-spectacular-sidecar)."""

from django.urls import include, path, re_path
from drf_spectacular.views import SpectacularAPIView
from rest_framework.views import APIView

from quizzes.api.docs import NoncedSwaggerView, OfflineRedocView
from quizzes.api.errors import api_not_found
from quizzes.api.views import (
    attempts,
    auth,
    credentials,
    devices,
    engine,
    exports,
    items,
    lessons,
    next_step,
    offline,
    packs,
    ping,
    profile,
    reports,
    reviews,
)

#: Every v1 endpoint: (route, view, URL name), in the order Django tries them.
V1_ROUTES: list[tuple[str, type[APIView], str]] = [
    ("auth/login/", auth.LoginView, "login"),
    ("auth/logout/", auth.LogoutView, "logout"),
    ("auth/logout-all/", auth.LogoutAllView, "logout-all"),
    ("auth/tokens/", auth.TokenListView, "tokens"),
    ("auth/password/", credentials.PasswordChangeView, "password-change"),
    ("auth/devices/", devices.DeviceListView, "devices"),
    ("auth/devices/<int:device_pk>/", devices.DeviceDetailView, "device"),
    ("auth/devices/<int:device_pk>/push/", devices.DevicePushView, "device-push"),
    ("ping/", ping.PingView, "ping"),
    ("profile/", profile.ProfileView, "profile"),
    ("profile/workload/", profile.WorkloadView, "profile-workload"),
    ("profile/export/", exports.ExportView, "profile-export"),
    ("profile/exports/", exports.ExportListView, "exports"),
    ("profile/exports/<int:export_id>/", exports.ExportDetailView, "export"),
    ("lessons/", lessons.LessonListView, "lessons"),
    ("lessons/<int:lesson_id>/", lessons.LessonDetailView, "lesson"),
    (
        "lessons/<int:lesson_id>/checkpoints/<slug:section_key>/answer/",
        lessons.CheckpointAnswerView,
        "lesson-checkpoint-answer",
    ),
    ("attempts/", attempts.AttemptListView, "attempts"),
    ("attempts/<int:attempt_id>/", attempts.AttemptDetailView, "attempt"),
    ("attempts/<int:attempt_id>/finish/", attempts.AttemptFinishView, "attempt-finish"),
    ("attempts/<int:attempt_id>/missed/", attempts.AttemptMissedView, "attempt-missed"),
    ("attempts/<int:attempt_id>/show-skipped/", attempts.AttemptShowSkippedView, "attempt-show-skipped"),
    ("next-step/", next_step.NextStepView, "next-step"),
    ("items/<int:item_id>/", items.ItemDetailView, "item"),
    ("items/<int:item_id>/answer/", items.ItemAnswerView, "item-answer"),
    ("items/<int:item_id>/rate/", items.ItemRateView, "item-rate"),
    ("reviews/due/", reviews.DueQueueView, "reviews-due"),
    ("reviews/rate/", reviews.CardRateView, "reviews-rate"),
    ("reviews/undo/", reviews.ReviewUndoView, "reviews-undo"),
    ("reviews/forecast/", reviews.ForecastView, "reviews-forecast"),
    ("reviews/heatmap/", reviews.HeatmapView, "reviews-heatmap"),
    ("reviews/offline/", offline.OfflineUploadView, "reviews-offline"),
    ("packs/", packs.PackListView, "packs"),
    ("packs/<int:pack_id>/", packs.PackDetailView, "pack"),
    ("cards/", reviews.CardListView, "cards"),
    ("cards/<int:card_id>/", reviews.CardDetailView, "card"),
    ("cards/<int:card_id>/suspend/", reviews.CardSuspendView, "card-suspend"),
    ("cards/<int:card_id>/unsuspend/", reviews.CardUnsuspendView, "card-unsuspend"),
    ("questions/<int:question_id>/reference/", reviews.QuestionReferenceView, "question-reference"),
    ("reports/", reports.ReportListView, "reports"),
    ("engine/demo/", engine.DemoMatrixView, "engine-demo"),
    ("engine/preview/", engine.VariantPreviewView, "engine-preview"),
]

v1 = [path(route, view.as_view(), name=name) for route, view, name in V1_ROUTES]

app_name = "api"

urlpatterns = [
    path("v1/", include((v1, "v1"))),
    path("schema/", SpectacularAPIView.as_view(permission_classes=[], authentication_classes=[]), name="schema"),
    path(
        "docs/",
        NoncedSwaggerView.as_view(url_name="api:schema", permission_classes=[], authentication_classes=[]),
        name="docs",
    ),
    path(
        "redoc/",
        OfflineRedocView.as_view(url_name="api:schema", permission_classes=[], authentication_classes=[]),
        name="redoc",
    ),
    re_path(r"^[\s\S]*$", api_not_found),  # [\s\S]: even paths with a newline get the JSON 404
]
