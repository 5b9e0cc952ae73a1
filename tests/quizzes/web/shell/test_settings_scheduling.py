"""The settings page's personal scheduling (issue 30): the parameters in use said plainly, and the workload of a
desired retention shown before it is saved (htmx panel, and a no-JavaScript preview button)."""

from __future__ import annotations

import datetime as dt

import pytest
from django.urls import reverse
from django.utils import timezone

from quizzes.models import LearnerProfile
from quizzes.reviews import fitting
from tests.quizzes.reviews.fitting_helpers import FORGETFUL, simulated_history, store_history
from tests.quizzes.web.shell.test_settings_page import VALID

pytestmark = pytest.mark.django_db


def test_a_new_learner_reads_that_the_defaults_schedule_them_and_why(learner_client):
    body = learner_client.get(reverse("web:settings")).content.decode()
    assert "Default parameters" in body
    assert "Too little history yet" in body and "400 reviews over 40 items (you have 0 over 0)" in body
    assert 'hx-get="/settings/workload/"' in body
    assert "At a desired retention of <strong>0.90</strong>" in body
    assert "Suggested: <strong>0." in body


def test_a_kept_fit_is_shown_with_its_date_reviews_and_log_loss(learner_client, learner):
    LearnerProfile.objects.get_or_create(user=learner)
    start = timezone.now() - dt.timedelta(days=500)
    store_history(learner, simulated_history(cards=80, reviews=1000, true_parameters=FORGETFUL, seed=1, start=start))
    fit = fitting.learner_parameters_fit(user_id=learner.pk)
    body = learner_client.get(reverse("web:settings")).content.decode()
    assert "Personal parameters." in body and f"from {fit.reviews} reviews" in body
    assert f"log loss {fit.log_loss_before:.4f} → {fit.log_loss_after:.4f}" in body
    assert "with your personal parameters" in body


def test_the_workload_panel_follows_the_typed_retention(learner_client):
    response = learner_client.get(reverse("web:settings_workload"), {"desired_retention": "0.8"})
    assert response.status_code == 200
    body = response.content.decode()
    assert "At a desired retention of <strong>0.80</strong>" in body
    assert "Your current setting, 0.90" in body


@pytest.mark.parametrize(
    ("value", "message"),
    [("0.69", "greater than or equal to 0.7"), ("0.98", "less than or equal to 0.97"), ("x", "number")],
)
def test_a_retention_out_of_range_is_explained_in_the_panel(learner_client, value, message):
    response = learner_client.get(reverse("web:settings_workload"), {"desired_retention": value})
    assert response.status_code == 400 and message in response.content.decode()


def test_the_preview_button_shows_the_workload_and_saves_nothing(learner_client, learner):
    response = learner_client.post(reverse("web:settings"), {**VALID, "desired_retention": "0.95", "preview": "1"})
    assert response.status_code == 200
    assert "At a desired retention of <strong>0.95</strong>" in response.content.decode()
    assert not LearnerProfile.objects.filter(user=learner, desired_retention=0.95).exists()


def test_the_panel_is_translated(learner_client):
    learner_client.cookies["django_language"] = "zh-hans"
    body = learner_client.get(reverse("web:settings")).content.decode()
    assert "默认参数" in body
