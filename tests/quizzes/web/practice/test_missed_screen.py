"""The end screen teaches what was missed and practises just that; input errors stay inside the page under htmx;
the verdict reaches a live region that was there before the answer; first ratings explain the two-day rule."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from quizzes.models import Attempt, ReviewCard, ReviewLog
from quizzes.practice.services import item_answer
from tests import factories
from tests.quizzes.web.practice.conftest import choose, item_url, start

pytestmark = pytest.mark.django_db
HTMX = {"HX-Request": "true"}


@pytest.fixture
def missed(learner_client, quiz_lesson):
    """Item 1 answered wrong (its second option), item 2 right, the rest left; the attempt finished."""
    attempt = start(learner_client, quiz_lesson)
    first = attempt.items.get(position=0)
    wrong = first.question.options.filter(is_correct=False).order_by("order")[0]
    learner_client.post(item_url(attempt, 1, "answer"), choose(first, wrong))
    second = attempt.items.get(position=1)
    learner_client.post(item_url(attempt, 2, "answer"), choose(second, second.question.options.get(is_correct=True)))
    learner_client.post(reverse("web:attempt_finish", args=[attempt.pk]))
    return attempt, first, wrong


def test_each_missed_item_shows_your_answer_beside_the_correct_one_and_the_mistake(learner_client, missed):
    attempt, first, wrong = missed
    body = learner_client.get(reverse("web:attempt_summary", args=[attempt.pk])).content.decode()
    entries = re.findall(
        r"<li class=\"card missed-item\" data-missed-item>(.*?)</li>\s*(?=<li class|</ol>)", body, re.S
    )
    assert len(entries) == 3  # the wrong one and the two never answered (item 2 was right)
    entry = entries[0]
    correct = first.question.options.get(is_correct=True)
    yours = entry[entry.index("compare__yours") : entry.index("compare__correct")]
    theirs = entry[entry.index("compare__correct") :]
    assert wrong.text in yours and correct.text not in yours
    assert correct.text in theirs
    assert "The mistake behind your answer" in entry and wrong.feedback in entry  # the option's misconception
    assert "Explanation" in entry and "点积的方差随" in entry
    # an unanswered one says so and keeps its answer hidden: seeing it would be a failed recall, not a study
    skipped = attempt.items.get(position=2)
    assert "not answered" in entries[1] and "data-answer-hidden" in entries[1]
    assert "compare__correct" not in entries[1] and "Explanation" not in entries[1]
    assert skipped.question.options.get(is_correct=True).text not in entries[1]
    # the practise button, the offer to show the skipped answers (saying what it costs), and the next step
    assert f'action="{reverse("web:attempt_missed", args=[attempt.pk])}"' in body
    assert "Practise the 3 missed ones now" in body
    assert f'action="{reverse("web:attempt_show_skipped", args=[attempt.pk])}"' in body
    assert "Show the answers to the 2 items you skipped — they will count as not known" in body
    assert "data-next-step-button" in body
    chinese = learner_client.get(
        reverse("web:attempt_summary", args=[attempt.pk]), headers={"accept-language": "zh-hans"}
    ).content.decode()
    assert "显示跳过的 2 道题的答案——它们将记为“不会”" in chinese and "答案未显示" in chinese


def test_showing_the_skipped_answers_counts_them_as_not_known(learner_client, missed, user):
    """Revealing records Again on each skipped card for today; today's next answers to them then do not count."""
    attempt, *_ = missed
    skipped = list(attempt.items.filter(answered_at__isnull=True).order_by("position"))
    assert len(skipped) == 2 and not ReviewLog.objects.filter(attempt_item__in=skipped).exists()
    url = reverse("web:attempt_show_skipped", args=[attempt.pk])
    response = learner_client.post(url)
    assert response.status_code == 302
    assert response["Location"] == reverse("web:attempt_summary", args=[attempt.pk]) + "#missed-heading"
    logs = ReviewLog.objects.filter(user=user, attempt_item__in=skipped)
    assert sorted(logs.values_list("rating", "role")) == [(1, "first"), (1, "first")]  # Again, as a wrong answer
    body = learner_client.get(response["Location"]).content.decode()
    assert "data-answer-hidden" not in body and "data-show-skipped" not in body
    assert "You chose to see the answers to the 2 items you skipped: they count as not known." in body
    for item in skipped:
        if item.question.kind == "choice":
            assert item.question.options.get(is_correct=True).text in body
    # idempotent: a second post records nothing more
    assert learner_client.post(url).status_code == 302
    assert logs.count() == 2
    # the retake today: a right answer to a skipped question is a same-day repeat, and its card does not move
    card = ReviewCard.objects.get(user=user, question=skipped[0].question)
    retake = start(learner_client, attempt.lesson)
    again = retake.items.get(question=skipped[0].question)
    learner_client.post(
        item_url(retake, again.position + 1, "answer"), choose(again, again.question.options.get(is_correct=True))
    )
    assert ReviewLog.objects.get(attempt_item=again).role == "repeat"
    assert ReviewCard.objects.get(pk=card.pk).due == card.due


def test_showing_the_skipped_answers_is_a_csrf_checked_post_for_your_own_finished_attempt(
    learner_client, csrf_client, missed, user, other_user, quiz_lesson
):
    attempt, *_ = missed
    url = reverse("web:attempt_show_skipped", args=[attempt.pk])
    assert learner_client.get(url).status_code == 405
    assert csrf_client.post(url).status_code == 403  # no CSRF token
    assert not ReviewLog.objects.filter(attempt_item__attempt=attempt, attempt_item__answered_at__isnull=True).exists()
    other = Attempt.objects.create(user=other_user, lesson=quiz_lesson, number=1, seed=1)
    assert learner_client.post(reverse("web:attempt_show_skipped", args=[other.pk])).status_code == 404
    unfinished = start(learner_client, quiz_lesson)
    page = learner_client.post(reverse("web:attempt_show_skipped", args=[unfinished.pk]), follow=True)
    assert "Finish this attempt first" in page.content.decode()
    assert not ReviewLog.objects.filter(attempt_item__attempt=unfinished).exists()
    done = start(learner_client, quiz_lesson)
    for item in done.items.select_related("question").order_by("position"):  # every item answered
        right = item.question.options.filter(is_correct=True).first()
        item_answer(user=user, item=item, **({"option_id": right.pk} if right else {"value": item.variant["answer"]}))
    learner_client.post(reverse("web:attempt_finish", args=[done.pk]))
    page = learner_client.post(reverse("web:attempt_show_skipped", args=[done.pk]), follow=True).content.decode()
    assert "This attempt has no skipped items." in page and "data-show-skipped" not in page


def test_a_numeric_miss_shows_both_values_and_the_misconception(learner_client, lesson):
    factories.NumericQuestionFactory(lesson=lesson, template="attention_row_weights", answer_form="choice", order=1)
    attempt = start(learner_client, lesson)
    item = attempt.items.get()
    wrong = next(i for i, c in enumerate(item.variant["choices"]) if c["misconception"])
    learner_client.post(item_url(attempt, 1, "answer"), {"choice_index": str(wrong)})
    learner_client.post(reverse("web:attempt_finish", args=[attempt.pk]))
    body = learner_client.get(reverse("web:attempt_summary", args=[attempt.pk])).content.decode()
    entry = body[body.index("data-missed-item") :]
    assert item.variant["choices"][wrong]["label_en"] in entry[: entry.index("compare__correct")]
    from attention_engine.generators import Variant

    right = item.variant["choices"][Variant.from_dict(item.variant).correct_choice_index]["label_en"]
    assert right in entry[entry.index("compare__correct") :]
    assert "The mistake behind your answer: " in entry
    # the prompt's matrices are separate formulas, each in a box that scrolls with a cue
    assert entry.count('class="math-scroll"') >= 2


def test_practise_the_missed_ones_starts_an_attempt_of_just_those(learner_client, missed, user):
    attempt, first, _wrong = missed
    response = learner_client.post(reverse("web:attempt_missed", args=[attempt.pk]))
    practice = Attempt.objects.filter(user=user).order_by("-pk").first()
    assert practice.mode == Attempt.Mode.MISSED and practice.pk != attempt.pk
    assert response["Location"] == item_url(practice, 1)
    assert practice.items.count() == 3
    assert practice.items.get(position=0).question_id == first.question_id
    page = learner_client.get(response["Location"]).content.decode()
    assert "1 / 3" in page


def test_practise_refuses_another_learners_attempt_and_a_perfect_one(learner_client, missed, other_user, quiz_lesson):
    _attempt, *_ = missed
    other = Attempt.objects.create(user=other_user, lesson=quiz_lesson, number=1, seed=1)
    assert learner_client.post(reverse("web:attempt_missed", args=[other.pk])).status_code == 404
    unfinished = start(learner_client, quiz_lesson)
    response = learner_client.post(reverse("web:attempt_missed", args=[unfinished.pk]), follow=True)
    assert "Finish this attempt first" in response.content.decode()


def test_an_htmx_input_error_is_swapped_into_the_page_not_a_400(learner_client, lesson):
    factories.NumericQuestionFactory(lesson=lesson, template="causal_masked_weights", order=1)
    attempt = start(learner_client, lesson)
    response = learner_client.post(item_url(attempt, 1, "answer"), {"cell_0_0": ""}, headers=HTMX)
    body = response.content.decode()
    # 200: htmx swaps it like an answer; a 400 would be dropped, and DEBUG's django-htmx script would replace
    # the whole document with it
    assert response.status_code == 200
    assert body.lstrip().startswith('<section id="item"')  # the region only, not a page
    assert "<html" not in body
    assert 'class="form-error" role="alert"' in body and "Fill in every cell" in body
    assert 'id="item-live"' in body and 'hx-swap-oob="true"' in body
    # the plain form post keeps an honest 400 with the whole page
    plain = learner_client.post(item_url(attempt, 1, "answer"), {"cell_0_0": ""})
    assert plain.status_code == 400 and "<html" in plain.content.decode()


def test_the_live_region_is_in_the_page_before_the_answer_and_gets_the_verdict(learner_client, quiz_lesson):
    attempt = start(learner_client, quiz_lesson)
    page = learner_client.get(item_url(attempt, 1)).content.decode()
    assert '<div id="item-live" class="visually-hidden" aria-live="polite" aria-atomic="true"></div>' in page
    assert page.index('id="item-live"') < page.index('id="item"')
    item = attempt.items.get(position=0)
    swap = learner_client.post(
        item_url(attempt, 1, "answer"), choose(item, item.question.options.get(is_correct=True)), headers=HTMX
    ).content.decode()
    live = re.search(r'<div id="item-live"[^>]*hx-swap-oob="true">(.*?)</div>', swap, re.S)
    assert live and live.group(1).strip() == "Correct"
    # focus goes to a labelled target: the verdict heading, which names the result region
    assert re.search(r'<h2 id="item-verdict" class="verdict verdict--correct" tabindex="-1" data-focus>', swap)
    assert 'role="region" aria-labelledby="item-verdict"' in swap
    assert 'class="actions next-bar"' in swap  # the bar phones keep at the bottom


def test_keyboard_hints_are_marked_for_hiding_on_touch_screens(learner_client, quiz_lesson):
    attempt = start(learner_client, quiz_lesson)
    page = learner_client.get(item_url(attempt, 1)).content.decode()
    assert '<span class="kbd-hint">Keys 1–9 choose.</span>' in page


def test_the_first_rating_explains_the_fixed_two_day_review(learner_client, user, lesson):
    prompt = factories.PromptQuestionFactory(lesson=lesson)
    url = reverse("web:interview_prompt", args=[prompt.key]) + "?reveal=1"
    first = learner_client.get(url).content.decode()
    assert "data-first-study" in first and "every rating brings it back in two days" in first
    assert first.count("2 days") == 4
    learner_client.post(reverse("web:interview_rate", args=[prompt.key]), {"rating": "3"})
    again = learner_client.get(url).content.decode()
    assert "data-first-study" not in again
