"""The lesson files' schema, written once: which YAML keys a lesson, a question and an option have, the column
each one fills, and how a file's value becomes the column's value.

Both directions use it: the loader (quizzes.content.reader) reads a file with :func:`read_value`, reporting the
problem it returns, and the dumper (quizzes.content.dumper) writes a row's columns under these keys, in this
order, and compares a file's value with a row's through the same :func:`read_value`, so a value the loader
would read as the row holds it is left as it is written. The fields' order is the order a freshly written file
lists them in.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from quizzes.content.validation import newest_template_version

QUESTIONS = "questions"  # the lesson's list of questions
OPTIONS = "options"  # a choice question's list of options

KINDS = ("choice", "numeric", "prompt", "recall", "code", "number")  # Question.Kind's values, in its order
ALL_KINDS = frozenset(KINDS)


@dataclass(frozen=True)
class FileField:
    """One YAML key of a lesson, question or option, and the model column it fills.

    ``name`` is None for a column the file gives by position (a question's or an option's ``order``).
    ``read`` names the reading rule of :func:`read_value`; an absent optional key means ``default``. A question
    field applies to ``kinds`` only (the others hold the column's empty value).
    """

    name: str | None
    column: str
    read: str
    required: bool = False
    default: Any = None
    kinds: frozenset[str] = ALL_KINDS


def _kinds(*names: str) -> frozenset[str]:
    return frozenset(names)


LESSON_SCHEMA: tuple[FileField, ...] = (
    FileField("key", "key", "key", required=True),
    FileField("title", "title", "text", required=True),
    FileField("order", "order", "order", required=True),
    FileField("summary", "summary", "text", default=""),
    FileField("published", "published", "flag", default=True),
    FileField("teaching", "teaching", "teaching", default=[]),
)

QUESTION_SCHEMA: tuple[FileField, ...] = (
    FileField("key", "key", "key", required=True),
    FileField("kind", "kind", "kind", required=True),
    FileField("template", "template", "text", required=True, kinds=_kinds("numeric")),
    FileField("template_version", "template_version", "version", kinds=_kinds("numeric")),
    FileField("fixed_seed", "fixed_seed", "seed", kinds=_kinds("numeric")),
    FileField("generated_from", "generated_from", "source", kinds=_kinds("numeric")),  # by the source's key
    FileField("params", "params", "mapping", default={}, kinds=_kinds("numeric")),
    FileField("answer_form", "answer_form", "text", required=True, kinds=_kinds("numeric")),
    FileField("code_spec", "code_spec", "spec", required=True, kinds=_kinds("code")),
    FileField("replaces", "replaces_key", "text", default="", kinds=_kinds("code")),
    FileField("prompt", "prompt", "text", required=True),
    FileField("explanation", "explanation", "text", default=""),
    FileField(None, "order", "position"),
    FileField("published", "published", "flag", default=True),
    FileField(OPTIONS, OPTIONS, "options", kinds=_kinds("choice")),
    FileField("reference_answer", "reference_answer", "text", required=True, kinds=_kinds("prompt")),
    FileField("rubric", "rubric", "texts", required=True, kinds=_kinds("prompt")),
    FileField("expected_lines", "expected_lines", "texts", required=True, kinds=_kinds("recall")),
    FileField("answer", "number_answer", "number", required=True, kinds=_kinds("number")),
    FileField("tolerance", "number_tolerance", "number", default=0.0, kinds=_kinds("number")),
    FileField("unit", "number_unit", "text", default="", kinds=_kinds("number")),
)

OPTION_SCHEMA: tuple[FileField, ...] = (
    FileField("key", "key", "key", required=True),
    FileField("text", "text", "text", required=True),
    FileField("correct", "is_correct", "flag", default=False),
    FileField(None, "order", "position"),
    FileField("feedback", "feedback", "text", default=""),
    FileField("retired", "retired", "flag", default=False),
)


def row_value(spec: FileField, row: Any) -> Any:
    """A row's column as a file gives it: a generated question's source by its key (the files name no ids)."""
    if spec.read == "source":
        source = row.generated_from
        return source.key if source is not None else None
    return getattr(row, spec.column)


def file_keys(schema: tuple[FileField, ...], *extra: str) -> set[str]:
    """The YAML keys a mapping of this schema may have."""
    return {f.name for f in schema if f.name is not None} | set(extra)


def managed_columns(schema: tuple[FileField, ...]) -> tuple[str, ...]:
    """The columns an import writes from the files (all but the key and the nested lists): what
    quizzes.content.ownership hashes to tell an admin's edit from the import's."""
    return tuple(f.column for f in schema if f.read not in {"key", "options"})


def kind_fields(schema: tuple[FileField, ...] = QUESTION_SCHEMA) -> dict[str, set[str]]:
    """Per question kind, the YAML keys only that kind has."""
    return {kind: {f.name for f in schema if f.name and f.kinds != ALL_KINDS and kind in f.kinds} for kind in KINDS}


# ---------------------------------------------------------------------------- reading a value


def read_value(spec: FileField, data: Mapping[str, Any], *, template: str = "") -> tuple[Any, str | None]:
    """The column's value for the file's ``data[spec.name]`` and the problem with it, if any (then the value is a
    harmless stand-in). ``template`` is the question's template (the default of ``template_version``)."""
    name = spec.name or spec.column
    value = data.get(name, spec.default) if spec.read == "flag" else data.get(name)  # `published:` alone is wrong
    reader = _READERS[spec.read]
    return reader(spec, name, value, template)


def _text(spec: FileField, name: str, value: Any, _template: str) -> tuple[Any, str | None]:
    if value is None:
        return ("", f"'{name}' is required") if spec.required else (spec.default, None)
    if not isinstance(value, str):
        return "", f"'{name}' must be text, got {type(value).__name__} {value!r} (quote it in YAML)"
    return value.strip(), None


def _texts(spec: FileField, name: str, value: Any, _template: str) -> tuple[Any, str | None]:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        return [], f"'{name}' must be a list of texts"
    return [item.rstrip() for item in value], None


def _flag(spec: FileField, name: str, value: Any, _template: str) -> tuple[Any, str | None]:
    if not isinstance(value, bool):
        return spec.default, f"'{name}' must be true or false, got {value!r}"
    return value, None


def _number(spec: FileField, name: str, value: Any, _template: str) -> tuple[Any, str | None]:
    """A YAML number (int or float; true/false and quoted text are refused)."""
    if value is None:
        return spec.default, (f"'{name}' is required" if spec.required else None)
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None, f"'{name}' must be a number, got {value!r}"
    try:
        return float(value), None
    except OverflowError:
        return None, f"'{name}' is too large for a number"


def _order(spec: FileField, name: str, value: Any, _template: str) -> tuple[Any, str | None]:
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        return 0, f"'{name}' must be a non-negative integer, got {value!r}"
    return value, None


def _version(spec: FileField, name: str, value: Any, template: str) -> tuple[Any, str | None]:
    """The file's version, default the template's newest (None for an unknown template)."""
    if value is None:
        return newest_template_version(template), None
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        return newest_template_version(template), f"'{name}' must be a positive whole number, got {value!r}"
    return value, None


def _seed(spec: FileField, name: str, value: Any, _template: str) -> tuple[Any, str | None]:
    """Every learner gets this seed's variant (a generation job's question); absent: a fresh seed per attempt."""
    if value is None:
        return None, None
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        return None, f"'{name}' must be a non-negative whole number, got {value!r}"
    return value, None


def _source(spec: FileField, name: str, value: Any, _template: str) -> tuple[Any, str | None]:
    """The key of the numeric question a generation job made this one from; absent: none. The reader finds the
    question (in the files or the database) once every file is read."""
    if value is None:
        return None, None
    if not isinstance(value, str) or not value.strip():
        return None, f"'{name}' must be the key of the question this one was generated from, got {value!r}"
    return value.strip(), None


def _mapping(spec: FileField, name: str, value: Any, _template: str) -> tuple[Any, str | None]:
    if value is None:
        return {}, None
    if not isinstance(value, dict):
        return {}, f"'{name}' must be a mapping, got {value!r}"
    return value, None


def _spec(spec: FileField, name: str, value: Any, _template: str) -> tuple[Any, str | None]:
    """A built-in key (text) or a whole spec (a mapping); the model's validation checks the spec is usable."""
    if isinstance(value, str) and value.strip():
        return value.strip(), None
    if isinstance(value, dict):
        return value, None
    return None, f"'{name}' must be a built-in spec key or a mapping (a whole spec)"


def _verbatim(spec: FileField, name: str, value: Any, _template: str) -> tuple[Any, str | None]:
    """Read elsewhere (keys, kind, the teaching text, nested lists): the value as the file has it."""
    return value, None


_READERS = {
    "text": _text,
    "texts": _texts,
    "flag": _flag,
    "number": _number,
    "order": _order,
    "version": _version,
    "seed": _seed,
    "source": _source,
    "mapping": _mapping,
    "spec": _spec,
    "key": _verbatim,
    "kind": _verbatim,
    "teaching": _verbatim,
    "options": _verbatim,
    "position": _verbatim,
}
