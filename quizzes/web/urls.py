"""Learner pages: the shell (accounts, dashboard, lessons, settings) and practice (attempts, reviews)."""

from quizzes.web import core_urls, practice_urls

app_name = "web"

urlpatterns = core_urls.urlpatterns + practice_urls.urlpatterns
