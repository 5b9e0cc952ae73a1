"""quizzes/migrations/0015: each token's device row becomes a Device of its own (its name kept), the signed-in
sessions already stored are indexed under their learner, existing usernames get their skeletons (the first of a
confusable pair only)."""

from __future__ import annotations

import datetime as dt

import pytest
from django.contrib.auth import get_user_model
from django.contrib.sessions.backends.db import SessionStore
from django.core.management import call_command
from django.db import connection
from django.utils import timezone

from quizzes.models import BrowserSession, Device, TokenDevice, UsernameSkeleton

User = get_user_model()


@pytest.mark.django_db(transaction=True)
def test_tokens_sessions_and_usernames_from_before_are_carried_over():
    call_command("migrate", "quizzes", "0014", verbosity=0)
    try:
        # bulk_create and SQL: no receivers, which expect the current schema
        ada, ada_cyrillic, bob = User.objects.bulk_create(
            [User(username="ada"), User(username="\u0430da"), User(username="bob")]
        )
        now = timezone.now()
        with connection.cursor() as cursor:
            cursor.execute(
                "INSERT INTO knox_authtoken (digest, token_key, user_id, created, expiry) VALUES (%s, %s, %s, %s, %s)",
                ["d" * 128, "k" * 15, ada.pk, now - dt.timedelta(days=3), now + dt.timedelta(days=27)],
            )
            cursor.execute(
                "INSERT INTO quizzes_tokendevice (token_digest, name) VALUES (%s, %s)", ["d" * 128, "Pixel 8"]
            )
        signed_in = SessionStore()
        signed_in.update({"_auth_user_id": str(bob.pk), "_auth_user_backend": "x", "_auth_user_hash": "y"})
        signed_in.create()
        anonymous = SessionStore()
        anonymous["cart"] = 1
        anonymous.create()

        call_command("migrate", "quizzes", verbosity=0)

        device = Device.objects.get(user=ada)
        assert (device.name, device.device_id) == ("Pixel 8", "token-" + "d" * 32)
        assert device.created_at == now - dt.timedelta(days=3)
        assert TokenDevice.objects.get(token_id="d" * 128).device == device
        assert list(BrowserSession.objects.values_list("session_id", "user_id")) == [(signed_in.session_key, bob.pk)]
        assert set(UsernameSkeleton.objects.values_list("user_id", flat=True)) == {ada.pk, bob.pk}
        assert ada_cyrillic.pk not in set(UsernameSkeleton.objects.values_list("user_id", flat=True))
    finally:
        call_command("flush", verbosity=0, interactive=False)
        call_command("migrate", "quizzes", verbosity=0)
