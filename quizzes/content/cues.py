"""Answer cues: the form of the options must not give the answer away (fixtures/lessons/README.md,
"How to write a question").

The one place these rules live; ``load_lessons`` (quizzes.content.reader) and the admin's option inline
(quizzes.admin.content_forms) both call them, so an author meets the same rule, with the same numbers, wherever
they write. Every rule looks at **live** options only (retired options are never shown again).

An option is measured **as the learner sees it**: rendered with ``render_markdown`` (so ``$(4, 4)$``
counts as the five characters "(4,4)" the learner reads, ``**bold**`` as "bold"), reduced to plain
text (tags stripped, entities unescaped, whitespace collapsed), then each character counts 2 when
``unicodedata.east_asian_width`` says it is wide (W) or full-width (F) — a Chinese character takes
the room of two Latin letters — and 1 otherwise.

The rules:

(a) **Length spread**, per question: the longest option is at most ``2 × shortest + 6`` wide.
(b) **Longest is not the key**, over the whole bank (published choice questions): the correct
    option is the *single* longest (strictly wider than every other) in at most one question in
    three, ``total // 3``. One question doing it is fine — a bank where it is the habit teaches
    "pick the longest".
(c) **No catch-all options**: "以上都…", "以上皆…", "以上均…", "都不对", "all of the above",
    "none of the above" (any case).

Problems are returned as :class:`CueProblem` (a code, the option it is about, its message), never
raised: the loader turns them into ContentProblems with file/question/option, the admin into
formset errors.
"""

from __future__ import annotations

import html
import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django.utils.translation import gettext as _

from quizzes.core.errors import ErrorCode
from quizzes.core.rendering import render_markdown

#: Rule (a): longest ≤ SPREAD_FACTOR × shortest + SPREAD_SLACK.
SPREAD_FACTOR = 2
SPREAD_SLACK = 6
#: Rule (b): the correct option may be the single longest in at most total // LONGEST_CORRECT_ONE_IN questions.
LONGEST_CORRECT_ONE_IN = 3
#: Rule (c): phrases that make an option a catch-all (matched case-insensitively, anywhere in the text).
CATCH_ALL_PHRASES = ("以上都", "以上皆", "以上均", "都不对", "all of the above", "none of the above")

_TAG = re.compile(r"<[^>]*>")
_SPACE = re.compile(r"\s+")


# --------------------------------------------------------------------------- measuring


def plain_text(text: str) -> str:
    """Markdown + math → the plain text a learner reads (math as its rendered characters)."""
    rendered = str(render_markdown(text or ""))
    return _SPACE.sub(" ", html.unescape(_TAG.sub("", rendered))).strip()


def display_width(text: str) -> int:
    """Σ 2 for each wide (W) or full-width (F) character, 1 for any other."""
    return sum(2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1 for ch in text)


def option_width(text: str) -> int:
    """How wide an option's text is as the learner sees it (``display_width(plain_text(text))``)."""
    return display_width(plain_text(text))


# --------------------------------------------------------------------------- options in any form


@dataclass(frozen=True)
class MeasuredOption:
    key: str
    text: str
    is_correct: bool
    width: int


def _field(option: Any, name: str, default: Any = None) -> Any:
    if isinstance(option, Mapping):
        return option.get(name, default)
    return getattr(option, name, default)


def measure(options: Iterable[Any]) -> list[MeasuredOption]:
    """The live options (Option rows or dicts with key/text/is_correct/retired), each with its width."""
    return [
        MeasuredOption(
            key=str(_field(o, "key", "") or ""),
            text=str(_field(o, "text", "") or ""),
            is_correct=bool(_field(o, "is_correct", False)),
            width=option_width(str(_field(o, "text", "") or "")),
        )
        for o in options
        if not _field(o, "retired", False)
    ]


# --------------------------------------------------------------------------- rules


@dataclass(frozen=True)
class CueProblem:
    """One rule broken. ``option`` is the option's key when the problem is about one option."""

    code: ErrorCode  # LENGTH_SPREAD | CATCH_ALL | LONGEST_CORRECT
    message: str
    option: str | None = None
    questions: tuple[str, ...] = ()


def _catch_all_phrase(text: str) -> str | None:
    lowered = plain_text(text).lower()
    return next((phrase for phrase in CATCH_ALL_PHRASES if phrase in lowered), None)


def question_cue_problems(options: Iterable[Any]) -> list[CueProblem]:
    """Rules (a) and (c) over one question's live options."""
    measured = measure(options)
    problems: list[CueProblem] = []
    if len(measured) >= 2:
        longest = max(measured, key=lambda o: o.width)
        shortest = min(measured, key=lambda o: o.width)
        limit = SPREAD_FACTOR * shortest.width + SPREAD_SLACK
        if longest.width > limit:
            problems.append(
                CueProblem(
                    code=ErrorCode.LENGTH_SPREAD,
                    option=longest.key,
                    message=_(
                        "option lengths give the answer away: '%(long)s' is %(long_width)d wide, "
                        "'%(short)s' only %(short_width)d (the longest may be at most "
                        "2 × %(short_width)d + 6 = %(limit)d)"
                    )
                    % {
                        "long": longest.key,
                        "long_width": longest.width,
                        "short": shortest.key,
                        "short_width": shortest.width,
                        "limit": limit,
                    },
                )
            )
    for option in measured:
        phrase = _catch_all_phrase(option.text)
        if phrase:
            problems.append(
                CueProblem(
                    code=ErrorCode.CATCH_ALL,
                    option=option.key,
                    message=_(
                        "'%(option)s' is a catch-all option (\"%(phrase)s\"); write a real, plausible alternative"
                    )
                    % {"option": option.key, "phrase": phrase},
                )
            )
    return problems


def correct_is_single_longest(options: Iterable[Any]) -> bool:
    """Whether the (one) correct live option is strictly wider than every other live option."""
    measured = measure(options)
    correct = [o for o in measured if o.is_correct]
    if len(correct) != 1 or len(measured) < 2:
        return False
    others = [o.width for o in measured if not o.is_correct]
    return correct[0].width > max(others)


@dataclass(frozen=True)
class LongestCorrectSummary:
    """Rule (b) over a bank: in which choice questions the correct option is the single longest."""

    keys: tuple[str, ...]
    total: int

    @property
    def count(self) -> int:
        return len(self.keys)

    @property
    def limit(self) -> int:
        return self.total // LONGEST_CORRECT_ONE_IN

    @property
    def ok(self) -> bool:
        return self.count <= self.limit

    def line(self) -> str:
        return (
            f"answer cues: correct option single longest in {self.count} of {self.total} "
            f"choice questions (limit {self.limit})"
        )

    def problem(self) -> CueProblem | None:
        if self.ok:
            return None
        return CueProblem(
            code=ErrorCode.LONGEST_CORRECT,
            questions=self.keys,
            message=_(
                "the correct option is the single longest in %(count)d of %(total)d choice questions; "
                "at most %(limit)d (one in three) may be: %(keys)s"
            )
            % {"count": self.count, "total": self.total, "limit": self.limit, "keys": ", ".join(self.keys)},
        )


def bank_longest_correct(
    questions: Mapping[str, Sequence[Any]] | Iterable[tuple[str, Sequence[Any]]],
) -> LongestCorrectSummary:
    """Rule (b): ``questions`` maps each published choice question's key to its options."""
    items = list(questions.items()) if isinstance(questions, Mapping) else list(questions)
    keys = tuple(key for key, options in items if correct_is_single_longest(options))
    return LongestCorrectSummary(keys=keys, total=len(items))
