"""Review packs in the admin (staff look and revoke, nobody edits) and their pruning by housekeeping."""

from __future__ import annotations

import datetime as dt
import uuid

import pytest
import time_machine
from django.contrib.auth.models import Permission
from django.urls import reverse
from django.utils import timezone

from quizzes.models import PackedVariant, PackItem, QuestionVersion, ReviewLog, ReviewPack
from quizzes.operations.housekeeping import housekeeping_run
from quizzes.packs.pruning import RETENTION, packs_prune
from quizzes.packs.rules import PACK_LIFETIME, UPLOAD_GRACE
from quizzes.packs.services import pack_issue, pack_revoke
from tests import factories

pytestmark = pytest.mark.django_db
CHANGELIST = reverse("admin:quizzes_reviewpack_changelist")


def change_url(pack: ReviewPack) -> str:
    return reverse("admin:quizzes_reviewpack_change", args=[pack.pk])


@pytest.fixture
def pack(learner):
    return pack_issue(user=learner)


class TestAdmin:
    def test_the_list_shows_learner_device_life_items_and_state(self, admin_client, learner, pack):
        revoked = pack_issue(user=learner, device="Pixel 7")
        pack_revoke(user=learner, pack=revoked)
        response = admin_client.get(CHANGELIST)
        assert response.status_code == 200
        page = response.content.decode()
        assert learner.username in page and "Pixel 7" in page
        rows = {row.pk: row for row in response.context["cl"].result_list}
        assert rows[pack.pk].item_count == 5 and rows[pack.pk].answered_count == 0
        assert "revoked" in page and "active" in page

    def test_search_by_username_and_filter_by_state(self, admin_client, learner, pack):
        other = pack_issue(user=factories.UserFactory(username="someone-else"))
        found = admin_client.get(CHANGELIST, {"q": learner.username}).context["cl"].result_list
        assert [p.pk for p in found] == [pack.pk]
        pack_revoke(user=learner, pack=pack)
        assert [p.pk for p in admin_client.get(CHANGELIST, {"state": "revoked"}).context["cl"].result_list] == [pack.pk]
        assert [p.pk for p in admin_client.get(CHANGELIST, {"state": "active"}).context["cl"].result_list] == [other.pk]
        old = pack_issue(user=other.user, now=timezone.now() - PACK_LIFETIME - dt.timedelta(hours=1))
        expired = admin_client.get(CHANGELIST, {"state": "expired"}).context["cl"].result_list
        assert [p.pk for p in expired] == [old.pk]

    def test_the_page_is_read_only_with_its_items(self, admin_client, pack):
        response = admin_client.get(change_url(pack))
        assert response.status_code == 200
        assert response.context["has_change_permission"] is False
        assert len(response.context["inline_admin_formsets"][0].formset.queryset) == 5
        before = ReviewPack.objects.get(pk=pack.pk).device
        admin_client.post(change_url(pack), {"device": "changed"})
        assert ReviewPack.objects.get(pk=pack.pk).device == before
        assert admin_client.get(reverse("admin:quizzes_reviewpack_add")).status_code == 403
        assert admin_client.get(reverse("admin:quizzes_reviewpack_delete", args=[pack.pk])).status_code == 403

    def test_the_revoke_action_revokes_through_the_service(self, admin_client, learner, pack):
        keep = pack_issue(user=learner)
        response = admin_client.post(CHANGELIST, {"action": "revoke", "_selected_action": [pack.pk]}, follow=True)
        assert response.status_code == 200
        assert "Revoked 1 pack." in response.content.decode()
        pack.refresh_from_db()
        keep.refresh_from_db()
        assert pack.revoked_at is not None and keep.revoked_at is None
        first = pack.revoked_at
        admin_client.post(CHANGELIST, {"action": "revoke", "_selected_action": [pack.pk]})
        pack.refresh_from_db()
        assert pack.revoked_at == first  # the first revocation time stays

    def test_non_staff_are_sent_to_log_in(self, client, user, pack):
        client.force_login(user)
        response = client.get(CHANGELIST)
        assert response.status_code == 302 and reverse("admin:login") in response["Location"]
        response = client.post(CHANGELIST, {"action": "revoke", "_selected_action": [pack.pk]})
        assert response.status_code == 302
        pack.refresh_from_db()
        assert pack.revoked_at is None

    def test_staff_without_permissions_get_403(self, client, pack):
        staff = factories.UserFactory(is_staff=True)
        client.force_login(staff)
        assert client.get(CHANGELIST).status_code == 403
        assert client.post(CHANGELIST, {"action": "revoke", "_selected_action": [pack.pk]}).status_code == 403
        pack.refresh_from_db()
        assert pack.revoked_at is None

    def test_staff_who_may_only_look_cannot_revoke(self, client, pack):
        staff = factories.UserFactory(is_staff=True)
        staff.user_permissions.add(Permission.objects.get(codename="view_reviewpack"))
        client.force_login(staff)
        response = client.get(CHANGELIST)
        assert response.status_code == 200
        action_form = response.context["action_form"]  # None: no action this user may take
        assert action_form is None or "revoke" not in dict(action_form.fields["action"].choices)
        client.post(CHANGELIST, {"action": "revoke", "_selected_action": [pack.pk]})
        pack.refresh_from_db()
        assert pack.revoked_at is None


def answer_offline(api, pack_json, *, at) -> str:
    """Upload a rating of the pack's recall card (reviewed ``at``); its client UUID."""
    item = next(i for i in pack_json["items"] if i["question"]["kind"] == "recall")
    client_uuid = str(uuid.uuid4())
    entry = {"client_uuid": client_uuid, "pack_item_id": item["id"], "reviewed_at": at.isoformat(), "rating": 3}
    response = api.post("/api/v1/reviews/offline/", {"entries": [entry]}, format="json")
    assert response.status_code == 200 and response.json()["entries"][0]["status"] == "applied", response.content
    return client_uuid


def past_retention(pack: ReviewPack) -> dt.datetime:
    return pack.expires_at + UPLOAD_GRACE + RETENTION + dt.timedelta(minutes=1)


class TestPruning:
    def test_nothing_goes_within_the_retention(self, pack):
        with time_machine.travel(past_retention(pack) - dt.timedelta(minutes=2)):
            pruned = packs_prune()
        assert (pruned.packs, pruned.items, pruned.variants) == (0, 0, 0)
        assert PackItem.objects.filter(pack=pack).count() == 5

    def test_an_ended_pack_goes_with_its_variants_its_question_versions_stay(self, pack):
        assert PackedVariant.objects.exists()
        versions = set(PackItem.objects.filter(pack=pack).values_list("packed_id", flat=True))
        with time_machine.travel(past_retention(pack)):
            pruned = packs_prune()
            again = packs_prune()
        assert (pruned.packs, pruned.items) == (1, 5)
        assert pruned.variants == PackedVariant.objects.count() + pruned.variants > 0
        assert not ReviewPack.objects.exists() and not PackedVariant.objects.exists()
        assert versions <= set(QuestionVersion.objects.values_list("pk", flat=True))  # the questions' history
        assert (again.packs, again.items, again.variants) == (0, 0, 0)

    def test_a_revoked_pack_goes_a_retention_after_its_revocation(self, learner, pack):
        pack_revoke(user=learner, pack=pack)
        with time_machine.travel(pack.revoked_at + RETENTION - dt.timedelta(minutes=1)):
            assert packs_prune().packs == 0
        with time_machine.travel(pack.revoked_at + RETENTION + dt.timedelta(minutes=1)):
            assert packs_prune().packs == 1

    def test_versions_another_pack_carries_stay(self, learner, pack):
        with time_machine.travel(pack.expires_at - dt.timedelta(hours=1)):
            later = pack_issue(user=learner)  # the same questions, unchanged: the same shared versions
        shared = set(PackItem.objects.filter(pack=later).values_list("packed_id", flat=True))
        assert shared == set(PackItem.objects.filter(pack=pack).values_list("packed_id", flat=True))
        with time_machine.travel(past_retention(pack)):
            pruned = packs_prune()
        assert pruned.packs == 1
        assert shared <= set(QuestionVersion.objects.values_list("pk", flat=True))
        assert PackItem.objects.filter(pack=later).count() == 5

    def test_an_answered_item_stays_while_its_review_log_exists(self, api, learner):
        pack_json = api.post("/api/v1/packs/", {}, format="json").json()
        pack = ReviewPack.objects.get(pk=pack_json["id"])
        client_uuid = answer_offline(api, pack_json, at=timezone.now())
        answered = PackItem.objects.get(pack=pack, client_uuid=client_uuid)
        with time_machine.travel(past_retention(pack)):
            pruned = packs_prune()
            assert (pruned.packs, pruned.items) == (0, 4)  # the pack stays, with the answered item only
            assert list(PackItem.objects.filter(pack=pack)) == [answered]
            assert QuestionVersion.objects.filter(pk=answered.packed_id).exists()  # what the log was graded against
            assert packs_prune().items == 0
            ReviewLog.objects.filter(user=learner, client_uuid=client_uuid).delete()
            pruned = packs_prune()
        assert (pruned.packs, pruned.items) == (1, 1)
        assert QuestionVersion.objects.filter(pk=answered.packed_id).exists()  # a version goes only with its question

    def test_housekeeping_runs_it(self, pack):
        with time_machine.travel(past_retention(pack)):
            assert housekeeping_run().packs_deleted == 1
            assert housekeeping_run().packs_deleted == 0
