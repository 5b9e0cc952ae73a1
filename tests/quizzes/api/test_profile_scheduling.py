"""The API's personal scheduling (issue 30): which parameters schedule you, and what a desired retention costs
before you set it (simulated from your cards and parameters), with the range enforced."""

from __future__ import annotations

import datetime as dt

import pytest
from django.utils import timezone

from quizzes.models import LearnerProfile
from quizzes.reviews import fitting
from tests.quizzes.api.helpers import assert_error
from tests.quizzes.reviews.fitting_helpers import FORGETFUL, simulated_history, store_history

pytestmark = pytest.mark.django_db


def test_a_new_learner_is_on_the_default_parameters_and_told_what_a_fit_needs(api):
    parameters = api.get("/api/v1/profile/").json()["parameters"]
    assert parameters["kind"] == "default" and parameters["fitted_at"] is None
    assert (parameters["reviews"], parameters["min_reviews"], parameters["min_cards"]) == (0, 400, 40)


def test_a_kept_fit_shows_as_personal_with_both_figures(api, user):
    LearnerProfile.objects.get_or_create(user=user)
    history = simulated_history(
        cards=80, reviews=1000, true_parameters=FORGETFUL, seed=1, start=timezone.now() - dt.timedelta(days=500)
    )
    store_history(user, history)
    fit = fitting.learner_parameters_fit(user_id=user.pk)
    parameters = api.get("/api/v1/profile/").json()["parameters"]
    assert parameters["kind"] == "personal" and parameters["last_attempt_outcome"] == "kept"
    assert parameters["fitted_reviews"] == fit.reviews
    assert parameters["log_loss_after"] == pytest.approx(fit.log_loss_after)
    assert parameters["log_loss_after"] < parameters["log_loss_before"]


def test_the_workload_of_a_retention_is_simulated_before_it_is_saved(api, user):
    store_history(
        user,
        simulated_history(
            cards=30, reviews=200, true_parameters=FORGETFUL, start=timezone.now() - dt.timedelta(days=90)
        ),
    )
    low = api.get("/api/v1/profile/workload/", {"desired_retention": "0.75"}).json()
    high = api.get("/api/v1/profile/workload/", {"desired_retention": "0.95"}).json()
    assert len(low["chosen"]["reviews_per_day"]) == 30
    assert high["chosen"]["average_reviews_per_day"] > low["chosen"]["average_reviews_per_day"]
    assert high["chosen"]["expected_recall"] > low["chosen"]["expected_recall"]
    assert low["current"]["desired_retention"] == 0.9  # nothing was saved
    assert 0.7 <= low["suggested_retention"] <= 0.97
    assert not LearnerProfile.objects.filter(user=user).exclude(desired_retention=0.9).exists()
    again = api.get("/api/v1/profile/workload/", {"desired_retention": "0.75"}).json()
    assert again == low  # seeded: the same cards give the same figures


@pytest.mark.parametrize("value", ["0.69", "0.98", "1", "high"])
def test_a_retention_outside_the_range_is_a_400_naming_the_field(api, value):
    body = assert_error(api.get("/api/v1/profile/workload/", {"desired_retention": value}), 400, "validation_error")
    assert "desired_retention" in body["error"]["fields"]


def test_the_workload_needs_a_signed_in_learner(client):
    assert client.get("/api/v1/profile/workload/").status_code == 401
