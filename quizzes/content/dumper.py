"""Lesson files out of the database: what ``dump_lessons`` and the admin's "Download as YAML" write.

A lesson (any provenance: file, admin, job) is written in the fixture schema, through the schema the loader
reads (quizzes.content.schema). When the lesson already has a file (in the output directory or in
``fixtures/lessons``), that file is the base: it is read in ruamel.yaml's round-trip mode (comments, quoting,
key order kept) and only the values the loader would read differently from the database are rewritten, so an
unchanged lesson comes out byte for byte and an edited question changes only its own lines. A lesson without a
file is written fresh, in the schema's key order, defaults left out. Every output is read back by the loader's
rules and compared with the database before it is returned (:class:`DumpError` otherwise).
"""

from __future__ import annotations

import io
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.scalarstring import DoubleQuotedScalarString, LiteralScalarString, SingleQuotedScalarString

from quizzes.content.models import Lesson, Question
from quizzes.content.reader import DEFAULT_LESSONS_DIR, LessonYamlLoader, lesson_files
from quizzes.content.schema import (
    LESSON_SCHEMA,
    OPTION_SCHEMA,
    OPTIONS,
    QUESTION_SCHEMA,
    QUESTIONS,
    FileField,
    read_value,
    row_value,
)
from quizzes.content.selectors import lessons_questions_with_options, question_options
from quizzes.content.teaching import parse_teaching, teaching_for_authors

BLOCK_TEXTS = {"prompt", "explanation", "reference_answer", "body"}  # always a `|` block when written fresh


class DumpError(Exception):
    """The dump cannot be written (an unknown lesson key, or a value the files could not give back)."""


@dataclass(frozen=True)
class LessonFile:
    name: str  # the file name: the base file's, else <order>-<key>.yaml
    text: str


def _round_trip() -> YAML:
    rt = YAML(typ="rt")
    rt.preserve_quotes = True
    rt.width = 4096
    rt.indent(mapping=2, sequence=4, offset=2)
    rt.representer.add_representer(float, _represent_float)
    return rt


def _represent_float(representer: Any, value: float) -> Any:
    """An integral float as an int (``64``), else a float PyYAML reads as one (a dot in the mantissa)."""
    if value.is_integer() and abs(value) < 2**53:
        return representer.represent_int(int(value))
    text = repr(value)
    if "e" in text and "." not in text.split("e")[0]:
        mantissa, exponent = text.split("e")
        text = f"{mantissa}.0e{exponent}"
    return representer.represent_scalar("tag:yaml.org,2002:float", text)


# ---------------------------------------------------------------------------- the authored form


def _applies(spec: FileField, kind: str | None) -> bool:
    return spec.name is not None and spec.read != "position" and (kind is None or kind in spec.kinds)


def _authored(schema: tuple[FileField, ...], kind: str | None, values: dict[str, Any]) -> dict[str, Any]:
    """A row as a file lists it: the schema's keys in its order, a value equal to the absent key's left out."""
    out: dict[str, Any] = {}
    for spec in schema:
        if not _applies(spec, kind) or spec.name not in values:
            continue
        value = values[spec.name]
        if not spec.required and spec.read != "version" and value == spec.default:
            continue
        out[str(spec.name)] = value
    return out


def _file_question(data: dict[str, Any]) -> dict[str, Any]:
    """The loader's reading of one question mapping of a file, in the authored form."""
    kind = data.get("kind")
    values: dict[str, Any] = {}
    for spec in QUESTION_SCHEMA:
        if not _applies(spec, kind):
            continue
        if spec.read == "options":
            values[OPTIONS] = [_file_option(item) for item in data.get(OPTIONS) or []]
        elif spec.read in {"key", "kind"}:
            values[str(spec.name)] = data.get(str(spec.name))
        else:
            values[str(spec.name)] = read_value(spec, data, template=str(values.get("template", "")))[0]
    return _authored(QUESTION_SCHEMA, kind, values)


def _file_option(data: dict[str, Any]) -> dict[str, Any]:
    values = {
        str(s.name): data.get("key") if s.read == "key" else read_value(s, data)[0] for s in OPTION_SCHEMA if s.name
    }
    return _authored(OPTION_SCHEMA, None, values)


def _file_lesson(data: dict[str, Any]) -> dict[str, Any]:
    """The loader's reading of a lesson file, in the authored form."""
    values: dict[str, Any] = {}
    for spec in LESSON_SCHEMA:
        if spec.read == "key":
            values["key"] = data.get("key")
        elif spec.read == "teaching":
            values["teaching"] = teaching_for_authors(parse_teaching(data.get("teaching"))[0])
        else:
            values[str(spec.name)] = read_value(spec, data)[0]
    lesson = _authored(LESSON_SCHEMA, None, values)
    lesson[QUESTIONS] = [_file_question(item) for item in data.get(QUESTIONS) or []]
    return lesson


def _row_question(question: Question) -> dict[str, Any]:
    """A question row in the authored form (its options too, retired ones included)."""
    values: dict[str, Any] = {}
    for spec in QUESTION_SCHEMA:
        if not _applies(spec, question.kind):
            continue
        if spec.read == "options":
            values[OPTIONS] = [
                _authored(OPTION_SCHEMA, None, {str(s.name): getattr(o, s.column) for s in OPTION_SCHEMA if s.name})
                for o in question_options(question=question)
            ]
        else:
            values[str(spec.name)] = row_value(spec, question)
    return _authored(QUESTION_SCHEMA, question.kind, values)


def _row_lesson(lesson: Lesson, questions: Iterable[Question]) -> dict[str, Any]:
    values = {str(s.name): getattr(lesson, s.column) for s in LESSON_SCHEMA}
    values["teaching"] = teaching_for_authors(lesson.teaching)
    authored = _authored(LESSON_SCHEMA, None, values)
    authored[QUESTIONS] = [_row_question(q) for q in questions]
    return authored


# ---------------------------------------------------------------------------- writing into the base


def _fresh(value: Any, name: str = "", old: Any = None) -> Any:
    """A value as a freshly written file holds it (a replaced scalar keeps its old quoting when it can)."""
    if isinstance(value, dict):
        node = CommentedMap((k, _fresh(v, k)) for k, v in value.items())
        if name == "params":
            node.fa.set_flow_style()
        return node
    if isinstance(value, list):
        seq = CommentedSeq(_fresh(item) for item in value)
        if isinstance(old, CommentedSeq) and old.fa.flow_style():
            seq.fa.set_flow_style()
        return seq
    if isinstance(value, str):
        if "\n" in value or name in BLOCK_TEXTS:
            return LiteralScalarString(value + "\n")
        if isinstance(old, SingleQuotedScalarString | DoubleQuotedScalarString):
            return type(old)(value)
        if _plain_reads_back(value):
            return value
        return DoubleQuotedScalarString(value)
    return value


def _plain_reads_back(text: str) -> bool:
    """Whether the loader (PyYAML, YAML 1.1: ``yes``, ``1:20`` …) reads ``text`` written plain as that text."""
    try:
        return bool(yaml.load(f"x: {text}\n", Loader=LessonYamlLoader) == {"x": text})
    except yaml.YAMLError:
        return True  # not valid plain: ruamel quotes it itself


def _merge(node: CommentedMap, base: dict[str, Any], want: dict[str, Any]) -> None:
    """Make ``node`` (the file's mapping; ``base`` is the loader's reading of it) read as ``want``."""
    for name in [k for k in node if k not in want and k in base]:
        del node[name]  # the database holds what an absent key means
    for position, (name, value) in enumerate(want.items()):
        if name in base and base[name] == value:
            continue
        old = node.get(name)
        if isinstance(value, list) and value and isinstance(value[0], dict) and isinstance(old, CommentedSeq):
            _merge_keyed(old, base.get(name) or [], value)
        elif isinstance(value, dict) and isinstance(old, CommentedMap) and name != "params":
            _merge(old, base.get(name) or {}, value)
        elif name in node:
            node[name] = _fresh(value, name, old)
        else:
            keys = list(node)
            earlier = [k for k in list(want)[:position] if k in node]
            node.insert(keys.index(earlier[-1]) + 1 if earlier else 0, name, _fresh(value, name))


def _merge_keyed(seq: CommentedSeq, base: list[dict[str, Any]], want: list[dict[str, Any]]) -> None:
    """A list of mappings with keys (questions, options, sections): matched by key, in ``want``'s order."""
    old = {item.get("key"): (index, item, base[index] if index < len(base) else {}) for index, item in enumerate(seq)}
    items, comments = [], {}
    for index, wanted in enumerate(want):
        found = old.get(wanted.get("key"))
        if found is None:
            items.append(_fresh(wanted))
            continue
        old_index, node, base_item = found
        if base_item != wanted:
            _merge(node, base_item, wanted)
        if old_index in seq.ca.items:
            comments[index] = seq.ca.items[old_index]
        items.append(node)
    if [id(i) for i in items] != [id(i) for i in seq]:
        list.clear(seq)
        list.extend(seq, items)
        seq.ca.items.clear()
        seq.ca.items.update(comments)


# ---------------------------------------------------------------------------- the service


def _base_files(directories: Iterable[Path]) -> dict[str, Path]:
    """Lesson key → its file, the first directory's first."""
    found: dict[str, Path] = {}
    for directory in directories:
        if not Path(directory).is_dir():
            continue
        for path in lesson_files(Path(directory)):
            try:
                data = yaml.load(path.read_text(encoding="utf-8"), Loader=LessonYamlLoader)
            except (yaml.YAMLError, OSError, UnicodeDecodeError):
                continue
            if isinstance(data, dict) and isinstance(data.get("key"), str):
                found.setdefault(data["key"], path)
    return found


def lesson_file_text(*, lesson: Lesson, questions: list[Question], base: Path | None) -> LessonFile:
    """One lesson file: ``base`` updated where the database differs, or written fresh."""
    want = _row_lesson(lesson, questions)
    rt = _round_trip()
    if base is not None:
        source = base.read_text(encoding="utf-8")
        node = rt.load(source)
        loaded = _file_lesson(yaml.load(source, Loader=LessonYamlLoader))
        if loaded != want:
            _merge(node, loaded, want)
        name = base.name
    else:
        node = _fresh(want)
        name = f"{lesson.order:02d}-{lesson.key}.yaml"
    out = io.StringIO()
    rt.dump(node, out)
    text = out.getvalue()
    if _file_lesson(yaml.load(text, Loader=LessonYamlLoader)) != want:
        raise DumpError(f"lesson '{lesson.key}': the written file would not load back as the database holds it")
    return LessonFile(name, text)


def lessons_yaml(
    *, lessons: Iterable[Lesson], question_ids: set[int] | None = None, directories: Iterable[Path] = ()
) -> list[LessonFile]:
    """The lessons' files (only the questions in ``question_ids`` when given), each on its existing file if any
    (``directories`` first, then fixtures/lessons)."""
    lessons = list(lessons)
    bases = _base_files([*directories, DEFAULT_LESSONS_DIR])
    questions = lessons_questions_with_options(lesson_ids=[lesson.pk for lesson in lessons])
    files = []
    for lesson in lessons:
        own = [q for q in questions if q.lesson_id == lesson.pk and (question_ids is None or q.pk in question_ids)]
        files.append(lesson_file_text(lesson=lesson, questions=own, base=bases.get(lesson.key)))
    return files


def lessons_dump(*, directory: Path | str, lesson_key: str | None = None) -> list[tuple[Path, bool]]:
    """Write every lesson (or the one with ``lesson_key``) into ``directory``; (path, written) per file, a file
    already holding the same text left untouched."""
    directory = Path(directory)
    lessons = Lesson.objects.order_by("order", "key")
    if lesson_key is not None:
        lessons = lessons.filter(key=lesson_key)
        if not lessons.exists():
            known = ", ".join(Lesson.objects.order_by("order", "key").values_list("key", flat=True)) or "none"
            raise DumpError(f"no lesson with key '{lesson_key}' (lessons: {known})")
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for file in lessons_yaml(lessons=lessons, directories=[directory]):
        path = directory / file.name
        same = path.is_file() and path.read_text(encoding="utf-8") == file.text
        if not same:
            path.write_text(file.text, encoding="utf-8")
        written.append((path, not same))
    return written
