"""Queries per request stay constant however many rows a request handles (no N+1) — issue 7 §4.

Each test measures a request with little data, grows the data (more questions, attempts, cards),
and asserts the same request needs no more queries than before. Not timed: speed lives in bench/.
The lesson list has its own test (tests/quizzes/api/test_profile_lessons.py). The two hot read paths of issue 16,
a learner's first due-queue fetch and the dashboard, are held here to their exact statement counts, and on
PostgreSQL to sending their independent reads together (one round trip: ``quizzes.core.compiled.together``).
"""

from __future__ import annotations

import datetime as dt

import pytest
from django.db import connection
from django.utils import timezone

from quizzes.api import representations
from quizzes.practice.selectors import attempts_for
from quizzes.practice.services import attempt_start
from quizzes.reviews.models import ReviewCard
from quizzes.reviews.services import card_rate
from tests import factories
from tests.quizzes.api.conftest import token_client

pytestmark = pytest.mark.django_db


class counted:
    """Count a request's queries (the baseline), failing if it needs more than ``most``.

    Counts through ``execute_wrapper`` rather than ``connection.queries``: the test client's
    request_started signal resets that log in the middle of a capture.
    """

    def __init__(self, most: int) -> None:
        self.most = most
        self.queries: list[str] = []
        self.pipelined: list[bool] = []  # per statement: sent inside a PostgreSQL pipeline (with others)

    def _wrap(self, execute, sql, params, many, context):
        self.queries.append(sql)
        pgconn = getattr(context["connection"].connection, "pgconn", None)  # psycopg's libpq connection
        self.pipelined.append(pgconn is not None and pgconn.pipeline_status != 0)
        return execute(sql, params, many, context)

    def __enter__(self) -> counted:
        self._ctx = connection.execute_wrapper(self._wrap)
        self._ctx.__enter__()
        return self

    def __exit__(self, *exc) -> None:
        self._ctx.__exit__(*exc)
        if exc[0] is None:
            assert len(self) <= self.most, f"{len(self)} queries for the small case (at most {self.most})"

    def __len__(self) -> int:
        return len(self.queries)


@pytest.fixture
def api(user):
    return token_client(user)


def quiz_lesson(choice: int, numeric: int):
    lesson = factories.LessonFactory()
    for n in range(choice):
        factories.ChoiceQuestionFactory(lesson=lesson, order=n, options=4)
    for n in range(numeric):
        factories.NumericQuestionFactory(lesson=lesson, order=choice + n)
    factories.PromptQuestionFactory(lesson=lesson, order=choice + numeric)
    return lesson


def start(api, lesson) -> dict:
    response = api.post("/api/v1/attempts/", {"lesson_id": lesson.pk, "mode": "study"}, format="json")
    assert response.status_code == 201, response.content
    return response.json()


def test_attempt_start_queries_do_not_grow_with_questions_or_history(api):
    small = quiz_lesson(choice=1, numeric=1)
    start(api, small)  # a previous attempt: option-order history exists from here on
    with counted(40) as few:
        assert len(start(api, small)["items"]) == 2
    large = quiz_lesson(choice=12, numeric=6)
    for _ in range(3):
        start(api, large)
    with counted(len(few)):
        assert len(start(api, large)["items"]) == 18


def answer_first_choice(api, attempt: dict):
    item = next(i for i in attempt["items"] if i["question"]["kind"] == "choice")
    body = {"option_id": item["options"][0]["id"], "duration_ms": 4000}
    response = api.post(f"/api/v1/items/{item['id']}/answer/", body, format="json")
    assert response.status_code == 200, response.content
    return response


def test_answer_queries_do_not_grow_with_attempt_size_or_history(api, user):
    """The answer POST (issue 16): knox (2), the item with its attempt, question and options (1), the locking
    UPDATE (which also refuses a finished attempt), the card under its row lock with its newest log time and
    the learner's profile, the log INSERT with the card UPDATE (1) — and the test's own savepoint around the
    transaction (2). A question's first answer inserts the card instead of finding it, and reads the profile
    (2 more). On SQLite the log and the card are two statements (one more)."""
    sqlite = int(connection.vendor == "sqlite")
    small = quiz_lesson(choice=1, numeric=0)
    first, second = start(api, small), start(api, small)
    with counted(10 + sqlite):  # the first answer creates the card
        answer_first_choice(api, first)
    with counted(8 + sqlite) as few:  # the card exists from here on
        answer_first_choice(api, second)
    assert len(few) == 8 + sqlite
    large = quiz_lesson(choice=12, numeric=4)
    for question in factories.PromptQuestionFactory.create_batch(30, lesson=large):
        card_rate(user=user, question=question, rating=3, reviewed_at=timezone.now() - dt.timedelta(days=3))
    for _ in range(2):  # a long history on the answered card: an answer reads only its newest time
        for item in start(api, large)["items"]:
            if item["question"]["kind"] == "choice":
                answer_first_choice(api, {"items": [item]})
    attempt = start(api, large)
    with counted(len(few)) as many:
        answer_first_choice(api, attempt)
    if connection.vendor == "postgresql":  # the log and the card: one statement
        assert [sql.split()[0] for sql in many.queries] == [
            "SELECT", "SELECT", "SELECT", "SAVEPOINT", "UPDATE", "SELECT", "WITH", "RELEASE"
        ]  # fmt: skip


def test_attempt_list_and_detail_queries_do_not_grow(api):
    lesson = quiz_lesson(choice=2, numeric=1)
    first = start(api, lesson)
    with counted(12) as few_list:
        assert api.get("/api/v1/attempts/?page_size=100").json()["count"] == 1
    with counted(12) as few_detail:
        api.get(f"/api/v1/attempts/{first['id']}/")
    big = quiz_lesson(choice=10, numeric=3)
    for _ in range(15):
        start(api, big)
    with counted(len(few_list)):
        assert len(api.get("/api/v1/attempts/?page_size=100").json()["results"]) == 16
    latest = api.get("/api/v1/attempts/?page_size=1").json()["results"][0]
    with counted(len(few_detail)):
        assert len(api.get(f"/api/v1/attempts/{latest['id']}/").json()["items"]) == 13


def test_card_list_queries_do_not_grow(api, user):
    lesson = factories.LessonFactory()
    past = timezone.now() - dt.timedelta(days=5)

    def cards(n):
        for question in factories.PromptQuestionFactory.create_batch(n, lesson=lesson):
            card_rate(user=user, question=question, rating=3, reviewed_at=past)

    cards(1)
    with counted(12) as few:
        api.get("/api/v1/cards/?page_size=100")
    cards(40)
    with counted(len(few)):
        assert len(api.get("/api/v1/cards/?page_size=100").json()["results"]) == 41


def test_lesson_detail_queries_do_not_grow(api):
    small = quiz_lesson(choice=1, numeric=1)
    with counted(12) as few:
        api.get(f"/api/v1/lessons/{small.pk}/")
    large = quiz_lesson(choice=15, numeric=5)
    with counted(len(few)):
        assert len(api.get(f"/api/v1/lessons/{large.pk}/").json()["questions"]) == 21


def test_item_representation_needs_no_query_per_option(user, django_assert_num_queries):
    """The public form of a loaded attempt (options, handles, variants) is built without touching the database."""
    lesson = quiz_lesson(choice=6, numeric=2)
    attempt = attempt_start(user=user, lesson=lesson, mode="study")
    loaded = attempts_for(user=user).get(pk=attempt.pk)
    with django_assert_num_queries(0):
        assert len(representations.attempt_public(loaded)["items"]) == 8


def _review_history(user, lessons, *, cards: int, days: int) -> None:
    """``cards`` prompt cards per lesson, rated on a few days over the last ``days`` (a year of logs for the
    heatmap), all due again since yesterday."""
    now = timezone.now()
    for lesson in lessons:
        for n, question in enumerate(factories.PromptQuestionFactory.create_batch(cards, lesson=lesson)):
            for day in range(days, 0, -max(1, days // 4)):
                card_rate(user=user, question=question, rating=3, reviewed_at=now - dt.timedelta(days=day, minutes=n))
    ReviewCard.objects.filter(user=user).update(due=now - dt.timedelta(days=1))


def test_a_first_due_fetch_is_six_statements_the_last_three_sent_together(api, user):
    """knox 2, the profile, then the logs grouped, the card summary and the page in one round trip; the same
    six with 40× the cards and a year of logs."""
    _review_history(user, [factories.LessonFactory()], cards=1, days=5)
    with counted(6) as few:
        assert api.get("/api/v1/reviews/due/?page_size=100").json()["count"] == 1
    assert len(few) == 6
    _review_history(user, [factories.LessonFactory() for _ in range(4)], cards=10, days=300)
    with counted(len(few)) as many:
        assert len(api.get("/api/v1/reviews/due/?page_size=100").json()["results"]) == 41
    if connection.vendor == "postgresql":
        assert many.pipelined == [False, False, False, True, True, True]


def test_the_dashboard_is_seven_statements_the_last_four_sent_together(client):
    """Session 2, the profile, then the card summary with the forecast, a year of logs, the lessons and the
    best scores in one round trip (reviews due: the next step needs no look-up); the same seven with more
    lessons, cards, attempts and a year of logs."""
    learner = factories.LearnerProfileFactory().user
    client.force_login(learner)
    _review_history(learner, [factories.LessonFactory()], cards=1, days=5)
    client.get("/")  # the session's first read warms the content types
    with counted(7) as few:
        assert client.get("/").status_code == 200
    assert len(few) == 7
    lessons = [quiz_lesson(choice=3, numeric=1) for _ in range(4)]
    _review_history(learner, lessons, cards=10, days=300)
    for lesson in lessons:
        attempt_start(user=learner, lesson=lesson, mode="study")
    with counted(len(few)) as many:
        assert 'data-testid="due-count">41<' in client.get("/").content.decode()
    if connection.vendor == "postgresql":
        assert many.pipelined == [False, False, False, True, True, True, True]


def test_personal_parameters_cost_the_answer_no_query(api, user):
    """Issue 30: the learner's fitted parameters are a column of the profile the answer's card lock already reads
    (LEFT JOIN), so a learner on personal parameters answers in the same 8 statements, one FSRS step each."""
    from quizzes.models import LearnerProfile, ReviewCard
    from tests.quizzes.reviews.fitting_helpers import perturbed

    LearnerProfile.objects.update_or_create(user=user, defaults={"fsrs_parameters": list(perturbed(5))})
    sqlite = int(connection.vendor == "sqlite")
    small = quiz_lesson(choice=1, numeric=0)
    first, second = start(api, small), start(api, small)
    answer_first_choice(api, first)
    with counted(8 + sqlite) as queries:
        answer_first_choice(api, second)
    assert len(queries) == 8 + sqlite
    assert "|w=" in ReviewCard.objects.get(user=user).schedule_key  # stepped under the personal parameters
