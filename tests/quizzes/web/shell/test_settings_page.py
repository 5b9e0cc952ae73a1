"""The learner settings page: shows the profile, saves through the service, explains bad input."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.urls import reverse

from quizzes.models import LearnerProfile
from tests import factories

pytestmark = pytest.mark.django_db

VALID = {
    "time_zone": "Asia/Shanghai",
    "day_rollover_hour": "5",
    "language": "en",
    "desired_retention": "0.85",
    "new_per_day": "12",
    "reminders": "email",
}


def test_settings_page_shows_the_current_values(learner_client, learner):
    response = learner_client.get(reverse("web:settings"))
    assert response.status_code == 200
    body = response.content.decode()
    assert '<option value="UTC" selected>' in body
    assert 'name="desired_retention" value="0.9"' in body
    assert 'name="new_per_day" value="20"' in body


def test_saving_updates_the_profile(learner_client, learner):
    response = learner_client.post(reverse("web:settings"), VALID)
    assert response.status_code == 302
    profile = LearnerProfile.objects.get(user=learner)
    assert (profile.time_zone, profile.day_rollover_hour) == ("Asia/Shanghai", 5)
    assert profile.desired_retention == pytest.approx(0.85)
    assert profile.new_per_day == 12
    assert (profile.reminder_opt_in, profile.reminder_channel) == (True, "email")
    assert "Settings saved." in learner_client.get(response.url).content.decode()


def test_saving_creates_a_missing_profile(client):
    user = factories.UserFactory()
    client.force_login(user)
    assert client.get(reverse("web:settings")).status_code == 200
    assert client.post(reverse("web:settings"), {**VALID, "reminders": "none"}).status_code == 302
    assert LearnerProfile.objects.get(user=user).reminder_opt_in is False


def test_reminders_by_push_e_mail_or_none(learner_client, learner):
    assert 'name="reminders" value="none"' in learner_client.get(reverse("web:settings")).content.decode()
    assert learner_client.post(reverse("web:settings"), {**VALID, "reminders": "push"}).status_code == 302
    profile = LearnerProfile.objects.get(user=learner)
    assert (profile.reminder_opt_in, profile.reminder_channel) == (True, "push")
    page = learner_client.get(reverse("web:settings")).content.decode()
    assert 'name="reminders" value="push" required id="id_reminders_0" checked' in page
    assert learner_client.post(reverse("web:settings"), {**VALID, "reminders": "none"}).status_code == 302
    profile.refresh_from_db()
    assert (profile.reminder_opt_in, profile.reminder_channel) == (False, "push")  # kept for turning them on again
    assert learner_client.post(reverse("web:settings"), {**VALID, "reminders": "sms"}).status_code == 400


def test_language_is_kept_in_the_language_cookie(learner_client):
    response = learner_client.post(reverse("web:settings"), {**VALID, "language": "zh-hans"})
    assert response.cookies[settings.LANGUAGE_COOKIE_NAME].value == "zh-hans"
    page = learner_client.get(reverse("web:settings"))
    assert '<html lang="zh-hans">' in page.content.decode()
    assert "设置" in page.content.decode()


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("time_zone", "Mars/Olympus_Mons", "Select a valid choice"),
        ("day_rollover_hour", "24", "Select a valid choice"),
        ("desired_retention", "0.5", "greater than or equal to 0.7"),
        ("desired_retention", "0.98", "less than or equal to 0.97"),
        ("new_per_day", "-1", "greater than or equal to 0"),
        ("new_per_day", "lots", "Enter a whole number"),
    ],
)
def test_bad_values_are_refused_with_a_message(learner_client, learner, field, value, message):
    response = learner_client.post(reverse("web:settings"), {**VALID, field: value})
    assert response.status_code == 400
    body = response.content.decode()
    assert message in body
    assert "Please correct the errors below." in body
    assert LearnerProfile.objects.get(user=learner).time_zone == "UTC"  # nothing saved
