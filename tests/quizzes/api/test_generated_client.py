"""A client generated from openapi.yaml by openapi-python-client (pinned in requirements-dev.txt) reads a lesson
with its sections, figures and checkpoints and answers a checkpoint against a live server (issue 28, item 1)."""

from __future__ import annotations

import importlib
import io
import os
import shutil
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest
from celery import current_app
from django.conf import settings
from knox.models import AuthToken

from quizzes.content.teaching import parse_teaching
from quizzes.privacy.services import data_export_run
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


FCM = "fcm-registration:" + "x" * 140


def log_in(generated, live_server, user, device_id, *, password=factories.PASSWORD):
    from quizsite_client.api.auth import auth_login
    from quizsite_client.models import LoginRequest, LoginResult

    anonymous = generated.Client(base_url=live_server.url)
    body = LoginRequest(username=user.username, password=password, device_id=device_id, device_name=device_id)
    result = auth_login.sync_detailed(client=anonymous, body=body)
    assert result.status_code == 200 and isinstance(result.parsed, LoginResult), result.content
    client = generated.AuthenticatedClient(base_url=live_server.url, token=result.parsed.token, prefix="Token")
    return client, result.parsed


def profile_status(client) -> int:
    from quizsite_client.api.profile import profile_read

    return profile_read.sync_detailed(client=client).status_code


@pytest.mark.django_db(transaction=True)
def test_generated_client_lists_registers_renames_and_revokes_devices(generated, live_server):
    from quizsite_client.api.devices import devices_delete, devices_list, devices_push_register, devices_rename
    from quizsite_client.models import DeviceList, PatchedDeviceRenameRequest, PushRegisterRequest, PushServiceEnum

    user = factories.UserFactory()
    phone, phone_login = log_in(generated, live_server, user, "phone-1")
    tablet, tablet_login = log_in(generated, live_server, user, "tablet-1")

    listed = devices_list.sync_detailed(client=phone)
    assert listed.status_code == 200 and isinstance(listed.parsed, DeviceList)
    by_id = {d.device_id: d for d in listed.parsed.devices}
    assert set(by_id) == {"phone-1", "tablet-1"}
    assert by_id["phone-1"].current is True and by_id["tablet-1"].current is False
    assert all(d.signed_in for d in by_id.values())

    pushed = devices_push_register.sync_detailed(
        device_pk=phone_login.device.id, client=phone, body=PushRegisterRequest(service=PushServiceEnum.FCM, token=FCM)
    )
    assert pushed.status_code == 200 and pushed.parsed.push == PushServiceEnum.FCM

    renamed = devices_rename.sync_detailed(
        device_pk=phone_login.device.id, client=phone, body=PatchedDeviceRenameRequest(name="Work phone")
    )
    assert renamed.status_code == 200 and renamed.parsed.name == "Work phone"

    assert profile_status(tablet) == 200
    revoked = devices_delete.sync_detailed(device_pk=tablet_login.device.id, client=phone)
    assert revoked.status_code == 204
    assert profile_status(tablet) == 401
    assert profile_status(phone) == 200
    remaining = devices_list.sync(client=phone).devices
    assert [(d.device_id, d.name, d.push) for d in remaining] == [("phone-1", "Work phone", PushServiceEnum.FCM)]


@pytest.mark.django_db(transaction=True)
def test_generated_client_changes_the_password_and_the_other_tokens_die(generated, live_server):
    from quizsite_client.api.auth import auth_password_change
    from quizsite_client.models import PasswordChangeRequest, PasswordChangeResult

    user = factories.UserFactory()
    phone, _ = log_in(generated, live_server, user, "phone-1")
    tablet, _ = log_in(generated, live_server, user, "tablet-1")
    new_password = "a-new-Passphrase-9471"

    changed = auth_password_change.sync_detailed(
        client=phone, body=PasswordChangeRequest(current_password=factories.PASSWORD, new_password=new_password)
    )
    assert changed.status_code == 200 and isinstance(changed.parsed, PasswordChangeResult)
    assert changed.parsed.tokens_ended == 1
    assert profile_status(tablet) == 401
    assert profile_status(phone) == 200
    _again, relogin = log_in(generated, live_server, user, "tablet-1", password=new_password)
    assert relogin.device.device_id == "tablet-1"


@pytest.mark.django_db(transaction=True)
def test_generated_client_exports_json_and_an_apkg(generated, live_server, settings, tmp_path):
    from quizsite_client.api.profile import profile_exports_create, profile_exports_read
    from quizsite_client.models import ExportDocument, ExportFileKindEnum, ExportJob, ExportJobStatusEnum

    settings.MEDIA_ROOT = str(tmp_path / "media")
    user = factories.UserFactory()
    client, _ = log_in(generated, live_server, user, "phone-1")

    started = profile_exports_create.sync_detailed(client=client)
    assert started.status_code == 202 and isinstance(started.parsed, ExportJob)
    job = started.parsed
    if job.status == ExportJobStatusEnum.PENDING and not current_app.conf.task_always_eager:
        data_export_run(export_id=job.id)  # what the worker does with Redis (tests/ops runs a real one)
    for _poll in range(50):
        job = profile_exports_read.sync(export_id=job.id, client=client)
        if job.status in (ExportJobStatusEnum.READY, ExportJobStatusEnum.FAILED):
            break
        time.sleep(0.1)
    assert job.status == ExportJobStatusEnum.READY, job.error
    links = {f.kind: f.url for f in job.files}
    assert set(links) == {ExportFileKindEnum.JSON, ExportFileKindEnum.APKG}

    # the links are signed and need no token: the generated client's own HTTP client, without credentials
    with generated.Client(base_url=live_server.url).get_httpx_client() as http:
        document = http.get(links[ExportFileKindEnum.JSON])
        deck = http.get(links[ExportFileKindEnum.APKG])
    assert document.status_code == 200 and deck.status_code == 200
    parsed = ExportDocument.from_dict(document.json())
    assert parsed.profile.username == user.username and parsed.cards == []
    names = zipfile.ZipFile(io.BytesIO(deck.content)).namelist()
    assert {"collection.anki2", "collection.anki21"} & set(names)


@pytest.mark.django_db(transaction=True)
def test_generated_client_deletes_the_account_with_the_password(generated, live_server):
    from django.contrib.auth import get_user_model
    from quizsite_client.api.profile import profile_delete
    from quizsite_client.models import AccountDeleteInputRequest

    user = factories.UserFactory()
    client, _ = log_in(generated, live_server, user, "phone-1")
    refused = profile_delete.sync_detailed(client=client, body=AccountDeleteInputRequest(password="not-the-password"))
    assert refused.status_code == 403 and get_user_model().objects.filter(pk=user.pk).exists()
    deleted = profile_delete.sync_detailed(client=client, body=AccountDeleteInputRequest(password=factories.PASSWORD))
    assert deleted.status_code == 204
    assert profile_status(client) == 401
    assert not get_user_model().objects.filter(pk=user.pk).exists()
