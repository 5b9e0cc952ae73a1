"""Migration 0023: packs' stored question copies become the first versions, each question gets a version of its
content as it is, and existing attempt items are pinned to it (earlier history is not recoverable)."""

from __future__ import annotations

import datetime as dt

import pytest


@pytest.mark.django_db(transaction=True)
def test_migration_numbers_pack_copies_and_pins_attempt_items_to_the_content_now():
    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor
    from django.utils import timezone

    before = [("quizzes", "0022_reports")]
    executor = MigrationExecutor(connection)
    latest = executor.loader.graph.leaf_nodes("quizzes")
    executor.migrate(before)
    try:
        old = executor.loader.project_state(before).apps
        user = old.get_model("auth", "User").objects.create(username="old-learner")
        lesson = old.get_model("quizzes", "Lesson").objects.create(key="old", title="旧课", order=1)
        question = old.get_model("quizzes", "Question").objects.create(
            lesson=lesson, key="old-q", kind="choice", prompt="旧题干", source="file"
        )
        Option = old.get_model("quizzes", "Option")
        right = Option.objects.create(question=question, key="a", text="对的", is_correct=True, order=1)
        Option.objects.create(question=question, key="b", text="错的", order=2)
        now = timezone.now()
        attempt = old.get_model("quizzes", "Attempt").objects.create(user=user, lesson=lesson, number=1, seed=1)
        old.get_model("quizzes", "AttemptItem").objects.create(
            attempt=attempt, question=question, position=0, option_order=[right.pk]
        )
        copy = {
            "question": {"id": question.pk, "key": "old-q", "kind": "choice", "prompt": "包里的题干"},
            "options": [],
        }
        packed = old.get_model("quizzes", "PackedQuestion").objects.create(question=question, digest="d", snapshot=copy)
        pack = old.get_model("quizzes", "ReviewPack").objects.create(
            user=user, horizon_days=1, seed=1, issued_at=now, expires_at=now + dt.timedelta(days=14)
        )
        old.get_model("quizzes", "PackItem").objects.create(
            pack=pack, question=question, position=0, packed=packed, due=now
        )

        executor = MigrationExecutor(connection)
        executor.migrate(latest)

        new = executor.loader.project_state(latest).apps
        versions = list(new.get_model("quizzes", "QuestionVersion").objects.order_by("number"))
        assert [(v.number, v.source) for v in versions] == [(1, "file"), (2, "file")]
        assert versions[0].pk == packed.pk and versions[0].snapshot == copy  # what the pack showed, untouched
        current = versions[1].snapshot
        assert current["question"]["prompt"] == "旧题干"
        assert [(o["key"], o["is_correct"], o["retired"]) for o in current["options"]] == [
            ("a", True, False),
            ("b", False, False),
        ]
        assert new.get_model("quizzes", "AttemptItem").objects.get().version_id == versions[1].pk
        assert new.get_model("quizzes", "PackItem").objects.get().packed_id == packed.pk
    finally:
        MigrationExecutor(connection).migrate(latest)
