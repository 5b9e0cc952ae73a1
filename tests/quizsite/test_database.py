"""PostgreSQL reuses the plans of the hot statements (settings: server-side binding, prepared statements): planning
was 0.3–0.4 ms of each, more than running it (issue 16)."""

import pytest
from django.db import connection

from quizzes.accounts.selectors import profile_for

pytestmark = [pytest.mark.postgres, pytest.mark.django_db]


def prepared() -> list[str]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT statement FROM pg_prepared_statements")
        return [row[0] for row in cursor.fetchall()]


def test_a_statement_run_five_times_on_a_connection_is_then_prepared_and_kept(user):
    for _ in range(5):
        profile_for(user=user)
    assert not [sql for sql in prepared() if "quizzes_learnerprofile" in sql]
    profile_for(user=user)  # the sixth run: prepared on the server, its plan kept from now on
    assert [sql for sql in prepared() if "quizzes_learnerprofile" in sql]
