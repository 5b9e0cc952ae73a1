"""display.round_flat and fmt_many take shortcuts for speed; they must give what round() and format() give."""

import math
import random

from attention_engine.generators.display import fmt, fmt_many, round_flat


def test_round_flat_is_pythons_round_near_ties_and_far_from_them():
    rng = random.Random(25)
    values = [rng.uniform(-3, 3) for _ in range(20_000)] + [rng.random() for _ in range(20_000)]
    # exact and near ties at each number of decimals: 0.125, 2.675 (a float just below the tie), ...
    values += [k / 1000 + d for k in range(-3000, 3000, 7) for d in (0.0, 5e-4, -5e-4, 1e-17, -1e-17)]
    values += [0.0, -0.0, -0.001, 1e-300, 2.675, 0.125, 0.375, 1e9, -1e9, 1e12, 3, 7, True]
    values += [math.inf, -math.inf, math.nan]
    for decimals in (0, 1, 2, 3):
        expected = [round(v, decimals) + 0.0 for v in values]
        got = round_flat(values, decimals)
        for v, e, g in zip(values, expected, got, strict=True):
            if math.isnan(e):
                assert math.isnan(g)
                continue
            assert g == e and math.copysign(1, g) == math.copysign(1, e) and type(g) is type(e), (v, decimals)


def test_round_flat_significant_digits_and_no_negative_zero():
    assert round_flat([123456.0, 0.000123456, -0.0004], sig=3) == [123000.0, 0.000123, -0.0004]
    assert [math.copysign(1, x) for x in round_flat([-0.001, -0.0], 2)] == [1.0, 1.0]


def test_fmt_many_is_format_without_negative_zero_however_often_a_number_comes_back():
    values = [0.125, -0.001, 1.0, 2.5, -0.0, 1234.5678, 1e-7]
    for _ in range(3):  # the second and third time from the memo
        assert fmt_many(values, 2) == ["0.12", "0.00", "1.00", "2.50", "0.00", "1234.57", "0.00"]
        assert fmt_many(values, sig=3) == ["0.125", "-0.001", "1", "2.5", "0", "1.23e+03", "1e-07"]
        assert [fmt(v, 1) for v in values] == [format(v, ".1f").replace("-0.0", "0.0") for v in values]
