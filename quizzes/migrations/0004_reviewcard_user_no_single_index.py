"""Drop ReviewCard's single-column user_id index: the (user, due) and (user, question) indexes cover it,
and with it the planner scans all of a learner's cards instead of the due range of (user, due)."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("quizzes", "0003_device_tokens"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AlterField(
            model_name="reviewcard",
            name="user",
            field=models.ForeignKey(
                db_index=False,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="review_cards",
                to=settings.AUTH_USER_MODEL,
            ),
        ),
    ]
