"""Review packs over the API: what a pack holds per item kind, whose items, replays, ETags, listing, revoking."""

from __future__ import annotations

import datetime as dt

import pytest
import time_machine
from django.utils import timezone
from rest_framework.test import APIClient

from attention_engine import generators
from quizzes.models import IdempotencyKey, Question, ReviewCard
from quizzes.reviews.services import card_suspend
from tests import factories
from tests.quizzes.api.conftest import token_client
from tests.quizzes.api.helpers import answer_leaks, assert_error
from tests.quizzes.packs.conftest import study_everything

pytestmark = pytest.mark.django_db
URL = "/api/v1/packs/"


def issue(api, **body):
    response = api.post(URL, body, format="json")
    assert response.status_code == 201, response.content
    return response


def without_clock(pack: dict) -> dict:
    """A pack without ``server_time`` (the moment it was sent, outside the ETag)."""
    assert dt.datetime.fromisoformat(pack["server_time"])
    return {k: v for k, v in pack.items() if k != "server_time"}


def by_kind(pack) -> dict[str, dict]:
    found = {}
    for item in pack["items"]:
        kind = item["question"]["kind"]
        if kind == "numeric" and item["question"]["answer_form"] == "choice":
            kind = "numeric_choice"
        found[kind] = item
    return found


class TestContents:
    def test_every_due_card_is_packed_once(self, api, world):
        _user, _lesson, questions = world
        pack = issue(api, device="Pixel 8").json()
        assert sorted(i["question"]["id"] for i in pack["items"]) == sorted(q.pk for q in questions.values())
        assert pack["device"] == "Pixel 8" and pack["status"] == "active" and pack["item_count"] == 5
        assert [i["position"] for i in pack["items"]] == list(range(5))

    def test_choice_item_shows_options_in_a_drawn_order_with_the_key(self, api, world):
        question = world[2]["choice"]
        item = by_kind(issue(api).json())["choice"]
        options = {o.text: o for o in question.options.all()}
        assert sorted(o["text"] for o in item["options"]) == sorted(options)
        handles = [o["id"] for o in item["options"]]
        assert len(set(handles)) == 4 and not any(h.isdigit() for h in handles)  # opaque, never raw ids
        key = item["key"]
        shown = {o["id"]: options[o["text"]] for o in item["options"]}
        assert shown[key["correct_option_id"]].is_correct
        assert [f["id"] for f in key["option_feedback"]] == handles
        for entry in key["option_feedback"]:
            assert entry["feedback"] == shown[entry["id"]].feedback
            assert entry["correct"] == shown[entry["id"]].is_correct
        assert key["explanation"] == question.explanation and "<math" in key["explanation_html"]
        assert item["numeric"] is None and item["self_rated"] is None

    def test_numeric_item_carries_its_seed_and_the_engines_answer_and_rule(self, api, world):
        question = world[2]["numeric"]
        item = by_kind(issue(api).json())["numeric"]
        assert item["template_version"] == question.template_version
        variant = generators.generate(question.template, item["variant_seed"], version=item["template_version"])
        assert item["numeric"]["prompt"] == variant.prompt
        assert item["numeric"]["expected_shape"] == list(variant.answer_shape)
        key = item["key"]
        assert key["correct_value"] == variant.answer
        assert key["answer_shape"] == list(variant.answer_shape)
        assert (key["tolerance"]["atol"], key["tolerance"]["rtol"]) == (variant.atol, variant.rtol)
        assert "rtol" in key["tolerance"]["rule"]
        assert [s["name"] for s in key["solution"]] == [s.name for s in variant.solution]
        # the test vectors are graded by the engine's grader: a client can check its own against them
        for vector in key["test_vectors"]:
            assert vector["correct"] == generators.grade(variant, vector["value"]).correct
        assert [v["correct"] for v in key["test_vectors"]][:2] == [True, True]
        assert False in [v["correct"] for v in key["test_vectors"]]

    def test_numeric_choice_item_names_the_correct_choice_and_each_misconception(self, api, world):
        question = world[2]["numeric_choice"]
        item = by_kind(issue(api).json())["numeric_choice"]
        variant = generators.generate(question.template, item["variant_seed"], version=item["template_version"])
        assert [c["label_en"] for c in item["numeric"]["choices"]] == [c.label_en for c in variant.choices]
        assert item["key"]["correct_choice_index"] == variant.correct_choice_index
        feedback = item["key"]["choice_feedback"]
        assert [f["correct"] for f in feedback] == [c.misconception is None for c in variant.choices]
        assert [(f["misconception"] or {}).get("id") for f in feedback] == [c.misconception for c in variant.choices]
        assert item["key"]["test_vectors"] == []  # nothing is typed

    def test_prompt_and_recall_carry_their_reference_and_no_quiz_key(self, api, world):
        questions = world[2]
        items = by_kind(issue(api).json())
        prompt, recall = items["prompt"], items["recall"]
        assert prompt["key"] is None and recall["key"] is None
        assert prompt["self_rated"]["reference_answer"] == questions["prompt"].reference_answer
        assert prompt["self_rated"]["rubric"] == questions["prompt"].rubric
        assert recall["self_rated"]["expected_lines"] == questions["recall"].expected_lines

    def test_only_cards_due_within_the_horizon_and_not_suspended(self, api, world):
        user, _lesson, questions = world
        ReviewCard.objects.filter(user=user, question=questions["prompt"]).update(
            due=timezone.now() + dt.timedelta(days=10)
        )
        card_suspend(user=user, card=ReviewCard.objects.get(user=user, question=questions["recall"]))
        kinds = set(by_kind(issue(api, days=3).json()))
        assert kinds == {"choice", "numeric", "numeric_choice"}
        assert "prompt" in by_kind(issue(api, days=14).json())

    def test_max_items_takes_the_most_overdue_first(self, api, world):
        user, _lesson, questions = world
        ReviewCard.objects.filter(user=user, question=questions["recall"]).update(
            due=timezone.now() - dt.timedelta(days=30)
        )
        pack = issue(api, max_items=1).json()
        assert [i["question"]["id"] for i in pack["items"]] == [questions["recall"].pk]

    @pytest.mark.parametrize("body", [{"days": 15}, {"days": -1}, {"max_items": 0}, {"max_items": 201}, {"days": "3"}])
    def test_bad_sizes_are_a_400_naming_the_field(self, api, world, body):
        body_error = assert_error(api.post(URL, body, format="json"), 400)
        assert set(body_error["error"]["fields"]) == set(body)

    def test_an_empty_pack_when_nothing_is_due(self, db):
        api = token_client(factories.UserFactory())
        pack = issue(api).json()
        assert pack["items"] == [] and pack["item_count"] == 0


class TestOwnership:
    def test_nothing_of_another_learners_cards(self, api, world):
        _user, lesson, _questions = world
        other = factories.UserFactory()
        start = timezone.now() - dt.timedelta(days=7)
        with time_machine.travel(start, tick=False):
            extra = factories.ChoiceQuestionFactory(lesson=lesson, order=9)
        with time_machine.travel(start + dt.timedelta(hours=1), tick=False):
            study_everything(other, lesson)
        pack = issue(api).json()
        assert extra.pk not in {i["question"]["id"] for i in pack["items"]}  # only the other learner studied it
        other_pack = issue(token_client(other)).json()
        assert other_pack["item_count"] == 6
        # and one learner's pack is not found by another
        assert_error(api.get(f"{URL}{other_pack['id']}/"), 404)
        assert_error(api.delete(f"{URL}{other_pack['id']}/"), 404)
        assert [p["id"] for p in api.get(URL).json()["packs"]] == [pack["id"]]

    def test_anonymous_gets_401(self, db):
        assert_error(APIClient().post(URL, {}, format="json"), 401)


class TestReplayCacheAndLife:
    def test_idempotent_retry_re_renders_the_same_pack_and_stores_no_key(self, api, world):
        first = api.post(URL, {"days": 3}, format="json", HTTP_IDEMPOTENCY_KEY="pack-1")
        again = api.post(URL, {"days": 3}, format="json", HTTP_IDEMPOTENCY_KEY="pack-1")
        assert (first.status_code, again.status_code) == (201, 201)
        assert again["Idempotent-Replayed"] == "true"
        assert without_clock(again.json()) == without_clock(first.json())
        assert again["ETag"] == first["ETag"]
        assert len(api.get(URL).json()["packs"]) == 1  # nothing new was issued
        record = IdempotencyKey.objects.get(key="pack-1")
        assert record.response_body == {"pack_id": first.json()["id"]}
        assert answer_leaks(record.response_body) == []

    def test_replay_after_revocation_or_expiry_is_410(self, api, world, settings):
        settings.API_IDEMPOTENCY_TTL = dt.timedelta(days=30)  # keys outlive a pack only when kept this long
        pack = api.post(URL, {}, format="json", HTTP_IDEMPOTENCY_KEY="k-revoke").json()
        assert api.delete(f"{URL}{pack['id']}/").status_code == 204
        assert_error(api.post(URL, {}, format="json", HTTP_IDEMPOTENCY_KEY="k-revoke"), 410, "pack_gone")
        assert_error(api.get(f"{URL}{pack['id']}/"), 410, "pack_gone")

        expiring = api.post(URL, {"days": 1}, format="json", HTTP_IDEMPOTENCY_KEY="k-expire").json()
        with time_machine.travel(timezone.now() + dt.timedelta(days=14, minutes=1)):
            assert_error(api.post(URL, {"days": 1}, format="json", HTTP_IDEMPOTENCY_KEY="k-expire"), 410, "pack_gone")
            assert_error(api.get(f"{URL}{expiring['id']}/"), 410, "pack_gone")
            statuses = {p["id"]: p["status"] for p in api.get(URL).json()["packs"]}
        assert statuses == {pack["id"]: "revoked", expiring["id"]: "expired"}

    def test_private_no_cache_with_an_etag_and_304(self, api, world):
        created = issue(api)
        assert created["Cache-Control"] == "private, no-cache"
        pack_url = f"{URL}{created.json()['id']}/"
        read = api.get(pack_url)
        assert read.status_code == 200 and read["ETag"] == created["ETag"]
        assert read["Cache-Control"] == "private, no-cache"
        not_modified = api.get(pack_url, HTTP_IF_NONE_MATCH=created["ETag"])
        assert not_modified.status_code == 304 and not_modified.content == b""

    def test_revoking_twice_keeps_the_first_time(self, api, world):
        pack = issue(api).json()
        assert api.delete(f"{URL}{pack['id']}/").status_code == 204
        first = api.get(URL).json()["packs"][0]["revoked_at"]
        with time_machine.travel(timezone.now() + dt.timedelta(hours=1)):
            assert api.delete(f"{URL}{pack['id']}/").status_code == 204
        assert api.get(URL).json()["packs"][0]["revoked_at"] == first

    def test_a_pack_renders_from_its_copy_after_the_question_changed(self, api, world):
        question = world[2]["choice"]
        created = issue(api)
        question.options.update(text="改过的选项")
        Question.objects.filter(pk=question.pk).update(prompt="改过的题干", published=False)
        again = api.get(f"{URL}{created.json()['id']}/")
        assert without_clock(again.json()) == without_clock(created.json()) and again["ETag"] == created["ETag"]


class TestServerTime:
    def test_a_pack_carries_the_servers_clock_and_its_etag_does_not(self, api, world):
        with time_machine.travel(timezone.now(), tick=False) as clock:
            created = issue(api)
            assert dt.datetime.fromisoformat(created.json()["server_time"]) == timezone.now()
            clock.shift(dt.timedelta(minutes=3))
            again = api.get(f"{URL}{created.json()['id']}/")
            assert dt.datetime.fromisoformat(again.json()["server_time"]) == timezone.now()
            assert again["ETag"] == created["ETag"]
            assert api.get(f"{URL}{created.json()['id']}/", HTTP_IF_NONE_MATCH=created["ETag"]).status_code == 304
