"""Offline grading reads the question version the pack pinned, not the question as an author left it since
(issue 27, item 2)."""

from __future__ import annotations

import uuid

import pytest
from django.urls import reverse
from django.utils import timezone

from quizzes.models import PackItem, QuestionVersion
from tests.quizzes.content.test_provenance import form_data

pytestmark = pytest.mark.django_db


def test_an_upload_is_graded_against_the_pinned_version_after_an_admin_moves_the_key(api, world, admin_client):
    _learner, _lesson, questions = world
    question = questions["choice"]
    pack = api.post("/api/v1/packs/", {}, format="json").json()
    item = next(i for i in pack["items"] if i["question"]["kind"] == "choice")
    pinned = PackItem.objects.get(pk=item["id"]).packed
    shown_prompt = item["question"]["prompt"]

    # an author makes the second option the correct one and rewrites the prompt, through the admin's form
    url = reverse("admin:quizzes_question_change", args=[question.pk])
    data = form_data(admin_client.get(url))
    data.pop("options-0-is_correct")
    data["options-1-is_correct"] = "on"
    data["prompt"] = "改过的题干"
    assert admin_client.post(url, data).status_code == 302
    assert QuestionVersion.objects.filter(question=question).count() == pinned.number + 1

    entry = {
        "client_uuid": str(uuid.uuid4()),
        "pack_item_id": item["id"],
        "reviewed_at": timezone.now().isoformat(),
        "option_id": item["key"]["correct_option_id"],  # the option the pack showed as right
        "shown_correct": True,
    }
    response = api.post("/api/v1/reviews/offline/", {"entries": [entry]}, format="json")
    assert response.status_code == 200, response.content
    (outcome,) = response.json()["entries"]
    assert outcome["status"] == "applied" and outcome["graded"]["correct"] is True
    assert PackItem.objects.get(pk=item["id"]).packed_id == pinned.pk
    again = api.get(f"/api/v1/packs/{pack['id']}/").json()
    shown_again = next(i for i in again["items"] if i["id"] == item["id"])
    assert shown_again["question"]["prompt"] == shown_prompt != "改过的题干"
