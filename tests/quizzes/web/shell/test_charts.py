"""The SVG charts: numbers and titles are there, shades have a legend with counts."""

from __future__ import annotations

import datetime as dt
import re

from quizzes.reviews.selectors.days import DayCount
from quizzes.web import charts

DAY = dt.date(2026, 3, 2)


def test_forecast_has_a_title_and_a_printed_number_per_bar(time_machine):
    time_machine.move_to(dt.datetime(2026, 3, 2, 10, tzinfo=dt.UTC), tick=False)  # a year is named if not this one
    days = [DayCount(DAY + dt.timedelta(days=i), count) for i, count in enumerate([5, 0, 2] + [0] * 11)]
    svg = str(charts.forecast_svg(days))
    assert svg.startswith('<svg class="chart chart--forecast"')
    assert 'role="img"' in svg
    assert svg.count('<g class="bar">') == 14
    assert svg.count("<title>") == 15  # the chart + one per bar
    assert "<title>Wed 4 Mar: 2 reviews due</title>" in svg
    assert re.findall(r'font-weight="600">(\d+)</text>', svg) == ["5", "0", "2"] + ["0"] * 11


def test_heatmap_cells_have_titles_and_levels():
    days = [DayCount(DAY + dt.timedelta(days=i), i % 5) for i in range(365)]
    svg = str(charts.heatmap_svg(days))
    assert svg.count("<rect") == 365 + len(charts.heat_legend(4))
    assert 'data-count="4" data-level="4"' in svg
    assert 'data-count="0" data-level="0"' in svg
    # the heatmap ends in 2027: its 2026 days name their year
    assert "<title>Tue 3 Mar 2026: 1 rating</title>" in svg
    assert "<title>Mon 1 Mar: 4 ratings</title>" in svg


def test_heat_levels_and_legend():
    assert charts.heat_level(0, 10) == 0
    assert charts.heat_level(1, 10) == 1
    assert charts.heat_level(10, 10) == 4
    assert charts.heat_legend(1) == [(0, "0"), (4, "1")]
    assert charts.heat_legend(8) == [(0, "0"), (1, "1–2"), (2, "3–4"), (3, "5–6"), (4, "7–8")]


def test_the_phone_forecast_wraps_two_weeks_into_two_rows_that_fit_a_small_screen():
    days = [DayCount(DAY + dt.timedelta(days=i), i % 3) for i in range(14)]
    wide, compact = str(charts.forecast_svg(days)), str(charts.forecast_svg(days, per_row=7))
    assert compact.startswith('<svg class="chart chart--forecast-compact"')
    width = int(re.search(r'width="(\d+)"', compact).group(1))
    assert width <= 296  # a 360 px screen less the page and card padding: no shrinking, no scrolling
    assert int(re.search(r'width="(\d+)"', wide).group(1)) > 600
    assert compact.count('<g class="bar">') == 14 and compact.count("<line") == 2
    assert re.findall(r'font-weight="600">(\d+)</text>', compact) == [str(i % 3) for i in range(14)]
