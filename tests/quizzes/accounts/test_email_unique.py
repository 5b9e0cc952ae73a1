"""One account per e-mail address (case-insensitive) for accounts that have one — in forms and in the database.

The index comes from quizzes/migrations/0005 (auth.User is Django's model). With clashes already in
the table the migration stops and lists them; it deletes and rewrites nothing.
"""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.db import IntegrityError, transaction
from django.urls import reverse

from tests import factories

User = get_user_model()
PASSWORD = "a-long-enough-pass-42"


@pytest.mark.django_db
def test_database_refuses_a_second_account_with_the_same_address_in_any_case():
    factories.UserFactory(email="Ada@Example.com")
    with pytest.raises(IntegrityError), transaction.atomic():
        factories.UserFactory(email="ada@example.COM")
    factories.UserFactory(email="")  # accounts without an address are not constrained
    factories.UserFactory(email="")


@pytest.mark.django_db
def test_signup_says_the_address_is_taken(client):
    factories.UserFactory(username="ada", email="ada@example.com")
    response = client.post(
        reverse("web:signup"),
        {"username": "eve", "email": "ADA@example.com", "password1": PASSWORD, "password2": PASSWORD},
    )
    assert response.status_code == 400
    assert "Another account already uses this e-mail address" in response.content.decode()
    assert not User.objects.filter(username="eve").exists()


@pytest.mark.django_db
def test_admin_user_form_refuses_a_taken_address(admin_client):
    factories.UserFactory(email="ada@example.com")
    other = factories.UserFactory(email="")
    url = reverse("admin:auth_user_change", args=[other.pk])
    data = {
        "username": other.username,
        "email": "ADA@example.com",
        "date_joined_0": "2025-01-01",
        "date_joined_1": "00:00:00",
        "is_active": "on",
    }
    response = admin_client.post(url, data)
    assert response.status_code == 200
    assert "Another account already uses this e-mail address." in response.content.decode()
    other.refresh_from_db()
    assert other.email == ""


@pytest.mark.django_db(transaction=True)
def test_migration_stops_with_the_list_of_clashes_and_changes_nothing():
    call_command("migrate", "quizzes", "0006", verbosity=0)
    try:
        # bulk_create: no post_save receivers, which expect the tables of the current schema (username skeletons)
        User.objects.bulk_create(
            User(username=username, email=email)
            for username, email in [
                ("ada1", "ada@example.com"),
                ("ada2", "ADA@example.com"),
                ("bob1", "bob@example.com"),
                ("bob2", "Bob@Example.com"),
                ("solo", "solo@example.com"),
                ("none1", ""),
                ("none2", ""),
            ]
        )
        before = list(User.objects.order_by("username").values_list("username", "email"))
        with pytest.raises(RuntimeError) as failed:
            call_command("migrate", "quizzes", verbosity=0)
        message = str(failed.value)
        assert "ada@example.com: ada1, ada2" in message
        assert "bob@example.com: bob1, bob2" in message
        assert "solo" not in message and "none" not in message
        assert list(User.objects.order_by("username").values_list("username", "email")) == before

        User.objects.filter(username__in=["ada2", "bob2"]).update(email="")  # the admin resolves the clashes
        call_command("migrate", "quizzes", verbosity=0)
        with pytest.raises(IntegrityError), transaction.atomic():
            User.objects.create(username="ada3", email="Ada@example.com")
    finally:
        User.objects.all().delete()
        call_command("migrate", "quizzes", verbosity=0)
