"""Issue 28: devices that outlive their tokens (each token's device row becomes a Device of its own), the user →
browser-session index (the signed-in sessions there are indexed), username skeletons (existing usernames indexed in
order of creation; a later one confusable with an earlier one stays unindexed), the reminder channel."""

import datetime as dt

import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models


def tokens_to_devices(apps, schema_editor):
    TokenDevice = apps.get_model("quizzes", "TokenDevice")
    Device = apps.get_model("quizzes", "Device")
    for row in TokenDevice.objects.select_related("token").iterator(chunk_size=500):
        token = row.token
        row.device = Device.objects.create(
            user_id=token.user_id,
            device_id=f"token-{token.digest[:32]}",
            name=row.name,
            created_at=token.created,
            last_seen_at=token.created,
        )
        row.save(update_fields=["device"])


def devices_to_tokens(apps, schema_editor):
    TokenDevice = apps.get_model("quizzes", "TokenDevice")
    for row in TokenDevice.objects.select_related("device").iterator(chunk_size=500):
        row.name = row.device.name
        row.save(update_fields=["name"])


def index_sessions(apps, schema_editor):
    from django.conf import settings as django_settings
    from django.contrib.sessions.backends.db import SessionStore
    from django.utils import timezone

    Session = apps.get_model("sessions", "Session")
    BrowserSession = apps.get_model("quizzes", "BrowserSession")
    User = apps.get_model(*django_settings.AUTH_USER_MODEL.split("."))
    decoder = SessionStore()
    age = dt.timedelta(seconds=django_settings.SESSION_COOKIE_AGE)
    rows = []
    for session in Session.objects.filter(expire_date__gt=timezone.now()).iterator(chunk_size=1000):
        user_id = decoder.decode(session.session_data).get("_auth_user_id")
        if user_id is not None and str(user_id).isdigit():
            rows.append((session.session_key, int(user_id), session.expire_date - age))
    known = set(User.objects.filter(pk__in={user_id for _key, user_id, _at in rows}).values_list("pk", flat=True))
    BrowserSession.objects.bulk_create(
        [BrowserSession(session_id=key, user_id=user_id, created_at=at) for key, user_id, at in rows if user_id in known],
        batch_size=1000,
    )


def index_usernames(apps, schema_editor):
    from django.conf import settings as django_settings

    from quizzes.accounts.usernames import username_digest

    User = apps.get_model(*django_settings.AUTH_USER_MODEL.split("."))
    UsernameSkeleton = apps.get_model("quizzes", "UsernameSkeleton")
    seen = set()
    rows = []
    for user_id, username in User.objects.order_by("pk").values_list("pk", "username").iterator(chunk_size=1000):
        digest = username_digest(username)
        if digest not in seen:
            seen.add(digest)
            rows.append(UsernameSkeleton(user_id=user_id, digest=digest))
    UsernameSkeleton.objects.bulk_create(rows, batch_size=1000)


class Migration(migrations.Migration):

    dependencies = [
        ('auth', '0012_alter_user_first_name_max_length'),
        ('push_notifications', '0012_alter_webpushdevice_browser'),
        ('quizzes', '0019_i28_account_data'),
        ('sessions', '0001_initial'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name='BrowserSession',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('created_at', models.DateTimeField(default=django.utils.timezone.now, verbose_name='signed in')),
                ('user_agent', models.CharField(blank=True, max_length=200, verbose_name='browser')),
            ],
            options={
                'verbose_name': 'browser session',
                'verbose_name_plural': 'browser sessions',
            },
        ),
        migrations.CreateModel(
            name='Device',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('device_id', models.CharField(help_text="The app's own stable id.", max_length=128, verbose_name='device id')),
                ('name', models.CharField(blank=True, max_length=100, verbose_name='device name')),
                ('platform', models.CharField(choices=[('android', 'Android'), ('ios', 'iOS'), ('web', 'Web'), ('other', 'Other')], default='other', max_length=8, verbose_name='platform')),
                ('created_at', models.DateTimeField(default=django.utils.timezone.now, verbose_name='created')),
                ('last_seen_at', models.DateTimeField(default=django.utils.timezone.now, verbose_name='last seen')),
            ],
            options={
                'verbose_name': 'device',
                'verbose_name_plural': 'devices',
            },
        ),
        migrations.CreateModel(
            name='UsernameSkeleton',
            fields=[
                ('user', models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, primary_key=True, related_name='username_skeleton', serialize=False, to=settings.AUTH_USER_MODEL)),
                ('digest', models.CharField(max_length=64, unique=True)),
            ],
            options={
                'verbose_name': 'username skeleton',
                'verbose_name_plural': 'username skeletons',
            },
        ),
        migrations.AddField(
            model_name='learnerprofile',
            name='reminder_channel',
            field=models.CharField(choices=[('push', 'Push to my devices (e-mail if none)'), ('email', 'E-mail')], default='push', help_text='How an opted-in learner is reminded: a push to their signed-in devices (e-mail when none takes it) or e-mail only. Reminders off: reminder_opt_in.', max_length=8, verbose_name='reminder channel'),
        ),
        migrations.AddField(
            model_name='reminderdelivery',
            name='channel',
            field=models.CharField(blank=True, help_text='push or email; empty until sent.', max_length=8, verbose_name='sent by'),
        ),
        migrations.AddConstraint(
            model_name='learnerprofile',
            constraint=models.CheckConstraint(condition=models.Q(('reminder_channel__in', ['push', 'email'])), name='profile_reminder_channel_valid'),
        ),
        migrations.AddField(
            model_name='browsersession',
            name='session',
            field=models.OneToOneField(db_column='session_key', on_delete=django.db.models.deletion.CASCADE, related_name='learner', to='sessions.session'),
        ),
        migrations.AddField(
            model_name='browsersession',
            name='user',
            field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='browser_sessions', to=settings.AUTH_USER_MODEL),
        ),
        migrations.AddField(
            model_name='device',
            name='apns',
            field=models.OneToOneField(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to='push_notifications.apnsdevice'),
        ),
        migrations.AddField(
            model_name='device',
            name='fcm',
            field=models.OneToOneField(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to='push_notifications.gcmdevice'),
        ),
        migrations.AddField(
            model_name='device',
            name='user',
            field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='devices', to=settings.AUTH_USER_MODEL),
        ),
        migrations.AddField(
            model_name='device',
            name='webpush',
            field=models.OneToOneField(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to='push_notifications.webpushdevice'),
        ),
        migrations.AddField(
            model_name='tokendevice',
            name='device',
            field=models.ForeignKey(null=True, on_delete=django.db.models.deletion.CASCADE, related_name='tokens', to='quizzes.device'),
        ),
        migrations.AddConstraint(
            model_name='device',
            constraint=models.UniqueConstraint(fields=('user', 'device_id'), name='device_id_unique_per_user'),
        ),
        migrations.AddConstraint(
            model_name='device',
            constraint=models.CheckConstraint(condition=models.Q(('platform__in', ['android', 'ios', 'web', 'other'])), name='device_platform'),
        ),
        migrations.AddConstraint(
            model_name='device',
            constraint=models.CheckConstraint(condition=models.Q(models.Q(('apns__isnull', True), ('fcm__isnull', True)), models.Q(('fcm__isnull', True), ('webpush__isnull', True)), models.Q(('apns__isnull', True), ('webpush__isnull', True)), _connector='OR'), name='device_one_push_registration'),
        ),
            migrations.RunPython(tokens_to_devices, devices_to_tokens),
        migrations.AlterField(
            model_name='tokendevice',
            name='device',
            field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='tokens', to='quizzes.device'),
        ),
        migrations.RemoveField(
            model_name='tokendevice',
            name='name',
        ),
        migrations.RunPython(index_sessions, migrations.RunPython.noop),
        migrations.RunPython(index_usernames, migrations.RunPython.noop),
    ]
