"""Reviews over the API: due queue with counts, rating, undo, suspend, forecast, heatmap, references."""

from __future__ import annotations

import datetime as dt
import uuid

import pytest
import time_machine
from django.utils import timezone

from quizzes.models import Question, ReviewCard, ReviewLog
from quizzes.reviews.services import card_rate
from tests import factories
from tests.quizzes.api.helpers import assert_error

pytestmark = pytest.mark.django_db


def rate(api, question, rating=3, **extra):
    return api.post("/api/v1/reviews/rate/", {"question_id": question.pk, "rating": rating, **extra}, format="json")


def make_due_cards(user, lesson, n, *, at):
    """n prompt cards rated at ``at`` (first study → due two days later)."""
    cards = []
    for _ in range(n):
        question = factories.PromptQuestionFactory(lesson=lesson)
        cards.append(card_rate(user=user, question=question, rating=3, reviewed_at=at))
    return cards


def test_rate_a_prompt_creates_the_card_due_in_two_days(api, user, lesson):
    question = factories.PromptQuestionFactory(lesson=lesson)
    response = rate(api, question, duration_ms=12000)
    assert response.status_code == 200
    card = response.json()
    assert card["question"]["id"] == question.pk and card["reps"] == 1
    due = dt.datetime.fromisoformat(card["due"])
    assert abs(due - (timezone.now() + dt.timedelta(days=2))) < dt.timedelta(minutes=1)
    log = ReviewLog.objects.get(user=user)
    assert log.source == "api" and log.duration_ms == 12000


def test_rate_with_client_uuid_is_idempotent(api, user, lesson):
    question = factories.PromptQuestionFactory(lesson=lesson)
    client_uuid = str(uuid.uuid4())
    first = rate(api, question, client_uuid=client_uuid).json()
    again = rate(api, question, rating=1, client_uuid=client_uuid).json()
    assert first == again and ReviewLog.objects.filter(user=user).count() == 1


def test_rate_validation(api, lesson, choice_question):
    prompt = factories.PromptQuestionFactory(lesson=lesson)
    assert "question_id" in assert_error(rate(api, choice_question), 400)["error"]["fields"]  # quiz kinds are graded
    assert "rating" in assert_error(rate(api, prompt, rating=5), 400)["error"]["fields"]
    assert "rating" in assert_error(rate(api, prompt, rating="3"), 400)["error"]["fields"]
    future = (timezone.now() + dt.timedelta(hours=1)).isoformat()
    assert "reviewed_at" in assert_error(rate(api, prompt, reviewed_at=future), 400)["error"]["fields"]
    assert "reviewed_at" in assert_error(rate(api, prompt, reviewed_at="2025-01-01T10:00:00"), 400)["error"]["fields"]
    assert_error(api.post("/api/v1/reviews/rate/", {"question_id": 999999, "rating": 3}, format="json"), 400)
    assert not ReviewLog.objects.exists()


def test_server_owned_fields_in_a_rating_are_ignored(api, user, other_user, lesson):
    question = factories.PromptQuestionFactory(lesson=lesson)
    card = rate(api, question, user=other_user.pk, due="2000-01-01T00:00:00Z", stability=999, reps=50).json()
    stored = ReviewCard.objects.get(pk=card["id"])
    assert stored.user == user and stored.reps == 1 and stored.stability != 999 and stored.due.year > 2000


def test_due_queue_orders_pages_and_counts(api, user, lesson):
    start = timezone.now()
    make_due_cards(user, lesson, 3, at=start - dt.timedelta(days=5))
    make_due_cards(user, lesson, 2, at=start - dt.timedelta(days=3))
    factories.PromptQuestionFactory(lesson=lesson)  # new
    later = make_due_cards(user, lesson, 1, at=start)  # due in two days
    queue = api.get("/api/v1/reviews/due/?page_size=2").json()
    assert queue["count"] == 5 and len(queue["results"]) == 2
    counts = queue["counts"]
    assert counts["due"] == 5 and counts["new"] == 1 and counts["reviewed_today"] == 1
    assert dt.datetime.fromisoformat(counts["next_due_after_today"]) == later[0].due
    everything = []
    for page in (1, 2, 3):
        everything += api.get(f"/api/v1/reviews/due/?page_size=2&page={page}").json()["results"]
    dues = [card["due"] for card in everything]
    assert len(everything) == 5 and dues == sorted(dues) and all(card["due_today"] for card in everything)
    assert api.get("/api/v1/reviews/due/?page=9").json()["results"] == []


def test_due_queue_queries_do_not_grow(api, user, lesson, django_assert_max_num_queries):
    past = timezone.now() - dt.timedelta(days=5)
    make_due_cards(user, lesson, 1, at=past)
    with django_assert_max_num_queries(6) as small:  # auth 2, profile, the logs grouped, the card summary, page
        api.get("/api/v1/reviews/due/?page_size=100")
    other = factories.LessonFactory()
    make_due_cards(user, other, 40, at=past)
    with django_assert_max_num_queries(len(small.captured_queries)):
        assert len(api.get("/api/v1/reviews/due/?page_size=100").json()["results"]) == 41


def test_due_queue_and_card_lists_hold_only_my_cards(api, other_api, user, other_user, lesson):
    past = timezone.now() - dt.timedelta(days=5)
    mine = make_due_cards(user, lesson, 1, at=past)
    theirs = make_due_cards(other_user, lesson, 2, at=past)
    assert [c["id"] for c in api.get("/api/v1/reviews/due/").json()["results"]] == [mine[0].pk]
    assert [c["id"] for c in api.get("/api/v1/cards/").json()["results"]] == [mine[0].pk]
    for card in theirs:
        assert_error(api.get(f"/api/v1/cards/{card.pk}/"), 404)
        assert_error(api.post(f"/api/v1/cards/{card.pk}/suspend/"), 404)
        assert_error(api.post(f"/api/v1/cards/{card.pk}/unsuspend/"), 404)
        assert_error(api.post("/api/v1/reviews/undo/", {"card_id": card.pk}, format="json"), 404)
    assert ReviewLog.objects.filter(user=other_user).count() == 2
    assert not ReviewCard.objects.filter(suspended=True).exists()


def test_undo_restores_the_card(api, user, lesson):
    question = factories.PromptQuestionFactory(lesson=lesson)
    start = timezone.now()
    with time_machine.travel(start - dt.timedelta(days=3)):
        first = rate(api, question).json()
    second = rate(api, question, rating=1).json()
    assert second["due"] != first["due"]
    undone = api.post("/api/v1/reviews/undo/", {"card_id": second["id"]}, format="json").json()
    assert undone["question_id"] == question.pk
    assert undone["card"]["due"] == first["due"] and undone["card"]["reps"] == 1
    gone = api.post("/api/v1/reviews/undo/", {}, format="json").json()
    assert gone == {"question_id": question.pk, "card": None}
    assert_error(api.post("/api/v1/reviews/undo/", {}, format="json"), 400, "nothing_to_undo")


def test_undo_with_idempotency_key_undoes_once(api, user, lesson):
    question = factories.PromptQuestionFactory(lesson=lesson)
    with time_machine.travel(timezone.now() - dt.timedelta(days=3)):
        rate(api, question)
    rate(api, question, rating=1)
    key = {"HTTP_IDEMPOTENCY_KEY": "undo-7"}
    first = api.post("/api/v1/reviews/undo/", {}, format="json", **key)
    again = api.post("/api/v1/reviews/undo/", {}, format="json", **key)
    assert first.json() == again.json() and ReviewLog.objects.filter(user=user).count() == 1


def test_suspend_and_unsuspend(api, user, lesson):
    card = make_due_cards(user, lesson, 1, at=timezone.now() - dt.timedelta(days=5))[0]
    suspended = api.post(f"/api/v1/cards/{card.pk}/suspend/").json()
    assert suspended["suspended"] is True and suspended["due_today"] is False
    assert api.get("/api/v1/reviews/due/").json()["count"] == 0
    assert api.post(f"/api/v1/cards/{card.pk}/unsuspend/").json()["suspended"] is False
    assert api.get("/api/v1/reviews/due/").json()["count"] == 1


def test_forecast_and_heatmap(api, user, lesson):
    make_due_cards(user, lesson, 2, at=timezone.now() - dt.timedelta(days=1))
    forecast = api.get("/api/v1/reviews/forecast/?days=7").json()["days"]
    assert len(forecast) == 7 and sum(day["count"] for day in forecast) == 2 and forecast[1]["count"] == 2
    heatmap = api.get("/api/v1/reviews/heatmap/?days=30").json()["days"]
    assert len(heatmap) == 30 and heatmap[-2]["count"] == 2
    assert_error(api.get("/api/v1/reviews/forecast/?days=0"), 400)
    assert_error(api.get("/api/v1/reviews/heatmap/?days=abc"), 400)


def test_reference_for_self_rated_questions_only(api, lesson, choice_question):
    prompt = factories.PromptQuestionFactory(lesson=lesson)
    reference = api.get(f"/api/v1/questions/{prompt.pk}/reference/").json()
    assert reference["reference_answer"] == prompt.reference_answer and reference["rubric"] == prompt.rubric
    assert [p["rating"] for p in reference["rating_previews"]] == [1, 2, 3, 4]
    assert_error(api.get(f"/api/v1/questions/{choice_question.pk}/reference/"), 404)


# --------------------------------------------------------------------------- issue 12: one rule, one place


def test_rate_refuses_a_question_of_an_unpublished_lesson(api, user):
    """The review page and the offline upload refuse it; the rate endpoint must too."""
    draft = factories.LessonFactory(published=False)
    prompt = factories.PromptQuestionFactory(lesson=draft)
    assert "question_id" in assert_error(rate(api, prompt), 400)["error"]["fields"]
    assert not ReviewLog.objects.filter(user=user).exists()


def test_rate_refuses_a_review_time_before_the_question_existed_as_the_offline_upload_does(api, user, lesson):
    prompt = factories.PromptQuestionFactory(lesson=lesson)
    before = (prompt.created_at - dt.timedelta(hours=1)).isoformat()
    assert "reviewed_at" in assert_error(rate(api, prompt, reviewed_at=before), 400)["error"]["fields"]
    entry = {"client_uuid": str(uuid.uuid4()), "question_id": prompt.pk, "rating": 3, "reviewed_at": before}
    upload = api.post("/api/v1/reviews/offline/", {"entries": [entry]}, format="json").json()
    assert upload["entries"][0]["reason"] == "before_card_existed"
    assert not ReviewLog.objects.filter(user=user).exists()


def test_a_stored_rating_sent_again_is_a_no_op_even_after_its_question_was_unpublished(api, user, lesson):
    """client_uuid de-duplication comes before validation, for the rate endpoint as for the offline upload."""
    prompt = factories.PromptQuestionFactory(lesson=lesson)
    client_uuid = str(uuid.uuid4())
    first = rate(api, prompt, client_uuid=client_uuid)
    assert first.status_code == 200
    Question.objects.filter(pk=prompt.pk).update(published=False)
    again = rate(api, prompt, client_uuid=client_uuid)
    assert again.status_code == 200, again.json()
    assert again.json()["id"] == first.json()["id"]
    now = timezone.now().isoformat()
    entry = {"client_uuid": client_uuid, "question_id": prompt.pk, "rating": 3, "reviewed_at": now}
    upload = api.post("/api/v1/reviews/offline/", {"entries": [entry]}, format="json").json()
    assert upload["entries"][0]["status"] == "already_stored"
    assert ReviewLog.objects.filter(user=user).count() == 1


def test_undo_names_the_question_of_the_rating_it_removed(api, user, lesson, monkeypatch):
    """The newest rating is looked up inside the service's transaction, not by the view beforehand:
    when another device rates in between, the response names the question whose rating was removed."""
    from quizzes.api.views import reviews as views

    first = factories.PromptQuestionFactory(lesson=lesson)
    second = factories.PromptQuestionFactory(lesson=lesson)
    card_rate(user=user, question=first, rating=3)
    undo = views.card_undo_last

    def with_a_rating_in_between(**kwargs):
        card_rate(user=user, question=second, rating=3)  # another device, between the request and the undo
        return undo(**kwargs)

    monkeypatch.setattr(views, "card_undo_last", with_a_rating_in_between)
    body = api.post("/api/v1/reviews/undo/", {}, format="json").json()
    assert body == {"question_id": second.pk, "card": None}
    assert ReviewCard.objects.filter(user=user, question=first).exists()
    assert not ReviewCard.objects.filter(user=user, question=second).exists()


def test_next_due_after_today_counts_live_cards_only(api, user, lesson):
    """The dashboard counts' next due date skips cards of unpublished lessons, like the dashboard page."""
    make_due_cards(user, lesson, 1, at=timezone.now())  # due in two days
    assert api.get("/api/v1/reviews/due/").json()["counts"]["next_due_after_today"] is not None
    lesson.published = False
    lesson.save()
    assert api.get("/api/v1/reviews/due/").json()["counts"]["next_due_after_today"] is None
