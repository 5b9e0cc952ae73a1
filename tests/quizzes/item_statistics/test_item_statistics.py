"""Item statistics against hand computations on a tiny made-up class (issue 27, item 5).

Six learners take a three-question lesson once in study mode; the expected figures are computed here from
the answer table below by the textbook formulas (point-biserial from group means, KR-20 from p·q and the
total's variance), never by the code under test.
"""

from __future__ import annotations

import datetime as dt
import uuid

import numpy as np
import pytest

from attention_engine import misconceptions
from quizzes.item_statistics.selectors import lesson_statistics
from quizzes.models import AnonymousAnswer, Attempt, AttemptItem, ReviewCard
from tests.factories import LessonFactory, NumericQuestionFactory, OptionFactory, QuestionFactory, UserFactory

START = dt.datetime(2026, 11, 1, 9, 0, tzinfo=dt.UTC)
#: learner × question: the option key each picked (None: skipped). "a" is the key of every question.
PICKS = [
    ["a", "a", "a"],
    ["a", "a", "b"],
    ["a", "b", "a"],
    ["a", "c", "b"],
    ["b", "a", None],
    ["c", "b", "b"],
]
#: seconds between one answer and the previous one (or the start), per learner × question
GAPS = [[10, 20, 30], [12, 22, 32], [14, 24, 34], [16, 26, 36], [18, 28, 0], [20, 30, 40]]


def _attempt(user, lesson, questions, picks, gaps, *, number=1, mode=Attempt.Mode.STUDY, finished=True):
    attempt = Attempt.objects.create(
        user=user, lesson=lesson, number=number, mode=mode, seed=1, started_at=START,
        finished_at=START + dt.timedelta(minutes=5) if finished else None,
    )  # fmt: skip
    moment = START
    for position, (question, pick, gap) in enumerate(zip(questions, picks, gaps, strict=True)):
        options = {o.key: o for o in question.options.all()}
        item = AttemptItem(attempt=attempt, question=question, position=position,
                           option_order=[o.pk for o in options.values()])  # fmt: skip
        if pick is not None:
            moment += dt.timedelta(seconds=gap)
            chosen = options[pick]
            item.chosen_option, item.is_correct, item.score = chosen, chosen.is_correct, float(chosen.is_correct)
            item.response, item.result, item.answered_at = chosen.pk, {"kind": "choice"}, moment
        item.save()
    return attempt


@pytest.fixture
def tiny(db):
    lesson = LessonFactory()
    questions = []
    for n in range(3):
        question = QuestionFactory(lesson=lesson, key=f"tiny-{n}", order=n)
        for i, key in enumerate("abcd"):
            OptionFactory(question=question, key=key, text=f"option {key}", is_correct=key == "a", order=i,
                          feedback="" if key == "a" else f"misconception {key}")  # fmt: skip
        questions.append(question)
    users = [UserFactory() for _ in PICKS]
    for user, picks, gaps in zip(users, PICKS, GAPS, strict=True):
        _attempt(user, lesson, questions, picks, gaps)
    # Not counted: a second study attempt (all right), a review attempt, and a first attempt left unfinished.
    _attempt(users[5], lesson, questions, ["a", "a", "a"], [1, 1, 1], number=2)
    _attempt(users[4], lesson, questions, ["a", "a", "a"], [1, 1, 1], number=2, mode=Attempt.Mode.REVIEW)
    _attempt(UserFactory(), lesson, questions, ["b", "b", "b"], [1, 1, 1], finished=False)
    return lesson, questions, users


def _matrix():
    return np.array([[1.0 if p == "a" else 0.0 for p in row] for row in PICKS])  # (learners, items)


def _point_biserial(x, rest):
    """Textbook r_pb = (M1 - M0) / s_n · sqrt(p q), s_n the population SD of the rest scores."""
    p = x.mean()
    return (rest[x == 1].mean() - rest[x == 0].mean()) / rest.std() * np.sqrt(p * (1 - p))


def test_facility_discrimination_and_picks_match_the_textbook(tiny):
    lesson, _, _ = tiny
    stats = lesson_statistics(lesson=lesson)
    m = _matrix()
    assert stats.attempts == 6
    assert [i.key for i in stats.items] == ["tiny-0", "tiny-1", "tiny-2"]
    for j, item in enumerate(stats.items):
        x = m[:, j]
        rest = m.sum(axis=1) - x
        assert item.attempts == 6
        assert item.facility == pytest.approx(x.mean())
        assert item.discrimination == pytest.approx(_point_biserial(x, rest))
        picks = {o.key: o.picks for o in item.options}
        assert picks == {k: sum(row[j] == k for row in PICKS) for k in "abcd"}
        rates = {o.key: o.rate for o in item.options}
        assert rates["b"] == pytest.approx(sum(row[j] == "b" for row in PICKS) / 6)  # a skip stays in the denominator
        assert {o.key: o.misconception for o in item.options}["c"] == "misconception c"


def test_a_skipped_item_counts_as_wrong(tiny):
    lesson, _, _ = tiny
    third = lesson_statistics(lesson=lesson).items[2]
    assert third.facility == pytest.approx(2 / 6)  # learners 1 and 3 right; learner 5 skipped


def test_median_time_is_the_gap_since_the_previous_answer(tiny):
    lesson, _, _ = tiny
    stats = lesson_statistics(lesson=lesson)
    expected = [np.median([g[j] for g, p in zip(GAPS, PICKS, strict=True) if p[j] is not None]) for j in range(3)]
    assert [i.median_seconds for i in stats.items] == pytest.approx(expected)


def test_kr20_counts_only_the_attempts_that_reached_every_item(tiny):
    lesson, _, _ = tiny
    stats = lesson_statistics(lesson=lesson)
    complete = np.delete(_matrix(), 4, axis=0)  # learner 5 skipped the third question
    k = complete.shape[1]
    p = complete.mean(axis=0)
    totals = complete.sum(axis=1)
    expected = k / (k - 1) * (1 - np.sum(p * (1 - p)) / np.mean((totals - totals.mean()) ** 2))
    assert stats.complete_attempts == 5
    assert stats.kr20 == pytest.approx(expected)


def test_reviews_give_lapses_per_review_and_mean_difficulty(tiny):
    lesson, questions, users = tiny
    for user, lapses, reps, difficulty in ((users[0], 1, 4, 3.0), (users[1], 2, 6, 7.5)):
        ReviewCard.objects.create(user=user, question=questions[0], lapses=lapses, reps=reps, difficulty=difficulty,
                                  due=START)  # fmt: skip
    first = lesson_statistics(lesson=lesson).items[0]
    assert first.cards == 2
    assert first.lapse_rate == pytest.approx(3 / 10)
    assert first.mean_difficulty == pytest.approx(5.25)
    assert lesson_statistics(lesson=lesson).items[1].cards == 0


def test_flags_name_what_an_author_should_fix(tiny):
    lesson, _, _ = tiny
    flags = {i.key: sorted(f.code for f in i.flags) for i in lesson_statistics(lesson=lesson).items}
    # tiny-0: 4/6 right; d is never picked (0 % < 5 %)
    assert "rare_distractor" in flags["tiny-0"]
    assert "easy" not in flags["tiny-0"] and "hard" not in flags["tiny-0"]
    codes = {f.code: f.text for f in lesson_statistics(lesson=lesson).items[0].flags}
    assert "d" in codes["rare_distractor"]


def test_facility_flags_at_both_ends(db):
    lesson = LessonFactory()
    easy, hard = QuestionFactory(lesson=lesson, order=0), QuestionFactory(lesson=lesson, order=1)
    for question in (easy, hard):
        for i, key in enumerate("ab"):
            OptionFactory(question=question, key=key, is_correct=key == "a", order=i)
    for n in range(11):  # easy: all right (1.0 > 0.9); hard: one right in 11 (0.09 < 0.2)
        _attempt(UserFactory(), lesson, [easy, hard], ["a", "a" if n == 0 else "b"], [5, 5])
    items = {i.question_id: {f.code for f in i.flags} for i in lesson_statistics(lesson=lesson).items}
    assert "easy" in items[easy.pk] and "hard" not in items[easy.pk]
    assert "hard" in items[hard.pk] and "easy" not in items[hard.pk]


def test_the_top_third_preferring_a_distractor_is_flagged(db):
    lesson = LessonFactory()
    anchor = [QuestionFactory(lesson=lesson, order=n) for n in range(3)]
    tricky = QuestionFactory(lesson=lesson, order=9)
    for question in [*anchor, tricky]:
        for i, key in enumerate("abc"):
            OptionFactory(question=question, key=key, is_correct=key == "a", order=i)
    # Strong learners (all anchors right) pick b on the tricky one; weak learners pick the key.
    for n in range(9):
        strong = n < 3
        picks = ["a"] * 3 if strong else ["b", "a" if n % 2 else "b", "b"]
        _attempt(UserFactory(), lesson, [*anchor, tricky], [*picks, "b" if strong else "a"], [5] * 4)
    item = next(i for i in lesson_statistics(lesson=lesson).items if i.question_id == tricky.pk)
    codes = {f.code for f in item.flags}
    assert "top_third_prefers" in codes and "negative_discrimination" in codes
    assert {o.key: o.top_rate for o in item.options}["b"] == pytest.approx(1.0)


def test_deleted_learners_first_attempts_count_too(tiny):
    lesson, questions, _ = tiny
    sitting = uuid.uuid4()
    for question, correct in zip(questions, (True, True, False), strict=True):
        option = question.options.get(key="a" if correct else "b")
        AnonymousAnswer.objects.create(sitting=sitting, question=question, answered=True, chosen_option=option,
                                       is_correct=correct, score=float(correct), duration_ms=7000)  # fmt: skip
    stats = lesson_statistics(lesson=lesson)
    m = np.vstack((_matrix(), [[1, 1, 0]]))
    assert stats.attempts == 7
    assert [i.facility for i in stats.items] == pytest.approx(m.mean(axis=0))
    x, rest = m[:, 0], m.sum(axis=1) - m[:, 0]
    assert stats.items[0].discrimination == pytest.approx(_point_biserial(x, rest))


def test_a_lesson_nobody_studied_has_no_figures(db):
    stats = lesson_statistics(lesson=LessonFactory())
    assert stats.items == [] and stats.attempts == 0 and stats.kr20 is None


def test_numeric_items_are_kept_apart_per_template_version_with_their_misconceptions(db):
    lesson = LessonFactory()
    question = NumericQuestionFactory(lesson=lesson)
    # version 1: 3 of 4 right; version 2: 1 of 4 right, two of the wrong ones typed the missing-scale value
    for n, (version, correct, mid) in enumerate(
        [(1, True, None)] * 3 + [(1, False, None)] + [(2, True, None)] + [(2, False, "missing_scale")] * 2
        + [(2, False, None)]
    ):  # fmt: skip
        attempt = Attempt.objects.create(user=UserFactory(), lesson=lesson, number=1, seed=n, started_at=START,
                                         finished_at=START + dt.timedelta(minutes=1))  # fmt: skip
        misconception = {"id": mid} if mid else None
        AttemptItem.objects.create(
            attempt=attempt, question=question, position=0, variant={"seed": n}, variant_seed=n,
            template_version=version, response="1", is_correct=correct, score=float(correct),
            result={"correct": correct, "misconception": misconception}, answered_at=START + dt.timedelta(seconds=9),
        )  # fmt: skip
    items = lesson_statistics(lesson=lesson).items
    assert [(i.template_version, i.attempts, i.facility) for i in items] == [(1, 4, 0.75), (2, 4, 0.25)]
    assert items[0].options == []
    (named,) = items[1].options
    assert (named.key, named.picks, named.rate) == ("missing_scale", 2, 0.5)
    assert named.misconception == misconceptions.describe("missing_scale")["title_en"]


def test_every_misconception_id_the_engine_names_fits_the_items_misconception_column():
    """The column is computed by the database from each answer's result: an id longer than it holds would make
    PostgreSQL refuse the answer's write."""
    from attention_engine.misconceptions import MISCONCEPTIONS

    width = AttemptItem._meta.get_field("misconception").output_field.max_length
    assert max(len(mid) for mid in MISCONCEPTIONS) <= width
