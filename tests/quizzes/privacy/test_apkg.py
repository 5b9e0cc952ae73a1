"""The export's Anki deck, opened with the official ``anki`` package: notes, fields, decks, one card per question."""

from __future__ import annotations

from pathlib import Path

import pytest
from anki.collection import Collection, ImportAnkiPackageOptions, ImportAnkiPackageRequest

from quizzes.privacy.anki import FIELDS, MODEL_NAME, anki_package_write
from quizzes.reviews.models import ReviewCard

pytestmark = pytest.mark.django_db


def open_in_anki(package: Path, tmp_path: Path) -> Collection:
    collection = Collection(str(tmp_path / "anki" / "collection.anki2"))
    collection.import_anki_package(
        ImportAnkiPackageRequest(package_path=str(package), options=ImportAnkiPackageOptions())
    )
    return collection


@pytest.fixture
def anki_dir(tmp_path):
    (tmp_path / "anki").mkdir()
    return tmp_path


def test_the_deck_opens_in_anki_with_one_card_per_question(learner, anki_dir):
    package = anki_dir / "cards.apkg"
    count = anki_package_write(user=learner.user, path=str(package))
    cards = list(ReviewCard.objects.filter(user=learner.user).select_related("question"))
    assert count == len(cards) >= 4

    collection = open_in_anki(package, anki_dir)
    try:
        assert collection.note_count() == len(cards) and collection.card_count() == len(cards)
        assert f"quizsite::{learner.lesson.title}" in [d.name for d in collection.decks.all_names_and_ids()]
        notes = [collection.get_note(nid) for nid in collection.find_notes("")]
        assert {n.note_type()["name"] for n in notes} == {MODEL_NAME}
        assert [f["name"] for f in notes[0].note_type()["flds"]] == list(FIELDS)
        by_key = {note["Key"]: note for note in notes}
        assert set(by_key) == {card.question.key for card in cards}
        for card in cards:
            note, question = by_key[card.question.key], card.question
            assert note["Lesson"] == learner.lesson.title
            assert note["Front"] and note["Back"], question.kind
            assert "<math" in note["Explanation"]  # the explanation's LaTeX as MathML
            if question.kind == "choice":
                correct = question.options.get(is_correct=True)
                assert correct.text in note["Back"] and correct.text in note["Front"]
            if question.kind == "prompt":
                assert question.reference_answer.split()[0] in note["Back"]
        # each card in its lesson's deck
        deck_ids = {collection.get_card(cid).did for cid in collection.find_cards("")}
        assert [collection.decks.name(did) for did in deck_ids] == [f"quizsite::{learner.lesson.title}"]
    finally:
        collection.close()


def test_a_second_export_updates_the_same_notes_in_anki(learner, anki_dir):
    first, second = anki_dir / "one.apkg", anki_dir / "two.apkg"
    anki_package_write(user=learner.user, path=str(first))
    anki_package_write(user=learner.user, path=str(second))
    collection = open_in_anki(first, anki_dir)
    try:
        collection.import_anki_package(
            ImportAnkiPackageRequest(package_path=str(second), options=ImportAnkiPackageOptions())
        )
        assert collection.note_count() == ReviewCard.objects.filter(user=learner.user).count()
    finally:
        collection.close()


def test_a_learner_without_cards_gets_an_empty_deck_that_still_opens(user, anki_dir):
    package = anki_dir / "empty.apkg"
    assert anki_package_write(user=user, path=str(package)) == 0
    collection = open_in_anki(package, anki_dir)
    try:
        assert collection.note_count() == 0
    finally:
        collection.close()
