"""The one item presenter (quizzes.practice.presenter): before the lock, a whitelist; after it, the reveal.

The item page, the API and the admin preview all show what this module builds, so its promise is checked
here once: before an item locks, every key of its view is one the whitelist names, and nothing about
correctness (the correct option, feedback, the explanation, the answer, the distractors' misconceptions,
the worked solution) is in it — not even when the stored question or variant carries more fields.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.utils import translation

from quizzes.practice.presenter import (
    BEFORE_LOCK,
    numeric_view,
    option_from_handle,
    option_handle,
    present_item,
    shape_text,
    solution_steps,
)
from quizzes.practice.services import attempt_start, item_answer
from tests import factories

pytestmark = pytest.mark.django_db

#: Key names that carry correctness; none may appear in a before-lock view.
ANSWER_KEYS = {
    "is_correct",
    "correct",
    "feedback",
    "explanation",
    "answer",
    "misconception",
    "solution",
    "result",
    "response",
    "correct_option_id",
    "correct_choice_index",
    "option_id",
}


def key_paths(data: Any, spec: Any, path: str = "$") -> list[str]:
    """Paths of keys in ``data`` that ``spec`` (the whitelist's shape) does not name."""
    outside: list[str] = []
    if isinstance(data, dict):
        for key, value in data.items():
            if not isinstance(spec, dict) or key not in spec:
                outside.append(f"{path}.{key}")
            else:
                outside.extend(key_paths(value, spec[key], f"{path}.{key}"))
    elif isinstance(data, list):
        for index, value in enumerate(data):
            outside.extend(key_paths(value, spec[0] if isinstance(spec, list) else None, f"{path}[{index}]"))
    return outside


def all_keys(data: Any) -> set[str]:
    if isinstance(data, dict):
        return set(data) | {k for v in data.values() for k in all_keys(v)}
    if isinstance(data, list):
        return {k for v in data for k in all_keys(v)}
    return set()


def strings(data: Any) -> list[str]:
    if isinstance(data, dict):
        return [s for v in data.values() for s in strings(v)]
    if isinstance(data, list):
        return [s for v in data for s in strings(v)]
    return [str(data)] if isinstance(data, str) else []


def before_lock(view: dict[str, Any]) -> dict[str, Any]:
    assert view["response"] is None and view["result"] is None and "reveal" not in view
    return {k: v for k, v in view.items() if k not in ("response", "result")}


@pytest.fixture
def items(user, lesson):
    """One item of each kind: a choice question, a typed numeric and a numeric answered by choosing."""
    factories.ChoiceQuestionFactory(lesson=lesson, order=1, explanation="因为方差是 d_k。")
    factories.NumericQuestionFactory(lesson=lesson, order=2, answer_form="input")
    factories.NumericQuestionFactory(lesson=lesson, order=3, answer_form="choice", template="causal_masked_weights")
    attempt = attempt_start(user=user, lesson=lesson)
    return list(attempt.items.select_related("question").prefetch_related("question__options").order_by("position"))


def test_before_the_lock_every_key_is_whitelisted_and_none_carries_the_answer(items):
    for item in items:
        view = before_lock(present_item(item=item))
        assert key_paths(view, BEFORE_LOCK) == [], item.question.kind
        assert not all_keys(view) & ANSWER_KEYS, item.question.kind
        texts = " ".join(strings(view))
        for option in item.question.options.all():
            assert option.feedback not in texts
        assert item.question.explanation not in texts


def test_extra_fields_on_the_question_or_the_variant_never_reach_the_view(items):
    """Built from a whitelist: a field added to the stored data later cannot leak by accident."""
    numeric = items[2]
    numeric.variant = {**numeric.variant, "secret_answer": [0.5, 0.5]}
    numeric.variant["choices"] = [{**choice, "leak": "here"} for choice in numeric.variant["choices"]]
    numeric.question.reference_answer = "the reference"
    view = before_lock(present_item(item=numeric))
    assert "secret_answer" not in all_keys(view) and "leak" not in all_keys(view)
    assert "here" not in strings(view) and "the reference" not in strings(view)
    choices = view["numeric"]["choices"]
    assert len(choices) == len(numeric.variant["choices"]) >= 2
    assert all(set(choice) == set(BEFORE_LOCK["numeric"]["choices"][0]) for choice in choices)


def test_options_come_in_the_items_order_under_opaque_handles(items):
    item = items[0]
    view = present_item(item=item)
    assert [o["number"] for o in view["options"]] == [1, 2, 3, 4]
    handles = [o["handle"] for o in view["options"]]
    assert [option_from_handle(item=item, handle=h) for h in handles] == item.option_order
    for handle, option_id in zip(handles, item.option_order, strict=True):
        assert len(handle) == 16 and int(handle, 16) >= 0 and handle != str(option_id)


def test_answer_format_only_for_typed_answers(items):
    typed, chosen = items[1], items[2]
    assert present_item(item=typed)["numeric"]["answer_format"] == typed.variant["answer_format"]
    assert present_item(item=chosen)["numeric"]["answer_format"] == ""


def test_after_the_lock_the_result_names_handles_and_words_the_message_in_the_requests_language(user, items):
    choice, typed = items[0], items[1]
    correct = choice.question.options.get(is_correct=True)
    locked = item_answer(user=user, item=choice, option_id=correct.pk).item
    view = present_item(item=locked, reveal=True)
    handle = option_handle(item_id=locked.pk, option_id=correct.pk)
    assert view["result"]["correct_option_id"] == view["result"]["chosen_option_id"] == handle
    assert view["response"] == {"option_id": handle}
    assert [o["correct"] for o in view["options"]].count(True) == 1
    assert "因为方差是 d_k" in view["reveal"]["explanation_html"]

    locked = item_answer(user=user, item=typed, value=[0.0] * len(typed.variant["answer"])).item
    with translation.override("zh-hans"):
        chinese = present_item(item=locked, reveal=True)
    english = present_item(item=locked, reveal=True)
    assert chinese["result"]["message_display"] != english["result"]["message_display"]
    assert chinese["reveal"]["grade_message"] == chinese["result"]["message_display"]
    (n,) = typed.variant["answer_shape"]  # a vector: printed (n,), as Python prints a 1-tuple
    assert [step["shape_text"] for step in english["reveal"]["steps"]] == [f"({n},)"] * 3


def test_shapes_print_as_python_prints_them():
    assert shape_text([3]) == "(3,)"
    assert shape_text([2, 3]) == "(2, 3)"
    assert shape_text([2, 3, 4]) == "(2, 3, 4)"
    assert shape_text([]) == "scalar"
    steps = solution_steps([{"name": "s", "formula": "", "value": [1.0, 2.0], "shape": [2]}])
    assert steps[0]["shape_text"] == "(2,)" and steps[0]["formula_html"] == ""


def test_the_admin_preview_shows_the_same_numeric_view(items):
    """numeric_view of a variant is the item's numeric part: what the admin's preview shows the learner sees."""
    item = items[1]
    assert numeric_view(question=item.question, variant=item.variant) == present_item(item=item)["numeric"]
