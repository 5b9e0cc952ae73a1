"""Issue 30: personal FSRS parameters on the profile, the fits that produced them, desired retention 0.70-0.97."""

import django.core.validators
import django.db.models.deletion
import django.db.models.lookups
import quizzes.accounts.models
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('quizzes', '0014_i16_covered_fk_indexes'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name='ParameterFit',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('created_at', models.DateTimeField(auto_now_add=True, verbose_name='fitted at')),
                ('outcome', models.CharField(choices=[('kept', 'Kept: predicts your later reviews better'), ('not_better', 'Not kept: predicts no better than the parameters in use'), ('too_little_history', 'Not fitted: too little history yet'), ('failed', 'Not kept: the fit failed'), ('out_of_range', 'Not kept: parameters outside the valid ranges')], max_length=20, verbose_name='outcome')),
                ('reviews', models.PositiveIntegerField(help_text="Counted reviews (each study day's first).", verbose_name='reviews')),
                ('cards', models.PositiveIntegerField(verbose_name='cards')),
                ('logs_until', models.DateTimeField(blank=True, help_text='The newest review the fit read.', null=True, verbose_name='logs until')),
                ('log_loss_before', models.FloatField(blank=True, null=True, verbose_name='log loss before')),
                ('log_loss_after', models.FloatField(blank=True, null=True, verbose_name='log loss after')),
                ('rmse_before', models.FloatField(blank=True, null=True, verbose_name='RMSE (bins) before')),
                ('rmse_after', models.FloatField(blank=True, null=True, verbose_name='RMSE (bins) after')),
                ('parameters', models.JSONField(blank=True, null=True, verbose_name='fitted parameters')),
                ('previous_parameters', models.JSONField(blank=True, help_text="Empty: FSRS-6's defaults.", null=True, verbose_name='parameters before')),
                ('optimal_retention', models.FloatField(blank=True, null=True, verbose_name='suggested retention')),
                ('cpu_seconds', models.FloatField(blank=True, null=True, verbose_name='CPU seconds')),
                ('detail', models.TextField(blank=True, default='', verbose_name='detail')),
            ],
            options={
                'verbose_name': 'parameter fit',
                'verbose_name_plural': 'parameter fits',
                'ordering': ('user', '-created_at', '-id'),
            },
        ),
        migrations.RemoveConstraint(
            model_name='learnerprofile',
            name='profile_desired_retention_range',
        ),
        # The range narrows from 0.70-0.99 to 0.70-0.97 (issue 30): a learner above it keeps the nearest allowed value.
        migrations.RunSQL(
            "UPDATE quizzes_learnerprofile SET desired_retention = 0.97 WHERE desired_retention > 0.97",
            reverse_sql=migrations.RunSQL.noop,
        ),
        migrations.AddField(
            model_name='learnerprofile',
            name='fsrs_parameters',
            field=models.JSONField(blank=True, default=None, help_text="The 21 FSRS-6 weights fitted to this learner's reviews and now scheduling them; empty: FSRS-6's defaults. Written only by a fit that predicted their later reviews better (ParameterFit).", null=True, verbose_name='FSRS parameters'),
        ),
        migrations.AlterField(
            model_name='learnerprofile',
            name='desired_retention',
            field=models.FloatField(default=0.9, validators=[django.core.validators.MinValueValidator(0.7), django.core.validators.MaxValueValidator(0.97)], verbose_name='desired retention'),
        ),
        migrations.AlterField(
            model_name='reviewcard',
            name='schedule_key',
            field=models.CharField(blank=True, db_default='', default='', help_text="The learner's settings the stored state was computed under; a rating under other settings replays the card's whole log.", max_length=128, verbose_name='schedule settings'),
        ),
        migrations.AddConstraint(
            model_name='learnerprofile',
            constraint=models.CheckConstraint(condition=models.Q(('desired_retention__gte', 0.7), ('desired_retention__lte', 0.97)), name='profile_desired_retention_range'),
        ),
        migrations.AddConstraint(
            model_name='learnerprofile',
            constraint=models.CheckConstraint(condition=models.Q(('fsrs_parameters__isnull', True), django.db.models.lookups.Exact(quizzes.accounts.models.JSONArrayLength('fsrs_parameters'), 21), _connector='OR'), name='profile_fsrs_parameters_21'),
        ),
        migrations.AddField(
            model_name='parameterfit',
            name='user',
            field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='parameter_fits', to=settings.AUTH_USER_MODEL),
        ),
        migrations.AddIndex(
            model_name='parameterfit',
            index=models.Index(fields=['user', '-created_at'], name='parameter_fit_user_newest'),
        ),
        migrations.AddConstraint(
            model_name='parameterfit',
            constraint=models.CheckConstraint(condition=models.Q(('outcome__in', ['kept', 'not_better', 'too_little_history', 'failed', 'out_of_range'])), name='parameter_fit_outcome_known'),
        ),
        migrations.AddConstraint(
            model_name='parameterfit',
            constraint=models.CheckConstraint(condition=models.Q(models.Q(('outcome', 'kept'), _negated=True), models.Q(('log_loss_after__lt', models.F('log_loss_before')), ('log_loss_before__isnull', False), ('parameters__isnull', False)), _connector='OR'), name='parameter_fit_kept_is_better'),
        ),
        migrations.AddConstraint(
            model_name='parameterfit',
            constraint=models.CheckConstraint(condition=models.Q(models.Q(('log_loss_before__isnull', True), ('log_loss_before__gte', 0), _connector='OR'), models.Q(('log_loss_after__isnull', True), ('log_loss_after__gte', 0), _connector='OR')), name='parameter_fit_log_loss_nonnegative'),
        ),
    ]
