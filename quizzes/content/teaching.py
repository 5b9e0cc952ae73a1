"""A lesson's teaching text: sections of Markdown with an optional picture and an optional checkpoint.

``Lesson.teaching`` holds a list of sections, authored in the lesson's YAML file (``teaching:``) or in
the admin (the same YAML, in one text box). This module is the one place that knows the schema:

* :func:`parse_teaching` checks and normalises it, returning every problem located by section and
  option (the loader adds the file, the admin shows them on the field);
* :func:`teaching_sections` renders it for the lesson page and the admin preview (Markdown and math
  through quizzes.core.rendering, pictures through quizzes.core.figures);
* :func:`checkpoint_answer` finds the option behind a handle, :func:`checkpoint_lock` keeps the first answer.

**Checkpoints** are short self-checks between sections, not quiz questions: answering one must not
spoil the quiz that follows nor feed the review schedule, so they live in the teaching text and are
graded here; no card, no log. The first answer locks: per learner for a signed-in learner
(``CheckpointAnswer``, quizzes.practice), per browser session for a signed-out visitor. They follow the
same rules as choice questions (fixtures/lessons/README.md): at least two options, exactly one correct,
the option-length and catch-all rules of quizzes.content.cues, and the correct option is never the
single widest. Before the answer the page shows the options in a fresh random order with opaque
handles; correctness, feedback and the explanation only come back in the answer's response.

**Handles are the learner's own** (:func:`checkpoint_owner`): an HMAC under the site's secret of the learner's
id, or of a random token kept in a visitor's session, so the handle another session saw answered (a signed-out
tab, a friend) is not one of this learner's options, and the first click with their own handles is theirs.
"""

from __future__ import annotations

import random
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django.utils.crypto import salted_hmac
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _

from quizzes.content import cues
from quizzes.core.errors import DomainError, ErrorCode
from quizzes.core.figures import FIGURES, INTERACTIVE_FIGURES, lesson_figure, lesson_figure_data
from quizzes.core.rendering import render_markdown

SECTION_KEYS = {"key", "title", "body", "figure", "checkpoint"}
CHECKPOINT_KEYS = {"prompt", "explanation", "options"}
OPTION_KEYS = {"key", "text", "correct", "feedback"}
FIGURE_NAMES = (*FIGURES, *INTERACTIVE_FIGURES)
_SLUG = re.compile(r"^[a-z0-9][a-z0-9-]*$")
_HANDLE_SALT = "quizzes.content.checkpoint-handle"


@dataclass(frozen=True)
class TeachingProblem:
    """One thing wrong with a lesson's teaching text; ``section``/``option`` are keys when known."""

    message: str
    section: str | None = None
    option: str | None = None

    def __str__(self) -> str:
        where = [f"section '{self.section}'"] if self.section else []
        if self.option:
            where.append(f"option '{self.option}'")
        return f"{', '.join(where)}: {self.message}" if where else self.message


# --------------------------------------------------------------------------- schema


class _Parser:
    def __init__(self) -> None:
        self.problems: list[TeachingProblem] = []

    def problem(self, message: str, section: str | None = None, option: str | None = None) -> None:
        self.problems.append(TeachingProblem(message, section, option))

    def text(
        self, data: Mapping[str, Any], name: str, *, required: bool, section: str, option: str | None = None
    ) -> str:
        value = data.get(name)
        if value is None or (isinstance(value, str) and not value.strip()):
            if required:
                self.problem(f"'{name}' is required", section, option)
            return ""
        if not isinstance(value, str):
            kind = type(value).__name__
            self.problem(f"'{name}' must be text, got {kind} {value!r} (quote it in YAML)", section, option)
            return ""
        return value.strip()

    def unknown(self, data: Mapping[str, Any], allowed: set[str], section: str, option: str | None = None) -> None:
        extra = sorted(set(data) - allowed)
        if extra:
            self.problem(f"unknown field(s) {', '.join(extra)}; allowed: {', '.join(sorted(allowed))}", section, option)

    def sections(self, data: Any) -> list[dict[str, Any]]:
        if data is None:
            return []
        if not isinstance(data, list):
            self.problem("'teaching' must be a list of sections (each with key, title and body)")
            return []
        sections: list[dict[str, Any]] = []
        seen: set[str] = set()
        for position, item in enumerate(data, start=1):
            key = item.get("key") if isinstance(item, dict) else None
            if not isinstance(key, str) or not _SLUG.match(key):
                self.problem(f"section #{position} needs a 'key' of lowercase letters, digits and '-', got {key!r}")
                continue
            if key in seen:
                self.problem("duplicate section key", key)
                continue
            seen.add(key)
            sections.append(self.section(key, item))
        return sections

    def section(self, key: str, data: dict[str, Any]) -> dict[str, Any]:
        self.unknown(data, SECTION_KEYS, key)
        figure = data.get("figure") or ""
        if figure and figure not in FIGURE_NAMES:
            self.problem(f"'figure' must be one of {', '.join(FIGURE_NAMES)}, got {figure!r}", key)
            figure = ""
        checkpoint = data.get("checkpoint")
        return {
            "key": key,
            "title": self.text(data, "title", required=True, section=key),
            "body": self.text(data, "body", required=True, section=key),
            "figure": figure,
            "checkpoint": None if checkpoint is None else self.checkpoint(key, checkpoint),
        }

    def checkpoint(self, section: str, data: Any) -> dict[str, Any] | None:
        if not isinstance(data, dict):
            self.problem("'checkpoint' must be a mapping with prompt, explanation and options", section)
            return None
        self.unknown(data, CHECKPOINT_KEYS, section)
        items = data.get("options")
        options: list[dict[str, Any]] = []
        if not isinstance(items, list):
            self.problem("checkpoint 'options' must be a list", section)
            items = []
        for position, item in enumerate(items, start=1):
            key = item.get("key") if isinstance(item, dict) else None
            if not isinstance(key, str) or not _SLUG.match(key):
                self.problem(f"checkpoint option #{position} needs a 'key' (a slug), got {key!r}", section)
                continue
            if any(o["key"] == key for o in options):
                self.problem("duplicate option key", section, key)
                continue
            self.unknown(item, OPTION_KEYS, section, key)
            correct = item.get("correct", False)
            if not isinstance(correct, bool):
                self.problem(f"'correct' must be true or false, got {correct!r}", section, key)
                correct = False
            options.append(
                {
                    "key": key,
                    "text": self.text(item, "text", required=True, section=section, option=key),
                    "correct": correct,
                    "feedback": self.text(item, "feedback", required=False, section=section, option=key),
                }
            )
        self.option_rules(section, options)
        return {
            "prompt": self.text(data, "prompt", required=True, section=section),
            "explanation": self.text(data, "explanation", required=True, section=section),
            "options": options,
        }

    def option_rules(self, section: str, options: list[dict[str, Any]]) -> None:
        """The choice-question rules, on the checkpoint's options (see the module docstring)."""
        if len(options) < 2:
            self.problem("a checkpoint needs at least two options", section)
            return
        correct = sum(o["correct"] for o in options)
        if correct != 1:
            self.problem(f"a checkpoint needs exactly one correct option (found {correct})", section)
            return
        measured = [{"key": o["key"], "text": o["text"], "is_correct": o["correct"]} for o in options]
        for problem in cues.question_cue_problems(measured):
            self.problem(problem.message, section, problem.option)
        if cues.correct_is_single_longest(measured):
            key = next(o["key"] for o in options if o["correct"])
            self.problem("the correct option is the single widest: make another option at least as long", section, key)


def parse_teaching(data: Any) -> tuple[list[dict[str, Any]], list[TeachingProblem]]:
    """The teaching text normalised for ``Lesson.teaching``, and every problem found (empty when valid)."""
    parser = _Parser()
    sections = parser.sections(data)
    return sections, parser.problems


def teaching_for_authors(sections: Any) -> list[dict[str, Any]]:
    """The stored sections as an author writes them: empty figure and checkpoint left out, ``correct`` only
    on the correct option, empty feedback left out (the admin's YAML box shows this)."""
    authored = []
    for section in sections or []:
        item = {"key": section["key"], "title": section["title"], "body": section["body"]}
        if section.get("figure"):
            item["figure"] = section["figure"]
        checkpoint = section.get("checkpoint")
        if checkpoint:
            options = []
            for option in checkpoint["options"]:
                entry: dict[str, Any] = {"key": option["key"], "text": option["text"]}
                if option.get("correct"):
                    entry["correct"] = True
                if option.get("feedback"):
                    entry["feedback"] = option["feedback"]
                options.append(entry)
            item["checkpoint"] = {
                "prompt": checkpoint["prompt"],
                "explanation": checkpoint["explanation"],
                "options": options,
            }
        authored.append(item)
    return authored


# --------------------------------------------------------------------------- presenting and grading


def checkpoint_owner(*, user_id: int | None = None, visitor: str | None = None) -> str:
    """Whose handles a page shows: a signed-in learner's (``user_id``) or a signed-out visitor's (``visitor``: a
    random token their browser session keeps). Exactly one of the two."""
    if (user_id is None) == (visitor is None):
        raise ValueError("a checkpoint owner is a learner or a visitor")
    return f"learner:{user_id}" if user_id is not None else f"visitor:{visitor}"


def checkpoint_handle(*, owner: str, lesson_key: str, section_key: str, option_key: str) -> str:
    """What the page sends for an option: stable for one owner (:func:`checkpoint_owner`), different for every
    other, unguessable, and saying nothing about correctness."""
    message = f"{owner}|{lesson_key}:{section_key}:{option_key}"
    return salted_hmac(_HANDLE_SALT, message, algorithm="sha256").hexdigest()[:16]


def answer_key(*, lesson_key: str, section_key: str) -> str:
    """How a checkpoint's first answer is looked up ("lesson:section"; the browser session's key for visitors)."""
    return f"{lesson_key}:{section_key}"


def _checkpoint_view(
    lesson_key: str,
    section: Mapping[str, Any],
    chosen: str | None,
    *,
    owner: str | None,
    reveal_all: bool,
    rng: random.Random,
) -> dict[str, Any] | None:
    checkpoint = section.get("checkpoint")
    if not checkpoint:
        return None
    options = checkpoint["options"]
    keys = {o["key"] for o in options}
    locked = chosen in keys
    view: dict[str, Any] = {
        "section": section["key"],
        "prompt": checkpoint["prompt"],
        "prompt_html": scrollable(render_markdown(checkpoint["prompt"])),
        "locked": locked,
    }
    if not locked and not reveal_all:
        if owner is None:
            raise ValueError("an open checkpoint needs the owner of its handles (checkpoint_owner)")
        shuffled = list(options)
        rng.shuffle(shuffled)  # a fresh order on every page: position says nothing
        view["options"] = [
            {
                "number": number,
                "handle": checkpoint_handle(
                    owner=owner, lesson_key=lesson_key, section_key=section["key"], option_key=o["key"]
                ),
                "text": o["text"],
                "text_html": render_markdown(o["text"]),
                "label": cues.plain_text(o["text"]),  # the button's name: math alone gives a screen reader none
            }
            for number, o in enumerate(shuffled, start=1)
        ]
        return view
    view["options"] = [
        {
            "number": number,
            "text": o["text"],
            "text_html": render_markdown(o["text"]),
            "correct": o["correct"],
            "chosen": o["key"] == chosen,
            "feedback": o.get("feedback") or "",
            "feedback_html": scrollable(render_markdown(o.get("feedback"))),
        }
        for number, o in enumerate(options, start=1)
    ]
    picked = next((o for o in options if o["key"] == chosen), None)
    view["answered_correctly"] = bool(picked and picked["correct"])
    view["feedback"] = (picked.get("feedback") or "") if picked else ""
    view["feedback_html"] = scrollable(render_markdown(picked.get("feedback"))) if picked else ""
    view["explanation"] = checkpoint["explanation"]
    view["explanation_html"] = scrollable(render_markdown(checkpoint["explanation"]))
    return view


_WIDE = re.compile(r'<table>.*?</table>|<math display="block".*?</math>', re.DOTALL)


def scrollable(body: SafeString) -> SafeString:
    """Tables and display formulas in a keyboard-focusable box that scrolls sideways when the screen is narrow
    (a scroll region must be reachable by keyboard: axe ``scrollable-region-focusable``), with the same shadow at
    a cut-off edge as a numeric prompt's formulas (site.css ``.math-scroll``): on a phone a rotation matrix of
    lesson 4 is wider than the screen, and without the cue nothing says that more is hidden."""
    box = '<div class="scroll-x math-scroll" tabindex="0">'
    return mark_safe(_WIDE.sub(lambda m: f"{box}{m.group(0)}</div>", str(body)))


def teaching_sections(
    *,
    lesson_key: str,
    sections: Any,
    answers: Mapping[str, str] | None = None,
    owner: str | None = None,
    reveal_all: bool = False,
    rng: random.Random | None = None,
) -> list[dict[str, Any]]:
    """The sections rendered for a page or the lessons API: title, body HTML (and its Markdown, ``body``),
    picture (its SVG and the data it draws), and the checkpoint as the learner sees it now (options with
    ``owner``'s handles before the answer; marks, feedback and explanation after it; each text with its Markdown).

    ``answers`` maps :func:`answer_key` to the option key answered first; ``reveal_all`` shows every
    checkpoint's key (the admin preview: no handles).
    """
    answers = answers or {}
    rng = rng or random.SystemRandom()
    views = []
    for section in sections or []:
        chosen = answers.get(answer_key(lesson_key=lesson_key, section_key=section["key"]))
        figure = section.get("figure") or ""
        views.append(
            {
                "key": section["key"],
                "title": escape(section["title"]),
                "title_text": section["title"],
                "body": section["body"],
                "body_html": scrollable(render_markdown(section["body"])),
                "figure": figure,
                "figure_svg": lesson_figure(figure) if figure else None,
                "figure_data": lesson_figure_data(figure) if figure else None,
                "checkpoint": _checkpoint_view(
                    lesson_key, section, chosen, owner=owner, reveal_all=reveal_all, rng=rng
                ),
            }
        )
    return views


def checkpoint_order(*, owner: str, lesson_key: str) -> random.Random:
    """The options' order for a client that caches (the lessons API's ETag): random, the same on every read by this
    owner, another for every other owner, and unguessable (seeded by an HMAC under the site's secret). Like a
    fresh order, it says nothing about correctness; the page draws a fresh one each time instead."""
    seed = salted_hmac(_HANDLE_SALT + ".order", f"{owner}|{lesson_key}", algorithm="sha256").hexdigest()
    return random.Random(seed)


def has_checkpoints(sections: Any) -> bool:
    """Whether any section of a teaching text carries a checkpoint."""
    return any(section.get("checkpoint") for section in sections or [])


def checkpoint_answer(*, owner: str, lesson_key: str, sections: Any, section_key: str, handle: str) -> str:
    """The option key behind ``owner``'s ``handle`` in the checkpoint of section ``section_key``.

    DomainError NOT_FOUND for a section without a checkpoint, FOREIGN_OPTION for a handle that is not one of
    its options for this owner (a stale page after the author changed the options or the learner signed in or
    out, another session's handle, or a forged request).
    """
    section = next((s for s in sections or [] if s["key"] == section_key), None)
    if section is None or not section.get("checkpoint"):
        raise DomainError(ErrorCode.NOT_FOUND, _("This lesson has no such checkpoint."))
    for option in section["checkpoint"]["options"]:
        mine = checkpoint_handle(owner=owner, lesson_key=lesson_key, section_key=section_key, option_key=option["key"])
        if mine == handle:
            return str(option["key"])
    raise DomainError(
        ErrorCode.FOREIGN_OPTION, _("That option is not one of this checkpoint's options: reload the page.")
    )


def checkpoint_lock(
    *, owner: str, lesson_key: str, sections: Any, section_key: str, handle: str, previous: str | None
) -> str:
    """The option that stays chosen: the first answer if it is still one of the options (the lock), else the
    option behind ``handle`` (DomainError as :func:`checkpoint_answer`)."""
    chosen = checkpoint_answer(
        owner=owner, lesson_key=lesson_key, sections=sections, section_key=section_key, handle=handle
    )
    section = next(s for s in sections if s["key"] == section_key)
    if previous is not None and any(o["key"] == previous for o in section["checkpoint"]["options"]):
        return previous
    return chosen


def checkpoint_section(
    *, owner: str, lesson_key: str, sections: Any, section_key: str, chosen: str | None
) -> dict[str, Any]:
    """One section's checkpoint as the page shows it after ``chosen`` (the htmx fragment after an answer)."""
    section = next(s for s in sections or [] if s["key"] == section_key)
    view = _checkpoint_view(lesson_key, section, chosen, owner=owner, reveal_all=False, rng=random.SystemRandom())
    assert view is not None  # checkpoint_answer found it
    return view
