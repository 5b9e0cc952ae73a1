"""Profile read/update with validation; lesson content without correctness data, cached with ETags."""

from __future__ import annotations

import pytest

from quizzes.models import LearnerProfile
from tests import factories
from tests.quizzes.api.helpers import answer_leaks, assert_error, strings_in

pytestmark = pytest.mark.django_db


def test_profile_defaults_and_update(api, user):
    profile = api.get("/api/v1/profile/").json()
    assert profile["username"] == user.username and profile["time_zone"] == "UTC" and profile["day_rollover_hour"] == 4
    changes = {
        "time_zone": "Asia/Shanghai",
        "day_rollover_hour": 0,
        "desired_retention": 0.85,
        "new_per_day": 0,
        "reviews_per_day": 50,
        "reminder_opt_in": True,
        "reminder_hour": 23,
    }
    updated = api.patch("/api/v1/profile/", changes, format="json").json()
    assert {k: updated[k] for k in changes} == changes
    stored = LearnerProfile.objects.get(user=user)
    assert stored.time_zone == "Asia/Shanghai" and stored.desired_retention == 0.85


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("time_zone", "Mars/Olympus"),
        ("time_zone", 8),
        ("day_rollover_hour", 24),
        ("day_rollover_hour", -1),
        ("day_rollover_hour", "4"),
        ("desired_retention", 0.5),
        ("desired_retention", 1.0),
        ("desired_retention", 0.98),
        ("desired_retention", 0.69),
        ("new_per_day", -1),
        ("reviews_per_day", 1.5),
        ("reminder_opt_in", "yes"),
        ("reminder_hour", 99),
    ],
)
def test_profile_validation(api, user, field, value):
    body = assert_error(api.patch("/api/v1/profile/", {field: value}, format="json"), 400, "validation_error")
    assert field in body["error"]["fields"]
    assert not LearnerProfile.objects.filter(user=user).exclude(time_zone="UTC").exists()


def test_server_owned_profile_fields_are_ignored(api, user, other_user):
    response = api.patch(
        "/api/v1/profile/", {"user": other_user.pk, "last_reminded_on": "2020-01-01", "username": "x"}, format="json"
    )
    assert response.status_code == 200 and response.json()["username"] == user.username
    assert not LearnerProfile.objects.filter(user=other_user).exists()
    assert not LearnerProfile.objects.filter(last_reminded_on__isnull=False).exists()


def test_lessons_list_and_detail_without_correctness_data(api, quiz_lesson):
    factories.LessonFactory(published=False)
    lessons = api.get("/api/v1/lessons/").json()["lessons"]
    assert [lesson["id"] for lesson in lessons] == [quiz_lesson.pk] and lessons[0]["question_count"] == 6
    detail = api.get(f"/api/v1/lessons/{quiz_lesson.pk}/").json()
    assert [q["kind"] for q in detail["questions"]] == ["choice", "choice", "choice", "numeric", "prompt", "recall"]
    assert answer_leaks(detail) == []
    secrets = set()
    for question in quiz_lesson.questions.all():
        secrets |= {question.explanation, question.reference_answer, *question.rubric, *question.expected_lines}
        secrets |= {o.feedback for o in question.options.all()}
    assert not [s for s in strings_in(detail) if s in secrets]
    first = detail["questions"][0]
    assert len(first["options"]) == 4 and all(set(o) == {"text", "text_html"} for o in first["options"])
    assert detail["questions"][5]["line_count"] == 3


def test_lesson_option_order_does_not_follow_authoring(api, lesson):
    """The content authors the correct option first; the API's order must not say which one it is."""
    questions = [factories.ChoiceQuestionFactory(lesson=lesson, options=4) for _ in range(12)]
    detail = api.get(f"/api/v1/lessons/{lesson.pk}/").json()
    first_is_correct = 0
    for question, shown in zip(questions, detail["questions"], strict=True):
        correct = question.options.get(is_correct=True).text
        first_is_correct += shown["options"][0]["text"] == correct
    assert first_is_correct < 12


def test_lesson_etag(api, quiz_lesson):
    for url in ("/api/v1/lessons/", f"/api/v1/lessons/{quiz_lesson.pk}/"):
        first = api.get(url)
        etag = first.headers["ETag"]
        cached = api.get(url, HTTP_IF_NONE_MATCH=etag)
        assert cached.status_code == 304 and cached.content == b"" and cached.headers["ETag"] == etag
        assert api.get(url, HTTP_IF_NONE_MATCH='"stale"').status_code == 200
    question = quiz_lesson.questions.first()
    question.prompt = "改过的题目"
    question.save()
    url = f"/api/v1/lessons/{quiz_lesson.pk}/"
    assert api.get(url, HTTP_IF_NONE_MATCH=etag).status_code == 200


def test_unpublished_or_missing_lesson_is_404(api):
    hidden = factories.LessonFactory(published=False)
    assert_error(api.get(f"/api/v1/lessons/{hidden.pk}/"), 404, "not_found")
    assert_error(api.get("/api/v1/lessons/999999/"), 404)


def test_lesson_list_queries_do_not_grow(api, django_assert_max_num_queries):
    def lessons(n):
        for _ in range(n):
            lesson = factories.LessonFactory()
            factories.ChoiceQuestionFactory(lesson=lesson)
            factories.PromptQuestionFactory(lesson=lesson)

    lessons(1)
    with django_assert_max_num_queries(4) as small:
        api.get("/api/v1/lessons/")
    lessons(30)
    with django_assert_max_num_queries(len(small.captured_queries)):
        assert len(api.get("/api/v1/lessons/").json()["lessons"]) == 31
