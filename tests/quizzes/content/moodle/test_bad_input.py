"""Bad Moodle XML: refused with a clear message, every problem located (file, line, question # and name, the key
it would get, the answer), and nothing written."""

from __future__ import annotations

import pytest

from quizzes.content.moodle.importer import lesson_moodle_import
from quizzes.content.moodle.xmlfile import MAX_BYTES, MoodleError
from quizzes.models import Attempt, Option, Question
from quizzes.practice.services.attempts import attempt_start
from tests import factories
from tests.quizzes.content.moodle.conftest import sample

pytestmark = pytest.mark.django_db

HEAD = '<?xml version="1.0" encoding="UTF-8"?>\n<quiz>\n'


def _problems(lesson, data: bytes, file: str = "bank.xml") -> list[str]:
    with pytest.raises(MoodleError) as caught:
        lesson_moodle_import(lesson=lesson, data=data, file=file)
    assert not Question.objects.exists() and not Option.objects.exists()
    return [str(p) for p in caught.value.problems]


def _choice(name: str, *answers: tuple[int, str], text: str = "Which one?") -> str:
    body = "".join(
        f'<answer fraction="{fraction}" format="html"><text>{answer}</text>'
        f'<feedback format="html"><text>because</text></feedback></answer>'
        for fraction, answer in answers
    )
    return (
        f'<question type="multichoice"><name><text>{name}</text></name>'
        f'<questiontext format="html"><text>{text}</text></questiontext><single>true</single>{body}</question>\n'
    )


def test_billion_laughs_is_refused_before_anything_expands(target):
    (message,) = _problems(target, sample("billion_laughs.xml"), "billion_laughs.xml")
    assert message == (
        "billion_laughs.xml: refused: it declares the entity 'lol', and entities can expand without bound "
        "('billion laughs'); Moodle XML uses none"
    )


def test_an_external_entity_is_refused_and_nothing_is_read(target):
    (message,) = _problems(target, sample("external_entity.xml"), "external_entity.xml")
    assert "refused: it declares the external entity 'secret' (file:///etc/passwd)" in message
    assert "root:" not in message


def test_any_dtd_is_refused(target):
    (message,) = _problems(target, b'<?xml version="1.0"?>\n<!DOCTYPE quiz SYSTEM "quiz.dtd">\n<quiz></quiz>\n')
    assert (
        message == "bank.xml: refused: it declares a DTD (<!DOCTYPE quiz>), where entities live; Moodle XML uses none"
    )


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n", "bank.xml, line 1: not XML (line 1, column 8): not well-formed"),
        (b"just some text", "bank.xml, line 1: not XML (line 1, column 0): syntax error"),
        (b"<quiz>&nbsp;</quiz>", "not XML (line 1, column 6): undefined entity"),
        (
            HEAD.encode() + b"<question type='essay'><name><text>x</name>\n</quiz>",
            "not XML (line 3, column 38): mismatched tag",
        ),
        (b"", "bank.xml: not XML: the file is empty"),
        (b"<html><body>hello</body></html>", "not a Moodle XML question file: the root element is <html>, not <quiz>"),
    ],
)
def test_what_is_not_moodle_xml_says_so(target, data, expected):
    (message,) = _problems(target, data)
    assert expected in message


def test_a_file_over_10_mib_is_refused_unread(target):
    data = HEAD.encode() + b" " * MAX_BYTES + b"</quiz>"
    (message,) = _problems(target, data)
    assert message == "bank.xml: refused: the file is larger than 10 MiB, the most an import reads"


def test_every_broken_rule_is_reported_with_its_place_and_nothing_is_written(target):
    data = (
        HEAD
        + _choice("Lengths", (100, "a"), (0, "a much much much longer distractor text"))  # cue rule a
        + _choice("Catch all", (100, "softmax"), (0, "none of the above"))  # cue rule c
        + '<question type="essay"><name><text>No rubric</text></name>'
        "<questiontext><text>Explain.</text></questiontext>"
        "<graderinfo><text>Just text.</text></graderinfo></question>\n"
        + '<question type="numerical"><name><text>Not a number</text></name><questiontext><text>How many?</text>'
        '</questiontext><answer fraction="100"><text>many</text><tolerance>0</tolerance></answer></question>\n'
        + _choice("Lengths", (100, "b"), (0, "c"))  # the same name: the same key
        + _choice("Twice", (100, "yes"), (0, "no"), (0, "no"))
        + "</quiz>\n"
    ).encode()
    problems = _problems(target, data)
    assert len(problems) == 6, problems
    assert problems[0].startswith(
        "bank.xml, line 3, question #1 'Lengths', key moodle-demo-moodle-lengths, option 'answer #2': "
        "option lengths give the answer away"
    )
    assert "line 4, question #2 'Catch all', key moodle-demo-moodle-catch-all, option 'answer #2': " in problems[1]
    assert "is a catch-all option" in problems[1]
    assert "line 5, question #3 'No rubric': an interview prompt needs rubric points" in problems[2]
    assert "line 6, question #4 'Not a number': the answer 'many' is not a number" in problems[3]
    assert (
        "line 7, question #5 'Lengths', key moodle-demo-moodle-lengths: gets the same key as question #1" in problems[4]
    )


def test_a_key_taken_by_a_question_not_imported_here_is_a_conflict(target, lesson):
    factories.ChoiceQuestionFactory(lesson=lesson, key="moodle-demo-moodle-lengths", options=2)
    data = (HEAD + _choice("Lengths", (100, "yes"), (0, "no")) + "</quiz>").encode()
    with pytest.raises(MoodleError) as caught:
        lesson_moodle_import(lesson=target, data=data, file="bank.xml")
    (message,) = [str(p) for p in caught.value.problems]
    assert "conflict: the key exists already, in lesson" in message and "rename the question" in message
    assert not Question.objects.filter(lesson=target).exists()


def test_a_reimport_with_an_edited_answer_retires_the_option_learners_saw(target, user):
    answers = ((100, "minus infinity"), (0, "exactly zero"), (0, "minus one thousand"))  # the key is not the longest
    data = (HEAD + _choice("Mask", *answers) + "</quiz>").encode()
    lesson_moodle_import(lesson=target, data=data, file="bank.xml")
    question = Question.objects.get(key="moodle-demo-moodle-mask")
    attempt_start(user=user, lesson=target)  # a learner has been shown the three options
    edited = data.replace(b"minus one thousand", b"minus two thousand")
    report = lesson_moodle_import(lesson=target, data=edited, file="bank.xml")
    assert report.updated == ["moodle-demo-moodle-mask"] and report.load.options.retired == 1
    question.refresh_from_db()
    assert sorted((o.text, o.retired) for o in question.options.all()) == [
        ("exactly zero", False),
        ("minus infinity", False),
        ("minus one thousand", True),  # kept for the attempt that showed it, never offered again
        ("minus two thousand", False),
    ]
    assert Attempt.objects.count() == 1


def test_a_key_saved_meanwhile_by_someone_else_rolls_everything_back(target, monkeypatch):
    """Two imports at once: the unique key (a database constraint) stops the second, which writes nothing."""
    from quizzes.content.moodle import importer

    real = importer.content_plan_write

    def racing(*, plan, report):
        factories.ChoiceQuestionFactory(lesson=target, key="moodle-demo-moodle-head-dimension", options=2)
        real(plan=plan, report=report)

    monkeypatch.setattr(importer, "content_plan_write", racing)
    with pytest.raises(MoodleError) as caught:
        lesson_moodle_import(lesson=target, data=sample("multichoice.xml"), file="multichoice.xml")
    assert "saved meanwhile; nothing was written: import again" in str(caught.value)
    assert not Question.objects.exists()
