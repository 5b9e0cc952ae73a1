"""Account deletion through the API (DELETE /api/v1/profile/) and the settings page's form: 204 / a redirect once
deleted, 403 with nothing deleted for a wrong password or a staff account, 400 without a password, throttled."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from rest_framework.test import APIClient

from quizzes.models import ReviewCard
from tests import factories
from tests.quizzes.api.helpers import assert_error

pytestmark = pytest.mark.django_db


def api_for(learner) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {learner.token}")
    return client


def exists(user) -> bool:
    return get_user_model().objects.filter(pk=user.pk).exists()


def test_api_deletes_with_the_password_and_the_token_dies(learner):
    api = api_for(learner)
    response = api.delete("/api/v1/profile/", {"password": factories.PASSWORD}, format="json")
    assert response.status_code == 204
    assert not exists(learner.user) and not ReviewCard.objects.filter(user_id=learner.user.pk).exists()
    assert_error(api.get("/api/v1/ping/"), 401)
    assert learner.browser.get("/settings/").status_code == 302  # the browser session ended too
    # a retry: the token died with the account
    assert api.delete("/api/v1/profile/", {"password": factories.PASSWORD}, format="json").status_code == 401


def test_api_wrong_password_is_403_and_nothing_is_deleted(learner):
    cards = ReviewCard.objects.filter(user=learner.user).count()
    body = assert_error(
        api_for(learner).delete("/api/v1/profile/", {"password": "wrong"}, format="json"), 403, "wrong_password"
    )
    assert "Nothing was deleted" in body["error"]["message"]
    assert exists(learner.user) and ReviewCard.objects.filter(user=learner.user).count() == cards
    assert api_for(learner).get("/api/v1/ping/").status_code == 200


def test_api_needs_the_password(learner):
    body = assert_error(api_for(learner).delete("/api/v1/profile/", {}, format="json"), 400, "validation_error")
    assert "password" in body["error"]["fields"]
    assert exists(learner.user)


def test_api_staff_cannot_delete_themselves(db):
    from tests.quizzes.api.conftest import token_client

    admin = factories.UserFactory(is_staff=True)
    staff_api = token_client(admin)
    body = assert_error(
        staff_api.delete("/api/v1/profile/", {"password": factories.PASSWORD}, format="json"), 403, "staff_account"
    )
    assert "administrator" in body["error"]["message"] and exists(admin)


def test_api_wrong_passwords_are_throttled(learner, settings):
    settings.THROTTLE_RATES = {**settings.THROTTLE_RATES, "password_confirm": {"username": "2/15m", "ip": "50/15m"}}
    api = api_for(learner)
    for _ in range(2):
        assert_error(api.delete("/api/v1/profile/", {"password": "guess"}, format="json"), 403, "wrong_password")
    response = api.delete("/api/v1/profile/", {"password": factories.PASSWORD}, format="json")
    assert_error(response, 429, "throttled")
    assert response["Retry-After"] and exists(learner.user)


# --- the web -------------------------------------------------------------------------------------


def test_the_settings_page_offers_export_and_deletion(learner):
    page = learner.browser.get("/settings/").content.decode()
    assert 'id="your-data"' in page and "/settings/export/" in page and "/settings/delete-account/" in page
    form = learner.browser.get("/settings/delete-account/").content.decode()
    assert 'autocomplete="current-password"' in form and 'name="confirm"' in form


def test_web_deletion_asks_for_the_password_and_the_box(learner):
    browser = learner.browser
    assert browser.post("/settings/delete-account/", {"password": factories.PASSWORD}).status_code == 400  # no box
    wrong = browser.post("/settings/delete-account/", {"password": "nope", "confirm": "on"})
    assert wrong.status_code == 403 and "Nothing was deleted" in wrong.content.decode()
    assert exists(learner.user)
    done = browser.post("/settings/delete-account/", {"password": factories.PASSWORD, "confirm": "on"})
    assert done.status_code == 302 and done["Location"] == "/account-deleted/"
    assert not exists(learner.user)
    assert "Your account is deleted" in browser.get(done["Location"]).content.decode()
    assert browser.get("/settings/").status_code == 302  # signed out
    # the same name and address sign up again
    again = Client().post(
        "/accounts/signup/",
        {
            "username": learner.user.username,
            "email": learner.user.email,
            "password1": "Another-pass-987",
            "password2": "Another-pass-987",
        },
    )
    assert again.status_code == 302 and exists(get_user_model().objects.get(username=learner.user.username))


def test_web_staff_sees_why_they_cannot_delete(db):
    admin = factories.UserFactory(is_staff=True)
    browser = Client()
    browser.force_login(admin)
    page = browser.get("/settings/delete-account/")
    assert page.status_code == 403 and "staff account cannot delete itself" in page.content.decode()
    refused = browser.post("/settings/delete-account/", {"password": factories.PASSWORD, "confirm": "on"})
    assert refused.status_code == 403 and exists(admin)


def test_web_export_button_starts_one_job_and_shows_its_progress(learner, settings, tmp_path):
    from quizzes.models import DataExport
    from quizzes.privacy.services import data_export_run

    settings.MEDIA_ROOT = str(tmp_path)
    browser = learner.browser
    assert browser.post("/settings/export/").status_code == 302
    assert browser.post("/settings/export/").status_code == 302  # asked twice: still one job
    export = DataExport.objects.get(user=learner.user)
    page = browser.get("/settings/").content.decode()
    assert f'hx-get="/settings/export/{export.pk}/"' in page and "<progress" in page
    data_export_run(export_id=export.pk)
    block = browser.get(f"/settings/export/{export.pk}/").content.decode()
    assert "hx-get" not in block and "Download your cards for Anki (.apkg)" in block
    link = block.split('href="')[1].split('"')[0]
    assert Client().get(link).status_code == 200  # the signed link works without signing in
    other = Client()
    other.force_login(factories.UserFactory())
    assert other.get(f"/settings/export/{export.pk}/").status_code == 404
