"""Sign-up refuses usernames confusable with an existing one (UTS #39 skeletons from Unicode's confusables.txt)."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.test import Client
from django.urls import reverse

from quizzes.accounts.services import account_signup
from quizzes.accounts.usernames import skeleton, table_version, username_skeleton
from quizzes.core.errors import DomainError, ErrorCode
from quizzes.models import UsernameSkeleton
from tests import factories

pytestmark = pytest.mark.django_db
PASSWORD = "a-long-enough-pass-42"


def signup(username: str):
    data = {"username": username, "password1": PASSWORD, "password2": PASSWORD}
    return Client().post(reverse("web:signup"), data)


@pytest.mark.parametrize(
    ("existing", "newcomer"),
    [
        ("ada", "\u0430da"),  # Cyrillic а
        ("paypal", "paypaI"),  # capital I for small l
        ("bob", "b0b"),  # digit zero for o
        ("Grace", "grаce"),  # another case, and a Cyrillic а
        ("admin", "\u0430dm\u0456n"),  # Cyrillic а and і
        ("rn", "m"),  # r + n for m
    ],
)
def test_signup_refuses_a_username_confusable_with_an_existing_one(existing, newcomer):
    factories.UserFactory(username=existing)
    response = signup(newcomer)
    assert response.status_code == 400
    assert "looks too much like an existing one" in response.content.decode()
    assert not get_user_model().objects.filter(username=newcomer).exists()


def test_distinct_usernames_sign_up_and_are_indexed():
    assert signup("ione").status_code == 302
    assert signup("lone").status_code == 302  # i and l are not confusable (capital I and l are)
    assert signup("学习者").status_code == 302
    assert UsernameSkeleton.objects.count() == 3


def test_the_database_refuses_a_confusable_signup_that_skipped_the_form():
    factories.UserFactory(username="lin")
    with pytest.raises(DomainError) as refused:
        account_signup(username="L\u0456n", email="", password=PASSWORD)
    assert refused.value.error_code == ErrorCode.USERNAME_CONFUSABLE and refused.value.field == "username"
    assert not get_user_model().objects.filter(username="L\u0456n").exists()


def test_accounts_made_elsewhere_are_indexed_too():
    call_command("createsuperuser", username="root", email="root@example.com", interactive=False, verbosity=0)
    assert signup("r\u043eot").status_code == 400  # Cyrillic о
    user = factories.UserFactory(username="before")
    user.username = "after"
    user.save()
    assert signup("before").status_code == 302  # a rename frees the old skeleton
    assert signup("AFTER").status_code == 400


def test_the_skeleton_is_uts39s_on_unicodes_own_table():
    assert table_version().startswith(("13.", "14.", "15.", "16."))
    assert skeleton("\u0440\u0430ypal") == "paypal"  # NFD, prototypes, NFD
    assert skeleton("I") == "l" and skeleton("0") == "O"
    assert username_skeleton("PayPaI") == username_skeleton("paypal")
    assert username_skeleton("x") == username_skeleton(username_skeleton("x"))  # a fixed point
