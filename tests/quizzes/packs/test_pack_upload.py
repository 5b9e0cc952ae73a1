"""Uploading answers from a review pack: the server grades them, judges them by review time, locks the first."""

from __future__ import annotations

import datetime as dt
import uuid

import pytest
import time_machine
from django.utils import timezone

from attention_engine import generators
from quizzes.models import Option, PackItem, Question, ReviewCard, ReviewLog
from quizzes.practice.services import attempt_start, item_answer
from quizzes.reviews.rules import MAX_CLOCK_SKEW
from tests import factories
from tests.quizzes.api.conftest import token_client
from tests.quizzes.api.helpers import assert_error

pytestmark = pytest.mark.django_db
PACKS = "/api/v1/packs/"
UPLOAD = "/api/v1/reviews/offline/"


@pytest.fixture
def pack(api, world):
    response = api.post(PACKS, {}, format="json")
    assert response.status_code == 201
    return response.json()


def item_of(pack, kind: str, answer_form: str | None = None) -> dict:
    return next(
        i
        for i in pack["items"]
        if i["question"]["kind"] == kind and (answer_form is None or i["question"]["answer_form"] == answer_form)
    )


def entry(item, at, **what):
    return {"client_uuid": str(uuid.uuid4()), "pack_item_id": item["id"], "reviewed_at": at.isoformat(), **what}


def upload(api, *entries):
    response = api.post(UPLOAD, {"entries": list(entries)}, format="json")
    assert response.status_code == 200, response.content
    return response.json()["entries"]


def wrong_handle(item) -> str:
    return next(o["id"] for o in item["options"] if o["id"] != item["key"]["correct_option_id"])


def newest_log(user, question_id) -> ReviewLog:
    return ReviewLog.objects.filter(user=user, card__question_id=question_id).order_by("-reviewed_at", "-id").first()


class TestServerGrades:
    def test_a_wrong_choice_the_phone_called_right_is_wrong(self, api, learner, pack):
        item = item_of(pack, "choice")
        now = timezone.now()
        (outcome,) = upload(api, entry(item, now, option_id=wrong_handle(item), shown_correct=True))
        assert outcome["status"] == "applied" and outcome["pack_item_id"] == item["id"]
        assert outcome["graded"]["correct"] is False and outcome["overrides_client"] is True
        assert outcome["graded"]["correct_option_id"] == item["key"]["correct_option_id"]
        assert outcome["graded"]["chosen_option_id"] == wrong_handle(item)
        log = newest_log(learner, item["question"]["id"])
        assert (log.rating, log.source, log.client_graded) == (ReviewLog.Rating.AGAIN, "offline", False)
        assert log.reviewed_at == now

    def test_every_quiz_kind_graded_right_with_the_packs_key(self, api, learner, pack):
        now = timezone.now()
        choice = item_of(pack, "choice")
        typed = item_of(pack, "numeric", "input")
        chosen = item_of(pack, "numeric", "choice")
        outcomes = upload(
            api,
            entry(choice, now, option_id=choice["key"]["correct_option_id"], shown_correct=True),
            entry(typed, now, value=typed["key"]["correct_value"]),
            entry(chosen, now, choice_index=chosen["key"]["correct_choice_index"], shown_correct=True),
        )
        assert [o["graded"]["correct"] for o in outcomes] == [True, True, True]
        assert [o["overrides_client"] for o in outcomes] == [False, None, False]
        ratings = {newest_log(learner, i["question"]["id"]).rating for i in (choice, typed, chosen)}
        assert ratings == {ReviewLog.Rating.GOOD}

    def test_a_typed_value_gets_the_online_reveal(self, api, world, pack):
        typed = item_of(pack, "numeric", "input")
        (outcome,) = upload(api, entry(typed, timezone.now(), value="0, 0, 0"))
        question = world[2]["numeric"]
        variant = generators.generate(question.template, typed["variant_seed"], version=typed["template_version"])
        expected = generators.grade(variant, "0, 0, 0")
        assert outcome["graded"]["correct"] is expected.correct is False
        assert outcome["graded"]["message_code"] == expected.code
        assert outcome["graded"]["correct_value"] == typed["key"]["correct_value"]

    def test_prompts_keep_their_self_rating(self, api, learner, pack):
        prompt = item_of(pack, "prompt")
        (outcome,) = upload(api, entry(prompt, timezone.now(), rating=4))
        assert outcome["status"] == "applied" and outcome["graded"] is None
        assert newest_log(learner, prompt["question"]["id"]).rating == 4

    def test_unreadable_or_foreign_answers_are_rejected_with_the_graders_reason(self, api, pack):
        now = timezone.now()
        choice, typed = item_of(pack, "choice"), item_of(pack, "numeric", "input")
        outcomes = upload(
            api,
            entry(choice, now, option_id="not-a-handle"),
            entry(typed, now, value=""),
            entry(typed, now),
            entry(item_of(pack, "prompt"), now),
        )
        assert [(o["status"], o["reason"]) for o in outcomes] == [
            ("rejected", "foreign_option"),
            ("rejected", "unreadable_answer"),
            ("rejected", "unreadable_answer"),
            ("rejected", "wrong_outcome"),
        ]
        assert not PackItem.objects.filter(answered_at__isnull=False).exists()  # nothing locked

    def test_correct_is_refused_on_a_pack_answer(self, api, pack):
        body = {"entries": [entry(item_of(pack, "choice"), timezone.now(), correct=True)]}
        error = assert_error(api.post(UPLOAD, body, format="json"), 400)
        assert "entries.0.correct" in error["error"]["fields"] or "entries" in error["error"]["fields"]

    def test_the_old_correct_form_updates_a_card_and_is_marked_client_graded(self, api, learner, world):
        question = world[2]["choice"]  # answered online a week ago: the learner has its card
        now = timezone.now()
        body = {"client_uuid": str(uuid.uuid4()), "question_id": question.pk, "reviewed_at": now.isoformat()}
        (outcome,) = upload(api, {**body, "correct": True})
        assert outcome["status"] == "applied" and outcome["graded"] is None and outcome["pack_item_id"] is None
        assert newest_log(learner, question.pk).client_graded is True
        prompt = world[2]["prompt"]
        upload(api, {**body, "client_uuid": str(uuid.uuid4()), "question_id": prompt.pk, "rating": 3})
        assert newest_log(learner, prompt.pk).client_graded is False  # a self-rating is the learner's by nature

    def test_the_old_correct_form_cannot_create_a_card_so_no_pack_carries_its_key(self, api, learner, world):
        with time_machine.travel(timezone.now() - dt.timedelta(days=7), tick=False):
            never = factories.ChoiceQuestionFactory(lesson=world[1], order=9, options=4)  # never answered
        now = timezone.now()
        for correct in (False, True):
            body = {"client_uuid": str(uuid.uuid4()), "question_id": never.pk, "correct": correct}
            (outcome,) = upload(api, {**body, "reviewed_at": (now - dt.timedelta(days=3)).isoformat()})
            assert (outcome["status"], outcome["reason"], outcome["card_id"]) == ("rejected", "not_studied", None)
        by_key = {"client_uuid": str(uuid.uuid4()), "question_key": never.key, "correct": False}
        (outcome,) = upload(api, {**by_key, "reviewed_at": now.isoformat()})
        assert outcome["reason"] == "not_studied"
        assert not ReviewCard.objects.filter(user=learner, question=never).exists()
        pack = api.post(PACKS, {}, format="json").json()
        assert never.pk not in {i["question"]["id"] for i in pack["items"]}


class TestKeysOnlyForCardsTheServerSaw:
    def test_a_card_of_client_graded_logs_only_gets_no_key_until_answered_on_the_server(self, api, learner, world):
        """A card from before the rule (the deprecated form made it) is due, yet no pack carries its key."""
        with time_machine.travel(timezone.now() - dt.timedelta(days=7), tick=False):
            question = factories.ChoiceQuestionFactory(lesson=world[1], order=9, options=4)
        card = ReviewCard.objects.create(user=learner, question=question, due=timezone.now() - dt.timedelta(hours=1))
        ReviewLog.objects.create(
            user=learner,
            card=card,
            rating=1,
            reviewed_at=timezone.now() - dt.timedelta(days=3),
            source="offline",
            client_graded=True,
        )
        packed = {i["question"]["id"] for i in api.post(PACKS, {}, format="json").json()["items"]}
        assert question.pk not in packed
        assert packed == {q.pk for q in world[2].values()}  # the cards the server saw answered or rated are there
        # answered on the server (here: online), the card has earned its key
        item = attempt_start(user=learner, lesson=world[1]).items.get(question=question)
        item_answer(user=learner, item=item, option_id=question.options.filter(is_correct=False).first().pk)
        items = api.post(PACKS, {"days": 3}, format="json").json()["items"]  # due again tomorrow (Again)
        keyed = next(i for i in items if i["question"]["id"] == question.pk)
        assert keyed["key"]["correct_option_id"]


class TestValidityByReviewTime:
    def test_before_the_pack_was_issued_beyond_the_clock_skew(self, api, pack):
        issued = dt.datetime.fromisoformat(pack["issued_at"])
        early = issued - MAX_CLOCK_SKEW - dt.timedelta(minutes=2, seconds=12)
        (outcome,) = upload(api, entry(item_of(pack, "prompt"), early, rating=3))
        assert (outcome["status"], outcome["reason"]) == ("rejected", "before_pack_issued")
        assert "clock seems to be at least 7 min 12 s slow" in outcome["message"]

    def test_a_slow_clock_gets_the_tolerance_a_fast_one_gets(self, api, learner, pack):
        """A phone 90 s slow, answering right after the download, and one 90 s fast: both count."""
        issued = dt.datetime.fromisoformat(pack["issued_at"])
        slow, fast = upload(
            api,
            entry(item_of(pack, "prompt"), issued - dt.timedelta(seconds=90), rating=3),
            entry(item_of(pack, "recall"), timezone.now() + dt.timedelta(seconds=90), rating=3),
        )
        assert slow["status"] == fast["status"] == "applied"
        prompt = item_of(pack, "prompt")["question"]["id"]
        assert newest_log(learner, prompt).reviewed_at == issued - dt.timedelta(seconds=90)  # stored as reported
        edge = issued - MAX_CLOCK_SKEW
        choice = item_of(pack, "choice")
        (at_the_edge,) = upload(api, entry(choice, edge, option_id=wrong_handle(choice)))
        assert at_the_edge["status"] == "applied"

    def test_after_expiry_plus_grace_but_not_within_it(self, api, pack):
        until = dt.datetime.fromisoformat(pack["upload_until"])
        assert until - dt.datetime.fromisoformat(pack["expires_at"]) == dt.timedelta(days=1)
        prompt, recall = item_of(pack, "prompt"), item_of(pack, "recall")
        with time_machine.travel(until + dt.timedelta(days=3)):  # uploaded long after: judged by review time
            late, in_grace = upload(
                api,
                entry(prompt, until + dt.timedelta(seconds=1), rating=3),
                entry(recall, until - dt.timedelta(hours=1), rating=3),
            )
        assert (late["status"], late["reason"]) == ("rejected", "pack_expired")
        assert in_grace["status"] == "applied"

    def test_revoked_pack_counts_reviews_before_the_revocation_only(self, api, pack):
        prompt, recall = item_of(pack, "prompt"), item_of(pack, "recall")
        revoked_at = timezone.now() + dt.timedelta(hours=2)
        with time_machine.travel(revoked_at, tick=False):
            assert api.delete(f"{PACKS}{pack['id']}/").status_code == 204
        with time_machine.travel(revoked_at + dt.timedelta(hours=1)):
            after, before = upload(
                api,
                entry(prompt, revoked_at + dt.timedelta(seconds=1), rating=3),
                entry(recall, revoked_at - dt.timedelta(hours=1), rating=3),
            )
        assert (after["status"], after["reason"]) == ("rejected", "pack_revoked")
        assert before["status"] == "applied"

    def test_another_learners_pack_item_is_unknown(self, world, pack):
        stranger = factories.UserFactory(date_joined=timezone.now() - dt.timedelta(days=30))
        (outcome,) = upload(token_client(stranger), entry(item_of(pack, "prompt"), timezone.now(), rating=3))
        assert (outcome["status"], outcome["reason"]) == ("rejected", "unknown_pack_item")
        assert not ReviewCard.objects.filter(user=stranger).exists()

    def test_the_future_is_refused_as_for_every_rating_saying_how_fast_the_clock_seems(self, api, pack):
        with time_machine.travel(timezone.now(), tick=False):
            future = timezone.now() + dt.timedelta(hours=1, minutes=3, seconds=20)
            (outcome,) = upload(api, entry(item_of(pack, "prompt"), future, rating=3))
        assert outcome["reason"] == "in_future"
        assert "clock seems to be at least 1 h 3 min fast" in outcome["message"]


class TestFirstAnswerLocks:
    def test_a_second_answer_is_rejected_and_the_first_stands(self, api, learner, pack):
        item = item_of(pack, "choice")
        now = timezone.now() + dt.timedelta(hours=1)
        first = entry(item, now - dt.timedelta(minutes=5), option_id=wrong_handle(item))
        second = entry(item, now, option_id=item["key"]["correct_option_id"])
        with time_machine.travel(now):
            outcomes = upload(api, second, first)  # uploaded out of order: the earlier review is the first
            later = entry(item, now, option_id=item["key"]["correct_option_id"])
            (again,) = upload(api, later)
        assert [(o["status"], o["reason"]) for o in outcomes] == [("rejected", "answered_twice"), ("applied", None)]
        assert (again["status"], again["reason"]) == ("rejected", "answered_twice")
        logs = ReviewLog.objects.filter(user=learner, card__question_id=item["question"]["id"], source="offline")
        assert [log.rating for log in logs] == [ReviewLog.Rating.AGAIN]

    def test_the_first_is_the_earliest_instant_whatever_the_time_zones(self, api, pack):
        item = item_of(pack, "choice")
        now = timezone.now() + dt.timedelta(hours=1)
        shanghai = dt.timezone(dt.timedelta(hours=8))
        earlier = {**entry(item, now, option_id=wrong_handle(item))}
        earlier["reviewed_at"] = (now - dt.timedelta(minutes=5)).astimezone(shanghai).isoformat()  # "later" as text
        later = entry(item, now, option_id=item["key"]["correct_option_id"])
        with time_machine.travel(now):
            outcomes = upload(api, later, earlier)
        assert [(o["status"], o["reason"]) for o in outcomes] == [("rejected", "answered_twice"), ("applied", None)]

    def test_the_same_entry_again_is_already_stored_with_its_grade(self, api, pack):
        item = item_of(pack, "choice")
        sent = entry(item, timezone.now(), option_id=item["key"]["correct_option_id"])
        (first,) = upload(api, sent)
        (again,) = upload(api, sent)
        assert (first["status"], again["status"]) == ("applied", "already_stored")
        assert again["graded"] == first["graded"]
        detail = api.get(f"{PACKS}{pack['id']}/").json()
        assert {i["id"]: i["answered"] for i in detail["items"]}[item["id"]] is True


class TestChangedQuestion:
    def test_graded_against_the_packs_copy_after_an_edit_and_unpublishing(self, api, learner, world, pack):
        question = world[2]["choice"]
        item = item_of(pack, "choice")
        packed_correct = item["key"]["correct_option_id"]
        # the author swaps which option is correct, rewrites feedback, then unpublishes the question
        Option.objects.filter(question=question).update(is_correct=False, feedback="新的反馈")
        Option.objects.filter(question=question, order=3).update(is_correct=True)
        Question.objects.filter(pk=question.pk).update(published=False, explanation="新的解释")
        (outcome,) = upload(api, entry(item, timezone.now(), option_id=packed_correct))
        assert outcome["status"] == "applied"
        assert outcome["graded"]["correct"] is True
        assert outcome["graded"]["explanation"] == world[2]["choice"].explanation
        assert outcome["graded"]["feedback"] != "新的反馈"
        assert newest_log(learner, question.pk).rating == ReviewLog.Rating.GOOD

    def test_the_old_form_for_an_unpublished_question_is_still_refused(self, api, world):
        question = world[2]["choice"]
        Question.objects.filter(pk=question.pk).update(published=False)
        body = {"client_uuid": str(uuid.uuid4()), "question_id": question.pk, "reviewed_at": timezone.now().isoformat()}
        (outcome,) = upload(api, {**body, "correct": True})
        assert (outcome["status"], outcome["reason"]) == ("rejected", "unknown_question")


class TestDeprecatedFormSaysSo:
    def test_an_upload_with_correct_carries_deprecation_sunset_and_a_link(self, api, world):
        question = world[2]["choice"]
        body = {"client_uuid": str(uuid.uuid4()), "question_id": question.pk, "correct": True}
        response = api.post(UPLOAD, {"entries": [{**body, "reviewed_at": timezone.now().isoformat()}]}, format="json")
        assert response.status_code == 200
        assert response["Deprecation"] == "@1796030576"  # 2026-11-30T09:22:56Z, RFC 9745's @epoch
        assert response["Sunset"] == "Wed, 30 Jun 2027 00:00:00 GMT"  # RFC 8594's HTTP-date
        link = response["Link"]
        docs = "<http://testserver/api/docs/#/reviews/reviews_offline_upload>"
        assert f'{docs}; rel="deprecation"' in link and f'{docs}; rel="sunset"' in link

    def test_pack_answers_and_ratings_carry_none_of_it(self, api, pack):
        response = api.post(
            UPLOAD, {"entries": [entry(item_of(pack, "prompt"), timezone.now(), rating=3)]}, format="json"
        )
        assert response.status_code == 200
        assert not {"Deprecation", "Sunset", "Link"} & set(response.headers)
