"""One date style per language, everywhere a page names a day: "Tue 1 Dec" / "12月1日 周二".

Pages, charts and messages all call :func:`format_day` (templates through the ``|day`` filter), so a
due date reads the same on the dashboard, the end screen, the rating buttons and the review session.
The year is added only when it is not the current one.
"""

from __future__ import annotations

import datetime as dt
import functools
from collections.abc import Callable

from django.utils import timezone
from django.utils.translation import get_language, pgettext, pgettext_lazy

#: Lazy, so a lookup translates only the one name it returns (a year's heatmap table names hundreds of days).
_WEEKDAYS = (
    pgettext_lazy("weekday", "Mon"),
    pgettext_lazy("weekday", "Tue"),
    pgettext_lazy("weekday", "Wed"),
    pgettext_lazy("weekday", "Thu"),
    pgettext_lazy("weekday", "Fri"),
    pgettext_lazy("weekday", "Sat"),
    pgettext_lazy("weekday", "Sun"),
)
_MONTHS = (
    pgettext_lazy("month", "Jan"),
    pgettext_lazy("month", "Feb"),
    pgettext_lazy("month", "Mar"),
    pgettext_lazy("month", "Apr"),
    pgettext_lazy("month", "May"),
    pgettext_lazy("month", "Jun"),
    pgettext_lazy("month", "Jul"),
    pgettext_lazy("month", "Aug"),
    pgettext_lazy("month", "Sep"),
    pgettext_lazy("month", "Oct"),
    pgettext_lazy("month", "Nov"),
    pgettext_lazy("month", "Dec"),
)


def _weekday(index: int) -> str:
    """Monday = 0, abbreviated in the active language (our own catalogue: "周一", not Django's "星期一")."""
    return str(_WEEKDAYS[index])


def month_abbr(number: int) -> str:
    """January = 1, abbreviated in the active language ("Dec" / "12月")."""
    return str(_MONTHS[number - 1])


def _as_date(value: dt.date | dt.datetime, zone: dt.tzinfo | None) -> tuple[dt.date, dt.datetime | None]:
    if isinstance(value, dt.datetime):
        local = timezone.localtime(value, zone) if timezone.is_aware(value) else value
        return local.date(), local
    return value, None


def format_day(
    value: dt.date | dt.datetime | None, *, zone: dt.tzinfo | None = None, today: dt.date | None = None
) -> str:
    """A day in the active language: "Tue 1 Dec" / "12月1日 周二" (with the year when it is not this year).

    A datetime is first moved to ``zone`` (default: the active time zone). "" for None.
    """
    if value is None:
        return ""
    day, _local = _as_date(value, zone)
    return _format_day(get_language(), day, (today or timezone.localdate()).year)


def day_formatter() -> Callable[[dt.date], str]:
    """:func:`format_day` for many dates (``date`` objects) in one request: the active language and the current
    year are looked up once, not per day (each lookup costs more than the memoised formatting itself)."""
    language, this_year = get_language(), timezone.localdate().year
    return lambda day: _format_day(language, day, this_year)


@functools.lru_cache(maxsize=4096)
def _format_day(language: str | None, day: dt.date, this_year: int) -> str:
    """Memoised per (language, day, current year): a dashboard names up to a year of days on every load."""
    parts = {
        "weekday": _weekday(day.weekday()),
        "day": day.day,
        "month": month_abbr(day.month),
        "year": day.year,
    }
    if day.year == this_year:
        return pgettext("day format", "%(weekday)s %(day)d %(month)s") % parts
    return pgettext("day format", "%(weekday)s %(day)d %(month)s %(year)d") % parts


def format_short_day(day: dt.date) -> str:
    """The same style without the weekday, where space is tight (a chart's axis): "1 Dec" / "12月1日"."""
    return pgettext("short day format", "%(day)d %(month)s") % {"day": day.day, "month": month_abbr(day.month)}


def format_day_time(value: dt.datetime | None, *, zone: dt.tzinfo | None = None) -> str:
    """A moment as its day (:func:`format_day`) and the local time: "Tue 1 Dec, 09:30" / "12月1日 周二 09:30"."""
    if value is None:
        return ""
    _day, local = _as_date(value, zone)
    assert local is not None
    return pgettext("day and time format", "%(day)s, %(time)s") % {
        "day": format_day(value, zone=zone),
        "time": local.strftime("%H:%M"),
    }
