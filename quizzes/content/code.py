"""Code questions (issue 15): which checker spec a question uses, and whether it is usable.

A code question stores its spec in ``Question.code_spec`` as either

* a **built-in key** (a JSON string such as ``"sdpa_three_lines"``): the spec lives in
  ``attention_engine.codecheck.specs`` with its tests (reference, equivalent spellings, each
  misconception written as code). Our lesson files use these: the engine's tests then guard the
  card, and a spec fix reaches every learner without a content edit; or
* a **whole spec** (a JSON object, ``QuestionSpec.to_dict()``): an admin can author a new drill
  without a release. It is checked with ``validate_spec`` before it is saved (the reference runs,
  every equivalent spelling passes, every misconception is named) and runs in the same sandbox.

The wording (prompt, explanation) stays on the question, in Chinese; the spec holds no prose for
learners. Nothing here touches the database: the validation module and the services call it.
"""

from __future__ import annotations

from typing import Any

from attention_engine import codecheck
from attention_engine.codecheck import QuestionSpec

#: The longest code answer a learner may send, everywhere (the page's form, the API's answer and pack-upload
#: fields, the answer service): the checker's hard source bound, one constant.
MAX_CODE_CHARS = codecheck.MAX_SOURCE_CHARS

#: Every grading uses this input seed: the checker caches its reference outputs per (spec, seed), and
#: a fixed seed keeps a retake's worked example comparable with the last one (the code is what changes).
GRADING_SEED = 0


class CodeSpecError(ValueError):
    """``code_spec`` names no usable spec; the message says why (for the admin and the loader)."""


def spec_from_field(value: Any) -> QuestionSpec:
    """The spec a ``code_spec`` value stands for; CodeSpecError when it stands for none."""
    if isinstance(value, str):
        try:
            return codecheck.get(value)
        except KeyError:
            raise CodeSpecError(
                f"unknown built-in code spec {value!r}; known: {', '.join(codecheck.names())}"
            ) from None
    if isinstance(value, dict):
        try:
            return QuestionSpec.from_dict(value)
        except (ValueError, TypeError, KeyError) as exc:
            raise CodeSpecError(f"the spec cannot be read: {exc}") from None
    raise CodeSpecError("a code spec is a built-in key (text) or a whole spec (a JSON object)")


_CHECKED: dict[str, tuple[str, ...]] = {}  # spec digest -> its problems (a spec is immutable)


def _problems(spec: QuestionSpec) -> tuple[str, ...]:
    found = _CHECKED.get(spec.digest)
    if found is None:
        if len(_CHECKED) > 256:
            _CHECKED.clear()
        found = _CHECKED[spec.digest] = tuple(codecheck.validate_spec(spec))
    return found


def code_spec_problems(value: Any) -> list[str]:
    """Why ``value`` is not a usable code spec ([] = usable): unreadable, or its own checks fail."""
    try:
        spec = spec_from_field(value)
    except CodeSpecError as exc:
        return [str(exc)]
    return list(_problems(spec))
