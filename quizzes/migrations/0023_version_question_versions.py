"""One versioning mechanism for questions (issue 27, item 2).

Packs' shared PackedQuestion table becomes QuestionVersion (renamed, not copied: pack items keep pointing at
exactly the rows they showed), numbered per question in the order the packs stored them. Then every question
gets a version of its content as it is now (the newest), and every existing attempt item is pinned to it.

History before this migration is not recoverable: questions were edited in place, so an attempt item made
before now is pinned to the content as it is at migration time, whatever it showed then. Only pack items keep
what they really showed (their old snapshots, which lack the fields versions now add; readers treat those
as empty).
"""

import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models


def number_and_pin(apps, schema_editor):
    """Number the packs' versions per question, record each question's content now, pin attempt items to it."""
    from quizzes.content.versions import snapshot_digest, version_snapshot

    if schema_editor.connection.vendor == "postgresql":
        # check the foreign keys of these writes now, not at commit: PostgreSQL refuses the constraints added
        # below while deferred checks of this transaction are pending
        schema_editor.execute("SET CONSTRAINTS ALL IMMEDIATE")
    Question = apps.get_model("quizzes", "Question")
    QuestionVersion = apps.get_model("quizzes", "QuestionVersion")
    AttemptItem = apps.get_model("quizzes", "AttemptItem")
    now = django.utils.timezone.now()
    for question in Question.objects.prefetch_related("options").order_by("pk").iterator(chunk_size=500):
        old = list(QuestionVersion.objects.filter(question_id=question.pk).order_by("created_at", "pk"))
        for number, version in enumerate(old, start=1):
            version.number, version.source = number, question.source
        QuestionVersion.objects.bulk_update(old, ["number", "source"])
        snapshot = version_snapshot(question=question, options=list(question.options.all()))
        current = QuestionVersion.objects.create(
            question_id=question.pk,
            number=len(old) + 1,
            digest=snapshot_digest(snapshot),
            snapshot=snapshot,
            source=question.source,
            created_at=now,
        )
        AttemptItem.objects.filter(question_id=question.pk).update(version=current)


class Migration(migrations.Migration):
    dependencies = [
        ("quizzes", "0022_reports"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.RenameModel("PackedQuestion", "QuestionVersion"),
        migrations.AlterModelOptions(
            name="questionversion",
            options={
                "ordering": ("question", "-number"),
                "verbose_name": "question version",
                "verbose_name_plural": "question versions",
            },
        ),
        migrations.AlterField(
            model_name="questionversion",
            name="question",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.CASCADE, related_name="versions", to="quizzes.question"
            ),
        ),
        migrations.AlterField(
            model_name="questionversion",
            name="digest",
            field=models.CharField(db_index=True, max_length=64, verbose_name="digest"),
        ),
        migrations.AlterField(
            model_name="questionversion",
            name="snapshot",
            field=models.JSONField(verbose_name="content"),
        ),
        migrations.AlterField(
            model_name="questionversion",
            name="created_at",
            field=models.DateTimeField(default=django.utils.timezone.now, verbose_name="saved at"),
        ),
        migrations.AddField(
            model_name="questionversion",
            name="number",
            field=models.PositiveIntegerField(default=0, verbose_name="version"),
            preserve_default=False,
        ),
        migrations.AddField(
            model_name="questionversion",
            name="source",
            field=models.CharField(
                choices=[("file", "Lesson files"), ("admin", "Admin"), ("job", "Generation job")],
                default="admin",
                max_length=8,
                verbose_name="source",
            ),
            preserve_default=False,
        ),
        migrations.AddField(
            model_name="questionversion",
            name="created_by",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.SET_NULL,
                related_name="+",
                to=settings.AUTH_USER_MODEL,
                verbose_name="saved by",
            ),
        ),
        migrations.AlterField(
            model_name="packitem",
            name="packed",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.RESTRICT,
                related_name="pack_items",
                to="quizzes.questionversion",
                verbose_name="question version",
            ),
        ),
        migrations.AddField(
            model_name="attemptitem",
            name="version",
            field=models.ForeignKey(
                blank=True,
                db_index=False,
                null=True,
                on_delete=django.db.models.deletion.RESTRICT,
                related_name="attempt_items",
                to="quizzes.questionversion",
                verbose_name="question version",
            ),
        ),
        migrations.RunPython(number_and_pin, migrations.RunPython.noop),
        migrations.AddConstraint(
            model_name="questionversion",
            constraint=models.UniqueConstraint(fields=("question", "number"), name="question_version_number_unique"),
        ),
        migrations.AddConstraint(
            model_name="questionversion",
            constraint=models.CheckConstraint(
                condition=models.Q(("number__gte", 1)), name="question_version_number_positive"
            ),
        ),
        migrations.AddConstraint(
            model_name="questionversion",
            constraint=models.CheckConstraint(
                condition=models.Q(("source__in", ["file", "admin", "job"])), name="question_version_source_known"
            ),
        ),
    ]
