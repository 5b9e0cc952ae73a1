"""The lesson page teaches, then tests (issue 14 item 1): the teaching sections come before the quiz, with
their pictures, and a checkpoint answers inline (htmx) — the answer locks and only then is anything revealed."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import reverse

from quizzes.content.teaching import parse_teaching
from quizzes.models import CheckpointAnswer, ReviewCard, ReviewLog
from tests import factories

pytestmark = pytest.mark.django_db

EXPLANATION = "被挡住的是对角线右上方：一共三个格子。"
RIGHT_FEEDBACK = "对，正是三个。"
WRONG_FEEDBACK = "那是留下的格子数。"
TEACHING = [
    {"key": "idea", "title": "一句话模型", "body": "注意力就是**加权平均**。", "figure": "five_steps"},
    {
        "key": "mask",
        "title": "因果掩码",
        "body": "未来位置填 $-\\infty$。",
        "figure": "causal_heatmap",
        "checkpoint": {
            "prompt": "$T=3$ 时有几个格子被挡住？",
            "explanation": EXPLANATION,
            "options": [
                {"key": "a", "text": "3", "correct": True, "feedback": RIGHT_FEEDBACK},
                {"key": "b", "text": "6", "feedback": WRONG_FEEDBACK},
                {"key": "c", "text": "9", "feedback": "那是整张表。"},
            ],
        },
    },
]


@pytest.fixture
def teaching_lesson():
    sections, problems = parse_teaching(TEACHING)
    assert not problems
    lesson = factories.LessonFactory(key="sdpa-demo", teaching=sections)
    factories.ChoiceQuestionFactory(lesson=lesson)
    return lesson


def _page(client, lesson) -> str:
    return client.get(reverse("web:lesson_detail", args=[lesson.key])).content.decode()


def _handles(body: str) -> list[str]:
    return re.findall(r'name="option" value="([0-9a-f]{16})"', body)


def _checkpoint_url(lesson, section="mask"):
    return reverse("web:lesson_checkpoint", args=[lesson.key, section])


def _handle_of(client, lesson, text: str) -> str:
    """The handle of the option showing ``text`` (what a learner clicks on), found by the button's name."""
    body = _page(client, lesson)
    for handle, name, shown in re.findall(
        r'value="([0-9a-f]{16})" aria-label="([^"]*)"><span lang="zh-Hans"><p>(.*?)</p>', body
    ):
        if shown == text:
            assert name == text  # the button is named by its text (math included, as plain text)
            return handle
    raise AssertionError(f"no option {text!r}")


def test_teaching_comes_before_the_quiz_with_its_pictures(client, teaching_lesson):
    body = _page(client, teaching_lesson)
    assert body.index("一句话模型") < body.index("因果掩码") < body.index('id="quiz-heading"')
    assert "<strong>加权平均</strong>" in body  # Markdown rendered
    assert "<math" in body  # and math
    assert 'data-figure="five_steps"' in body and 'data-figure="causal_heatmap"' in body
    assert body.count('role="img"') >= 2
    assert 'href="#s-mask"' in body  # the table of contents


def test_a_checkpoint_reveals_nothing_before_the_answer(client, teaching_lesson):
    body = _page(client, teaching_lesson)
    assert len(_handles(body)) == 3
    for secret in (EXPLANATION, RIGHT_FEEDBACK, WRONG_FEEDBACK, "Correct answer", "cp-option--correct"):
        assert secret not in body


def test_answering_a_checkpoint_locks_and_reveals(client, teaching_lesson):
    wrong, right = _handle_of(client, teaching_lesson, "6"), _handle_of(client, teaching_lesson, "3")
    response = client.post(_checkpoint_url(teaching_lesson), {"option": wrong}, headers={"hx-request": "true"})
    assert response.status_code == 200
    fragment = response.content.decode()
    assert fragment.lstrip().startswith('<div class="checkpoint checkpoint--locked" id="cp-mask"')
    assert "Not quite" in fragment and WRONG_FEEDBACK in fragment and EXPLANATION in fragment
    assert "Correct answer" in fragment and 'role="status"' in fragment

    # the first answer is final: clicking the right one afterwards changes nothing
    again = client.post(_checkpoint_url(teaching_lesson), {"option": right}, headers={"hx-request": "true"})
    assert "Not quite" in again.content.decode()
    page = _page(client, teaching_lesson)
    assert _handles(page) == []  # the page shows the locked checkpoint, no buttons
    assert WRONG_FEEDBACK in page and EXPLANATION in page


def test_without_htmx_the_answer_goes_back_to_the_checkpoint(client, teaching_lesson):
    right = _handle_of(client, teaching_lesson, "3")
    response = client.post(_checkpoint_url(teaching_lesson), {"option": right})
    assert response.status_code == 302
    assert response["Location"].endswith(reverse("web:lesson_detail", args=[teaching_lesson.key]) + "#cp-mask")
    page = _page(client, teaching_lesson)
    assert RIGHT_FEEDBACK in page and "✓ Correct" in page


def test_a_foreign_option_gets_a_message_in_place_and_locks_nothing(client, teaching_lesson):
    response = client.post(_checkpoint_url(teaching_lesson), {"option": "0" * 16}, headers={"hx-request": "true"})
    assert response.status_code == 200  # swapped in place by htmx (a 4xx would not be, or in DEBUG replace the page)
    fragment = response.content.decode()
    assert 'role="alert"' in fragment and "reload the page" in fragment
    assert len(_handles(fragment)) == 3  # the checkpoint is still open
    assert len(_handles(_page(client, teaching_lesson))) == 3

    plain = client.post(_checkpoint_url(teaching_lesson), {"option": "0" * 16}, follow=True)
    assert "reload the page" in plain.content.decode()  # the message above the lesson page


def test_unknown_checkpoint_or_lesson_is_404(client, teaching_lesson):
    assert client.post(_checkpoint_url(teaching_lesson, "idea"), {"option": "x"}).status_code == 404
    assert client.post(_checkpoint_url(teaching_lesson, "nope"), {"option": "x"}).status_code == 404
    hidden = factories.LessonFactory(published=False, teaching=teaching_lesson.teaching)
    assert client.post(_checkpoint_url(hidden), {"option": "x"}).status_code == 404
    assert client.get(_checkpoint_url(teaching_lesson)).status_code == 405


def test_checkpoint_options_come_in_a_fresh_order(client, teaching_lesson):
    firsts = {_handles(_page(client, teaching_lesson))[0] for _ in range(30)}
    assert len(firsts) > 1  # (1/3)^29 chance of a false failure


# --- the first click is the learner's own (issue 25) ------------------------------------------------------------


def _answer(client, lesson, handle: str) -> str:
    return client.post(_checkpoint_url(lesson), {"option": handle}, headers={"hx-request": "true"}).content.decode()


def _sorted_handles(client, lesson) -> list[str]:
    return sorted(_handles(_page(client, lesson)))


def test_handles_are_each_visitors_own_and_stable_for_them(client, teaching_lesson):
    mine = _sorted_handles(client, teaching_lesson)
    assert len(mine) == 3 and _sorted_handles(client, teaching_lesson) == mine  # reshuffled, the same handles
    theirs = _sorted_handles(Client(), teaching_lesson)  # another browser (session) gets its own
    assert len(theirs) == 3 and not set(mine) & set(theirs)


def test_another_sessions_handle_is_not_an_option_here(client, teaching_lesson):
    """A signed-out tab answers first and sees the key: its handle for the right option means nothing here."""
    scout = Client()
    right = _handle_of(scout, teaching_lesson, "3")
    assert "✓ Correct" in _answer(scout, teaching_lesson, right)
    _page(client, teaching_lesson)
    fragment = _answer(client, teaching_lesson, right)
    assert "reload the page" in fragment and "Correct" not in fragment
    assert len(_handles(fragment)) == 3  # still open: my first click is still mine


def test_learners_get_their_own_handles_and_one_lock_across_their_browsers(teaching_lesson, learner, user):
    first_browser, second_browser, someone_else = Client(), Client(), Client()
    first_browser.force_login(learner)
    second_browser.force_login(learner)
    someone_else.force_login(user)
    mine = _sorted_handles(first_browser, teaching_lesson)
    assert _sorted_handles(second_browser, teaching_lesson) == mine  # the learner's own, wherever they sign in
    assert not set(mine) & set(_sorted_handles(someone_else, teaching_lesson))
    assert not set(mine) & set(_sorted_handles(Client(), teaching_lesson))  # nor a signed-out visitor's

    wrong, right = _handle_of(first_browser, teaching_lesson, "6"), _handle_of(first_browser, teaching_lesson, "3")
    assert "Not quite" in _answer(first_browser, teaching_lesson, wrong)
    (stored,) = CheckpointAnswer.objects.filter(user=learner)
    assert (stored.lesson_id, stored.section_key, stored.option_key) == (teaching_lesson.pk, "mask", "b")
    # the other browser shows the same locked answer, and a click there changes nothing
    page = _page(second_browser, teaching_lesson)
    assert _handles(page) == [] and WRONG_FEEDBACK in page
    assert "Not quite" in _answer(second_browser, teaching_lesson, right)
    assert CheckpointAnswer.objects.get(user=learner).option_key == "b"
    # someone else's checkpoint is still open; a checkpoint never makes a review card or log
    assert len(_handles(_page(someone_else, teaching_lesson))) == 3
    assert not ReviewCard.objects.exists() and not ReviewLog.objects.exists()


def test_an_answer_from_before_signing_in_stays_the_first(client, teaching_lesson, learner):
    right = _handle_of(client, teaching_lesson, "3")
    _answer(client, teaching_lesson, right)  # signed out: kept in the browser session
    client.force_login(learner)  # the session's data is kept across the log-in
    page = _page(client, teaching_lesson)
    assert _handles(page) == [] and RIGHT_FEEDBACK in page
    assert not CheckpointAnswer.objects.exists()


def test_a_first_answer_that_is_no_longer_an_option_gives_way_to_the_next(learner_client, teaching_lesson, learner):
    _answer(learner_client, teaching_lesson, _handle_of(learner_client, teaching_lesson, "6"))
    sections = [dict(s) for s in teaching_lesson.teaching]
    checkpoint = dict(sections[1]["checkpoint"])
    checkpoint["options"] = [o for o in checkpoint["options"] if o["key"] != "b"]  # the author removed "6"
    sections[1] = {**sections[1], "checkpoint": checkpoint}
    teaching_lesson.teaching = sections
    teaching_lesson.save()
    assert len(_handles(_page(learner_client, teaching_lesson))) == 2  # open again
    assert "✓ Correct" in _answer(learner_client, teaching_lesson, _handle_of(learner_client, teaching_lesson, "3"))
    assert CheckpointAnswer.objects.get(user=learner).option_key == "a"


def test_a_learners_foreign_handle_stores_nothing(learner_client, teaching_lesson):
    fragment = _answer(learner_client, teaching_lesson, "0" * 16)
    assert "reload the page" in fragment and not CheckpointAnswer.objects.exists()
    assert learner_client.post(_checkpoint_url(teaching_lesson, "idea"), {"option": "x"}).status_code == 404
