"""The due queue is cached per learner (quizzes.reviews.learner_cache): a learner never sees it stale.

Each test fetches the queue once (filling the cache), changes something the way the app does,
and checks the next fetch shows the change. The cache is the real one: Redis when REDIS_URL is
set, local memory otherwise (both hold the stamps the same way). Every test commits for real
(``transaction=True``): inside a test case's transaction nothing commits, so a learner written there
skips the cache for the rest of the test, as any learner does inside their still-open transaction.
"""

from __future__ import annotations

import datetime as dt
import threading

import pytest
import time_machine
from django.core.cache import cache
from django.db import transaction
from django.utils import timezone

from quizzes.accounts.services import learner_profile_update
from quizzes.models import ReviewCard
from quizzes.practice.presenter import option_handle
from quizzes.practice.services import attempt_start, item_answer
from quizzes.reviews import learner_cache
from quizzes.reviews.services import card_rate
from tests import factories

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def cache_on(settings):
    settings.LEARNER_CACHE_SECONDS = 300


def due(api) -> dict:
    response = api.get("/api/v1/reviews/due/")
    assert response.status_code == 200
    return response.json()


def due_prompts(user, lesson, n):
    """n prompt cards first studied three days ago: due now."""
    at = timezone.now() - dt.timedelta(days=3)
    return [card_rate(user=user, question=factories.PromptQuestionFactory(lesson=lesson), rating=3, reviewed_at=at)
            for _ in range(n)]  # fmt: skip


def test_a_repeated_fetch_is_served_without_database_queries_beyond_auth(api, user, lesson, django_assert_num_queries):
    due_prompts(user, lesson, 3)
    first = due(api)
    with django_assert_num_queries(2):  # knox: the token + the user's other tokens; nothing of ours
        again = due(api)
    assert again == first and first["count"] == 3


def test_rating_a_card_shows_at_once(api, user, lesson):
    cards = due_prompts(user, lesson, 3)
    before = due(api)
    assert before["count"] == 3 and before["counts"]["reviewed_today"] == 0
    response = api.post("/api/v1/reviews/rate/", {"question_id": cards[0].question_id, "rating": 3}, format="json")
    assert response.status_code == 200
    after = due(api)
    assert after["count"] == 2 and after["counts"]["reviewed_today"] == 1
    assert cards[0].pk not in [card["id"] for card in after["results"]]


def test_answering_an_attempt_item_shows_at_once(api, user, choice_lesson):
    assert due(api)["counts"]["new"] == 3
    attempt = attempt_start(user=user, lesson=choice_lesson, mode="study")
    item = attempt.items.select_related("question").first()
    item_answer(user=user, item=item, option_id=item.option_order[0])
    counts = due(api)["counts"]
    assert counts["new"] == 2 and counts["reviewed_today"] == 1
    assert counts["next_due_after_today"] is not None  # the new card, due in two days


def test_undo_suspend_and_settings_show_at_once(api, user, lesson):
    cards = due_prompts(user, lesson, 3)
    assert due(api)["count"] == 3
    assert api.post(f"/api/v1/cards/{cards[0].pk}/suspend/").status_code == 200
    assert due(api)["count"] == 2
    learner_profile_update(user=user, reviews_per_day=1)
    assert due(api)["count"] == 1
    assert api.post(f"/api/v1/cards/{cards[0].pk}/unsuspend/").status_code == 200
    learner_profile_update(user=user, reviews_per_day=200)
    assert due(api)["count"] == 3
    assert api.post("/api/v1/reviews/undo/", {}, format="json").status_code == 200  # the newest: a first study
    assert due(api)["count"] == 2


def test_a_content_change_shows_for_every_learner(api, other_api, user, other_user, lesson):
    cards = due_prompts(user, lesson, 2)
    due_prompts(other_user, lesson, 1)
    assert due(api)["count"] == 2 and due(other_api)["counts"]["new"] == 2
    question = cards[0].question
    question.published = False
    question.save()  # as the admin or a content import does
    assert due(api)["count"] == 1
    assert due(other_api)["counts"]["new"] == 1


def test_the_next_study_day_rebuilds_the_queue(api, user, lesson):
    with time_machine.travel(timezone.now(), tick=False) as traveller:
        card_rate(user=user, question=factories.PromptQuestionFactory(lesson=lesson), rating=3)  # due in 2 days
        today = due(api)
        assert today["count"] == 0 and today["counts"]["reviewed_today"] == 1
        traveller.shift(dt.timedelta(days=2, hours=1))
        later = due(api)
    assert later["count"] == 1 and later["counts"]["reviewed_today"] == 0
    assert later["counts"]["study_day"] > today["counts"]["study_day"]


def test_another_language_is_its_own_copy(api, user, lesson):
    due_prompts(user, lesson, 1)
    english = due(api)["results"][0]["state_label"]
    chinese = api.get("/api/v1/reviews/due/", HTTP_ACCEPT_LANGUAGE="zh-hans").json()["results"][0]["state_label"]
    assert english != chinese


@pytest.mark.postgres  # another connection reads while this one holds a write transaction open
def test_a_copy_cached_while_the_write_was_uncommitted_is_not_used_after(api, user, lesson):
    """Another request can read between a write and its commit; the commit renews the stamp."""
    cards = due_prompts(user, lesson, 2)
    racing: list[dict] = []

    def read_from_another_request() -> None:
        try:
            racing.append(due(api))  # its own connection: the rating is not visible yet
        finally:
            from django.db import connection

            connection.close()

    with transaction.atomic():
        card_rate(user=user, question=cards[0].question, rating=3)
        reader = threading.Thread(target=read_from_another_request)
        reader.start()
        reader.join()
    assert racing[0]["count"] == 2  # stored under the stamp of before the write
    assert due(api)["count"] == 1  # rebuilt after the commit, not the racing copy


def test_an_answer_committed_in_its_own_transaction_shows_at_once(api, user, choice_lesson):
    """Real commits (no test transaction around them): the stamp is renewed when the answer commits."""
    assert due(api)["counts"]["new"] == 3
    attempt = attempt_start(user=user, lesson=choice_lesson, mode="study")
    item = attempt.items.select_related("question").first()
    handle = option_handle(item_id=item.pk, option_id=item.option_order[0])
    response = api.post(f"/api/v1/items/{item.pk}/answer/", {"option_id": handle}, format="json")
    assert response.status_code == 200
    assert due(api)["counts"]["reviewed_today"] == 1


@pytest.mark.parametrize("read_inside", [False, True])
def test_a_write_rolled_back_changes_nothing_a_learner_sees(api, user, lesson, read_inside):
    """Also when the failed transaction read the queue after its write (that read sees the write, and no copy of
    it may outlive the rollback)."""
    cards = due_prompts(user, lesson, 2)
    assert due(api)["count"] == 2
    with pytest.raises(RuntimeError), transaction.atomic():
        card_rate(user=user, question=cards[0].question, rating=3)
        if read_inside:
            assert due(api)["count"] == 1
        raise RuntimeError("the request failed after the write")
    assert due(api)["count"] == 2  # the rating never happened
    card_rate(user=user, question=cards[0].question, rating=3)
    assert due(api)["count"] == 1


def test_a_lost_stamp_never_revives_an_old_copy(api, user, lesson):
    cards = due_prompts(user, lesson, 2)
    assert due(api)["count"] == 2
    ReviewCard.objects.filter(pk=cards[0].pk).update(suspended=True)  # unseen by the stamps …
    cache.delete(f"stamp:learner:{user.pk}")  # … and the stamp is evicted
    assert due(api)["count"] == 1


def test_off_means_every_fetch_is_built(api, user, lesson, settings):
    settings.LEARNER_CACHE_SECONDS = 0
    cards = due_prompts(user, lesson, 2)
    assert due(api)["count"] == 2
    ReviewCard.objects.filter(pk=cards[0].pk).update(suspended=True)
    assert due(api)["count"] == 1
    assert not learner_cache.enabled()


def test_learners_never_share_a_copy(api, other_api, user, other_user, lesson):
    due_prompts(user, lesson, 2)
    assert due(api)["count"] == 2
    assert due(other_api)["count"] == 0


def test_the_body_is_exactly_the_documented_serializers_representation(api, user, lesson):
    """The view skips its output serializer for speed; its output must still be what the schema documents."""
    import json

    from rest_framework.renderers import JSONRenderer

    from quizzes.api.representations import due_queue_page
    from quizzes.api.views.reviews import DueQueueView

    cards = due_prompts(user, lesson, 3)
    card_rate(user=user, question=cards[0].question, rating=1)  # a lapse: learning state, reviewed today
    factories.PromptQuestionFactory(lesson=lesson)  # something new
    body = due(api)
    data, _valid_until = due_queue_page(user=user, now=timezone.now(), page=1, page_size=20)
    documented = json.loads(JSONRenderer().render(DueQueueView.OutputSerializer(data).data))
    assert body == documented
    assert list(body) == list(documented) and list(body["results"][0]) == list(documented["results"][0])
    assert body["counts"]["new"] == 1 and body["counts"]["reviewed_today"] == 1
