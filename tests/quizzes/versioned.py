"""A throw-away generator template with two versions, registered in the engine for one test.

Version 1 asks for a + b; version 2 asks for 10·a + b, renames the param ``scale`` to ``factor`` and
says how to type the answer in ``answer_format`` (like the engine's real v2s): so a test can tell
from the numbers alone which version generated a variant.
"""

from __future__ import annotations

import pytest

from attention_engine import generators
from attention_engine.generators.base import ParamSpec, Solution, Template, specs, step

NAME = "test_versioned"
V2_ANSWER_FORMAT = "写出一个整数"


class _Versioned(Template):
    name = NAME
    title_zh = "测试模板"
    title_en = "Test template"
    source = "000"
    decimals = 0
    param = "scale"

    def draw(self, rng, p):
        return {"a": int(rng.integers(1, 50)), "b": int(rng.integers(1, 50)), "k": p[self.param] or 1}

    def answer(self, inputs) -> int:
        raise NotImplementedError

    def solve(self, inputs):
        answer = self.answer(inputs)
        distractors = [
            ("no_head_split", answer + 1),
            ("heads_multiply_width", answer * 2),
            ("missing_scale", answer - 1),
        ]
        return Solution(answer, distractors, [step("算", f"{answer}", answer)])

    def prompt(self, inputs):
        return f"$a = {inputs['a']}$，$b = {inputs['b']}$，$k = {inputs['k']}$。"


class VersionOne(_Versioned):
    version = 1
    params = specs(ParamSpec("scale", None, 1, 3))

    def answer(self, inputs) -> int:
        return (inputs["a"] + inputs["b"]) * inputs["k"]


class VersionTwo(_Versioned):
    version = 2
    params = specs(ParamSpec("factor", None, 1, 3))
    param = "factor"

    def answer(self, inputs) -> int:
        return (10 * inputs["a"] + inputs["b"]) * inputs["k"]

    def answer_format(self, inputs) -> str:
        return V2_ANSWER_FORMAT


def v1_answer(variant: dict) -> int:
    given = variant["given"]
    return (given["a"] + given["b"]) * given["k"]


def v2_answer(variant: dict) -> int:
    given = variant["given"]
    return (10 * given["a"] + given["b"]) * given["k"]


@pytest.fixture
def versioned_template(monkeypatch):
    """Register ``test_versioned`` with versions 1 and 2 (the newest is 2) for the duration of a test."""
    monkeypatch.setitem(generators._TEMPLATES, NAME, {1: VersionOne(), 2: VersionTwo()})
    return NAME


@pytest.fixture
def versioned_template_v1_only(monkeypatch):
    """``test_versioned`` as it was before version 2 existed."""
    monkeypatch.setitem(generators._TEMPLATES, NAME, {1: VersionOne()})
    return NAME
