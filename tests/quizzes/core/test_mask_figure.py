"""Lesson 5's figure ``mask_combine`` (issue 29): causal | padding for a left-padded batch, drawn on the server. Its
cells are recomputed here with plain numpy, the rows it outlines are exactly those with no visible key, its
description states every row, it reads in Chinese and fits a 390 px phone;
the lessons API serves it as data (tests/quizzes/api/test_lesson_teaching.py)."""

from __future__ import annotations

import re

import numpy as np
from django.utils import translation

from quizzes.core.figures import figure_svg, lesson_figure, lesson_figure_data, mask_combine_data


def expected_cells(n: int, T: int) -> list[list[str]]:
    """Cell (i, j) of a sample with n tokens after T − n padding: blocked by the future (j > i), the padding
    (j < T − n), both, or visible."""
    kinds = []
    for i in range(T):
        row = []
        for j in range(T):
            future, padding = j > i, j < T - n
            row.append("both" if future and padding else "causal" if future else "padding" if padding else "visible")
        kinds.append(row)
    return kinds


def test_the_cells_and_the_outlined_rows_are_the_masks():
    data = mask_combine_data((2, 4), 5)
    assert data["kind"] == "mask" and len(data["samples"]) == 2
    for sample, n in zip(data["samples"], (2, 4), strict=True):
        cells = expected_cells(n, 5)
        assert sample["cells"] == cells
        empty = [i for i, row in enumerate(cells) if "visible" not in row]
        assert sample["hidden_rows"] == empty == list(range(5 - n))  # as many as the padding, the first rows
    assert np.array(data["samples"][0]["cells"]).shape == (5, 5)


def test_the_svg_outlines_the_hidden_rows_says_every_row_and_fits_a_phone():
    svg = str(figure_svg(mask_combine_data((2, 4), 5), ident="t"))
    assert svg.count("✗ no visible key") == 3 + 1  # three outlined rows of sample 1, one of sample 2
    width = int(re.search(r'viewBox="0 0 (\d+) ', svg).group(1))
    assert width <= 360
    desc = re.search(r"<desc[^>]*>(.*)</desc>", svg).group(1)
    assert "q1: no visible key" in desc and "q5: k4, k5" in desc  # sample 1: only its two tokens are visible
    assert svg.count('class="mask-cell') == 2 * 25


def test_it_reads_in_chinese():
    with translation.override("zh-hans"):
        svg = str(lesson_figure("mask_combine"))
        data = lesson_figure_data("mask_combine")
    assert "无可见 key" in svg and "挡住：padding" in svg
    assert data["samples"][0]["title"] == "样本 1：3 个 padding 之后 2 个 token"
