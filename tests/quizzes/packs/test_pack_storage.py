"""How a pack is stored and read back: numeric variants shared by reference, the shared copies read once per
process, and the same bytes (ETag) whichever process renders the pack."""

from __future__ import annotations

import datetime as dt

import pytest
import time_machine
from django.utils import timezone

from quizzes.api import representations as r
from quizzes.core import rendering
from quizzes.models import PackedVariant, PackItem, ReviewCard, ReviewLog
from quizzes.packs import selectors
from quizzes.packs.services import pack_issue
from tests import factories

pytestmark = pytest.mark.django_db
URL = "/api/v1/packs/"


def forget_process_memos() -> None:
    """What a fresh worker process knows: nothing (the shared render cache stays: it is Redis, not the process)."""
    selectors._SHARED.clear()
    rendering._RENDERED.clear()


def test_learners_drawing_the_same_variant_share_one_stored_copy(world):
    question = world[2]["numeric"]
    question.fixed_seed = 7  # every learner draws seed 7
    question.save()
    other = factories.UserFactory()
    card = ReviewCard.objects.create(user=other, question=question, due=timezone.now())
    ReviewLog.objects.create(user=other, card=card, rating=3, reviewed_at=timezone.now())  # answered online
    first = pack_issue(user=world[0])
    count = PackedVariant.objects.count()
    second = pack_issue(user=other)
    assert PackedVariant.objects.count() == count  # found by what generates it, not stored again
    mine = PackItem.objects.get(pack=first, question=question)
    theirs = PackItem.objects.get(pack=second, question=question)
    assert mine.packed_variant_id == theirs.packed_variant_id and mine.variant_seed == theirs.variant_seed == 7
    shown = {i["question"]["id"]: i for i in r.pack_public(first)["items"]}[question.pk]
    assert shown["numeric"]["prompt"] == mine.variant["prompt"] and shown["variant_seed"] == 7


def test_another_process_renders_the_same_bytes(api, world):
    with time_machine.travel(timezone.now(), tick=False):  # the same server_time in both
        created = api.post(URL, {}, format="json")
        assert created.status_code == 201
        forget_process_memos()
        again = api.get(f"{URL}{created.json()['id']}/")
    assert again.content == created.content and again["ETag"] == created["ETag"]
    forget_process_memos()
    rendering_cache_version = rendering.RENDERER
    try:
        rendering.RENDERER = "another-renderer"  # nothing shared: every text rendered afresh
        assert api.get(f"{URL}{created.json()['id']}/")["ETag"] == created["ETag"]
    finally:
        rendering.RENDERER = rendering_cache_version


def test_reading_a_pack_back_is_one_query_once_its_copies_are_known(world, django_assert_num_queries):
    pack = pack_issue(user=world[0])
    forget_process_memos()
    now = timezone.now()
    with django_assert_num_queries(3):  # the items (with their versions' digests), the versions, the variants
        first = r.pack_public(pack, now=now)
    with django_assert_num_queries(1):
        assert r.pack_public(pack, now=now) == first


@pytest.mark.django_db(transaction=True)
def test_migration_moves_stored_variants_to_shared_rows():
    """Pack items stored before variants were shared keep exactly their variant, now by reference (one row for
    items that showed the same one)."""
    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor

    from attention_engine import generators

    before = [("quizzes", "0012_i17_review_packs")]
    executor = MigrationExecutor(connection)
    latest = executor.loader.graph.leaf_nodes("quizzes")
    executor.migrate(before)
    try:
        old = executor.loader.project_state(before).apps
        user = old.get_model("auth", "User").objects.create(username="old-learner")
        lesson = old.get_model("quizzes", "Lesson").objects.create(key="old", title="旧课", order=1)
        Question = old.get_model("quizzes", "Question")
        questions = [
            Question.objects.create(
                lesson=lesson,
                key=f"q{n}",
                kind="numeric",
                template="softmax_sharpness",
                answer_form="input",
                template_version=1,
            )
            for n in range(3)
        ]
        now = timezone.now()
        pack = old.get_model("quizzes", "ReviewPack").objects.create(
            user=user, horizon_days=1, seed=1, issued_at=now, expires_at=now + dt.timedelta(days=14)
        )
        PackedQuestion = old.get_model("quizzes", "PackedQuestion")
        packed = PackedQuestion.objects.create(question=questions[0], digest="d", snapshot={})
        variant = generators.generate("softmax_sharpness", 3).to_dict()
        OldItem = old.get_model("quizzes", "PackItem")
        for position, question in enumerate(questions):
            OldItem.objects.create(
                pack=pack, question=question, position=position, packed=packed, due=now,
                variant=variant if position < 2 else None, variant_seed=3 if position < 2 else None,
                template_version=1 if position < 2 else None,
            )  # fmt: skip

        executor = MigrationExecutor(connection)
        executor.migrate(latest)

        new = executor.loader.project_state(latest).apps
        rows = list(new.get_model("quizzes", "PackedVariant").objects.all())
        assert len(rows) == 1 and rows[0].variant == variant and rows[0].seed == 3
        refs = list(new.get_model("quizzes", "PackItem").objects.order_by("position").values_list("packed_variant"))
        assert refs == [(rows[0].pk,), (rows[0].pk,), (None,)]
    finally:
        MigrationExecutor(connection).migrate(latest)
