"""Template helpers for the learner pages: Markdown + math, numbers as MathML, the nav's due count."""

from __future__ import annotations

from typing import Any

from django import template
from django.utils.safestring import SafeString, mark_safe

from quizzes.content.teaching import scrollable
from quizzes.core import dates, rendering
from quizzes.reviews.selectors.due import due_count

register = template.Library()


@register.filter(name="markdown")
def markdown_filter(text: str | None) -> SafeString:
    """Lesson/question Markdown with $…$ math → sanitised HTML with MathML (quizzes.core.rendering)."""
    return rendering.render_markdown(text)


@register.filter(name="scroll_wide")
def scroll_wide(html: SafeString | str) -> SafeString:
    """Rendered Markdown with its display formulas and tables in boxes that scroll sideways on a phone (with the
    cut-off cue), as the lessons' teaching text has them: a reference answer or an explanation is written the
    same way, and a formula wider than the screen would otherwise widen the whole page."""
    return scrollable(mark_safe(str(html)))  # already rendered and sanitised: only our own box is added


@register.filter(name="math_value")
def math_value(value: Any, digits: int = 4) -> SafeString:
    """A number, vector or matrix as MathML, e.g. ``{{ variant.answer|math_value }}``."""
    return rendering.render_value(value, digits=int(digits))


@register.simple_tag(takes_context=True)
def due_now(context: template.Context) -> int:
    """Cards due today for the signed-in learner; computed once per request (the nav and the dashboard share it)."""
    request = context.get("request")
    if request is None or not request.user.is_authenticated:
        return 0
    cached = getattr(request, "_quizzes_due_now", None)
    if cached is None:
        cached = due_count(user=request.user)
        request._quizzes_due_now = cached
    return cached


@register.filter
def get_item(mapping: Any, key: Any) -> Any:
    """``mapping|get_item:key`` — a dict lookup with a variable key (None when missing)."""
    try:
        return mapping.get(key)
    except AttributeError:
        return None


@register.filter
def percent(value: float | None) -> str:
    """0.8333 → "83%"; None → "–"."""
    return "–" if value is None else f"{round(value * 100)}%"


@register.filter
def day(value: Any) -> str:
    """A date or datetime in the one date style of the active language ("Tue 1 Dec" / "12月1日 周二")."""
    return dates.format_day(value)


@register.filter
def day_time(value: Any) -> str:
    """A datetime as its day and local time ("Tue 1 Dec, 09:30")."""
    return dates.format_day_time(value)
