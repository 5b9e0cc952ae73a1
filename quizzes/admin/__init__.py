"""Django admin, by domain: content authoring (lessons, questions, options, preview, generation action, question
versions: list, view, compare, revert, stale saves refused),
read-only learner history, background jobs, accounts (e-mail uniqueness, unlocking sign-in), and review packs
(read-only, with a revoke action), and learners' problem reports (read-only, with a resolve action).

Importing this package registers every ModelAdmin (Django's admin autodiscovery imports it).
"""

from django.contrib import admin

from quizzes.admin import (  # noqa: F401  (each module registers its ModelAdmins)
    accounts,
    content,
    history,
    jobs,
    lesson_files,
    packs,
    reports,
)

accounts.register(admin.site)
lesson_files.register(admin.site)  # "Download as YAML" on lessons and questions
