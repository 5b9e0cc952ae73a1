"""Server-rendered SVG charts for the dashboard: no JavaScript, no CDN, readable without colour.

Every bar and cell carries its number as text or a ``<title>`` (hover / screen reader), the
``<svg>`` has a one-sentence ``aria-label`` summary, and the templates add a data table as the
fallback. Functions take the selectors' ``DayCount`` lists and return safe markup.
"""

from __future__ import annotations

import datetime as dt
import functools
import math
from collections.abc import Mapping, Sequence

from django.utils import timezone
from django.utils.dates import WEEKDAYS_ABBR
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import get_language, ngettext
from django.utils.translation import gettext as _

from quizzes.core.dates import day_formatter, format_day, format_short_day, month_abbr
from quizzes.reviews.selectors.days import DayCount

HEAT_COLOURS = ("#ebedf0", "#c6e48b", "#7bc96f", "#239a3b", "#196127")


def day_label(day: dt.date) -> str:
    """A day in the one date style of the active language ("Tue 1 Dec" / "12月1日 周二")."""
    return format_day(day)


def axis_label(day: dt.date) -> str:
    """The day style without the weekday, under a bar ("1 Dec" / "12月1日")."""
    return format_short_day(day)


@functools.lru_cache(maxsize=4096)
def _bar_texts(day: dt.date, count: int, today: bool, language: str | None, this_year: int) -> tuple[str, str]:
    """A forecast bar's title and axis label, escaped: memoised, the forecast is drawn twice (wide and compact)
    on every dashboard and learners share days and counts."""
    label = _("Today") if today else axis_label(day)
    long_label = format_day(day, today=dt.date(this_year, 1, 1))
    title = ngettext("%(day)s: %(count)s review due", "%(day)s: %(count)s reviews due", count) % {
        "day": f"{label} ({long_label})" if today else long_label,
        "count": count,
    }
    return escape(title), escape(label)


def _svg(width: int, height: int, label: str, body: list[str], css_class: str) -> SafeString:
    return mark_safe(
        f'<svg class="chart {css_class}" viewBox="0 0 {width} {height}" width="{width}" height="{height}" '
        f'role="img" aria-label="{escape(label)}" xmlns="http://www.w3.org/2000/svg">'
        f"<title>{escape(label)}</title>{''.join(body)}</svg>"
    )


def forecast_summary(days: Sequence[DayCount]) -> str:
    total = sum(d.count for d in days)
    if not total:
        return _("No reviews due in the next %(days)s days.") % {"days": len(days)}
    busiest = max(days, key=lambda d: d.count)
    return ngettext(
        "%(total)s review due in the next %(days)s days; busiest day %(day)s with %(count)s.",
        "%(total)s reviews due in the next %(days)s days; busiest day %(day)s with %(count)s.",
        total,
    ) % {"total": total, "days": len(days), "day": day_label(busiest.day), "count": busiest.count}


def forecast_svg(days: Sequence[DayCount], *, per_row: int | None = None) -> SafeString:
    """A bar per day; the count is printed above each bar and the date below it (first bar: "Today").

    ``per_row``: wrap into rows of that many days (phones: two weeks as two rows of 7 fit a 360 px screen
    at full text size, where one row of 14 would have to shrink its numbers or scroll).
    """
    compact = per_row is not None and per_row < len(days)
    per_row = per_row if compact and per_row else max(len(days), 1)
    bar_w, gap, left, top, bottom = (30, 10, 6, 22, 36) if compact else (36, 12, 8, 24, 40)
    plot_h = 70 if compact else 120
    row_h = top + plot_h + bottom
    rows = max(1, math.ceil(len(days) / per_row))
    width = left * 2 + per_row * (bar_w + gap) - gap
    height = rows * row_h
    peak = max((d.count for d in days), default=0) or 1
    language, this_year = get_language(), timezone.localdate().year
    body = [
        f'<line x1="{left}" y1="{r * row_h + top + plot_h}" x2="{width - left}" y2="{r * row_h + top + plot_h}" '
        f'stroke="#9aa2ad"/>'
        for r in range(rows)
    ]
    for i, d in enumerate(days):
        row, column = divmod(i, per_row)
        base = row * row_h + top + plot_h
        x = left + column * (bar_w + gap)
        h = round(plot_h * d.count / peak) if d.count else 0
        y = base - h
        cx = x + bar_w / 2
        title, label = _bar_texts(d.day, d.count, i == 0, language, this_year)
        body.append(
            f'<g class="bar"><title>{title}</title>'
            f'<rect x="{x}" y="{y}" width="{bar_w}" height="{max(h, 1)}" rx="3" '
            f'fill="{"#1f5fbf" if d.count else "#d9dce1"}"/>'
            f'<text x="{cx}" y="{y - 6}" text-anchor="middle" font-size="13" font-weight="600">{d.count}</text>'
            f'<text x="{cx}" y="{base + 18}" text-anchor="middle" font-size="11">{label}</text>'
            f"</g>"
        )
    css_class = "chart--forecast-compact" if compact else "chart--forecast"
    return _svg(width, height, forecast_summary(days), body, css_class)


def heatmap_summary(days: Sequence[DayCount]) -> str:
    return heatmap_summary_of(len(days), {d.day: d.count for d in days if d.count})


def heatmap_summary_of(length: int, counts: Mapping[dt.date, int]) -> str:
    """``heatmap_summary`` of ``length`` days of which only ``counts``'s (all positive) had ratings."""
    total = sum(counts.values())
    active = len(counts)
    return ngettext(
        "%(total)s rating on %(active)s of the last %(days)s days.",
        "%(total)s ratings on %(active)s of the last %(days)s days.",
        total,
    ) % {"total": total, "active": active, "days": length}


def heat_level(count: int, peak: int) -> int:
    """0 for no reviews, else 1..4 by the share of the busiest day."""
    if count <= 0 or peak <= 0:
        return 0
    return max(1, min(4, math.ceil(4 * count / peak)))


def heat_legend(peak: int) -> list[tuple[int, str]]:
    """(level, "low–high") for every shade in use, so the legend states the counts each shade means."""
    spans: dict[int, list[int]] = {0: [0, 0]}
    for count in range(1, peak + 1):
        low_high = spans.setdefault(heat_level(count, peak), [count, count])
        low_high[1] = count
    return [(level, f"{lo}" if lo == hi else f"{lo}–{hi}") for level, (lo, hi) in sorted(spans.items())]


@functools.lru_cache(maxsize=4096)
def _escaped_day(day: dt.date, language: str | None, this_year: int) -> str:
    """``escape(format_day(day))`` memoised: the heatmap names the same 365 days on every dashboard."""
    return escape(format_day(day, today=dt.date(this_year, 1, 1)))


def day_count_rows(days: Sequence[DayCount]) -> SafeString:
    """A data table's rows, ``<tr><td>day</td><td>count</td></tr>`` per day: the charts' text fallback.

    Built here rather than in a template loop: the heatmap's table can hold a year of days, and a template
    loop costs more per row than the whole SVG's cell.
    """
    label = day_formatter()
    return mark_safe("".join(f"<tr><td>{escape(label(d.day))}</td><td>{d.count}</td></tr>" for d in days))


_CELL, _GAP, _LEFT, _TOP = 12, 3, 34, 20
_STEP = _CELL + _GAP


def _heat_cell(i: int, offset: int, count: int, level: int, title: str) -> str:
    col, row = divmod(offset + i, 7)
    return (
        f'<rect x="{_LEFT + col * _STEP}" y="{_TOP + row * _STEP}" width="{_CELL}" height="{_CELL}" rx="2" '
        f'fill="{HEAT_COLOURS[level]}" data-count="{count}" data-level="{level}"><title>{title}</title></rect>'
    )


@functools.lru_cache(maxsize=1024)
def _heat_form(count: int, language: str | None) -> str:
    return escape(ngettext("%(day)s: %(count)s rating", "%(day)s: %(count)s ratings", count))


def _heat_title(count: int, escaped_day: str, language: str | None) -> str:
    # escaping the plural form and the day apart gives the same text as escaping the whole title: escaping works
    # character by character, and a count is digits
    return _heat_form(count, language) % {"day": escaped_day, "count": count}


@functools.lru_cache(maxsize=16)
def _heatmap_frame(first: dt.date, length: int, language: str | None) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The weekday and month labels, and every cell as it reads without a rating (level 0).

    The same for every learner on a given study day and language, and most of a year's cells are quiet on most
    dashboards: a request only rewrites the days with ratings.
    """
    offset = first.weekday()  # rows are weekdays, Monday = 0
    this_year = (first + dt.timedelta(days=length - 1)).year
    labels = [
        f'<text x="{_LEFT - 6}" y="{_TOP + row * _STEP + _CELL - 2}" text-anchor="end" font-size="10">'
        f"{escape(str(WEEKDAYS_ABBR[row]))}</text>"
        for row in (0, 2, 4)
    ]
    quiet = []
    for i in range(length):
        day = first + dt.timedelta(days=i)
        if day.day == 1 or (i == 0 and day.day <= 10):
            col = (offset + i) // 7
            labels.append(
                f'<text x="{_LEFT + col * _STEP}" y="{_TOP - 6}" font-size="10">{escape(month_abbr(day.month))}</text>'
            )
        quiet.append(_heat_cell(i, offset, 0, 0, _heat_title(0, _escaped_day(day, language, this_year), language)))
    return tuple(labels), tuple(quiet)


def heatmap_svg(days: Sequence[DayCount]) -> SafeString:
    """A year of daily ratings as week columns (Monday on top), GitHub style, with month and weekday labels.

    ``days``: consecutive days, oldest first (``review_heatmap``).
    """
    if not days:
        return _svg(10, 10, heatmap_summary(days), [], "chart--heatmap")
    return heatmap_svg_of(days[0].day, len(days), {d.day: d.count for d in days if d.count})


def heatmap_svg_of(first: dt.date, length: int, counts: Mapping[dt.date, int]) -> SafeString:
    """``heatmap_svg`` of ``length`` days from ``first``, of which only ``counts``'s (all positive) had ratings:
    the dashboard passes its recent logs' few active days instead of a year of day objects."""
    if not length:
        return _svg(10, 10, heatmap_summary_of(0, {}), [], "chart--heatmap")
    cell, step, left, top = _CELL, _STEP, _LEFT, _TOP
    offset = first.weekday()
    columns = (offset + length + 6) // 7
    width = left + columns * step + 4
    height = top + 7 * step + 34
    peak = max(counts.values(), default=0)
    language = get_language()
    labels, quiet = _heatmap_frame(first, length, language)
    body = list(labels)
    cells = list(quiet)
    this_year = (first + dt.timedelta(days=length - 1)).year
    for day, count in counts.items():
        i = (day - first).days
        title = _heat_title(count, _escaped_day(day, language, this_year), language)
        cells[i] = _heat_cell(i, offset, count, heat_level(count, peak), title)
    body.extend(cells)
    # legend: shade plus the count range it stands for, so the shades can be read without colour
    legend_y = top + 7 * step + 14
    less, more = escape(_("Less")), escape(_("More"))
    body.append(f'<text x="{left}" y="{legend_y + 9}" font-size="10">{less}</text>')
    x = left + 30
    for level, span in heat_legend(peak):
        body.append(
            f'<rect x="{x}" y="{legend_y}" width="{cell}" height="{cell}" rx="2" fill="{HEAT_COLOURS[level]}">'
            f"<title>{escape(span)}</title></rect>"
            f'<text x="{x + cell + 3}" y="{legend_y + 10}" font-size="10">{escape(span)}</text>'
        )
        x += cell + 14 + 7 * len(span)
    body.append(f'<text x="{x}" y="{legend_y + 9}" font-size="10">{more}</text>')
    return _svg(width, height, heatmap_summary_of(length, counts), body, "chart--heatmap")
