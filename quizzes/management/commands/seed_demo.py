"""`manage.py seed_demo`: the demo learner and demo admin, printed with their passwords (dev only)."""

from typing import Any

from django.core.management.base import BaseCommand

from quizzes.accounts.services import demo_accounts_ensure


class Command(BaseCommand):
    help = (
        "Create or refresh the demo learner (DEMO_USERNAME/DEMO_PASSWORD, default demo/demo-pass) and demo admin "
        "(DEMO_ADMIN_USERNAME/DEMO_ADMIN_PASSWORD, default admin/admin-pass). Idempotent."
    )

    def handle(self, *args: Any, **options: Any) -> None:
        for account in demo_accounts_ensure():
            role = "admin  " if account.is_staff else "learner"
            state = "created" if account.created else "exists "
            self.stdout.write(f"{role} {state} username={account.username} password={account.password}")
