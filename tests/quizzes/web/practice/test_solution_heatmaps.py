"""Worked solutions of the weight/mask templates carry a heatmap of the attention weights (issue 14 item 2):
server-drawn SVG, after the lock only, whose numbers are the weights a learner computes by hand."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import numpy as np
import pytest

from tests import factories
from tests.quizzes.web.practice.conftest import item_url, start

pytestmark = pytest.mark.django_db
SVG = "{http://www.w3.org/2000/svg}"


def _heatmap(body: str) -> ET.Element:
    match = re.search(r'<figure class="solution-figure" data-heatmap>.*?(<svg .*?</svg>)', body, re.DOTALL)
    assert match, "no heatmap in the worked solution"
    return ET.fromstring(match.group(1))


def _cells(svg: ET.Element) -> list[tuple[str, bool]]:
    """(number shown, masked?) for every cell, row by row."""
    return [
        (group.find(f"{SVG}text").text, "heat-cell--masked" in group.get("class", ""))
        for group in svg.iter(f"{SVG}g")
        if "heat-cell" in group.get("class", "")
    ]


def _softmax(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def _scaled(given):
    """The scaled scores the question works on: version 3 shows raw dot products with d_k (version 2: scaled)."""
    if "scores" in given:
        return np.array(given["scores"], dtype=float)
    return np.array(given["dots"], dtype=float) / np.sqrt(given["d_k"])


def _answer_wrong(client, attempt, item):
    rows, cols = item.variant["answer_shape"] if len(item.variant["answer_shape"]) == 2 else (0, 0)
    if rows:
        data = {f"cell_{r}_{c}": "0" for r in range(rows) for c in range(cols)}
    else:
        data = {f"cell_{i}": "0" for i in range(item.variant["answer_shape"][0])}
    return client.post(item_url(attempt, 1, "answer"), data, follow=True)


def test_causal_matrix_solution_shows_the_masked_weights_as_a_heatmap(learner_client, lesson):
    factories.NumericQuestionFactory(lesson=lesson, template="causal_masked_weights", params={"T": 3}, order=1)
    attempt = start(learner_client, lesson)
    item = attempt.items.get()
    before = learner_client.get(item_url(attempt, 1)).content.decode()
    assert "data-heatmap" not in before  # nothing of the solution before the lock

    body = _answer_wrong(learner_client, attempt, item).content.decode()
    svg = _heatmap(body)
    assert svg.get("role") == "img" and svg.find(f"{SVG}title").text and svg.find(f"{SVG}desc").text
    S = _scaled(item.variant["given"])
    T = len(S)
    future = np.triu(np.ones((T, T), dtype=bool), k=1)
    expected = _softmax(np.where(future, -np.inf, S))  # independent of the engine: plain numpy
    cells = _cells(svg)
    assert len(cells) == T * T
    for (shown, masked), weight, hidden in zip(cells, expected.ravel(), future.ravel(), strict=True):
        assert masked == hidden
        assert float(shown) == pytest.approx(weight, abs=0.005)


def test_one_query_solution_outlines_the_asked_row(learner_client, lesson):
    factories.NumericQuestionFactory(
        lesson=lesson, template="attention_row_weights", params={"is_causal": True, "T": 3}, order=1
    )
    attempt = start(learner_client, lesson)
    item = attempt.items.get()
    svg = _heatmap(_answer_wrong(learner_client, attempt, item).content.decode())
    given = item.variant["given"]
    Q, K = np.array(given["Q"], dtype=float), np.array(given["K"], dtype=float)
    scores = Q @ K.T / np.sqrt(K.shape[1])
    T = len(K)
    weights = _softmax(np.where(np.triu(np.ones((T, T), dtype=bool), k=1), -np.inf, scores))
    row = given["query"] - 1
    shown = [float(text) for text, _ in _cells(svg)][row * T : (row + 1) * T]
    assert shown == pytest.approx(weights[row], abs=0.005)
    assert f"q{row + 1}" in svg.find(f"{SVG}title").text  # the outline is named in the summary


def test_fill_zero_solution_contrasts_the_two_rows(learner_client, lesson):
    factories.NumericQuestionFactory(lesson=lesson, template="mask_fill_zero_contrast", order=1)
    attempt = start(learner_client, lesson)
    item = attempt.items.get()
    svg = _heatmap(_answer_wrong(learner_client, attempt, item).content.decode())
    cells = _cells(svg)
    T = len(_scaled(item.variant["given"]))
    zero_row, right_row = cells[:T], cells[T:]
    i = item.variant["given"]["query"]
    assert all(float(text) > 0 for text, _ in zero_row[i:])  # 0 instead of −∞: the future keeps weight
    assert all(masked and text == "0" for text, masked in right_row[i:])  # −∞: exactly 0


def test_templates_without_weights_have_no_heatmap(learner_client, lesson):
    factories.NumericQuestionFactory(lesson=lesson, template="dot_product_variance", order=1)
    attempt = start(learner_client, lesson)
    body = learner_client.post(item_url(attempt, 1, "answer"), {"cell": "1"}, follow=True).content.decode()
    assert "data-heatmap" not in body
