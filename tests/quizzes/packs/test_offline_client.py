"""End to end: the reference client (scripts/offline_client.py) against a live server.

The learner downloads a pack, answers it "offline" from a file of choices (the client grades with the
pack's key for immediate feedback; a code item is graded only at upload, by the server) and uploads. Their
schedule must equal a twin's who, with the same history, answered the same items online at the same moments.
"""

from __future__ import annotations

import datetime as dt
import json
import subprocess
import sys
from pathlib import Path

import pytest
import time_machine
from django.conf import settings
from django.utils import timezone

from attention_engine import codecheck
from quizzes.models import AttemptItem, Question, ReviewCard, ReviewLog
from quizzes.practice.services import attempt_start, item_answer
from quizzes.reviews.services import card_rate
from tests import factories
from tests.quizzes.packs.conftest import study_everything

CLIENT = Path(settings.BASE_DIR) / "scripts" / "offline_client.py"
#: Accepted by the checker but not right on every input: the server suggests Hard, online and at upload alike.
SPEC = codecheck.get("sdpa_three_lines")
ACCEPTED = next(m for m in SPEC.misconceptions if m.id == "t_reverses_all_axes")


def _client(*args: str) -> str:
    done = subprocess.run(
        [sys.executable, str(CLIENT), *args], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def _choices(pack: dict) -> tuple[dict, dict]:
    """What the learner picks on the phone (by reading the items) and whether that is right, per question key."""
    choices, right = {}, {}
    for item in pack["items"]:
        key, question = item["key"], item["question"]
        if question["kind"] == "choice":  # the correct one, found on screen by the learner
            number = next(n for n, o in enumerate(item["options"], 1) if o["id"] == key["correct_option_id"])
            choices[question["key"]], right[question["key"]] = {"option": number}, True
        elif question["answer_form"] == "choice":  # a wrong value
            wrong = (key["correct_choice_index"] + 1) % len(item["numeric"]["choices"])
            choices[question["key"]], right[question["key"]] = {"choice": wrong}, False
        elif question["kind"] == "code":  # the phone cannot grade it: the server will
            choices[question["key"]], right[question["key"]] = {"code": ACCEPTED.code}, None
        elif question["kind"] == "numeric":  # typed, rounded as the prompt asks
            value = key["correct_value"]
            typed = ", ".join(f"{x:.2f}" for x in value) if isinstance(value, list) else f"{value:.2f}"
            choices[question["key"]], right[question["key"]] = {"value": typed}, True
        else:
            choices[question["key"]] = {"rating": 4 if question["kind"] == "prompt" else 2}
    return choices, right


def _answer_online(twin, lesson, answers: list[dict], pack: dict, choices: dict, right: dict) -> None:
    """The twin does the same, online, at the same moments: quiz items in an attempt, prompts rated."""
    by_item = {item["id"]: item["question"] for item in pack["items"]}
    first = min(dt.datetime.fromisoformat(a["reviewed_at"]) for a in answers)
    attempt = attempt_start(user=twin, lesson=lesson, mode="review", now=first)
    for entry in answers:
        question = by_item[entry["pack_item_id"]]
        at = dt.datetime.fromisoformat(entry["reviewed_at"])
        if question["kind"] in Question.SELF_RATED_KINDS:
            card_rate(
                user=twin, question=Question.objects.get(pk=question["id"]), rating=entry["rating"], reviewed_at=at
            )
            continue
        item = AttemptItem.objects.select_related("question").get(attempt=attempt, question_id=question["id"])
        correct = right[question["key"]]
        if item.question.kind == Question.Kind.CODE:
            item_answer(user=twin, item=item, code=choices[question["key"]]["code"], now=at)
        elif item.question.kind == Question.Kind.CHOICE:
            option = next(o for o in item.question.options.all() if o.is_correct == correct)
            item_answer(user=twin, item=item, option_id=option.pk, now=at)
        elif item.question.answer_form == Question.AnswerForm.CHOICE:
            index = next(i for i, c in enumerate(item.variant["choices"]) if (c["misconception"] is None) == correct)
            item_answer(user=twin, item=item, choice_index=index, now=at)
        else:
            item_answer(user=twin, item=item, value=item.variant["answer"] if correct else "0", now=at)


def _schedule(user) -> list[tuple]:
    return sorted(
        (c.question_id, c.state, c.due, c.stability, c.difficulty, c.reps, c.lapses)
        for c in ReviewCard.objects.filter(user=user)
    )


@pytest.mark.django_db(transaction=True)
def test_download_review_offline_upload_gives_the_online_schedule(live_server, tmp_path):
    start = timezone.now() - dt.timedelta(days=7)
    with time_machine.travel(start, tick=False):
        learner, twin = factories.UserFactory(), factories.UserFactory()
        lesson = factories.LessonFactory()
        factories.ChoiceQuestionFactory(lesson=lesson, order=1, options=4)
        factories.NumericQuestionFactory(lesson=lesson, order=2)
        factories.NumericQuestionFactory(lesson=lesson, order=3, answer_form=Question.AnswerForm.CHOICE)
        factories.PromptQuestionFactory(lesson=lesson, order=4)
        factories.RecallQuestionFactory(lesson=lesson, order=5)
        factories.CodeQuestionFactory(lesson=lesson, order=6)
        study_everything(learner, lesson)
        study_everything(twin, lesson)
    assert _schedule(learner) == _schedule(twin)  # twins: the same history at the same moments

    login = ["--server", live_server.url, "--username", learner.username, "--password", factories.PASSWORD]
    pack_file, choices_file, answers_file = tmp_path / "pack.json", tmp_path / "choices.json", tmp_path / "answers.json"
    _client("download", *login, "--out", str(pack_file), "--device", "test phone")
    pack = json.loads(pack_file.read_text(encoding="utf-8"))
    assert pack["item_count"] == 6 and pack["device"] == "test phone"

    choices, right = _choices(pack)
    choices_file.write_text(json.dumps(choices), encoding="utf-8")
    shown = _client("answer", "--pack", str(pack_file), "--choices", str(choices_file), "--out", str(answers_file))
    assert shown.count(": right") == 2 and shown.count(": wrong") == 1 and shown.count(": self-rated") == 2
    assert shown.count(": graded when you are back online") == 1 and SPEC.reference.strip() in shown
    answers = json.loads(answers_file.read_text(encoding="utf-8"))
    assert all("correct" not in entry for entry in answers)

    uploaded = _client("upload", *login, "--answers", str(answers_file))
    assert uploaded.count(": applied") == 6 and "server's stands" not in uploaded
    logs = ReviewLog.objects.filter(user=learner, source="offline")
    assert logs.count() == 6 and not logs.filter(client_graded=True).exists()
    assert logs.get(card__question__kind="code").rating == ReviewLog.Rating.HARD  # the checker's suggestion

    _answer_online(twin, lesson, answers, pack, choices, right)
    assert _schedule(learner) == _schedule(twin)
