"""Keys of imported questions and options, and where an imported question is known to come from.

* A question imported into lesson ``L`` gets the key ``L-moodle-<slug>``: ``<slug>`` from the question's
  ``<idnumber>`` when it has one (Moodle's stable id), else from its ``<name>`` — lowercase ASCII words joined by
  hyphens, with 6–8 hex digits of the text's SHA-256 added where letters had to be dropped (a Chinese name)
  or the key would be too long. The same file imported into the same lesson again gives the same keys, so a
  re-import updates those questions in place. The lesson key is the prefix (not ``l<order>``): it is stable
  forever, and unique, so keys of two lessons never meet.
* Export writes a question's ``<name>`` as its key without that prefix (:func:`moodle_name`), so export →
  import into the same lesson finds the same questions again, and a Moodle round trip keeps the keys.
* An option's key is ``o-`` and 8 hex digits of the SHA-256 of its text: an option whose text changes in
  Moodle is a new option here (the old one is deleted, or retired when learners saw it), never a key reused
  for another idea.

Provenance (issue 27, item 1) is not built yet: :func:`imported_from_moodle` is the one place that says a
question came from a Moodle import (today: its key has the lesson's ``-moodle-`` prefix). When questions record
their origin, this function reads that field instead, and the data migration marks the ``-moodle-`` keys.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata

from django.utils.text import slugify

from quizzes.content.models import Question

MAX_KEY = 100  # Question.key's max_length
INFIX = "-moodle-"
_SEPARATORS = re.compile(r"[\W_]+")


def prefix(lesson_key: str) -> str:
    return f"{lesson_key}{INFIX}"


def _digest(text: str, length: int) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:length]


def question_key(*, lesson_key: str, source: str) -> str | None:
    """The key a question named ``source`` gets in the lesson; None when the lesson key leaves no room."""
    budget = MAX_KEY - len(prefix(lesson_key))
    if budget < 12:
        return None
    source = unicodedata.normalize("NFC", source.strip())
    words = _SEPARATORS.sub(" ", source)  # "sqrt(d_k)" → "sqrt d k": punctuation separates words
    slug = slugify(words)
    if slug.startswith(prefix(lesson_key)):  # a name this lesson's export wrote with the prefix kept
        slug = slug[len(prefix(lesson_key)) :]
    if not slug:
        slug = f"q-{_digest(source, 8)}"
    elif slugify(words, allow_unicode=True) != slug:  # letters were dropped: keep the name's identity
        slug = f"{slug}-{_digest(source, 6)}"
    if len(slug) > budget:
        slug = f"{slug[: budget - 7].rstrip('-')}-{_digest(source, 6)}"
    return prefix(lesson_key) + slug


def option_key(text: str) -> str:
    """An option's key: its text's identity (see the module docstring)."""
    return f"o-{_digest(text, 8)}"


def moodle_name(question: Question) -> str:
    """The ``<name>`` an export writes: the key, without the lesson's ``-moodle-`` prefix when it has one."""
    start = prefix(question.lesson.key)
    return question.key[len(start) :] if question.key.startswith(start) else question.key


def imported_from_moodle(*, question: Question, lesson_key: str) -> bool:
    """Whether ``question`` came from a Moodle import into the lesson (the one provenance rule; module docstring).

    A re-import updates such a question in place; a key that exists without coming from an import here is a
    conflict the import reports.
    """
    return question.lesson.key == lesson_key and question.key.startswith(prefix(lesson_key))
