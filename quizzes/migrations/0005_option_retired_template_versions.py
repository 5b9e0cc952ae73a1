"""Option.retired; Question.template_version and AttemptItem.template_version.

Every numeric question and every numeric attempt item existing before this migration was generated
by version 1 of its template (the only version there was), so that is what they are set to. The
check constraints that make the version required on numeric rows come in 0006, once the rows hold it.
"""

from django.db import migrations, models


def set_version_one(apps, schema_editor):
    Question = apps.get_model("quizzes", "Question")
    AttemptItem = apps.get_model("quizzes", "AttemptItem")
    Question.objects.filter(kind="numeric", template_version__isnull=True).update(template_version=1)
    AttemptItem.objects.filter(variant__isnull=False, template_version__isnull=True).update(template_version=1)


class Migration(migrations.Migration):
    dependencies = [
        ("quizzes", "0004_reviewcard_user_no_single_index"),
    ]

    operations = [
        migrations.AddField(
            model_name="attemptitem",
            name="template_version",
            field=models.PositiveSmallIntegerField(
                blank=True,
                help_text="Numeric items: the version that generated the variant.",
                null=True,
                verbose_name="template version",
            ),
        ),
        migrations.AddField(
            model_name="option",
            name="retired",
            field=models.BooleanField(
                default=False,
                help_text="Hidden from new attempts; kept because earlier attempts showed it.",
                verbose_name="retired",
            ),
        ),
        migrations.AddField(
            model_name="question",
            name="template_version",
            field=models.PositiveSmallIntegerField(
                blank=True,
                help_text=(
                    "Numeric only: which version of the template generates the numbers (empty: the newest). "
                    "Part of the question's identity: a newer version may generate different numbers."
                ),
                null=True,
                verbose_name="template version",
            ),
        ),
        migrations.RunPython(set_version_one, migrations.RunPython.noop),
    ]
