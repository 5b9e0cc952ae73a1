"""grade(): shape first, then per-element tolerance, partial credit per row, never raising on learner input."""

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attention_engine.generators import GradeResult, Variant, grade


def variant(answer, atol=0.01, rtol=0.0) -> Variant:
    return Variant(
        template="t",
        version=1,
        seed=0,
        params={},
        prompt="",
        given={},
        answer=answer,
        answer_shape=np.shape(answer),
        atol=atol,
        rtol=rtol,
    )


SCALAR = variant(0.35, atol=0.0, rtol=0.05)
VECTOR = variant([0.54, 0.46])
MATRIX = variant([[1.0, 0.0, 0.0], [0.4, 0.6, 0.0], [0.25, 0.3, 0.45]])


@pytest.mark.parametrize(
    ("v", "response", "message"),
    [
        (MATRIX, "1, 0, 0", "expected a 3×3 matrix, got 3 values"),
        (MATRIX, [1, 0, 0, 0.4, 0.6, 0, 0.25, 0.3, 0.45], "expected a 3×3 matrix, got 9 values"),
        (MATRIX, "1, 0; 0.4, 0.6", "expected a 3×3 matrix, got a 2×2 matrix"),
        (MATRIX, "1, 0, 0; 0.4, 0.6; 0.25, 0.3, 0.45", "expected a 3×3 matrix, got rows of lengths 3, 2, 3"),
        (VECTOR, 0.54, "expected 2 values, got 1 value"),
        (VECTOR, "0.54, 0.46, 0", "expected 2 values, got 3 values"),
        (VECTOR, [[0.54, 0.46], [0.1, 0.2]], "expected 2 values, got a 2×2 matrix"),
        (SCALAR, "0.35, 0.1", "expected a single number, got 2 values"),
    ],
)
def test_wrong_shapes_get_a_clear_message_and_no_credit(v, response, message):
    result = grade(v, response)
    assert (result.correct, result.score, result.elements, result.message) == (False, 0.0, None, message)
    assert result.code == "wrong_shape" and result.params["expected"] == list(v.answer_shape)


@pytest.mark.parametrize(
    "response",
    [
        "0.54, 0.46",
        "0.54 0.46",
        "[0.54, 0.46]",
        "(0.54, 0.46)",
        "0.54，0.46",
        " 0.54 ,0.46\n",
        [0.54, 0.46],
        (0.54, 0.46),
        np.array([0.54, 0.46]),
        ["0.54", "0.46"],
        [[0.54, 0.46]],
        "０．５４、０．４６",
    ],
)
def test_vector_forms_accepted(response):
    assert grade(VECTOR, response).correct


@pytest.mark.parametrize(
    "response",
    [
        "1, 0, 0; 0.4, 0.6, 0; 0.25, 0.3, 0.45",
        "1 0 0\n0.4 0.6 0\n0.25 0.3 0.45",
        "[[1, 0, 0], [0.4, 0.6, 0], [0.25, 0.30, 0.45]]",
        "1，0，0；0.4，0.6，0；0.25，0.3，0.45",
        [[1, 0, 0], [0.4, 0.6, 0], [0.25, 0.3, 0.45]],
        np.array([[1, 0, 0], [0.4, 0.6, 0], [0.25, 0.3, 0.45]]),
    ],
)
def test_matrix_forms_accepted(response):
    result = grade(MATRIX, response)
    assert result.correct and result.score == 1.0 and result.message == "correct"


@pytest.mark.parametrize("response", [0.35, "0.35", "0.349", [0.35], "[0.35]", 0.34])
def test_scalar_forms_and_relative_tolerance(response):
    assert grade(SCALAR, response) == GradeResult(True, 1.0, True, "correct", "correct", {})


def test_int_and_unicode_minus():
    assert grade(variant(64.0, atol=0.0), 64).correct
    assert grade(variant(-0.3), "−0.3").correct


def test_partial_credit_per_row():
    result = grade(MATRIX, "1, 0, 0; 0.4, 0.6, 0; 0.45, 0.27, 0.27")
    assert not result.correct
    assert result.score == pytest.approx(2 / 3)
    assert result.elements == [[True] * 3, [True] * 3, [False, False, False]]
    assert result.message == "2 of 3 rows correct"
    assert (result.code, result.params) == ("partly_correct", {"correct": 2, "total": 3, "unit": "rows"})
    one_slip = grade(MATRIX, "1, 0, 0; 0.4, 0.6, 0; 0.25, 0.3, 0.55")
    assert one_slip.score == pytest.approx(2 / 3) and one_slip.elements[2] == [True, True, False]


def test_partial_credit_per_value_in_a_vector():
    result = grade(VECTOR, "0.54, 0.64")
    assert (result.correct, result.score, result.elements, result.message) == (
        False,
        0.5,
        [True, False],
        "1 of 2 values correct",
    )


def test_tolerance_edges():
    assert grade(VECTOR, "0.55, 0.45").correct  # exactly atol away
    assert not grade(VECTOR, "0.56, 0.46").correct
    assert not grade(SCALAR, "0.37").correct  # 5.7% off with rtol 5%


@pytest.mark.parametrize(
    "response",
    [
        "",
        "   ",
        "abc",
        "0.5, x",
        None,
        {},
        {"a": 1},
        object(),
        [],
        [[]],
        [[0.5, 0.5], 3],
        True,
        [True, False],
        "nan, inf",
        [None, 1],
    ],
)
def test_garbage_is_wrong_not_an_exception(response):
    result = grade(VECTOR, response)
    assert result.correct is False and result.score == 0.0
    assert result.message


def test_unreadable_message_names_the_token_and_expected_shape():
    result = grade(VECTOR, "0.5, zero")
    assert result.message == "could not read 'zero' as a number; expected 2 values"
    assert (result.code, result.params) == ("unreadable", {"token": "zero", "expected": [2]})


@pytest.mark.parametrize(
    ("response", "token"),
    [
        ([float("nan"), 0.46], "nan"),
        ("inf, 0.46", "inf"),
        ("1e400 0.46", "1e400"),
        pytest.param([10**400, 0.46], "~1e400", id="int-of-401-digits"),
        ([float("-inf"), 0.46], "-inf"),
        pytest.param(10**5000, "~1e5000", id="int-of-5000-digits"),
    ],
)
def test_non_finite_or_overflowing_values_are_not_graded(response, token):
    result = grade(VECTOR, response)
    assert (result.correct, result.score, result.elements, result.code) == (False, 0.0, None, "not_finite")
    assert result.params["token"] == token and "not a number I can grade" in result.message


@pytest.mark.parametrize("response", ["a\x00b", "\ud800", "x" * 5000, "\u202e1"])
def test_echoed_tokens_are_short_and_storable(response):
    """Messages echo what was typed: cut short, no control characters or lone surrogates (jsonb refuses NUL)."""
    token = grade(VECTOR, response).params["token"]
    assert len(token) <= 40 and token.isprintable()
    token.encode("utf-8")  # no lone surrogate left
    json.dumps(token, ensure_ascii=False).encode("utf-8")


def test_grade_accepts_the_serialised_variant():
    assert grade(MATRIX.to_dict(), [[1, 0, 0], [0.4, 0.6, 0], [0.25, 0.3, 0.45]]).correct


def test_programming_errors_raise():
    with pytest.raises(ValueError, match="needs a Variant"):
        grade("not a variant", "0.5")


def test_result_to_dict_is_json():
    result = grade(MATRIX, "1, 0, 0; 0.4, 0.6, 0; 0.45, 0.27, 0.27")
    assert json.loads(json.dumps(result.to_dict())) == {
        "correct": False,
        "score": 2 / 3,
        "elements": result.elements,
        "message": "2 of 3 rows correct",
        "code": "partly_correct",
        "params": {"correct": 2, "total": 3, "unit": "rows"},
    }


@settings(max_examples=300)
@given(st.text(max_size=40))
def test_any_text_is_graded_without_raising(text):
    for v in (SCALAR, VECTOR, MATRIX):
        result = grade(v, text)
        assert isinstance(result.correct, bool) and 0.0 <= result.score <= 1.0


json_like = st.recursive(
    st.none() | st.booleans() | st.floats() | st.integers(-(10**6), 10**6) | st.text(max_size=5),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=3), children, max_size=3),
    max_leaves=12,
)


@settings(max_examples=300)
@given(json_like)
def test_any_json_value_is_graded_without_raising(response):
    for v in (SCALAR, VECTOR, MATRIX):
        assert 0.0 <= grade(v, response).score <= 1.0


@given(st.lists(st.lists(st.floats(-100, 100), min_size=3, max_size=3), min_size=1, max_size=4))
def test_the_answer_written_as_text_grades_correct(rows):
    v = variant(rows, atol=1e-9)
    text = "; ".join(", ".join(repr(x) for x in row) for row in rows)
    assert grade(v, text).correct
