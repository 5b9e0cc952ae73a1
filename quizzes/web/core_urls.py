"""The shell's URLs (namespace "web"): dashboard, lessons, the d_k demo, settings and accounts."""

from django.contrib.auth import views as auth_views
from django.urls import path, reverse_lazy

from quizzes.web import core_views, forms

urlpatterns = [
    path("", core_views.dashboard, name="dashboard"),
    path("lessons/", core_views.lesson_list, name="lesson_list"),
    path("lessons/<slug:key>/", core_views.lesson_detail, name="lesson_detail"),
    path("demo/attention/", core_views.attention_demo, name="attention_demo"),
    path("settings/", core_views.settings_view, name="settings"),
    # accounts
    path("accounts/signup/", core_views.signup, name="signup"),
    path(
        "accounts/login/",
        core_views.LoginView.as_view(
            template_name="registration/login.html",
            authentication_form=forms.LoginForm,
            redirect_authenticated_user=True,
        ),
        name="login",
    ),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path(
        "accounts/password/change/",
        auth_views.PasswordChangeView.as_view(
            template_name="registration/learner_password_change_form.html",
            success_url=reverse_lazy("web:password_change_done"),
        ),
        name="password_change",
    ),
    path(
        "accounts/password/change/done/",
        auth_views.PasswordChangeDoneView.as_view(template_name="registration/learner_password_change_done.html"),
        name="password_change_done",
    ),
    path(
        "accounts/password/reset/",
        core_views.PasswordResetView.as_view(
            template_name="registration/learner_password_reset_form.html",
            success_url=reverse_lazy("web:password_reset_done"),
            email_template_name="registration/password_reset_email.txt",
            subject_template_name="registration/password_reset_subject.txt",
        ),
        name="password_reset",
    ),
    path(
        "accounts/password/reset/sent/",
        auth_views.PasswordResetDoneView.as_view(template_name="registration/learner_password_reset_done.html"),
        name="password_reset_done",
    ),
    path(
        "accounts/password/reset/<uidb64>/<token>/",
        auth_views.PasswordResetConfirmView.as_view(
            template_name="registration/learner_password_reset_confirm.html",
            success_url=reverse_lazy("web:password_reset_complete"),
        ),
        name="password_reset_confirm",
    ),
    path(
        "accounts/password/reset/complete/",
        auth_views.PasswordResetCompleteView.as_view(template_name="registration/learner_password_reset_complete.html"),
        name="password_reset_complete",
    ),
]
