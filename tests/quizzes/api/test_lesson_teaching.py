"""Issue 28 item 1: a lesson's teaching over the API — sections, figures as data and SVG, checkpoints answered
with the web's first-answer lock (per learner), nothing about correctness before it, and never a card or log."""

from __future__ import annotations

import pytest

from quizzes.content.teaching import parse_teaching
from quizzes.models import CheckpointAnswer, ReviewCard, ReviewLog
from tests import factories
from tests.quizzes.api.helpers import answer_leaks, assert_error
from tests.quizzes.web.shell.test_lesson_teaching import TEACHING

pytestmark = pytest.mark.django_db


@pytest.fixture
def teaching_lesson():
    sections, problems = parse_teaching(TEACHING)
    assert not problems
    lesson = factories.LessonFactory(key="sdpa-api", teaching=sections)
    factories.ChoiceQuestionFactory(lesson=lesson)
    return lesson


def _detail(api, lesson) -> dict:
    response = api.get(f"/api/v1/lessons/{lesson.pk}/")
    assert response.status_code == 200
    return response.json()


def _checkpoint(api, lesson) -> dict:
    return next(s for s in _detail(api, lesson)["sections"] if s["checkpoint"])["checkpoint"]


def _url(lesson, section="mask") -> str:
    return f"/api/v1/lessons/{lesson.pk}/checkpoints/{section}/answer/"


def _handle(api, lesson, text) -> str:
    return next(o["id"] for o in _checkpoint(api, lesson)["options"] if o["text"] == text)


def test_sections_carry_markdown_html_and_figures_as_data_and_svg(api, teaching_lesson):
    sections = _detail(api, teaching_lesson)["sections"]
    assert [s["key"] for s in sections] == ["idea", "mask"]
    idea, mask = sections
    assert idea["body"] == "注意力就是**加权平均**。" and "<strong>加权平均</strong>" in idea["body_html"]
    assert "<math" in mask["body_html"]
    shapes = idea["figure"]
    assert shapes["kind"] == "shapes" and shapes["svg"].startswith("<svg") and shapes["heatmap"] is None
    assert len(shapes["steps"]) == 7 and all(len(step["shape"]) == 2 for step in shapes["steps"])
    heat = mask["figure"]["heatmap"]
    assert mask["figure"]["kind"] == "heatmap" and mask["figure"]["svg"].startswith("<svg")
    n = len(heat["weights"])
    assert all(len(row) == n for row in heat["weights"]) and len(heat["row_labels"]) == n
    assert heat["masked"][0][1] is True and heat["masked"][1][0] is False  # causal: above the diagonal
    assert f"{heat['weights'][1][0]:.2f}" in mask["figure"]["svg"]  # the SVG draws the same numbers


def test_nothing_about_correctness_before_the_lock(api, teaching_lesson):
    checkpoint = _checkpoint(api, teaching_lesson)
    assert checkpoint["locked"] is False and checkpoint["result"] is None
    assert answer_leaks(_detail(api, teaching_lesson)) == []
    assert len(checkpoint["options"]) == 3


def test_answer_locks_reveals_and_the_first_stands(api, teaching_lesson, user):
    right, wrong = _handle(api, teaching_lesson, "3"), _handle(api, teaching_lesson, "6")
    response = api.post(_url(teaching_lesson), {"option_id": wrong}, format="json")
    assert response.status_code == 200, response.json()
    result = response.json()["checkpoint"]["result"]
    assert result["answered_correctly"] is False and result["feedback"] == "那是留下的格子数。"
    assert api.post(_url(teaching_lesson), {"option_id": wrong}, format="json").status_code == 200  # same: same
    conflict = assert_error(api.post(_url(teaching_lesson), {"option_id": right}, format="json"), 409, "answer_locked")
    assert conflict["checkpoint"]["result"]["answered_correctly"] is False
    assert CheckpointAnswer.objects.get(user=user).option_key == "b"
    assert _checkpoint(api, teaching_lesson)["locked"] is True
    assert not ReviewCard.objects.filter(user=user).exists() and not ReviewLog.objects.filter(user=user).exists()


def test_bad_input(api, other_api, teaching_lesson):
    other = factories.LessonFactory(teaching=parse_teaching(TEACHING[:1])[0])
    handle = _handle(api, teaching_lesson, "3")
    assert_error(api.post(_url(other), {"option_id": handle}, format="json"), 404, "not_found")
    assert_error(api.post(_url(teaching_lesson, "idea"), {"option_id": handle}, format="json"), 404)
    assert_error(api.post(_url(teaching_lesson), {"option_id": "0" * 16}, format="json"), 400, "foreign_option")
    body = assert_error(other_api.post(_url(teaching_lesson), {"option_id": handle}, format="json"), 400)
    assert "option_id" in body["error"]["fields"]  # another learner's handle is not theirs
    assert_error(api.post(_url(teaching_lesson), {}, format="json"), 400, "validation_error")
    assert_error(api.post("/api/v1/lessons/999999/checkpoints/mask/answer/", {"option_id": handle}, format="json"), 404)
    assert not CheckpointAnswer.objects.exists()


def test_etag_holds_until_an_answer(api, teaching_lesson):
    url = f"/api/v1/lessons/{teaching_lesson.pk}/"
    etag = api.get(url)["ETag"]
    assert api.get(url, HTTP_IF_NONE_MATCH=etag).status_code == 304
    api.post(_url(teaching_lesson), {"option_id": _handle(api, teaching_lesson, "3")}, format="json")
    assert api.get(url, HTTP_IF_NONE_MATCH=etag).status_code == 200


def test_the_lessons_api_serves_the_mask_as_data_and_svg(api):
    sections, problems = parse_teaching(
        [{"key": "masks", "title": "掩码", "body": "因果掩码加 padding 掩码。", "figure": "mask_combine"}]
    )
    assert not problems
    lesson = factories.LessonFactory(key="masks-api", teaching=sections)
    factories.ChoiceQuestionFactory(lesson=lesson)
    figure = api.get(f"/api/v1/lessons/{lesson.pk}/").json()["sections"][0]["figure"]
    assert figure["name"] == "mask_combine" and figure["kind"] == "mask" and figure["heatmap"] is None
    assert figure["svg"].startswith("<svg") and figure["mask"]["samples"][1]["hidden_rows"] == [0]
    assert figure["mask"]["col_labels"] == ["k1", "k2", "k3", "k4", "k5"]


def test_the_lessons_api_serves_plots_bars_and_signed_heatmaps_as_data(api):
    sections, problems = parse_teaching(
        [
            {"key": "pe", "title": "正弦", "body": "正弦位置编码。", "figure": "sinusoid_heatmap"},
            {"key": "rope", "title": "外推", "body": "RoPE 的圈数。", "figure": "rope_rotations"},
            {"key": "kv", "title": "KV cache", "body": "每层每 token。", "figure": "kv_cache_bars"},
            {"key": "paged", "title": "PagedAttention", "body": "块表。", "figure": "paged_block_table"},
            {"key": "params", "title": "参数", "body": "嵌入的份额。", "figure": "param_breakdown"},
        ]
    )
    assert not problems
    lesson = factories.LessonFactory(key="figures-api", teaching=sections)
    factories.ChoiceQuestionFactory(lesson=lesson)
    pe, rope, kv, paged, params = (s["figure"] for s in _detail(api, lesson)["sections"])
    assert pe["kind"] == "heatmap" and pe["heatmap"]["scale"] == "signed" and pe["heatmap"]["corner"] == "pos"
    assert pe["heatmap"]["weights"][0][:2] == [0.0, 1.0]  # position 0: sin 0, cos 0
    assert rope["kind"] == "plot" and rope["heatmap"] is None and rope["bars"] is None
    assert rope["plot"]["y_scale"] == "log" and sum(len(s["points"]) for s in rope["plot"]["series"]) == 64
    assert rope["svg"].startswith("<svg") and rope["plot"]["guides"][0]["value"] == 32
    assert kv["kind"] == "bars" and kv["plot"] is None
    assert [b["value"] for b in kv["bars"]["groups"][0]["bars"]] == [20480, 4096, 512]  # 2·n_kv·128·2 bytes
    assert paged["kind"] == "paged" and paged["paged"]["block_size"] == 4
    assert [e["filled"] for e in paged["paged"]["sequences"][0]["table"]] == [4, 3]  # 7 tokens in blocks of 4
    assert params["kind"] == "shares" and sum(params["shares"]["rows"][0]["values"]) == 124_439_808
