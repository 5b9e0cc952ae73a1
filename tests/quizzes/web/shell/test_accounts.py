"""Sign-up, log-in/out, password change and reset, login-required redirects, CSRF."""

from __future__ import annotations

import datetime as dt
import re

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.test import Client
from django.urls import reverse

from quizzes.models import LearnerProfile
from tests import factories

pytestmark = pytest.mark.django_db

PASSWORD = "a-long-enough-passphrase-42"


def test_signup_page_renders(client):
    response = client.get(reverse("web:signup"))
    assert response.status_code == 200
    assert 'name="password2"' in response.content.decode()


def test_signup_creates_account_and_profile_and_logs_in(client):
    response = client.post(
        reverse("web:signup"),
        {"username": "ada", "email": "", "password1": PASSWORD, "password2": PASSWORD},
    )
    assert response.status_code == 302
    assert response.url == reverse("web:dashboard")
    user = get_user_model().objects.get(username="ada")
    assert LearnerProfile.objects.filter(user=user).exists()
    assert int(client.session["_auth_user_id"]) == user.pk
    dashboard = client.get(response.url)
    assert "Dashboard" in dashboard.content.decode()
    assert "Welcome, ada!" in dashboard.content.decode()


def test_signup_mismatched_passwords_shows_the_error(client):
    response = client.post(
        reverse("web:signup"),
        {"username": "ada", "password1": PASSWORD, "password2": PASSWORD + "x"},
    )
    assert response.status_code == 400
    assert "password fields didn" in response.content.decode()
    assert not get_user_model().objects.filter(username="ada").exists()


def test_signup_goes_back_to_a_local_next_but_not_an_external_one(client):
    data = {"username": "bo", "password1": PASSWORD, "password2": PASSWORD, "next": "/lessons/"}
    assert client.post(reverse("web:signup"), data).url == "/lessons/"
    client.logout()
    data = {"username": "cy", "password1": PASSWORD, "password2": PASSWORD, "next": "https://evil.example/"}
    assert client.post(reverse("web:signup"), data).url == reverse("web:dashboard")


def test_signed_in_learner_visiting_signup_goes_to_dashboard(learner_client):
    assert learner_client.get(reverse("web:signup")).url == reverse("web:dashboard")


def test_login_and_logout(client):
    user = factories.UserFactory(username="lin")
    page = client.get(reverse("web:login"))
    assert page.status_code == 200
    bad = client.post(reverse("web:login"), {"username": "lin", "password": "wrong"})
    assert bad.status_code == 200
    assert "Please enter a correct username and password" in bad.content.decode()
    good = client.post(reverse("web:login"), {"username": "lin", "password": factories.PASSWORD})
    assert good.url == reverse("web:dashboard")
    assert int(client.session["_auth_user_id"]) == user.pk

    assert client.get(reverse("web:logout")).status_code == 405  # logging out is a POST
    out = client.post(reverse("web:logout"))
    assert out.url == reverse("web:dashboard")
    assert "_auth_user_id" not in client.session


@pytest.mark.parametrize("name", ["web:settings", "web:password_change"])
def test_pages_that_need_login_redirect_to_the_learner_login(client, name):
    url = reverse(name)
    response = client.get(url)
    assert response.status_code == 302
    assert response.url == f"{reverse('web:login')}?next={url}"


def test_password_change(client):
    user = factories.UserFactory()
    client.force_login(user)
    assert client.get(reverse("web:password_change")).status_code == 200
    response = client.post(
        reverse("web:password_change"),
        {"old_password": factories.PASSWORD, "new_password1": PASSWORD, "new_password2": PASSWORD},
    )
    assert response.url == reverse("web:password_change_done")
    assert client.get(response.url).status_code == 200
    user.refresh_from_db()
    assert user.check_password(PASSWORD)


def test_password_reset_by_email_link(client):
    user = factories.UserFactory(email="ada@example.com")
    assert client.get(reverse("web:password_reset")).status_code == 200
    response = client.post(reverse("web:password_reset"), {"email": "ada@example.com"})
    assert response.url == reverse("web:password_reset_done")
    assert client.get(response.url).status_code == 200

    assert len(mail.outbox) == 1
    link = re.search(r"http://testserver(/accounts/password/reset/\S+/)", mail.outbox[0].body).group(1)
    form_page = client.get(link, follow=True)  # Django swaps the token for a session one and redirects
    assert form_page.status_code == 200
    assert 'name="new_password1"' in form_page.content.decode()
    done = client.post(form_page.redirect_chain[-1][0], {"new_password1": PASSWORD, "new_password2": PASSWORD})
    assert done.url == reverse("web:password_reset_complete")
    assert client.get(done.url).status_code == 200
    user.refresh_from_db()
    assert user.check_password(PASSWORD)


def test_password_reset_with_a_bad_link_says_so(client):
    response = client.get(reverse("web:password_reset_confirm", kwargs={"uidb64": "MQ", "token": "bad-token"}))
    assert response.status_code == 200
    assert "expired or was already used" in response.content.decode()


def test_posts_without_a_csrf_token_are_refused():
    client = Client(enforce_csrf_checks=True)
    response = client.post(reverse("web:signup"), {"username": "eve", "password1": PASSWORD, "password2": PASSWORD})
    assert response.status_code == 403
    assert "CSRF" in response.content.decode()
    assert not get_user_model().objects.filter(username="eve").exists()

    page = client.get(reverse("web:signup"))  # with the token from the page, the same POST works
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.content.decode()).group(1)
    ok = client.post(
        reverse("web:signup"),
        {"username": "eve", "password1": PASSWORD, "password2": PASSWORD, "csrfmiddlewaretoken": token},
    )
    assert ok.status_code == 302


def test_a_session_signs_in_only_while_it_lasts_and_while_its_account_may_sign_in(client):
    """Sessions and their users are read by compiled statements (quizzes.accounts.sessions, user_by_id): the
    rules stay Django's — an expired or altered session, an inactive, deleted or re-passworded account
    is a visitor, sent to log in."""
    from django.contrib.sessions.models import Session
    from django.utils import timezone

    settings_url = reverse("web:settings")

    def signed_in_as(user) -> str:
        client.force_login(user)
        assert client.get(settings_url).status_code == 200
        return client.session.session_key

    learner = factories.UserFactory()
    key = signed_in_as(learner)
    Session.objects.filter(session_key=key).update(expire_date=timezone.now() - dt.timedelta(seconds=1))
    assert client.get(settings_url).status_code == 302

    key = signed_in_as(learner)
    Session.objects.filter(session_key=key).update(session_data="not-a-signed-session")
    assert client.get(settings_url).status_code == 302

    signed_in_as(learner)
    learner.set_password("a-new-password-9")
    learner.save()
    assert client.get(settings_url).status_code == 302

    signed_in_as(learner)
    get_user_model().objects.filter(pk=learner.pk).update(is_active=False)
    assert client.get(settings_url).status_code == 302

    other = factories.UserFactory()
    signed_in_as(other)
    other.delete()
    assert client.get(settings_url).status_code == 302
