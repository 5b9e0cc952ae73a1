"""Drop four foreign-key indexes that wider indexes already start with (issue 16).

AttemptItem.attempt / .question are covered by (attempt, question), (attempt, position) and (question,
variant_seed); ReviewLog.user / .card by (user, reviewed_at) and (card, reviewed_at). Every answer rewrote its item
in all seven of the item's indexes and wrote its log into every index of the largest table.

Django's own AlterField(db_index=False) drops the foreign key and adds it back, which re-checks every row of
quizzes_reviewlog under a lock; only the indexes go here, by the names Django gave them (the same on SQLite and
PostgreSQL), and the model state records db_index=False.
"""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

_INDEXES = {
    "quizzes_attemptitem_attempt_id_28851a6c": ("quizzes_attemptitem", "attempt_id"),
    "quizzes_attemptitem_question_id_5f593da6": ("quizzes_attemptitem", "question_id"),
    "quizzes_reviewlog_card_id_93d9e5e5": ("quizzes_reviewlog", "card_id"),
    "quizzes_reviewlog_user_id_4b029b55": ("quizzes_reviewlog", "user_id"),
}


class Migration(migrations.Migration):
    dependencies = [
        ("quizzes", "0013_h_packs_shared_variants"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[
                migrations.RunSQL(
                    sql=f'DROP INDEX IF EXISTS "{name}"',
                    reverse_sql=f'CREATE INDEX IF NOT EXISTS "{name}" ON "{table}" ("{column}")',
                )
                for name, (table, column) in _INDEXES.items()
            ],
            state_operations=[
                migrations.AlterField(
                    model_name="attemptitem",
                    name="attempt",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="items",
                        to="quizzes.attempt",
                    ),
                ),
                migrations.AlterField(
                    model_name="attemptitem",
                    name="question",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="attempt_items",
                        to="quizzes.question",
                    ),
                ),
                migrations.AlterField(
                    model_name="reviewlog",
                    name="card",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="logs",
                        to="quizzes.reviewcard",
                    ),
                ),
                migrations.AlterField(
                    model_name="reviewlog",
                    name="user",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="review_logs",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
        )
    ]
