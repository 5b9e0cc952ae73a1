"""Reading a Moodle XML file safely, and saying precisely what is wrong with one.

A file is refused, with a message a teacher can act on, when it is larger than :data:`MAX_BYTES`, is not
well-formed XML (the line and column), declares a DTD (which is where expanding — "billion laughs" — and
external entities live: defusedxml refuses them, and Moodle XML needs no DTD), or has another root than
``<quiz>``. Parsed with defusedxml's ElementTree; each ``<question>`` keeps the line it starts on, read from
the expat parser underneath, so every problem names the file, the line, the question's position and name.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any
from xml.etree.ElementTree import Element, ParseError, TreeBuilder

from defusedxml import DTDForbidden, EntitiesForbidden, ExternalReferenceForbidden
from defusedxml.ElementTree import DefusedXMLParser

#: The largest file an import reads (Moodle's own exports of a few hundred questions are far smaller).
MAX_BYTES = 10 * 1024 * 1024


@dataclass(frozen=True)
class MoodleProblem:
    """One thing wrong with a Moodle XML file (or a question of it), located: file, line, question #, name."""

    file: str
    message: str
    line: int | None = None
    index: int | None = None  # the question's position among the file's <question> elements, from 1
    name: str | None = None
    key: str | None = None  # the key the question would get here
    option: str | None = None

    def __str__(self) -> str:
        where = [self.file]
        if self.line is not None:
            where.append(f"line {self.line}")
        if self.index is not None:
            where.append(f"question #{self.index}" + (f" '{self.name}'" if self.name else ""))
        if self.key:
            where.append(f"key {self.key}")
        if self.option:
            where.append(f"option '{self.option}'")
        return f"{', '.join(where)}: {self.message}"


class MoodleError(Exception):
    """The file cannot be imported (or the questions exported); nothing was written."""

    def __init__(self, problems: list[MoodleProblem]):
        self.problems = problems
        super().__init__("\n".join(str(p) for p in problems))


@dataclass(frozen=True)
class QuestionElement:
    """A ``<question>`` of the file: its element, position (from 1), first line, type and name."""

    element: Element
    index: int
    line: int | None
    type: str
    name: str


class _LineBuilder(TreeBuilder):
    """A tree builder that notes the line each ``<question>`` starts on (from the expat parser)."""

    def __init__(self) -> None:
        super().__init__()
        self.expat: Any = None
        self.lines: list[int] = []

    def start(self, tag: str, attrs: dict[str, str]) -> Element:
        if tag == "question" and self.expat is not None:
            self.lines.append(int(self.expat.CurrentLineNumber))
        return super().start(tag, attrs)


def _parse(data: bytes, file: str) -> tuple[Element, list[int]]:
    builder = _LineBuilder()
    parser = DefusedXMLParser(target=builder, forbid_dtd=False, forbid_entities=True, forbid_external=True)
    expat = parser.parser
    builder.expat = expat
    doctype: list[str] = []

    def start_doctype(name: str, *args: Any) -> None:  # entity declarations still go to defusedxml's handlers
        doctype.append(name)

    expat.StartDoctypeDeclHandler = start_doctype
    try:
        parser.feed(data)
        root = parser.close()
    except EntitiesForbidden as exc:
        if exc.sysid or exc.pubid:
            what = f"the external entity {exc.name!r} ({exc.sysid or exc.pubid}), which would read a file or a URL"
        else:
            what = f"the entity {exc.name!r}, and entities can expand without bound ('billion laughs')"
        raise MoodleError([MoodleProblem(file, f"refused: it declares {what}; Moodle XML uses none")]) from None
    except ExternalReferenceForbidden as exc:
        message = f"refused: it refers to the external entity {exc.sysid!r}; Moodle XML uses none"
        raise MoodleError([MoodleProblem(file, message)]) from None
    except DTDForbidden:  # pragma: no cover - DTDs are refused below, after the entity checks
        raise MoodleError([MoodleProblem(file, "refused: it declares a DTD; Moodle XML has none")]) from None
    except ParseError as exc:
        line, column = getattr(exc, "position", (None, None))
        why = re.sub(r": line \d+, column \d+$", "", str(exc.msg))
        raise MoodleError([MoodleProblem(file, f"not XML (line {line}, column {column}): {why}", line=line)]) from None
    if doctype:
        message = f"refused: it declares a DTD (<!DOCTYPE {doctype[0]}>), where entities live; Moodle XML uses none"
        raise MoodleError([MoodleProblem(file, message)])
    return root, builder.lines


def _text(element: Element | None, path: str) -> str:
    found = element.find(path) if element is not None else None
    return (found.text or "").strip() if found is not None else ""


def read_questions(data: bytes, *, file: str) -> list[QuestionElement]:
    """The file's ``<question>`` elements in order (a category is one too), or MoodleError saying why not."""
    if len(data) > MAX_BYTES:
        limit = MAX_BYTES // (1024 * 1024)
        message = f"refused: the file is larger than {limit} MiB, the most an import reads"
        raise MoodleError([MoodleProblem(file, message)])
    if not data.strip():
        raise MoodleError([MoodleProblem(file, "not XML: the file is empty")])
    root, lines = _parse(data, file)
    if root.tag != "quiz":
        message = f"not a Moodle XML question file: the root element is <{root.tag}>, not <quiz>"
        raise MoodleError([MoodleProblem(file, message)])
    questions = [child for child in root if child.tag == "question"]
    all_lines: list[int | None] = list(lines) if len(lines) == len(questions) else [None] * len(questions)
    return [
        QuestionElement(
            element=element,
            index=index,
            line=line,
            type=(element.get("type") or "").strip(),
            name=_text(element, "name/text") or _text(element, "category/text"),
        )
        for index, (element, line) in enumerate(zip(questions, all_lines, strict=True), start=1)
    ]
