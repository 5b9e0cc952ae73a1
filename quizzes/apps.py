from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class QuizzesConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "quizzes"
    verbose_name = _("Quizzes")

    def ready(self) -> None:
        from quizzes import tasks  # noqa: F401  (registers the Celery tasks in every process, see below)
        from quizzes.accounts import signals as account_signals  # noqa: F401  (session index, username skeletons)
        from quizzes.reviews import signals  # noqa: F401  (connects the cache-stamp receivers)

        # Services start tasks by name (quizzes.core.background); a web process must know those names too,
        # or Celery would send them as unknown tasks (no options, a result subscription in Redis). The
        # worker finds them anyway (autodiscovery); importing the module here registers them everywhere.
