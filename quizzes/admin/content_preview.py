"""A question previewed in the admin as the learner sees it (the item presenter's views), with its answer key."""

from __future__ import annotations

from typing import Any

from quizzes.content.models import Question
from quizzes.core.figures import solution_heatmap
from quizzes.core.rendering import render_value
from quizzes.practice.presenter import code_view, numeric_view, shape_text, solution_steps


def code_preview(question: Question) -> dict[str, Any]:
    """The editor page's parts (the presenter's before-lock view) and the answer key: the reference, the
    equivalent spellings that must pass and each misconception's code with the name it is given."""
    from attention_engine import misconceptions
    from quizzes.content.code import CodeSpecError, spec_from_field

    try:
        spec = spec_from_field(question.code_spec)
    except CodeSpecError as exc:
        return {"code_error": str(exc)}
    return {
        "code": code_view(question=question),
        "code_reference": spec.reference,
        "code_equivalents": list(spec.equivalents),
        "code_misconceptions": [
            {"id": m.id, "title": (misconceptions.describe(m.id) or {}).get("title_en", m.id), "code": m.code}
            for m in spec.misconceptions
        ],
    }


def numeric_preview(question: Question, seed: int) -> dict[str, Any]:
    """Generate the variant for ``seed``: what the learner sees (the item presenter's numeric view), then the
    answer key (answer, every choice with the misconception behind it, the worked solution)."""
    from attention_engine import generators, misconceptions

    try:
        variant = generators.generate(
            question.template, seed, version=question.template_version, **(question.params or {})
        )
    except (KeyError, ValueError, ArithmeticError) as exc:
        return {"variant_error": str(exc) or type(exc).__name__}
    data = variant.to_dict()
    shown = numeric_view(question=question, variant=data) or {}
    choices = []
    for index, choice in enumerate(variant.choices):
        label, why = "", ""
        if choice.misconception:
            try:
                known = misconceptions.get(choice.misconception)
                label, why = known.title_zh, known.explanation_zh
            except KeyError:
                label = choice.misconception
        choices.append(
            {
                "letter": "ABCDEFGHIJ"[index] if index < 10 else str(index + 1),
                "value_html": render_value(choice.value, display=True),
                "shown_as": choice.label_zh,
                "correct": choice.misconception is None,
                "misconception": choice.misconception,
                "label": label,
                "why": why,
            }
        )
    return {
        "variant": variant,
        "template": generators.get(question.template, question.template_version),
        "variant_prompt_html": shown.get("prompt_html", ""),
        "answer_format_html": shown.get("answer_format_html", ""),  # only when the learner types the answer
        "given": [{"name": g["name"], "value_html": render_value(g["value"])} for g in shown.get("given", [])],
        "answer_html": render_value(variant.answer, display=True),
        "answer_shape": shape_text(variant.answer_shape),
        "choices": choices,
        "steps": solution_steps(data["solution"], display=True),
        "heatmap_svg": solution_heatmap(data),
    }
