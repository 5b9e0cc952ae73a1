"""Moodle's question text ↔ our Markdown with ``$…$`` math.

**Import** (:func:`to_markdown`): a Moodle text (its ``format``: html, moodle_auto_format, plain_text, markdown)
becomes the Markdown our renderer shows the same way, by markdownify with these rules of our own:

* paragraphs, line breaks, lists (nested ones indented by four spaces, as Python-Markdown wants), headings,
  bold, italic, code spans, code blocks (with their language), tables and links: Markdown;
* ``<sub>``/``<sup>``: math, ``$_{\\text{…}}$`` / ``$^{\\text{…}}$`` (our Markdown has no raw HTML);
* TeX for Moodle's MathJax filter, ``\\(…\\)``, ``\\[…\\]`` and ``$$…$$``: our ``$…$`` / ``$$…$$`` (never
  inside code, which MathJax leaves alone too);
* entities and CDATA are text (the XML and HTML parsers decode them); characters our Markdown would read as
  markup (``\\ * _ ` $``, a ``#``, ``-``, ``+``, ``>`` or ``1.`` starting a line, ``[…](``) are escaped.

Images and other media (``<img>``, ``<video>``, ``<audio>``, ``<iframe>``, ``<object>``, ``<embed>``, ``<svg>``,
``@@PLUGINFILE@@`` links) are not converted: :func:`media_in` names them so the import refuses the question.

**Export** (:func:`to_html`): our Markdown rendered by the learner pages' renderer, the math kept as TeX in
``\\(…\\)`` / ``\\[…\\]`` for Moodle's MathJax filter (``quizzes.core.rendering.render_markdown_tex``).

Interview prompts' rubric points travel in Moodle's grader information (:func:`split_rubric`,
:func:`join_rubric`): the reference answer, then a paragraph "Rubric", then the points as a list.
"""

from __future__ import annotations

import html
import re
from typing import Any

from bs4 import BeautifulSoup, Comment, NavigableString, Tag
from markdownify import ATX, MarkdownConverter

from quizzes.core.rendering import render_markdown_tex

#: Elements that are media: a question using one is refused (we keep no files and show no embeds).
MEDIA_TAGS = ("img", "video", "audio", "iframe", "object", "embed", "svg", "picture", "canvas", "source", "track")
#: How Moodle points at a file stored with the question.
PLUGINFILE = "@@PLUGINFILE@@"

#: TeX as Moodle's MathJax filter reads it: inline \(…\), display \[…\] and $$…$$.
_TEX = re.compile(r"\\\((?P<inline>.+?)\\\)|\\\[(?P<display>.+?)\\\]|\$\$(?P<dollars>.+?)\$\$", re.DOTALL)
_BLOCK_MARKER = re.compile(r"(^|\n)([ \t]*)(?=[#>]|[-+](?:\s|$|-))")  # a heading, quote or list marker
_ORDERED_MARKER = re.compile(r"(^|\n)([ \t]*\d{1,9})(?=\.(?:\s|$))")  # "1. " starts an ordered list
_ENTITY = re.compile(r"&(?=#?\w+;)")
_TEXT_SPECIAL = re.compile(r"([\\{}$&#%_^~])")
_BLANK_LINES = re.compile(r"\n{3,}")

#: The paragraph that introduces the rubric list in the grader information (export writes the first).
RUBRIC_LABEL = "Rubric"
_RUBRIC_LABELS = {"rubric", "rubric points", "评分要点"}


def _escape_text(text: str) -> str:
    """Plain text → Markdown that shows it as is."""
    text = text.replace("\\", "\\\\")
    for char in "`*_$":
        text = text.replace(char, "\\" + char)
    if "](" in text or "][" in text:
        text = text.replace("[", "\\[")
    text = _ENTITY.sub("&amp;", text)
    text = _BLOCK_MARKER.sub(lambda m: m.group(1) + m.group(2) + "\\", text)
    return _ORDERED_MARKER.sub(lambda m: m.group(1) + m.group(2) + "\\", text)


def _tex_text(text: str) -> str:
    """Text for ``\\text{…}``: TeX's special characters escaped, backslashes dropped."""
    return _TEXT_SPECIAL.sub(lambda m: "" if m.group(1) == "\\" else "\\" + m.group(1), text)


class _Converter(MarkdownConverter):
    """markdownify with our Markdown's rules (see the module docstring)."""

    def escape(self, text: str, parent_tags: Any) -> str:
        parts: list[str] = []
        position = 0
        for match in _TEX.finditer(text):
            parts.append(_escape_text(text[position : match.start()]))
            inline = match.group("inline")
            if inline is not None and inline.strip():
                parts.append("$" + inline.strip() + "$")
            else:
                display = match.group("display") or match.group("dollars") or ""
                parts.append("$$" + display.strip() + "$$" if display.strip() else "")
            position = match.end()
        parts.append(_escape_text(text[position:]))
        return "".join(parts)

    def _script(self, el: Tag, parent_tags: Any, mark: str) -> str:
        if "_noformat" in parent_tags:
            return el.get_text()
        raw = " ".join(el.get_text().split())
        return f"${mark}{{\\text{{{_tex_text(raw)}}}}}$" if raw else ""

    def convert_sub(self, el: Tag, text: str, parent_tags: Any) -> str:
        return self._script(el, parent_tags, "_")

    def convert_sup(self, el: Tag, text: str, parent_tags: Any) -> str:
        return self._script(el, parent_tags, "^")

    def convert_li(self, el: Tag, text: str, parent_tags: Any) -> str:
        text = (text or "").strip()
        if not text:
            return "\n"
        parent = el.parent
        if parent is not None and parent.name == "ol":
            start = str(parent.get("start") or "1")
            first = int(start) if start.isdigit() else 1
            bullet = f"{first + len(el.find_previous_siblings('li'))}."
        else:
            bullet = "-"
        first_line, *rest = text.split("\n")
        indented = "\n".join("    " + line if line else "" for line in rest)
        return f"{bullet} {first_line}" + (f"\n{indented}" if rest else "") + "\n"


def _code_language(el: Tag) -> str:
    code = el.find("code")
    classes = code.get("class") if isinstance(code, Tag) else None
    for name in classes or []:
        if str(name).startswith("language-"):
            return str(name).removeprefix("language-")
    return ""


_CONVERTER = _Converter(heading_style=ATX, bullets="-", code_language_callback=_code_language, autolinks=False)


def _paragraphs(text: str, *, escape: bool) -> str:
    """Plain text (and Moodle's auto-format): a blank line ends a paragraph, a line break is a line break."""
    body = html.escape(text) if escape else text
    blocks = [block.strip("\n") for block in re.split(r"\n\s*\n", body.replace("\r\n", "\n")) if block.strip()]
    return "".join("<p>" + block.replace("\n", "<br>\n") + "</p>" for block in blocks)


def to_markdown(text: str, text_format: str = "html") -> str:
    """A Moodle text in its ``format`` → our Markdown (module docstring)."""
    if not text or not text.strip():
        return ""
    if text_format == "markdown":  # Markdown already: only the TeX delimiters become ours
        return _BLANK_LINES.sub("\n\n", _tex_to_dollars(text)).strip()
    if text_format in ("plain_text", "wiki_like"):
        text = _paragraphs(text, escape=True)
    elif text_format == "moodle_auto_format" and not re.search(r"<(p|div|br|ul|ol|table|h\d)\b", text, re.I):
        text = _paragraphs(text, escape=False)
    markdown = _CONVERTER.convert(text)
    return _BLANK_LINES.sub("\n\n", markdown).strip()


def _tex_to_dollars(text: str) -> str:
    def replace(match: re.Match[str]) -> str:
        if match.group("inline") is not None:
            return "$" + match.group("inline").strip() + "$"
        return "$$" + (match.group("display") or match.group("dollars") or "").strip() + "$$"

    return _TEX.sub(replace, text)


def media_in(text: str) -> list[str]:
    """The media a Moodle HTML text uses (``<img>`` …, a ``@@PLUGINFILE@@`` link), each named once."""
    if not text:
        return []
    found = []
    lowered = text.lower()
    for tag in MEDIA_TAGS:
        if re.search(rf"<{tag}\b", lowered):
            found.append(f"<{tag}>")
    if PLUGINFILE.lower() in lowered and not found:
        found.append(PLUGINFILE)
    return found


def to_html(markdown: str) -> str:
    """Our Markdown → Moodle HTML, TeX kept for its MathJax filter (module docstring)."""
    return render_markdown_tex(markdown).strip()


# --------------------------------------------------------------------------- rubric ↔ grader information


def _significant(nodes: list[Any]) -> list[Any]:
    return [n for n in nodes if not isinstance(n, Comment) and not (isinstance(n, NavigableString) and not n.strip())]


def split_rubric(grader_info: str, text_format: str = "html") -> tuple[str, list[str]]:
    """Moodle grader information → (the reference answer, the rubric points), both as our Markdown.

    The rubric is the **last top-level list** of the grader information, one point per item; the paragraph or
    heading right before it is dropped when it only says "Rubric" (or "Rubric points", "评分要点", a colon
    allowed). Without such a list there are no rubric points (the import refuses the prompt then).
    """
    if text_format not in ("html", "moodle_auto_format") or not grader_info.strip():
        return to_markdown(grader_info, text_format), []
    soup = BeautifulSoup(grader_info, "html.parser")
    nodes = _significant(list(soup.contents))
    if not nodes or not isinstance(nodes[-1], Tag) or nodes[-1].name not in ("ul", "ol"):
        return to_markdown(grader_info, text_format), []
    points = [to_markdown(li.decode_contents()) for li in nodes[-1].find_all("li", recursive=False)]
    nodes = nodes[:-1]
    if nodes and isinstance(nodes[-1], Tag) and nodes[-1].name in ("p", "h1", "h2", "h3", "h4", "h5", "h6"):
        label = " ".join(nodes[-1].get_text().split()).rstrip(":：").strip().lower()
        if label in _RUBRIC_LABELS:
            nodes = nodes[:-1]
    reference = to_markdown("".join(str(node) for node in nodes))
    return reference, [point for point in points if point]


def _unwrapped(rendered: str) -> str:
    """A one-paragraph rendering without its ``<p>`` (a list item's content)."""
    if rendered.startswith("<p>") and rendered.endswith("</p>") and rendered.count("<p>") == 1:
        return rendered[3:-4]
    return rendered


def join_rubric(reference_answer: str, rubric: list[str]) -> str:
    """The reference answer and the rubric points as Moodle grader information (the inverse of split_rubric)."""
    points = "".join(f"<li>{_unwrapped(to_html(point))}</li>\n" for point in rubric)
    return f"{to_html(reference_answer)}\n<p>{RUBRIC_LABEL}</p>\n<ul>\n{points}</ul>"
