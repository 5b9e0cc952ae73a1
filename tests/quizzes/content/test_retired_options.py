"""Retired options: hidden from new attempts and content listings, kept (and shown) for the history."""

from __future__ import annotations

import html

import pytest
from django.urls import reverse

from quizzes.api import representations
from quizzes.content.selectors import lessons_with_content, live_options
from quizzes.content.validation import validate_choice_options
from quizzes.models import Option
from quizzes.practice.services.answers import item_answer
from quizzes.practice.services.attempts import attempt_start
from tests import factories
from tests.quizzes.admin.test_content_admin import change_post

pytestmark = pytest.mark.django_db


def retire(option: Option) -> None:
    option.retired = True
    option.save(update_fields=["retired"])


def test_new_attempts_offer_live_options_only(user, choice_question):
    options = list(choice_question.options.order_by("order"))
    retire(options[3])
    for _ in range(5):
        item = attempt_start(user=user, lesson=choice_question.lesson).items.get()
        assert sorted(item.option_order) == sorted(o.pk for o in options[:3])
    assert [o.key for o in live_options(question=choice_question)] == [o.key for o in options[:3]]


def test_an_attempt_started_before_the_retirement_still_shows_and_grades_it(user, choice_question):
    options = list(choice_question.options.order_by("order"))
    item = attempt_start(user=user, lesson=choice_question.lesson).items.get()
    retire(options[2])
    outcome = item_answer(user=user, item=item, option_id=options[2].pk)
    assert outcome.correct is False
    assert outcome.result["chosen_option_id"] == options[2].pk
    assert outcome.result["correct_option_id"] == options[0].pk


def test_the_correct_option_of_an_item_is_the_one_it_showed(user, choice_question):
    """Retiring the correct option and adding a new one: old items reveal the one they showed."""
    old_correct = choice_question.options.get(is_correct=True)
    item = attempt_start(user=user, lesson=choice_question.lesson).items.get()
    retire(old_correct)
    new_correct = factories.OptionFactory(question=choice_question, key="new", is_correct=True, order=9)
    validate_choice_options(list(choice_question.options.all()))  # one live correct option
    outcome = item_answer(user=user, item=item, option_id=old_correct.pk)
    assert outcome.correct and outcome.result["correct_option_id"] == old_correct.pk
    fresh = attempt_start(user=user, lesson=choice_question.lesson).items.get()
    assert new_correct.pk in fresh.option_order and old_correct.pk not in fresh.option_order
    assert item_answer(user=user, item=fresh, option_id=new_correct.pk).result["correct_option_id"] == new_correct.pk


def test_lesson_content_lists_live_options_only(choice_question):
    retire(choice_question.options.get(key=f"{choice_question.key}-d"))
    lesson = lessons_with_content().get(pk=choice_question.lesson_id)
    (question,) = representations.lesson_content(lesson)["questions"]
    texts = {o["text"] for o in question["options"]}
    assert texts == set(choice_question.options.filter(retired=False).values_list("text", flat=True))
    assert len(texts) == 3


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        ([(True, False), (False, False), (False, True)], None),
        ([(True, True), (False, False), (False, False)], r"exactly one correct option \(found 0\)"),
        ([(True, False), (False, False), (True, True)], None),  # a retired correct option does not count
        ([(True, False), (False, True), (False, True)], "at least two options"),
    ],
)
def test_option_rules_count_live_options(flags, message):
    options = [{"is_correct": correct, "retired": retired} for correct, retired in flags]
    if message is None:
        validate_choice_options(options)
    else:
        with pytest.raises(Exception, match=message):
            validate_choice_options(options)


# --------------------------------------------------------------------------- the admin


@pytest.fixture
def seen(user, choice_question):
    """An attempt showed every option of the question."""
    return attempt_start(user=user, lesson=choice_question.lesson)


def page_text(response) -> str:
    return html.unescape(response.content.decode())


def test_the_option_inline_shows_retired(admin_client, choice_question):
    page = admin_client.get(reverse("admin:quizzes_question_change", args=[choice_question.pk])).content.decode()
    assert 'name="options-0-retired"' in page


def test_deleting_a_seen_option_is_refused_with_a_hint_to_retire_it(admin_client, seen, choice_question):
    url = reverse("admin:quizzes_question_change", args=[choice_question.pk])
    response = admin_client.post(url, change_post(choice_question, **{"options-3-DELETE": "on"}))
    assert response.status_code == 200
    text = page_text(response)
    assert f"Learners have been shown option(s) {choice_question.key}-d, so they cannot be deleted" in text
    assert "Retire them instead (tick “retired”" in text
    assert choice_question.options.count() == 4


def test_retiring_a_seen_option_in_the_admin_hides_it_from_new_attempts(admin_client, user, seen, choice_question):
    url = reverse("admin:quizzes_question_change", args=[choice_question.pk])
    response = admin_client.post(url, change_post(choice_question, **{"options-3-retired": "on"}))
    assert response.status_code == 302
    retired = choice_question.options.get(key=f"{choice_question.key}-d")
    assert retired.retired
    assert retired.pk in seen.items.get().option_order  # the old attempt is as it was
    assert retired.pk not in attempt_start(user=user, lesson=choice_question.lesson).items.get().option_order
    preview = admin_client.get(reverse("admin:quizzes_question_preview", args=[choice_question.pk]))
    assert "retired: shown only in earlier attempts" in page_text(preview)


def test_retiring_the_only_correct_option_is_refused(admin_client, choice_question):
    url = reverse("admin:quizzes_question_change", args=[choice_question.pk])
    response = admin_client.post(url, change_post(choice_question, **{"options-0-retired": "on"}))
    assert response.status_code == 200
    assert "A choice question needs exactly one correct option (found 0)." in page_text(response)


# --------------------------------------------------------------------------- cue rules in the admin


def test_admin_refuses_an_option_that_gives_the_answer_away_by_its_length(admin_client, choice_question):
    url = reverse("admin:quizzes_question_change", args=[choice_question.pk])
    long = "用查询与各个键的相似度经过 softmax 归一化作为权重"
    texts = {"options-0-text": long, "options-1-text": "查询", "options-2-text": "键值", "options-3-text": "数值"}
    response = admin_client.post(url, change_post(choice_question, **texts))
    assert response.status_code == 200
    text = page_text(response)
    key, shortest = f"{choice_question.key}-a", f"{choice_question.key}-b"
    assert (
        f"option lengths give the answer away: '{key}' is 49 wide, '{shortest}' only 4 "
        "(the longest may be at most 2 × 4 + 6 = 14)" in text
    )
    assert choice_question.options.get(key=key).text != long


def test_admin_refuses_catch_all_options_in_english_and_chinese(admin_client, choice_question):
    url = reverse("admin:quizzes_question_change", args=[choice_question.pk])
    response = admin_client.post(url, change_post(choice_question, **{"options-1-text": "以上都对"}))
    key = f"{choice_question.key}-b"
    assert f"'{key}' is a catch-all option (\"以上都\")" in page_text(response)
    zh = admin_client.post(
        url, change_post(choice_question, **{"options-1-text": "以上都对"}), headers={"accept-language": "zh-hans"}
    )
    assert f"“{key}”是兜底选项（“以上都”）" in page_text(zh)


def test_admin_cue_rules_ignore_retired_options(admin_client, choice_question):
    url = reverse("admin:quizzes_question_change", args=[choice_question.pk])
    data = change_post(choice_question, **{"options-3-text": "以上都不对", "options-3-retired": "on"})
    assert admin_client.post(url, data).status_code == 302
