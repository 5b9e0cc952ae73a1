"""A client generated from openapi.yaml by openapi-python-client (pinned in requirements-dev.txt) reads a lesson
with its sections, figures and checkpoints and answers a checkpoint against a live server (issue 28, item 1)."""

from __future__ import annotations

import importlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings
from knox.models import AuthToken

from quizzes.content.teaching import parse_teaching
from tests import factories
from tests.quizzes.web.shell.test_lesson_teaching import TEACHING

GENERATOR = Path(sys.executable).with_name("openapi-python-client")
OPTIONS = ("--meta", "none", "--config")


@pytest.fixture
def generated(tmp_path, monkeypatch):
    if not GENERATOR.exists():
        if os.environ.get("CI") == "true":
            pytest.fail("openapi-python-client is not installed (requirements-dev.txt)")
        pytest.skip("openapi-python-client is not installed (pip install -r requirements-dev.txt)")
    config = tmp_path / "config.yaml"
    config.write_text("post_hooks: []\npackage_name_override: quizsite_client\n")
    out = tmp_path / "quizsite_client"
    subprocess.run(
        [
            GENERATOR,
            "generate",
            "--path",
            Path(settings.BASE_DIR) / "openapi.yaml",
            "--output-path",
            out,
            *OPTIONS,
            config,
        ],
        check=True,
        capture_output=True,
        timeout=120,
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    yield importlib.import_module("quizsite_client")
    for name in [m for m in sys.modules if m.split(".")[0] == "quizsite_client"]:
        del sys.modules[name]
    shutil.rmtree(out, ignore_errors=True)


@pytest.mark.django_db(transaction=True)
def test_generated_client_reads_a_lesson_and_answers_a_checkpoint(generated, live_server):
    from quizsite_client.api.lessons import lessons_checkpoint_answer, lessons_read
    from quizsite_client.models import CheckpointAnswerRequest, CheckpointAnswerResult, CheckpointConflict

    user = factories.UserFactory()
    _instance, token = AuthToken.objects.create(user=user)
    lesson = factories.LessonFactory(key="sdpa-client", teaching=parse_teaching(TEACHING)[0])
    factories.ChoiceQuestionFactory(lesson=lesson)
    client = generated.AuthenticatedClient(base_url=live_server.url, token=token, prefix="Token")

    detail = lessons_read.sync(lesson_id=lesson.pk, client=client)
    idea, mask = detail.sections
    assert idea.figure.kind == "shapes" and len(idea.figure.steps) == 7 and idea.figure.svg.startswith("<svg")
    assert mask.figure.heatmap.weights and mask.figure.heatmap.masked[0][1] is True
    checkpoint = mask.checkpoint
    assert checkpoint.locked is False and checkpoint.result is None
    by_text = {o.text: o.id for o in checkpoint.options}

    answer = lessons_checkpoint_answer.sync(
        lesson_id=lesson.pk, section_key="mask", client=client, body=CheckpointAnswerRequest(option_id=by_text["3"])
    )
    assert isinstance(answer, CheckpointAnswerResult) and answer.checkpoint.result.answered_correctly is True
    conflict = lessons_checkpoint_answer.sync_detailed(
        lesson_id=lesson.pk, section_key="mask", client=client, body=CheckpointAnswerRequest(option_id=by_text["6"])
    )
    assert conflict.status_code == 409 and isinstance(conflict.parsed, CheckpointConflict)
    assert lessons_read.sync(lesson_id=lesson.pk, client=client).sections[1].checkpoint.locked is True
