"""The speed versions (issue 25's 5,000 variants/s): the same questions as the version before, computed in
plain python instead of numpy on their handful of numbers.

For every seed the new version shows what the old one showed (the same inputs, prompt and options), and
its numbers (answer, worked steps, distractors) agree with numpy recomputing them here from the shown
inputs, to float precision: math.exp and np.exp may differ in the last bit.
"""

import math
from functools import cache

import numpy as np
import pytest

from attention_engine import generators

SEEDS = range(300)
TIGHT = 1e-12  # float precision on numbers of order 1 (the l_1 of online_softmax is exact: shown to 3 dp)
# (template, the version it speeds up, the speed version)
SPEED_VERSIONS = [("stable_softmax", 2, 3), ("online_softmax", 2, 3)]
IDS = [f"{name}-v{new}" for name, _, new in SPEED_VERSIONS]


@cache
def variants(name: str, version: int) -> tuple:
    return tuple(generators.generate(name, seed, version=version) for seed in SEEDS)


def close(a, b) -> bool:
    return np.allclose(np.asarray(a, dtype=float), np.asarray(b, dtype=float), rtol=TIGHT, atol=TIGHT)


@pytest.mark.parametrize(("name", "old", "new"), SPEED_VERSIONS, ids=IDS)
def test_the_speed_version_shows_what_the_version_before_showed(name, old, new):
    assert generators.get(name).version == new  # the default for new questions
    for before, after in zip(variants(name, old), variants(name, new), strict=True):
        assert after.version == new and after.seed == before.seed
        assert after.given == before.given and after.prompt == before.prompt
        assert after.answer_format == before.answer_format
        assert [c.to_dict() for c in after.choices] == [c.to_dict() for c in before.choices]
        assert close(after.answer, before.answer)
        for s_after, s_before in zip(after.solution, before.solution, strict=True):
            assert (s_after.name, s_after.formula, s_after.shape) == (s_before.name, s_before.formula, s_before.shape)
            assert s_after.misconception == s_before.misconception
            assert (s_after.value is None) == (s_before.value is None)
            if s_after.value is not None:
                assert close(s_after.value, s_before.value)


def softmax(x):
    e = np.exp(x - x.max())
    return e / e.sum()


def test_stable_softmax_v3_numbers_are_numpys():
    for v in variants("stable_softmax", 3):
        x = np.array(v.given["x"])  # (n,)
        e = np.exp(x - x.max())
        shifted, exps, total, weights = (s.value for s in v.solution[1:])
        assert close(shifted, x - x.max()) and close(exps, e) and close(total, e.sum()) and close(weights, e / e.sum())
        assert close(v.answer, softmax(x))
        limit = math.log(np.finfo(v.given["dtype"]).max)
        clamp = math.floor(limit)
        expected = {
            "clamp_logits": softmax(np.minimum(x, clamp)),
            "standardised_logits": softmax((x - x.mean()) / x.std()),
            "minmax_scaled_logits": softmax((x - x.min()) / (x.max() - x.min())),
        }
        for c in v.choices:
            shown = np.round(expected[c.misconception], 2) if c.misconception else np.round(softmax(x), 2)
            assert np.allclose(c.value, shown, atol=0.005 + 1e-9), (v.seed, c.misconception)


def test_online_softmax_v3_numbers_are_numpys():
    for v in variants("online_softmax", 3):
        g = v.given
        t1, t2 = np.array(g["tile_1"]), np.array(g["tile_2"])  # (n,) each
        assert g["m_1"] == t1.max() and g["l_1"] == round(float(np.exp(t1 - t1.max()).sum()), 3)
        m_2 = max(g["m_1"], t2.max())
        new = np.exp(t2 - m_2)  # (n,)
        l_2 = g["l_1"] * np.exp(g["m_1"] - m_2) + new.sum()
        w = np.exp(t1[g["key"] - 1] - m_2) / l_2
        values = [s.value for s in v.solution]
        assert close(values[0], [g["m_1"], g["l_1"]]) and values[1] == m_2
        assert close(values[2], g["l_1"] * np.exp(g["m_1"] - m_2)) and close(values[3], new)
        assert close(values[4], l_2) and close(values[5], w)
        assert close(v.answer, [m_2, l_2, w])
