"""The learner's cards as an Anki deck (``.apkg``, written with genanki): one note, one card per question.

Decks ``quizsite::<lesson title>``; the note type "quizsite question" has the fields Key, Lesson, Front, Back and
Explanation (HTML, math as MathML, which Anki's web view shows). A note's GUID is derived from the question's
key, so importing a newer export updates the notes instead of duplicating them. Scheduling is not carried
over: Anki starts the cards as new (the JSON export has the FSRS state). A numeric question shows one variant
of its numbers (its fixed seed, or seed 0) with that variant's answer.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable

import genanki
from django.contrib.auth.models import User
from django.utils.html import escape, format_html, format_html_join

from attention_engine import generators
from quizzes.content.models import Question
from quizzes.content.selectors import live_options
from quizzes.core.rendering import render_markdown, render_value
from quizzes.reviews.models import ReviewCard

DECK_ROOT = "quizsite"
#: Fixed ids: Anki recognises the note type (and so updates notes) across exports by them. Never change them.
MODEL_ID = 1_683_902_411
MODEL_NAME = "quizsite question"
FIELDS = ("Key", "Lesson", "Front", "Back", "Explanation")
CSS = ".card { font-family: system-ui, sans-serif; font-size: 18px; text-align: left; } .explanation { color: #555; }"

MODEL = genanki.Model(
    MODEL_ID,
    MODEL_NAME,
    fields=[{"name": name} for name in FIELDS],
    templates=[
        {
            "name": "Question → answer",
            "qfmt": "{{Front}}",
            "afmt": '{{FrontSide}}<hr id="answer">{{Back}}<div class="explanation">{{Explanation}}</div>',
        }
    ],
    css=CSS,
    sort_field_index=0,
)


def deck_id(lesson_key: str) -> int:
    """A stable id per lesson (Anki deck ids are 64-bit; kept in 2^30..2^31 like genanki's examples)."""
    digest = int(hashlib.sha256(f"quizsite-deck:{lesson_key}".encode()).hexdigest()[:8], 16)
    return (1 << 30) + digest % (1 << 30)


def deck_name(lesson_title: str) -> str:
    return f"{DECK_ROOT}::{lesson_title.replace('::', ':')}"


def _numeric_sides(question: Question) -> tuple[str, str]:
    seed = question.fixed_seed if question.fixed_seed is not None else 0
    variant = generators.generate(
        question.template, seed, version=question.template_version, **(question.params or {})
    ).to_dict()
    given = format_html_join(
        "", "<li>{} = {}</li>", ((name, render_value(value)) for name, value in variant["given"].items())
    )
    front = format_html("{}<ul>{}</ul>", render_markdown(variant["prompt"]), given)
    return str(front), str(render_value(variant["answer"]))


def _choice_sides(question: Question) -> tuple[str, str]:
    options = live_options(question=question)
    listed = format_html_join("", "<li>{}</li>", ((render_markdown(o.text),) for o in options))
    front = format_html('{}<ol type="A">{}</ol>', render_markdown(question.prompt), listed)
    correct = format_html_join("", "<p>{}</p>", ((render_markdown(o.text),) for o in options if o.is_correct))
    return str(front), str(correct)


def _prompt_sides(question: Question) -> tuple[str, str]:
    points = format_html_join("", "<li>{}</li>", ((render_markdown(str(p)),) for p in question.rubric or []))
    back = format_html("{}<ul>{}</ul>", render_markdown(question.reference_answer), points)
    return str(render_markdown(question.prompt)), str(back)


def _recall_sides(question: Question) -> tuple[str, str]:
    lines = format_html_join("", "<li><code>{}</code></li>", ((str(line),) for line in question.expected_lines or []))
    return str(render_markdown(question.prompt)), str(format_html("<ol>{}</ol>", lines))


SIDES: dict[str, Callable[[Question], tuple[str, str]]] = {
    Question.Kind.CHOICE: _choice_sides,
    Question.Kind.NUMERIC: _numeric_sides,
    Question.Kind.PROMPT: _prompt_sides,
    Question.Kind.RECALL: _recall_sides,
}


def note_fields(question: Question) -> list[str]:
    """The note's fields, in FIELDS order."""
    sides = SIDES.get(question.kind)
    front, back = sides(question) if sides else (str(render_markdown(question.prompt)), "")
    return [question.key, escape(question.lesson.title), front, back, str(render_markdown(question.explanation))]


def anki_package_write(*, user: User, path: str) -> int:
    """Write the learner's cards to an ``.apkg`` at ``path``; returns how many notes it holds."""
    cards = (
        ReviewCard.objects.filter(user=user)
        .select_related("question__lesson")
        .prefetch_related("question__options")
        .order_by("question__lesson__order", "question__lesson__key", "question__order", "question__key")
    )
    decks: dict[str, genanki.Deck] = {}
    count = 0
    for card in cards.iterator(chunk_size=500):
        question = card.question
        lesson = question.lesson
        deck = decks.get(lesson.key)
        if deck is None:
            deck = decks[lesson.key] = genanki.Deck(deck_id(lesson.key), deck_name(lesson.title))
        guid = genanki.guid_for(DECK_ROOT, question.key)
        deck.add_note(genanki.Note(model=MODEL, fields=note_fields(question), guid=guid))
        count += 1
    if not decks:  # an empty package is still a valid one: Anki imports an empty deck
        decks[""] = genanki.Deck(deck_id(""), DECK_ROOT)
    genanki.Package(list(decks.values())).write_to_file(path)
    return count
