"""One date style per language: "Tue 1 Dec" / "12月1日 周二", the year only when it is not this one."""

from __future__ import annotations

import datetime as dt
import zoneinfo

import pytest
from django.template import Context, Template
from django.utils import translation

from quizzes.core.dates import format_day, format_day_time

DAY = dt.date(2026, 12, 1)  # a Tuesday
THIS_YEAR = dt.date(2026, 6, 1)


@pytest.mark.parametrize(
    ("language", "expected", "with_year"),
    [("en", "Tue 1 Dec", "Tue 1 Dec 2026"), ("zh-hans", "12月1日 周二", "2026年12月1日 周二")],
)
def test_a_day_in_each_language(language, expected, with_year):
    with translation.override(language):
        assert format_day(DAY, today=THIS_YEAR) == expected
        assert format_day(DAY, today=dt.date(2027, 1, 5)) == with_year


def test_a_moment_is_named_by_the_learners_day_and_time():
    late = dt.datetime(2026, 11, 30, 20, 30, tzinfo=dt.UTC)  # already 1 Dec in Shanghai
    shanghai = zoneinfo.ZoneInfo("Asia/Shanghai")
    with translation.override("en"):
        assert format_day(late, zone=shanghai, today=THIS_YEAR) == "Tue 1 Dec"
        assert format_day(late, zone=dt.UTC, today=THIS_YEAR) == "Mon 30 Nov"
    with translation.override("zh-hans"):
        assert format_day_time(late, zone=shanghai).startswith("12月1日 周二 04:30")
    assert format_day(None) == "" and format_day_time(None) == ""


def test_the_template_filters_use_the_same_style(time_machine):
    time_machine.move_to(dt.datetime(2026, 6, 1, tzinfo=dt.UTC), tick=False)
    template = Template("{% load quizzes_web %}{{ day|day }} · {{ moment|day_time }}")
    moment = dt.datetime(2026, 12, 1, 9, 5, tzinfo=dt.UTC)
    with translation.override("en"):
        assert template.render(Context({"day": DAY, "moment": moment})) == "Tue 1 Dec · Tue 1 Dec, 09:05"


def test_the_short_form_under_a_chart_bar():
    from quizzes.core.dates import format_short_day

    with translation.override("en"):
        assert format_short_day(DAY) == "1 Dec"
    with translation.override("zh-hans"):
        assert format_short_day(DAY) == "12月1日"
