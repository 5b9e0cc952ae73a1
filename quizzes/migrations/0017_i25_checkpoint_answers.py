"""Issue 25: a signed-in learner's first answer to each teaching checkpoint (the lock, per learner; checkpoints
stay outside the review schedule). A new table, unique per (learner, lesson, section).
"""

import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("quizzes", "0016_i25_skipped_shown"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="CheckpointAnswer",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("section_key", models.SlugField(db_index=False, max_length=100, verbose_name="section key")),
                ("option_key", models.SlugField(db_index=False, max_length=100, verbose_name="option key")),
                ("answered_at", models.DateTimeField(default=django.utils.timezone.now, verbose_name="answered at")),
                (
                    "lesson",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="checkpoint_answers",
                        to="quizzes.lesson",
                    ),
                ),
                (
                    "user",
                    models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="checkpoint_answers",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
            options={
                "verbose_name": "checkpoint answer",
                "verbose_name_plural": "checkpoint answers",
                "ordering": ("user", "lesson", "section_key"),
                "constraints": [
                    models.UniqueConstraint(
                        fields=("user", "lesson", "section_key"), name="checkpoint_answer_one_per_learner_checkpoint"
                    )
                ],
            },
        ),
    ]
