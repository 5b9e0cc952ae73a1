"""/api/: v1 endpoints, the OpenAPI schema, Swagger UI and Redoc (served offline from drf-spectacular-sidecar)."""

from django.urls import include, path, re_path
from drf_spectacular.views import SpectacularAPIView

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

v1 = [
    path("auth/login/", auth.LoginView.as_view(), name="login"),
    path("auth/logout/", auth.LogoutView.as_view(), name="logout"),
    path("auth/logout-all/", auth.LogoutAllView.as_view(), name="logout-all"),
    path("auth/tokens/", auth.TokenListView.as_view(), name="tokens"),
    path("auth/password/", credentials.PasswordChangeView.as_view(), name="password-change"),
    path("auth/devices/", devices.DeviceListView.as_view(), name="devices"),
    path("auth/devices/<int:device_pk>/", devices.DeviceDetailView.as_view(), name="device"),
    path("auth/devices/<int:device_pk>/push/", devices.DevicePushView.as_view(), name="device-push"),
    path("ping/", ping.PingView.as_view(), name="ping"),
    path("profile/", profile.ProfileView.as_view(), name="profile"),
    path("profile/workload/", profile.WorkloadView.as_view(), name="profile-workload"),
    path("profile/export/", exports.ExportView.as_view(), name="profile-export"),
    path("profile/exports/", exports.ExportListView.as_view(), name="exports"),
    path("profile/exports/<int:export_id>/", exports.ExportDetailView.as_view(), name="export"),
    path("lessons/", lessons.LessonListView.as_view(), name="lessons"),
    path("lessons/<int:lesson_id>/", lessons.LessonDetailView.as_view(), name="lesson"),
    path(
        "lessons/<int:lesson_id>/checkpoints/<slug:section_key>/answer/",
        lessons.CheckpointAnswerView.as_view(),
        name="lesson-checkpoint-answer",
    ),
    path("attempts/", attempts.AttemptListView.as_view(), name="attempts"),
    path("attempts/<int:attempt_id>/", attempts.AttemptDetailView.as_view(), name="attempt"),
    path("attempts/<int:attempt_id>/finish/", attempts.AttemptFinishView.as_view(), name="attempt-finish"),
    path("attempts/<int:attempt_id>/missed/", attempts.AttemptMissedView.as_view(), name="attempt-missed"),
    path(
        "attempts/<int:attempt_id>/show-skipped/",
        attempts.AttemptShowSkippedView.as_view(),
        name="attempt-show-skipped",
    ),
    path("next-step/", next_step.NextStepView.as_view(), name="next-step"),
    path("items/<int:item_id>/", items.ItemDetailView.as_view(), name="item"),
    path("items/<int:item_id>/answer/", items.ItemAnswerView.as_view(), name="item-answer"),
    path("items/<int:item_id>/rate/", items.ItemRateView.as_view(), name="item-rate"),
    path("reviews/due/", reviews.DueQueueView.as_view(), name="reviews-due"),
    path("reviews/rate/", reviews.CardRateView.as_view(), name="reviews-rate"),
    path("reviews/undo/", reviews.ReviewUndoView.as_view(), name="reviews-undo"),
    path("reviews/forecast/", reviews.ForecastView.as_view(), name="reviews-forecast"),
    path("reviews/heatmap/", reviews.HeatmapView.as_view(), name="reviews-heatmap"),
    path("reviews/offline/", offline.OfflineUploadView.as_view(), name="reviews-offline"),
    path("packs/", packs.PackListView.as_view(), name="packs"),
    path("packs/<int:pack_id>/", packs.PackDetailView.as_view(), name="pack"),
    path("cards/", reviews.CardListView.as_view(), name="cards"),
    path("cards/<int:card_id>/", reviews.CardDetailView.as_view(), name="card"),
    path("cards/<int:card_id>/suspend/", reviews.CardSuspendView.as_view(), name="card-suspend"),
    path("cards/<int:card_id>/unsuspend/", reviews.CardUnsuspendView.as_view(), name="card-unsuspend"),
    path("questions/<int:question_id>/reference/", reviews.QuestionReferenceView.as_view(), name="question-reference"),
    path("reports/", reports.ReportListView.as_view(), name="reports"),
    path("engine/demo/", engine.DemoMatrixView.as_view(), name="engine-demo"),
    path("engine/preview/", engine.VariantPreviewView.as_view(), name="engine-preview"),
]

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
