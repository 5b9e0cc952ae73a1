"""Item statistics read from indexes alone (issue 27, item 5: within 1 s per lesson on the scale database).

A stored generated column copies a wrong answer's misconception id out of the item's ``result`` JSON, and a
covering index on the attempt items lets a lesson's statistics read its items through its attempts without
touching the ≈ 1 GB table. The review cards' question index becomes a covering one in place of the foreign
key's own (created first, so the PROTECT check and the statistics never lack an index), so a review writes no
more index entries than before. On PostgreSQL adding the stored column rewrites the attempt-item table under
an exclusive lock: run it in a quiet window on a large database.
"""

import django.db.models.deletion
import django.db.models.fields.json
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("quizzes", "0023_version_question_versions"),
    ]

    operations = [
        migrations.AddField(
            model_name="attemptitem",
            name="misconception",
            field=models.GeneratedField(
                db_persist=True,
                expression=django.db.models.fields.json.KeyTextTransform(
                    "id", django.db.models.fields.json.KeyTextTransform("misconception", "result")
                ),
                output_field=models.CharField(max_length=100, null=True),
                verbose_name="misconception",
            ),
        ),
        migrations.AddIndex(
            model_name="attemptitem",
            index=models.Index(
                fields=["attempt"],
                include=(
                    "id",
                    "question",
                    "template_version",
                    "is_correct",
                    "chosen_option",
                    "version",
                    "answered_at",
                    "misconception",
                ),
                name="attempt_item_statistics",
            ),
        ),
        migrations.AddIndex(
            model_name="reviewcard",
            index=models.Index(
                fields=["question"], include=("lapses", "reps", "difficulty"), name="review_card_question"
            ),
        ),
        migrations.AlterField(
            model_name="reviewcard",
            name="question",
            field=models.ForeignKey(
                db_index=False,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="review_cards",
                to="quizzes.question",
            ),
        ),
    ]
