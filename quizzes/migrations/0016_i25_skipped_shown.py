"""Issue 25, "seeing a key counts": when the learner asked to see a finished attempt's skipped answers (each skipped
item was recorded as Again then).

A nullable column only: no table rewrite.
"""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("quizzes", "0015_i30_personal_parameters"),
    ]

    operations = [
        migrations.AddField(
            model_name="attempt",
            name="skipped_shown_at",
            field=models.DateTimeField(
                blank=True,
                help_text="When the learner asked to see the answers of the items they skipped (after finishing): each of those items was recorded as Again then.",
                null=True,
                verbose_name="skipped answers shown at",
            ),
        ),
    ]
