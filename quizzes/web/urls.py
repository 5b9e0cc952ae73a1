"""Learner pages (namespace "web"): the shell (dashboard, lessons, the d_k demo, settings, accounts) and practice
(quiz attempts, the review session, interview prompts, mock interviews, recall cards).

Item positions in URLs are 1-based ("3 / 10" is /attempts/<id>/items/3/).
"""

from typing import Any

from django.contrib.auth import views as auth_views
from django.urls import URLPattern, path, reverse_lazy

from quizzes.content.models import Question
from quizzes.web.forms import LoginForm
from quizzes.web.views import (
    accounts,
    interview,
    quiz,
    reports,
    review,
    settings,
    shell,
    signed_in,
    your_data,
)
from quizzes.web.views.self_rated import self_rated_page, self_rated_rate

app_name = "web"
PROMPT, RECALL = Question.Kind.PROMPT, Question.Kind.RECALL


#: Django's password change and reset pages, each on the learner's template registration/learner_<name>.html:
#: the route under accounts/password/, the view (ours where it adds to Django's), the URL name, the page next.
PASSWORD_PAGES: tuple[tuple[str, Any, str, str | None], ...] = (
    ("change/", accounts.PasswordChangeView, "password_change", "password_change_done"),
    ("change/done/", auth_views.PasswordChangeDoneView, "password_change_done", None),
    ("reset/", accounts.PasswordResetView, "password_reset", "password_reset_done"),
    ("reset/sent/", auth_views.PasswordResetDoneView, "password_reset_done", None),
    ("reset/<uidb64>/<token>/", accounts.PasswordResetConfirmView, "password_reset_confirm", "password_reset_complete"),
    ("reset/complete/", auth_views.PasswordResetCompleteView, "password_reset_complete", None),
)


def _password_page(route: str, view: Any, name: str, then: str | None) -> URLPattern:
    options = {"success_url": reverse_lazy(f"web:{then}")} if then else {}
    page = view.as_view(template_name=f"registration/learner_{name}.html", **options)
    return path(f"accounts/password/{route}", page, name=name)


urlpatterns = [
    path("", shell.dashboard, name="dashboard"),
    path("lessons/", shell.lesson_list, name="lesson_list"),
    path("lessons/<slug:key>/", shell.lesson_detail, name="lesson_detail"),
    path("lessons/<slug:key>/checkpoints/<slug:section>/", shell.lesson_checkpoint, name="lesson_checkpoint"),
    path("demo/attention/", shell.attention_demo, name="attention_demo"),
    path("settings/", settings.settings_view, name="settings"),
    path("settings/workload/", settings.settings_workload, name="settings_workload"),
    path("settings/export/", your_data.export_start, name="export_start"),
    path("settings/export/<int:export_id>/", your_data.export_status, name="export_status"),
    path("settings/delete-account/", your_data.account_delete_view, name="account_delete"),
    path("account-deleted/", your_data.account_deleted, name="account_deleted"),
    path("exports/<str:token>/", your_data.export_download_view, name="export_download"),
    path("settings/sessions/<int:session_id>/sign-out/", signed_in.session_sign_out, name="session_sign_out"),
    path("settings/devices/<int:device_id>/sign-out/", signed_in.device_sign_out, name="device_sign_out"),
    path("settings/sign-out-everywhere/", signed_in.sign_out_everywhere, name="sign_out_everywhere"),
    # accounts
    path("accounts/signup/", accounts.signup, name="signup"),
    path(
        "accounts/login/",
        accounts.LoginView.as_view(
            template_name="registration/login.html",
            authentication_form=LoginForm,
            redirect_authenticated_user=True,
        ),
        name="login",
    ),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    *(_password_page(*page) for page in PASSWORD_PAGES),
    # practice
    path("lessons/<slug:lesson_key>/attempts/", quiz.attempt_start, name="attempt_start"),
    path("attempts/<int:attempt_id>/", quiz.attempt_resume, name="attempt_resume"),
    path("attempts/<int:attempt_id>/items/<int:position>/", quiz.attempt_item, name="attempt_item"),
    path("attempts/<int:attempt_id>/items/<int:position>/answer/", quiz.attempt_answer, name="attempt_answer"),
    path("attempts/<int:attempt_id>/items/<int:position>/rate/", quiz.attempt_rate, name="attempt_rate"),
    path("attempts/<int:attempt_id>/finish/", quiz.attempt_finish, name="attempt_finish"),
    path("attempts/<int:attempt_id>/summary/", quiz.attempt_summary, name="attempt_summary"),
    path("attempts/<int:attempt_id>/missed/", quiz.attempt_missed, name="attempt_missed"),
    path("attempts/<int:attempt_id>/skipped/show/", quiz.attempt_show_skipped, name="attempt_show_skipped"),
    path("review/", review.review_session, name="review_session"),
    path("review/lessons/<slug:lesson_key>/quiz/", review.review_quiz, name="review_quiz"),
    path("interview/", interview.interview_index, name="interview_index"),
    path("interview/mock/", interview.interview_mock, name="interview_mock"),
    path("interview/mock/summary/", interview.interview_mock_summary, name="interview_mock_summary"),
    # interview prompts and recall cards: one write → reveal → rate flow, the kind given here
    path("interview/<slug:question_key>/", self_rated_page, {"kind": PROMPT}, name="interview_prompt"),
    path("interview/<slug:question_key>/rate/", self_rated_rate, {"kind": PROMPT}, name="interview_rate"),
    path("recall/<slug:question_key>/", self_rated_page, {"kind": RECALL}, name="recall_card"),
    path("recall/<slug:question_key>/rate/", self_rated_rate, {"kind": RECALL}, name="recall_rate"),
    # problem reports
    path("reports/", reports.my_reports, name="my_reports"),
    path("reports/new/item/<int:item_id>/", reports.report_item, name="report_item"),
    path("reports/new/card/<int:card_id>/", reports.report_card, name="report_card"),
]
