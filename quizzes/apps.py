from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class QuizzesConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "quizzes"
    verbose_name = _("Quizzes")

    def ready(self) -> None:
        from quizzes.reviews import signals  # noqa: F401  (connects the cache-stamp receivers)
