"""The column helpers against numpy's own answers (issue 27, item 5)."""

from __future__ import annotations

import numpy as np
import pytest

from quizzes.item_statistics import measures


@pytest.mark.parametrize("high", [50, 10**12])  # a short range (numbered by presence) and a wide one (sorted)
def test_dense_codes_number_values_as_np_unique_does(high):
    values = np.random.default_rng(3).integers(7, high, size=5000)
    expected_found, expected_inverse = np.unique(values, return_inverse=True)
    found, inverse = measures.dense_codes(values)
    assert np.array_equal(found, expected_found)
    assert np.array_equal(inverse, expected_inverse.reshape(-1))


def test_dense_codes_of_nothing_is_nothing():
    found, inverse = measures.dense_codes(np.zeros(0, dtype=np.int64))
    assert found.size == 0 and inverse.size == 0


def test_two_proportion_z_matches_the_textbook_formula():
    # 12/40 against 32/40: pooled p = 44/80, SE = sqrt(p(1 − p)(1/40 + 1/40))
    p = 44 / 80
    assert measures.two_proportion_z(12 / 40, 40, 32 / 40, 40) == pytest.approx((0.8 - 0.3) / np.sqrt(p * (1 - p) / 20))
    assert measures.two_proportion_z(1.0, 30, 1.0, 30) is None  # everyone right on both: no spread


def test_group_order_sorts_as_lexsort_does_with_nan_last_in_each_group():
    rng = np.random.default_rng(5)
    group = rng.integers(0, 300, size=4000)
    values = np.round(rng.lognormal(2.0, 1.0, size=4000), 1)  # ties, and a few NaN (skips)
    values[rng.random(4000) < 0.1] = np.nan
    expected = np.lexsort((values, group))  # numpy puts NaN last
    order = measures.group_order(group, values)
    assert np.array_equal(group[order], group[expected])
    assert np.array_equal(values[order], values[expected], equal_nan=True)
