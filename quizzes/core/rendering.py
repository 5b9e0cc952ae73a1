"""Markdown + LaTeX → safe HTML with MathML, offline (no CDN, no JavaScript).

Why a module of its own: lesson prompts, explanations, feedback and generated variants are all
Markdown with ``$…$`` / ``$$…$$`` math, and the admin preview, the learner pages and the API must
render them identically. Authors and (later) learners type this text, so it is treated as untrusted:

* raw HTML in the Markdown is not passed through — it is shown as text (escaped);
* links and images keep only http(s), mailto, relative and fragment URLs;
* math is converted by latex2mathml to an element tree, and only MathML elements and
  presentation attributes are serialised (``\\text{<script>}`` stays text);
* math is cut out *before* Markdown runs, so ``_`` and ``*`` inside formulas are never
  taken for emphasis, and ``$`` inside code spans or fenced code is left alone.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import html
import math
import re
import threading
import unicodedata
from collections.abc import Iterable, Sequence
from importlib import metadata
from pathlib import Path
from typing import Any
from xml.etree.ElementTree import Element, SubElement, tostring

import markdown
from django.utils.safestring import SafeString, mark_safe
from latex2mathml.converter import convert_to_element
from markdown.treeprocessors import Treeprocessor

__all__ = [
    "math_to_mathml",
    "prime_markdown",
    "render_markdown",
    "render_markdown_tex",
    "render_value",
    "value_to_latex",
]

MATHML_NS = "http://www.w3.org/1998/Math/MathML"

# Presentation MathML only; anything else latex2mathml might emit from \text{...} is dropped to its text.
_MATHML_TAGS = frozenset(
    " ".join(
        (
            "math mrow mi mn mo ms mtext mspace msub msup msubsup mfrac msqrt mroot mstyle merror mpadded",
            "mphantom mfenced menclose munder mover munderover mtable mtr mtd mlabeledtr mmultiscripts",
            "mprescripts none semantics annotation",
        )
    ).split()
)
_MATHML_ATTRS = frozenset(
    " ".join(
        (
            "display mathvariant mathsize mathcolor stretchy fence separator separators lspace rspace form",
            "largeop movablelimits symmetric minsize maxsize accent accentunder linethickness displaystyle",
            "scriptlevel columnalign columnlines columnspacing rowalign rowlines rowspacing frame",
            "framespacing width height depth notation open close align equalrows equalcolumns voffset",
            "encoding",
        )
    ).split()
)
_TEXT_ESCAPES = re.compile(r"\\([_%&#$}{])")
_SAFE_URL = re.compile(r"^(?:https?:|mailto:|#|/|\./|\.\./|[^:/?#]*(?:[/?#]|$))", re.IGNORECASE)


def _copy_safe(source: Element, parent: Element | None) -> Element | None:
    """Rebuild a latex2mathml tree keeping allow-listed tags/attributes; unescape its pre-escaped text."""
    tag = source.tag.split("}")[-1]
    text = html.unescape(source.text or "")
    tail = html.unescape(source.tail or "")
    if tag not in _MATHML_TAGS:
        # Unknown element (e.g. from \text{<b>x</b>}): keep what it says as text, never as markup.
        flat = html.unescape("".join(source.itertext()))
        if parent is not None:
            if len(parent):
                parent[-1].tail = (parent[-1].tail or "") + flat + tail
            else:
                parent.text = (parent.text or "") + flat + tail
        return None
    attrib = {k: v for k, v in source.attrib.items() if k in _MATHML_ATTRS}
    element = Element(tag, attrib) if parent is None else SubElement(parent, tag, attrib)
    if tag == "mtext":  # latex2mathml leaves escaped specials inside \text{...} as typed: \_ → _
        text = _TEXT_ESCAPES.sub(r"\1", text)
    element.text = text
    for child in source:
        _copy_safe(child, element)
    element.tail = tail
    return element


_FENCES = frozenset("[](){}|‖")


def _stretch_matrix_brackets(root: Element) -> None:
    """bmatrix/pmatrix brackets come out as plain ``<mo>[</mo>``, which Chromium draws one line high
    next to a tall table; marking them stretchy fences makes them span the whole matrix."""
    for row in root.iter("mrow"):
        children = list(row)
        if not any(child.tag == "mtable" for child in children):
            continue
        for position, child in enumerate(children):
            if child.tag == "mo" and (child.text or "").strip() in _FENCES:
                child.set("stretchy", "true")
                child.set("fence", "true")
                child.set("form", "prefix" if position == 0 else "postfix")


@functools.lru_cache(maxsize=4096)
def math_to_mathml(latex: str, *, display: bool = False) -> SafeString:
    """One formula → a ``<math>`` element (safe: allow-listed tags only); on a LaTeX error, the source as code.

    Memoised per process: a pure function, and formulas repeat across texts (the lessons' ≈ 1,600 formulas are
    ≈ 500 different ones), so a fresh process's first pack converts each once.
    """
    try:
        tree = convert_to_element(latex, display="block" if display else "inline")
    except Exception:  # latex2mathml raises assorted exceptions on malformed input; show the source instead
        return mark_safe(f'<code class="math-error">{html.escape(latex)}</code>')
    safe = _copy_safe(tree, None)
    assert safe is not None  # the root is always <math>
    _stretch_matrix_brackets(safe)
    safe.tail = None
    safe.set("xmlns", MATHML_NS)
    safe.set("display", "block" if display else "inline")
    return mark_safe(tostring(safe, encoding="unicode", short_empty_elements=False))


# --------------------------------------------------------------------------- math extraction

_PLACEHOLDER = "\u2063QZMATH{index}\u2063"  # invisible separator: survives Markdown untouched
_PLACEHOLDER_RE = re.compile("\u2063QZMATH(\\d+)\u2063")
_FENCE_RE = re.compile(r"^[ ]{0,3}(`{3,}|~{3,})")


def _extract_math(text: str) -> tuple[str, list[tuple[str, bool]]]:
    """Replace $…$ / $$…$$ outside code with placeholders; return the text and the formulas."""
    formulas: list[tuple[str, bool]] = []
    joined = text
    # Display math may span lines; fenced blocks and code spans are copied through untouched.
    result: list[str] = []
    i, n = 0, len(joined)
    fenced_spans = _fenced_spans(joined)
    while i < n:
        span_end = fenced_spans.get(i)
        if span_end is not None:
            result.append(joined[i:span_end])
            i = span_end
            continue
        ch = joined[i]
        if ch == "\\" and i + 1 < n and joined[i + 1] == "$":
            result.append("&#36;")
            i += 2
            continue
        if ch == "`":
            run = len(joined[i:]) - len(joined[i:].lstrip("`"))
            closing = joined.find("`" * run, i + run)
            while closing != -1 and joined[closing + run : closing + run + 1] == "`":
                closing = joined.find("`" * run, closing + run + 1)
            if closing == -1:
                result.append(joined[i : i + run])
                i += run
            else:
                result.append(joined[i : closing + run])
                i = closing + run
            continue
        if ch == "$":
            display = joined.startswith("$$", i)
            delimiter = "$$" if display else "$"
            start = i + len(delimiter)
            end = joined.find(delimiter, start)
            while end != -1 and joined[end - 1] == "\\":
                end = joined.find(delimiter, end + 1)
            body = joined[start:end] if end != -1 else ""
            inline_ok = display or (body and not body[0].isspace() and not body[-1].isspace() and "\n\n" not in body)
            if end != -1 and body.strip() and inline_ok:
                result.append(_PLACEHOLDER.format(index=len(formulas)))
                formulas.append((body.strip(), display))
                i = end + len(delimiter)
                continue
        result.append(ch)
        i += 1
    return "".join(result), formulas


def _fenced_spans(text: str) -> dict[int, int]:
    """Start offset → end offset of every fenced code block, so math scanning skips them."""
    spans: dict[int, int] = {}
    offset = 0
    start: int | None = None
    fence = ""
    for line in text.splitlines(keepends=True):
        match = _FENCE_RE.match(line)
        if start is None and match:
            start, fence = offset, match.group(1)
        elif start is not None and match and match.group(1)[0] == fence[0] and len(match.group(1)) >= len(fence):
            spans[start] = offset + len(line)
            start = None
        offset += len(line)
    if start is not None:
        spans[start] = len(text)
    return spans


# --------------------------------------------------------------------------- markdown


class _SafeUrls(Treeprocessor):
    """Drop javascript:/data: and other unsafe URLs from links and images."""

    def run(self, root: Any) -> None:
        for element in root.iter():
            for attribute in ("href", "src"):
                value = element.get(attribute)
                if value is not None and not _SAFE_URL.match(value.strip()):
                    del element.attrib[attribute]


#: Blocks whose inline content is prose: a soft line break inside them may be joined.
_PROSE_BLOCKS = frozenset(["p", "li", "td", "th", "h1", "h2", "h3", "h4", "h5", "h6", "dt", "dd"])
#: Inline elements whose text flows with the surrounding prose (anything else ends a run).
_INLINE_TAGS = frozenset(["em", "strong", "a", "code", "span", "del", "sub", "sup", "abbr"])
_SOFT_BREAK = re.compile(r"[ \t]*\n[ \t]*")


def _is_cjk(ch: str) -> bool:
    """Wide or full-width: CJK ideographs, kana, hangul and the full-width punctuation 。，（）：."""
    return bool(ch) and unicodedata.east_asian_width(ch) in ("W", "F")


class _CjkSoftBreaks(Treeprocessor):
    """A source line break inside a paragraph renders as a space, which is right between Latin words
    and wrong in Chinese ("加起来。 key 只负责"). Join the lines without a space when the character
    on either side of the break is CJK (punctuation included); leave code untouched."""

    def run(self, root: Any) -> None:
        for block in root.iter():
            if block.tag in _PROSE_BLOCKS:
                self._join(self._segments(block))

    def _segments(self, block: Any) -> list[tuple[Any, str, bool]]:
        """(element, "text" | "tail", editable) for the block's inline run, in reading order."""
        segments: list[tuple[Any, str, bool]] = [(block, "text", True)]

        def walk(element: Any) -> None:
            for child in element:
                if child.tag not in _INLINE_TAGS:  # a nested block (list, table, …) ends the run
                    segments.append((None, "", False))
                else:
                    segments.append((child, "text", child.tag != "code"))
                    if child.tag != "code":
                        walk(child)
                segments.append((child, "tail", True))

        walk(block)
        return segments

    @staticmethod
    def _join(segments: list[tuple[Any, str, bool]]) -> None:
        texts = [getattr(el, attr) or "" if el is not None else "" for el, attr, _ in segments]
        for index, (element, attr, editable) in enumerate(segments):
            text = texts[index]
            if not editable or element is None or "\n" not in text:
                continue

            def neighbour(match: re.Match[str], text: str = text, index: int = index) -> str:
                before = text[: match.start()] or _last_char(texts, segments, index)
                after = text[match.end() :] or _first_char(texts, segments, index)
                return "" if _is_cjk(before[-1:]) or _is_cjk(after[:1]) else match.group(0)

            texts[index] = _SOFT_BREAK.sub(neighbour, text)
            setattr(element, attr, texts[index])


def _last_char(texts: list[str], segments: list[tuple[Any, str, bool]], index: int) -> str:
    for i in range(index - 1, -1, -1):
        if segments[i][0] is None:
            return ""
        if texts[i]:
            return texts[i][-1]
    return ""


def _first_char(texts: list[str], segments: list[tuple[Any, str, bool]], index: int) -> str:
    for i in range(index + 1, len(texts)):
        if segments[i][0] is None:
            return ""
        if texts[i]:
            return texts[i][0]
    return ""


def _new_markdown() -> markdown.Markdown:
    md = markdown.Markdown(extensions=["fenced_code", "tables", "sane_lists"], output_format="html")
    # Raw HTML is not trusted: without these two processors, "<tag>" is emitted as escaped text.
    md.preprocessors.deregister("html_block")
    md.inlinePatterns.deregister("html")
    md.treeprocessors.register(_SafeUrls(md), "safe_urls", 0)
    md.treeprocessors.register(_CjkSoftBreaks(md), "cjk_soft_breaks", 5)  # after inline (20) and prettify (10)
    return md


_LOCAL = threading.local()


def _markdown() -> markdown.Markdown:
    """This thread's converter, reset for a new text: building one (its extensions and ≈ 40 processors) took
    longer than converting a typical prompt (bench/README.md, packs)."""
    md: markdown.Markdown | None = getattr(_LOCAL, "markdown", None)
    if md is None:
        md = _LOCAL.markdown = _new_markdown()
    return md.reset()


#: The renderer's identity: this module's source and the versions of the libraries it drives. A rendering kept
#: in the shared cache is keyed by it (and the text), so a changed renderer misses old entries, never serves them.
RENDERER = hashlib.sha256(
    b"|".join(
        [Path(__file__).read_bytes(), metadata.version("markdown").encode(), metadata.version("latex2mathml").encode()]
    )
).hexdigest()[:12]
SHARED_TTL = 30 * 24 * 3600  # seconds: a rendering no one asks for leaves the shared cache after a month

#: text → its rendering, per process (bounded: emptied when full, as texts in use are rendered again at once)
_RENDERED: dict[str, SafeString] = {}
_MAX_RENDERED = 4096


def render_markdown(text: str | None) -> SafeString:
    """Markdown with $…$ / $$…$$ math → HTML with MathML, safe to put in a template as is.

    Memoised per process: a pure function of the text, and the same few hundred prompts are rendered
    on every due-queue page (bench/README.md: ≈ 14 ms of a 20-card page before the cache).
    """
    if not text:
        return mark_safe("")
    rendered = _RENDERED.get(text)
    if rendered is None:
        rendered = _remember(text, _render(text))
    return rendered


def _remember(text: str, rendered: str) -> SafeString:
    if len(_RENDERED) >= _MAX_RENDERED:
        _RENDERED.clear()
    safe = _RENDERED[text] = mark_safe(rendered)
    return safe


def _shared_key(text: str) -> str:
    return f"md:{RENDERER}:{hashlib.sha256(text.encode()).hexdigest()[:40]}"


def prime_markdown(texts: Iterable[str | None]) -> None:
    """Make ``render_markdown`` of each of ``texts`` a memo hit, sharing renderings between processes.

    Texts this process has not rendered yet are read from the shared cache (Django's default cache: Redis
    in production) in one round trip; those not there are rendered and stored for the other processes. For
    callers that render many texts at once (a review pack: ≈ 400 texts, most of a fresh process's first pack
    was rendering them). Without a cache, or with it down, this only renders.
    """
    from django.core.cache import cache

    missing = {text for text in texts if text and text not in _RENDERED}
    if not missing:
        return
    keys = {_shared_key(text): text for text in missing}
    try:
        found = cache.get_many(list(keys))
    except Exception:  # the shared cache is an optimisation: render instead
        found = {}
    new = {}
    for key, text in keys.items():
        shared = found.get(key)
        if isinstance(shared, str):
            _remember(text, shared)
        else:
            new[key] = str(_remember(text, _render(text)))
    if new:
        with contextlib.suppress(Exception):  # as above: the other processes render it themselves
            cache.set_many(new, timeout=SHARED_TTL)


def _render(text: str) -> str:
    source, formulas = _extract_math(text)
    body = _markdown().convert(source)

    def restore(match: re.Match[str]) -> str:
        latex, display = formulas[int(match.group(1))]
        return math_to_mathml(latex, display=display)

    body = _PLACEHOLDER_RE.sub(restore, body)
    # A paragraph holding only display math becomes the math block itself.
    body = re.sub(r"<p>\s*(<math [^>]*display=\"block\".*?</math>)\s*</p>", r"\1", body, flags=re.DOTALL)
    return body  # escaped Markdown output + allow-listed MathML


def render_markdown_tex(text: str | None) -> str:
    r"""Markdown with $…$ / $$…$$ math → the same safe HTML as :func:`render_markdown`, the math kept as TeX in
    ``\(…\)`` / ``\[…\]`` (HTML-escaped) for a MathJax filter to typeset: what an LMS such as Moodle shows.

    Not memoised: an export renders each text once.
    """
    if not text:
        return ""
    source, formulas = _extract_math(text)
    body = _markdown().convert(source)

    def restore(match: re.Match[str]) -> str:
        latex, display = formulas[int(match.group(1))]
        return (
            ("\\[" + html.escape(latex, quote=False) + "\\]")
            if display
            else ("\\(" + html.escape(latex, quote=False) + "\\)")
        )

    return _PLACEHOLDER_RE.sub(restore, body)


# --------------------------------------------------------------------------- numbers, vectors, matrices


def _format_number(value: float | None, digits: int) -> str:
    if value is None:  # the engine's JSON form of a masked score (-inf)
        return r"-\infty"
    if isinstance(value, bool):
        return r"\text{true}" if value else r"\text{false}"
    if isinstance(value, int):
        return str(value)
    if math.isinf(value):
        return r"-\infty" if value < 0 else r"\infty"
    if math.isnan(value):
        return r"\mathrm{NaN}"
    if float(value).is_integer() and abs(value) < 1e15:
        return str(int(value))
    text = f"{value:.{digits}g}" if abs(value) >= 1e5 or abs(value) < 1e-3 else f"{value:.{digits}f}".rstrip("0")
    return text.rstrip(".") if "e" not in text else text


def value_to_latex(value: Any, *, digits: int = 4) -> str:
    """A number, vector or matrix as LaTeX (vectors as row brackets, matrices as bmatrix).

    ``None`` entries are masked scores (the engine stores -inf as None in JSON) and show as -∞.
    """
    if isinstance(value, tuple) and all(isinstance(v, int) for v in value):
        return "(" + ", ".join(str(v) for v in value) + ")"
    if isinstance(value, Sequence) and not isinstance(value, str):
        rows = list(value)
        if rows and all(isinstance(r, Sequence) and not isinstance(r, str) for r in rows):
            body = r" \\ ".join(" & ".join(_format_number(x, digits) for x in row) for row in rows)
            return r"\begin{bmatrix}" + body + r"\end{bmatrix}"
        return "[" + ",\\ ".join(_format_number(x, digits) for x in rows) + "]"
    if value is None or isinstance(value, int | float):
        return _format_number(value, digits)
    return r"\text{" + str(value).replace("\\", "").replace("{", "").replace("}", "") + "}"


def render_value(value: Any, *, digits: int = 4, display: bool = False) -> SafeString:
    """A number, vector or matrix as MathML."""
    return math_to_mathml(value_to_latex(value, digits=digits), display=display)
