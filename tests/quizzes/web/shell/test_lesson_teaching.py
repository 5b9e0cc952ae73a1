"""The lesson page teaches, then tests (issue 14 item 1): the teaching sections come before the quiz, with
their pictures, and a checkpoint answers inline (htmx) — the answer locks and only then is anything revealed."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from quizzes.content.teaching import parse_teaching
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
