import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("knox", "0009_extend_authtoken_field"),
        ("quizzes", "0002_fixed_seeds_idempotency_reminders_jobs"),
    ]

    operations = [
        migrations.CreateModel(
            name="TokenDevice",
            fields=[
                (
                    "token",
                    models.OneToOneField(
                        db_column="token_digest",
                        on_delete=django.db.models.deletion.CASCADE,
                        primary_key=True,
                        related_name="device",
                        serialize=False,
                        to="knox.authtoken",
                    ),
                ),
                ("name", models.CharField(blank=True, max_length=100, verbose_name="device name")),
            ],
            options={
                "verbose_name": "token device",
                "verbose_name_plural": "token devices",
            },
        ),
    ]
