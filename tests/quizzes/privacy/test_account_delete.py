"""account_delete: everything keyed to the user goes (every table with a foreign key to User, found from the models),
browser sessions end, the first study attempts stay only as anonymous answers; refusals delete nothing."""

from __future__ import annotations

import pytest
from django.apps import apps
from django.contrib.auth import SESSION_KEY, get_user_model
from django.contrib.sessions.models import Session
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage

from quizzes.accounts.services import account_signup
from quizzes.core.errors import DomainError, ErrorCode
from quizzes.models import AnonymousAnswer, AttemptItem, DataExport, Option, Question, ReviewLog
from quizzes.privacy.deletion import account_delete
from tests import factories
from tests.quizzes.privacy.conftest import build_learner

pytestmark = pytest.mark.django_db


def user_foreign_keys() -> list[tuple[type, str]]:
    """Every (model, column) that refers to the user table: the app's, Django's, knox's, any added later."""
    user_model = get_user_model()
    return [
        (model, field.attname)
        for model in apps.get_models(include_auto_created=True)
        for field in model._meta.concrete_fields
        if field.is_relation and field.related_model is user_model
    ]


def rows_keyed_to(user_id: int) -> dict[str, int]:
    found = {}
    for model, column in user_foreign_keys():
        count = model._default_manager.filter(**{column: user_id}).count()
        if count:
            found[f"{model._meta.label}.{column}"] = count
    return found


def sessions_of(user_id: int) -> list[str]:
    return [s.session_key for s in Session.objects.all() if s.get_decoded().get(SESSION_KEY) == str(user_id)]


@pytest.fixture
def with_export(learner, settings, tmp_path):
    settings.MEDIA_ROOT = str(tmp_path / "media")
    name = default_storage.save("exports/abc/quizsite-export.json", ContentFile(b"{}"))
    DataExport.objects.create(user=learner.user, status="failed", json_file=name)
    return name


def test_the_introspection_sees_every_kind_of_row_before_the_deletion(learner, with_export):
    keyed = rows_keyed_to(learner.user.pk)
    for label in (
        "quizzes.LearnerProfile.user_id",
        "quizzes.IdempotencyKey.user_id",
        "knox.AuthToken.user_id",
        "quizzes.ReviewCard.user_id",
        "quizzes.ReviewLog.user_id",
        "quizzes.Attempt.user_id",
        "quizzes.ReviewPack.user_id",
        "quizzes.ReminderDelivery.user_id",
        "quizzes.DataExport.user_id",
        "quizzes.ProblemReport.user_id",
    ):
        assert label in keyed, (label, keyed)
    assert sessions_of(learner.user.pk)


def test_nothing_with_the_users_id_remains_in_any_table(
    learner, with_export, study_lesson, django_capture_on_commit_callbacks
):
    other = build_learner(lesson=study_lesson)
    before_other = rows_keyed_to(other.user.pk)
    user_id = learner.user.pk

    with django_capture_on_commit_callbacks(execute=True):
        result = account_delete(user=learner.user, password=factories.PASSWORD)

    assert result.deleted and result.sessions_ended == 1
    assert rows_keyed_to(user_id) == {}
    assert not get_user_model().objects.filter(pk=user_id).exists()
    assert sessions_of(user_id) == []
    assert not default_storage.exists(with_export)  # the export's file went after the commit
    # another learner keeps everything, their session too
    assert rows_keyed_to(other.user.pk) == before_other and sessions_of(other.user.pk)
    assert other.browser.get("/settings/").status_code == 200
    assert learner.browser.get("/settings/").status_code == 302  # signed out


def test_the_first_study_attempt_stays_as_anonymous_answers_only(learner, django_capture_on_commit_callbacks):
    first_items = list(AttemptItem.objects.filter(attempt=learner.first_attempt).order_by("position"))
    durations = dict(ReviewLog.objects.filter(attempt_item__in=first_items).values_list("attempt_item", "duration_ms"))

    account_delete(user=learner.user, password=factories.PASSWORD)

    rows = list(AnonymousAnswer.objects.all())
    assert len(rows) == len(first_items)  # the first attempt only, not the second
    assert len({row.sitting for row in rows}) == 1
    by_question = {row.question_id: row for row in rows}
    for item in first_items:
        row = by_question[item.question_id]
        assert row.answered == item.is_answered and row.is_correct == item.is_correct and row.score == item.score
        assert row.chosen_option_id == item.chosen_option_id
        assert row.duration_ms == durations.get(item.pk)
    assert [row.answered for row in rows].count(False) == 1  # the skipped item (statistics count it as wrong)
    # no way back: the table refers to content only, and keeps no time, seed, order or typed answer
    related = {f.related_model for f in AnonymousAnswer._meta.concrete_fields if f.is_relation}
    assert related == {Question, Option}
    columns = {f.name for f in AnonymousAnswer._meta.concrete_fields}
    assert columns == {
        "id",
        "sitting",
        "question",
        "template_version",
        "answered",
        "chosen_option",
        "is_correct",
        "score",
        "duration_ms",
    }


def test_a_wrong_password_deletes_nothing(learner):
    before = rows_keyed_to(learner.user.pk)
    with pytest.raises(DomainError) as refused:
        account_delete(user=learner.user, password="not-it")
    assert refused.value.error_code == ErrorCode.WRONG_PASSWORD
    assert rows_keyed_to(learner.user.pk) == before and sessions_of(learner.user.pk)
    assert not AnonymousAnswer.objects.exists()


def test_a_staff_account_cannot_delete_itself(db):
    admin = factories.UserFactory(is_staff=True)
    with pytest.raises(DomainError) as refused:
        account_delete(user=admin, password=factories.PASSWORD)
    assert refused.value.error_code == ErrorCode.STAFF_ACCOUNT
    assert get_user_model().objects.filter(pk=admin.pk).exists()


def test_deleting_twice_is_not_an_error_and_the_name_and_address_can_sign_up_again(learner):
    username, email = learner.user.username, learner.user.email
    assert account_delete(user=learner.user, password=factories.PASSWORD).deleted
    assert not account_delete(user=learner.user, password=factories.PASSWORD).deleted
    again = account_signup(username=username, email=email, password="a-new-pass-123")
    assert again.pk != learner.user.pk and rows_keyed_to(again.pk) == {
        "quizzes.LearnerProfile.user_id": 1,
        "quizzes.UsernameSkeleton.user_id": 1,  # what sign-up writes (the confusable-name check)
    }
