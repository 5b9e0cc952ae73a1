"""The one number grammar (issue 26): a cell (``parse_cell``) and a list of cells (a text ``grade`` reads).

The web's answer grid, the API, the offline packs and the admin preview all read a typed number through
``attention_engine.generators.parse_cell``; these tables are that grammar, decision by decision.
"""

from __future__ import annotations

import pytest

from attention_engine import generators
from attention_engine.generators import Unreadable, grade, parse_cell
from tests.attention_engine.test_grading import variant

# (typed, the number it is) — accepted in a cell
CELLS_READ = [
    ("0.25", 0.25),
    (" -1.5 ", -1.5),
    ("+2", 2.0),
    (".5", 0.5),
    ("1.", 1.0),
    ("1e-3", 0.001),
    ("2.5E+4", 25000.0),
    ("１２．５", 12.5),  # full-width digits and point (NFKC)
    ("－１", -1.0),  # full-width hyphen-minus
    ("−0.5", -0.5),  # U+2212 MINUS SIGN
    ("1 000", 1000.0),  # a space groups thousands, groups of three
    ("12 345.5", 12345.5),
    ("-1 000 000", -1e6),
    ("1\u202f000", 1000.0),  # narrow no-break space
    ("1\u00a0000", 1000.0),  # no-break space
    ("1\u2009000", 1000.0),  # thin space
]

# (typed, code, reason) — refused in a cell
CELLS_REFUSED = [
    ("1,5", "ambiguous", "comma"),  # 1.5 in much of the world, 15 or two values elsewhere
    ("1,000", "ambiguous", "comma"),  # a thousand, or one
    ("0,55", "ambiguous", "comma"),
    ("１，５", "ambiguous", "comma"),  # a full-width comma is a comma
    ("50%", "ambiguous", "percent"),  # 0.5 as a weight, 50 as a percentage: the question decides, not the text
    ("50 %", "ambiguous", "percent"),
    ("５０％", "ambiguous", "percent"),
    ("zero", "unreadable", ""),
    ("1/2", "unreadable", ""),
    ("1_000", "unreadable", ""),  # Python's float() reads it; a learner's number does not
    ("0x1f", "unreadable", ""),
    ("1 00", "unreadable", ""),  # not groups of three
    ("10 00", "unreadable", ""),
    ("1 000,5", "ambiguous", "comma"),
    ("--1", "unreadable", ""),
    ("inf", "not_finite", ""),
    ("nan", "not_finite", ""),
    ("-Infinity", "not_finite", ""),
    ("1e400", "not_finite", ""),
    ("", "empty", ""),
    ("   ", "empty", ""),
]


@pytest.mark.parametrize(("typed", "value"), CELLS_READ)
def test_a_cell_reads(typed, value):
    assert parse_cell(typed) == pytest.approx(value)


@pytest.mark.parametrize(("typed", "code", "reason"), CELLS_REFUSED)
def test_a_cell_refuses_with_a_reason(typed, code, reason):
    with pytest.raises(Unreadable) as caught:
        parse_cell(typed)
    assert (caught.value.code, caught.value.reason) == (code, reason)


SINGLE = variant(1000.0)
PAIR = variant([1.0, 5.0])
MATRIX = variant([[1.0, 0.0], [0.0, 1.0]])

# (variant, typed, correct, code): a text of several numbers — the delimiters win over the separators
LISTS = [
    # a single-number answer: the whole text is one cell, so separators that are list delimiters are allowed
    (SINGLE, "1 000", True, "correct"),
    (SINGLE, "[1 000]", True, "correct"),
    (SINGLE, "１０００", True, "correct"),
    (SINGLE, "1,000", False, "ambiguous"),
    (SINGLE, "1000%", False, "ambiguous"),
    (SINGLE, "1000 1000", False, "wrong_shape"),  # not one number (not groups of three): read as a list
    (SINGLE, "1000, 1000", False, "wrong_shape"),
    (SINGLE, [1000, 1000], False, "wrong_shape"),
    (SINGLE, "a thousand", False, "unreadable"),
    # several numbers: "," "，" "、" and spaces separate values, so a comma or a space is never inside one
    (PAIR, "1,5", True, "correct"),
    (PAIR, "1 5", True, "correct"),
    (PAIR, "1、5", True, "correct"),
    (PAIR, "１，５", True, "correct"),
    (PAIR, "[1, 5]", True, "correct"),
    (PAIR, "−1, 5", False, "partly_correct"),
    (PAIR, "1 000", False, "partly_correct"),  # two values, 1 and 0 (then 0 0) — not a thousand
    (PAIR, "1%, 5%", False, "ambiguous"),
    (PAIR, ["1 000", "5"], False, "partly_correct"),  # a JSON string is one cell: 1000 and 5
    (MATRIX, "1 0; 0 1", True, "correct"),
    (MATRIX, "1，0；0，1", True, "correct"),
    (MATRIX, "[[1, 0], [0, 1]]", True, "correct"),
    (MATRIX, "1 0\n0 1", True, "correct"),
    (MATRIX, "1,0;0,1", True, "correct"),
]


@pytest.mark.parametrize(("v", "typed", "correct", "code"), LISTS)
def test_a_text_of_numbers(v, typed, correct, code):
    result = grade(v, typed)
    assert (result.correct, result.code) == (correct, code)


def test_an_ambiguous_text_says_why_in_its_params():
    assert grade(SINGLE, "1,000").params == {"token": "1,000", "reason": "comma", "expected": []}
    assert grade(PAIR, "1%, 5%").params == {"token": "1%", "reason": "percent", "expected": [2]}


@pytest.mark.parametrize(
    ("typed", "correct", "code"),
    [
        ("15, 5, 67%", True, "correct"),  # the seed's own answer (001): a question asking for a percentage
        ("15, 5, 67 %", True, "correct"),
        ("15, 5, ６７％", True, "correct"),
        ("15, 5, 67", True, "correct"),
        ("15, 5, 50%", False, "partly_correct"),
        ("15, 5, 67%%", False, "ambiguous"),
    ],
)
def test_a_percentage_question_takes_its_unit(typed, correct, code):
    """Where the template asks for a percentage (kv_cache_savings' saving) one trailing "%" is the unit, as the
    web's grid and the API read it; elsewhere "50%" stays ambiguous (above)."""
    savings = generators.generate("kv_cache_savings", 0, n_steps=5)
    result = grade(savings, typed)
    assert (result.correct, result.code) == (correct, code)
