"""The template version is required on numeric questions and items, and absent elsewhere (after 0005 filled it)."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("quizzes", "0005_option_retired_template_versions"),
    ]

    operations = [
        migrations.AddConstraint(
            model_name="attemptitem",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    models.Q(("template_version__isnull", True), ("variant__isnull", True)),
                    models.Q(("template_version__isnull", False), ("variant__isnull", False)),
                    _connector="OR",
                ),
                name="attempt_item_template_version_with_variant",
            ),
        ),
        migrations.AddConstraint(
            model_name="question",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    models.Q(("kind", "numeric"), ("template_version__gte", 1), ("template_version__isnull", False)),
                    models.Q(models.Q(("kind", "numeric"), _negated=True), ("template_version__isnull", True)),
                    _connector="OR",
                ),
                name="question_template_version_iff_numeric",
            ),
        ),
    ]
